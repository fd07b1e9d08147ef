"""Dense (sentence-embedding) retrieval beside the BM25 index: an encoder, a per-document vector cache
and hybrid search. Optional: needs the `dense` extra (numpy, safetensors, tokenizers) and the model
package; see encoder.py."""
