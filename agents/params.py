"""The tuning knobs of topic discovery, the offline agent, dreaming and figures, as frozen parameter objects.

Each is passed in (`discover(..., params=DiscoveryParams())`, `OfflineBackend(params=OfflineParams())`),
never read from module globals, so a caller or a test changes one knob by making a new object
(`dataclasses.replace(OfflineParams(), target_ratio=None)`) without touching anyone else's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class DiscoveryParams:
    """What makes a topic or a collection (`wikigen.agents.topics.discover`)."""

    min_docs: int = 2  # a topic must occur in at least this many documents
    max_topics: int | None = None  # None: from the corpus's size (see topic_limit)
    heading_cap: int = 700  # a heading topic's quote: the section under it
    term_cap: int = 600  # a defined term's quote: its defining sentence
    phrase_cap: int = 450  # a salient phrase or a name: the sentence(s) around it
    opening_cap: int = 500  # a document's opening passage
    opening_window: int = 2000  # ... found within this many characters of its start
    outline_terms: int = 12  # defined terms listed in a document's outline
    outline_dates: int = 6  # dates listed in a document's outline (from its first 5000 characters)
    # the number of topics when max_topics is None: 2 per document + 20, within [12, 320], and at most
    # one per 5000 characters of the corpus
    min_topics: int = 12
    topic_ceiling: int = 320
    chars_per_topic: int = 5000
    # topics are picked round-robin across the kinds of evidence, this many of each kind a round
    kind_weights: Mapping[str, int] = field(
        default_factory=lambda: MappingProxyType({"heading": 4, "term": 2, "entity": 1, "phrase": 2})
    )
    # topics by meaning (wikigen.agents.meaning): candidates are gathered beyond the limit, boilerplate
    # is dropped by context coherence, variants are merged, then the limit applies
    pool_factor: int = 3  # candidates gathered: this many times the topic limit
    phrase_pool: int = 1  # ... of which salient phrases: this many times the limit
    variant_pool: int = 4  # headings of one document only, as possible variants: this many times the limit
    max_spread: float = 0.7  # a phrase spread this evenly through its documents is boilerplate (topics._spread)
    min_section_share: float = 0.1  # ... as is one under no heading more often than this share (topics._section_share)
    title_weight: float = 0.5  # similarity = title_weight * titles + (1 - title_weight) * contexts
    merge_threshold: float = 0.3  # ... at least this to merge two candidates into one topic
    context_terms: int = 60  # words kept in a context vector
    context_chars: int = 300  # of each quote, the first characters read for its context
    max_contexts: int = 12  # documents whose contexts stand for a candidate
    pair_terms: int = 8  # candidates are compared when they share one of their top words ...
    max_posting: int = 150  # ... held by at most this many candidates
    # collections (wikigen.agents.doc_collections)
    head_share: float = 0.2  # a word ending the names/titles of >= 20% of the documents is a head noun
    kind_max_share: float = 0.5  # a kind in more than half of the documents is too general
    folder_max_share: float = 0.8  # a folder holding more of the corpus than this is no collection

    def topic_limit(self, n_docs: int, total_chars: int) -> int:
        if self.max_topics is not None:
            return self.max_topics
        return max(self.min_topics, min(self.topic_ceiling, 2 * n_docs + 20, total_chars // self.chars_per_topic))


@dataclass(frozen=True)
class OfflineParams:
    """The offline agent's quote budgets and size budget (`wikigen.agents.budget`, `wikigen.agents.offline`)."""

    topics_per_session: int = 80  # topic pages an agent writes in one session, at most
    max_docs_per_topic: int = 8  # documents quoted on one topic page, at most: a quote costs about twice as much
    # there as on its document's page (the doc id in its header, a heading linking the
    # document, an entry in `sources`), so the rest are quoted on their own pages
    max_key_passages: int = 100  # key passages quoted on a document page, at most (the budget binds first)
    key_passage_chars: int = 160  # one key passage's cap (it still runs to its sentence's end: sentence_chars)
    max_title: int = 100  # a page title or link label, at most
    max_listed: int = 3  # under the size budget, a topic page links this many of the documents it does not
    # quote and counts the rest
    related: int = 3  # related topics listed at the end of a topic page
    # Quote budgets, relative to each document's size: the wiki stays far below the corpus.
    topic_fraction: float = 0.04  # of a document's characters, spent on citing it across all topic pages
    doc_fraction: float = 0.45  # of a document's characters, quoted on its own page (opening, key passages)
    min_quote: int = 150  # no quote shorter than this is planned (it would not carry its fact)
    min_opening: int = 200  # a document page's opening quote, at least (title, parties, date)
    max_opening: int = 500  # ... and at most
    kind_cap: Mapping[str, int] = field(
        default_factory=lambda: MappingProxyType({"heading": 700, "term": 600, "entity": 450, "phrase": 450})
    )  # one quote's cap, by evidence kind
    # The size budget: wiki characters / corpus characters the agent plans for (None: no size budget,
    # the quote fractions alone), counted like the size guard (the larger of characters and tokens).
    target_ratio: float | None = 0.40
    min_scale: float = 0.3  # quotes shrink no further; below it the least supported topics go instead
    # What a page costs besides its quotes' text, in characters, measured on built wikis: the front matter
    # keys and a page's index.md line (page_cost), a quote's header line and blank lines (quote_cost), how
    # much of a quote's cap a quote fills on average (quote_fill), log.md per agent and session (log_cost).
    page_cost: int = 190
    quote_cost: int = 34
    quote_fill: float = 1.0
    sentence_chars: int = 300  # a quote under a shorter cap still runs to its sentence's end: its length then
    # (key passages under a 160 cap: mean 342, median 294 on cuad-dev)
    log_cost: int = 260
    wiki_chars_per_token: float = 3.8  # wiki pages' characters a token (cuad-dev: 3.5 with most quotes on topic pages,
    # each spelling its doc id; 3.9 with most on document pages, which do not)


@dataclass(frozen=True)
class DreamParams:
    """What a dreaming session does with the questions the wiki served weakly (`wikigen.agents.dreaming`)."""

    subjects_per_session: int = 12  # subjects worked on in one session, the most asked first
    probe: int = 3  # questions of a subject asked again to see whether the wiki serves it now
    answers_per_subject: int = 12  # questions of a subject whose answers are looked up in the corpus
    similarity: float = 0.6  # two questions are one subject when their subject terms overlap this much (Jaccard)
    common_share: float = 0.3  # a term in this share of the subjects asked about is how people ask, not what ...
    common_min: int = 5  # ... once there are that many subjects
    window_chars: int = 800  # a document's quote on a subject: a window of whole sentences of about this size
    window_passages: int = 3  # ... from the document's best passages for the subject
    max_docs: int = 400  # documents one subject page quotes, at most
    expansion_terms: int = 6  # words the found answers share, added to the subject's search
    expansion_share: float = 0.5  # ... each in at least this share of the answers (and in two)
    expansion_weight: float = 0.3  # ... weighing this much of a subject term of the same idf
    max_aliases: int = 8  # phrasings people used, kept as the page's aliases
    related: int = 3  # topic pages on the subject the page links
    size_share: float = 0.75  # dreaming adds nothing past this share of the wiki's size limit
    merge_overlap: float = 0.6  # two dream pages whose quotes are this much the same spans are merged


@dataclass(frozen=True)
class FigureParams:
    """Which labels are figures and how many get a page (`wikigen.agents.figures`, `wikigen.agents.figure_pages`)."""

    max_label_words: int = 7  # a row label of more words is a sentence, not a label
    max_label_chars: int = 60
    phrase_words: int = 3  # a phrase label: at most this many content words before the value
    max_line_chars: int = 220  # a row longer than this is not one table line
    phrase_chars: int = 260  # a phrase figure quotes the value's sentence, cut to about this
    max_docs: int = 24  # documents quoted on one figure page, at most
    share: float = 1.0  # of the wiki's target size, figure pages take at most this (0.25 did not pay)
