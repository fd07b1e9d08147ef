"""wikigen: compile a document corpus into a wiki of linked, verified markdown pages."""

__version__ = "0.1.0"
