"""The answering modes, in one place: the wiki plus search (the default), search alone (the baseline), the wiki alone."""

MODES = ("wiki+search", "search", "wiki")
