"""The kernel: errors, atomic writes, tokens, text primitives, slugs, locks. Imports nothing else of the project."""
