"""The tuning knobs of retrieval and of the extractive answer, in one frozen object passed to the `Answerer` (never module globals).

`RetrievalParams()` holds the values the benchmarks were measured with; a caller that wants other
values builds its own, e.g. `RetrievalParams(max_doc_scope=1)`, and passes it to `Answerer.open`.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_BUDGET = 4000  # tokens of assembled context, when the caller names no budget


@dataclass(frozen=True)
class RetrievalParams:
    # pages and scope
    page_hits: int = 20  # pages looked at per question
    hit_tokens: int = 100  # search passages (and wiki quotes) read per question: ten, and one more per this many
    # tokens of budget
    max_doc_scope: int = 3  # documents a question can name at once
    rare_df: int = 2  # a word in at most this many document pages' identity text identifies a document
    rare_df_share: float = 0.01  # ... and in at most this share of them (at least one page)
    opening_chars: int = 1500  # the opening of a document that identifies it (title, parties, date)
    common_kind_ratio: int = 5  # a collection is not named by a word found in 5x more documents than it has members
    named_share: float = 0.5  # a topic page is named by the question when it holds this share of its title's terms
    asked_share: float = 1 / 3  # the table answers when the field's and its value's words are this share of the
    # asking clause's content words (wikigen.ask.values)
    field_confidence: float = 0.7  # a clause whose words name no field asks for the field a classifier over the
    # sentence encoder's vectors gives this probability (wikigen.ask.meaning; bench/field_meaning_bench.py)
    # shares of the budget that topic quotes may take
    doc_quote_share: float = 0.25  # in a scope of a few named documents
    doc_figure_rows: bool = True  # ... the topic quotes taken in turn with those documents' figure-page lines
    # that match the question, by words and by meaning (both: matching by words
    # alone, or any of their quotes instead of figure lines, did worse)
    max_quote_share: float = 0.5  # with no scope, when search can fill the rest
    # sentence windows
    window_chars: int = 600  # in a many-document scope, windows of whole sentences of about this many characters
    # pseudo-relevance feedback from the wiki
    prf_terms: int = 8  # expansion terms from the named topics' quotes (0: none)
    prf_min_idf: float = 1.5  # ... named by title terms whose idf adds up to at least this
    prf_min_share: float = 0.1  # ... each in at least this share of those quotes
    prf_search: int = 3  # >0: also this many passages per document from the expanded query
    # the wiki's share must be earned (needs the dense vectors; without them every quote is offered)
    wiki_gate_rank: int = 1  # >0: a topic quote for a question with no scope enters only when its passage is
    #     as close to the question (dense cosine) as the search passage at this
    #     rank; 0: no gate
    # the extractive answer (wikigen.ask.compose, wikigen.ask.generate.ExtractiveAnswer): a sentence's score is
    # its coverage of the question's weighted terms plus the weights below
    answer_quotes: int = 3  # quotes in an answer about one document
    quote_chars: int = 500  # a quote is its sentence, widened with the next ones up to about this many characters
    min_coverage: float = 0.2  # the best sentence holds at least this share of the question's weight, else "Not found"
    rank_weight: float = 0.3  # + this / (1 + the place of the sentence's context item)
    passage_weight: float = 1.0  # + this x the cosine of the sentence's passage to the question (with vectors)
    heading_weight: float = 0.5  # + this x the share of the question's weight in the sentence's heading
    context_weight: float = 0.25  # a question term outside the sentence that asks weighs this (1 inside it)


DEFAULT_PARAMS = RetrievalParams()
