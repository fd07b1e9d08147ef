"""The corpus index's tantivy schema: one tantivy document per passage.

Fields (all tokenizers are tantivy built-ins, so nothing has to be registered on open):
  doc_id   raw, stored        the key for deletes and the doc_ids filter
  start/end  stored integers  the passage's char offsets
  title    en_stem            the document title, on every passage (boosted a little)
  body     en_stem            the passage text (not stored: the text comes from the TextStore)
  cjk      whitespace         unigrams + bigrams of each CJK run, so 한국어 finds 한국어는
"""

from __future__ import annotations

import tantivy
from wikigen.search.analysis import cjk_grams

# The passages' cut is part of the index: a change of the passage or sentence rule bumps this, so an
# index made before it is rebuilt by the next `wikigen index` (else its BM25 passages and its passage
# vectors, keyed by the new spans, would disagree). 2: the sentence rule of 2026-12 (clause numbers stay
# with their clause, abbreviations do not end a sentence). 3: a token longer than a passage is in none.
SCHEMA_VERSION = 3


def build_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("doc_id", stored=True, tokenizer_name="raw")
    sb.add_integer_field("start", stored=True)
    sb.add_integer_field("end", stored=True)
    sb.add_text_field("title", stored=False, tokenizer_name="en_stem", index_option="freq")
    sb.add_text_field("body", stored=False, tokenizer_name="en_stem")
    sb.add_text_field("cjk", stored=False, tokenizer_name="whitespace", index_option="freq")
    return sb.build()


def passage_document(doc_id: str, title: str, text: str, start: int, end: int) -> tantivy.Document:
    """The tantivy document for one passage (used by the build and by the benchmark's bare run)."""
    body = text[start:end]
    d = tantivy.Document(doc_id=doc_id, start=start, end=end, title=title, body=body)
    grams = cjk_grams(body)
    if grams:
        d.add_text("cjk", grams)
    return d
