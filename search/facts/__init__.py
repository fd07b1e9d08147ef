"""Generic fact detectors over document text: each returns mentions with exact character spans."""
