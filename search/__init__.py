"""Corpus loading and the tantivy index."""
