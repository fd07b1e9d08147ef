"""Topics by meaning (wikigen.agents.meaning, wikigen.agents.topics): variants of one subject merged into
one topic with its wordings as aliases, boilerplate phrases dropped by how they are used, titles in
their most common written form, slugs from the title. Small hand-written corpora, one per behaviour."""

from __future__ import annotations

from wikigen.agents.params import DiscoveryParams
from wikigen.agents.topics import discover
from wikigen.agents.words import norm_key, singular

FILLER = (
    "The parties shall keep records of their work. Each party appoints a manager for the project. "
    "The manager reports monthly on progress, staffing and open issues. "
)

LAW = {
    "gov-1": "12. Governing Law. This Agreement shall be governed by and construed in accordance with the laws "
    "of the State of New York, and the courts of New York have exclusive jurisdiction.",
    "gov-2": "9. Governing Law. This Agreement is governed by the laws of England and Wales, and the courts of "
    "England have exclusive jurisdiction over any dispute.",
    "gov-3": "7. Governing Law. This Agreement shall be governed by the laws of Ireland, and the courts of "
    "Ireland have exclusive jurisdiction over any claim.",
    "choice-1": "14. Choice of Law. This Agreement shall be governed by and construed under the laws of the State "
    "of Delaware; the courts of Delaware have exclusive jurisdiction.",
    "choice-2": "8. Choice of Law. This Agreement is governed by the laws of Ontario, and the courts of Ontario "
    "have exclusive jurisdiction over disputes.",
    "applicable": "Article 10 - Applicable law\n\nThis agreement is governed by Dutch law and the courts of "
    "Amsterdam have exclusive jurisdiction.",
}
CONF = (
    "Confidentiality. Each party shall keep the other party's confidential information secret, use it "
    "only for this Agreement and disclose it only to its employees who need to know it."
)


def _law_corpus() -> dict[str, str]:
    texts = {}
    for n, (doc, law) in enumerate(sorted(LAW.items())):
        texts[doc] = (
            f"SERVICES AGREEMENT\n\n1. Services.\n{FILLER}\n\n2. {CONF}\n\n3. Fees.\n"
            f"Fees are paid within {30 + n} days of invoice.\n\n{law}\n"
        )
    return texts


def test_one_topic_for_governing_law_whatever_its_wording():
    cat = discover(_law_corpus())
    law = cat.topic("governing law")
    assert law is not None
    assert law.title == "Governing Law"  # the most common written form
    assert {"Choice of Law", "Applicable law"} <= set(law.aliases)
    assert set(law.doc_ids) == set(LAW)  # every wording's documents on one page
    assert cat.topic("choice of law") is law  # a variant's key finds the merged topic
    assert law.slug == "topic-governing-law"
    keys_with_law = [t.key for t in cat.topics if "law" in t.key]
    assert keys_with_law == ["governing law"]  # no second page for a variant
    conf = cat.topic("confidentiality")
    assert conf is not None and conf is not law  # another subject stays apart


def test_merging_can_be_compared_by_an_encoder():
    class Letters:
        """A stand-in encoder (the real one is tested in test_dense_encoder): titles sharing the word
        "law" are alike, others are not."""

        name, dim = "letters", 2

        def encode(self, texts):
            import numpy as np

            rows = [[1.0, 0.0] if "law" in t.lower() else [0.0, 1.0] for t in texts]
            return np.asarray(rows, dtype="float32")

    cat = discover(_law_corpus(), encoder=Letters())
    law = cat.topic("governing law")
    assert law is not None and set(law.doc_ids) == set(LAW)


SECTIONS = ["Scope", "Delivery", "Acceptance", "Fees", "Warranty", "Indemnity", "Term", "Notices"]


def _section(name: str, n: int, doc: int) -> str:
    body = f"The {name.lower()} of work number {doc}{n} is agreed by the parties in writing. " + FILLER * 3
    if name == "Indemnity" and doc >= 3:
        body = (
            "The Supplier shall hold harmless the Customer from claims. The obligation to hold harmless "
            "covers costs and fees. The Customer may ask the Supplier to hold harmless its staff. To hold harmless "
            "is to pay. Each party will hold harmless the other from third-party claims. "
        ) + body
    if doc < 3:  # the connective: in every section of the documents that use it
        body += f"This is subject to section {n + 2} and subject to the limits agreed. "
    return f"{n + 1}. {name}.\n{body}\n"


def test_a_connective_spread_through_its_documents_is_no_topic():
    texts = {
        f"doc-{d}": "AGREEMENT\n\n" + "\n".join(_section(s, n, d) for n, s in enumerate(SECTIONS)) for d in range(6)
    }
    texts.update({f"other-{d}": "MEMO\n\n" + FILLER * 3 for d in range(2)})
    report: dict = {}
    cat = discover(texts, report=report)
    assert "subject to section" in report["boilerplate"]
    assert report["spread"]["subject to section"] > DiscoveryParams().max_spread
    assert all("subject to" not in t.key for t in cat.topics)
    # a subject's phrase gathers in its section: not boilerplate
    assert "hold harmless" not in report["boilerplate"]
    assert report["spread"]["hold harmless"] < DiscoveryParams().max_spread


def test_titles_are_written_forms_and_slugs_come_from_them():
    texts = {
        f"d{i}": f"CONTRACT\n\n1. Taxes.\nEach party pays its own taxes and duties {i}.\n\n2. Parties.\n"
        f"The parties are named above and sign below {i}.\n"
        for i in range(3)
    }
    cat = discover(texts)
    titles = {t.title for t in cat.topics}
    assert {"Taxes", "Parties"} <= titles
    assert {t.slug for t in cat.topics} >= {"topic-taxes", "topic-parties"}
    assert singular("taxes") == "tax" and singular("parties") == "party" and singular("addresses") == "address"
    assert norm_key("Taxes") == "tax"


def test_korean_titles_make_readable_slugs():
    texts = {
        f"ko/{i}": f"용역계약서\n\n제1조(목적) 이 계약은 용역 {i}의 제공에 관한 사항을 정한다.\n\n"
        f"제2조(비밀유지) 을은 비밀정보를 제3자에게 누설하지 아니한다 {i}.\n"
        for i in range(3)
    }
    cat = discover(texts)
    slugs = {t.slug for t in cat.topics}
    assert {"topic-목적", "topic-비밀유지"} <= slugs


def test_merging_is_deterministic():
    a = discover(_law_corpus())
    b = discover(dict(reversed(list(_law_corpus().items()))))
    assert [(t.key, t.title, t.aliases, t.spans, t.slug) for t in a.topics] == [
        (t.key, t.title, t.aliases, t.spans, t.slug) for t in b.topics
    ]


def test_slug_rule_for_every_script():
    from wikigen.core.slugs import doc_slug, is_slug, slugify, strip_accents, topic_slug, unique_slugs

    assert slugify("Governing Law") == "governing-law"
    assert slugify("제5조(비밀유지)") == "제5조-비밀유지"
    assert slugify("Договор поставки") == "договор-поставки"
    assert topic_slug("Café") == "topic-café" and strip_accents("topic-café") == "topic-cafe"
    assert doc_slug("ko/계약서") == "doc-ko-계약서"  # readable, no hash needed
    assert doc_slug("ko/계약서") != doc_slug("ko/계약_서")  # ids that fold alike keep a hash
    assert unique_slugs("topic-", ["Term", "term", "Terms"]) == [
        "topic-term",
        unique_slugs("topic-", ["Term", "term"])[1],
        "topic-terms",
    ]
    assert len(set(unique_slugs("topic-", ["Term", "term"]))) == 2
    long = topic_slug("계약" * 100)
    assert is_slug(long) and len(long.encode("utf-8")) <= 200


def test_a_variant_joins_a_wording_placed_after_it():
    """A one-document heading ("Applicable law and disputes") whose closest wording ("Governing law and
    disputes", another variant) is placed after it still joins that wording's cluster."""
    from wikigen.agents.catalog import Topic
    from wikigen.agents.meaning import _greedy

    def heading(key: str, doc: str) -> Topic:
        return Topic(key=key, kind="heading", title=key, spans={doc: (0, 10)}, via={doc: "heading"})

    topics = [
        Topic(
            key="governing law",
            kind="heading",
            title="Governing Law",
            spans={"a": (0, 10), "b": (0, 10)},
            via={"a": "heading", "b": "heading"},
        ),
        heading("applicable law and dispute", "c"),
        heading("governing law and dispute", "d"),
    ]
    sims = {(0, 1): 0.2, (0, 2): 0.5, (1, 2): 0.4}
    assert _greedy(topics, [True, False, False], sims, DiscoveryParams()) == [[0, 2, 1]]
    # below the threshold it stays out
    assert _greedy(topics, [True, False, False], {(0, 1): 0.2, (0, 2): 0.5, (1, 2): 0.1}, DiscoveryParams()) == [[0, 2]]


def test_a_subject_quoted_alike_is_more_coherent_than_a_structural_heading():
    """coherence: each document's context against the others'. Insurance sections share their words;
    "Purpose" sections head different things in each document."""
    from collections import Counter

    from wikigen.agents.catalog import Topic
    from wikigen.agents.meaning import coherence, content_words

    insurance = [
        "The Supplier shall maintain insurance cover of public liability with a reputable insurer.",
        "The Contractor must hold public liability insurance cover with an insurer of good standing.",
        "Each party keeps insurance cover, including public liability, with a reputable insurer.",
        "Tenant shall insure the premises and keep liability insurance cover with an insurer.",
    ]
    purpose = [
        "This policy sets the rules for travel bookings and expense claims by staff members.",
        "The parties wish to exchange pricing information to evaluate a possible supply of metals.",
        "This runbook explains how the operations team restores database backups after outages.",
        "The licence allows the customer to embed mapping tiles within its delivery application.",
    ]
    texts = {
        f"d{i}": f"Insurance. {a}\n\nPurpose. {b}\n\nNotices go to the registered office of each party."
        for i, (a, b) in enumerate(zip(insurance, purpose))
    }
    texts["e"] = "Notices go to the registered office. A short letter about meetings and staff rotas."
    df = Counter(w for t in texts.values() for w in set(content_words(t)))

    def topic(key, word):
        spans = {d: (t.index(word), t.index("\n\n", t.index(word))) for d, t in texts.items() if word in t}
        return Topic(key=key, title=key.title(), kind="heading", spans=spans)

    alike, apart = coherence(
        [topic("insurance", "Insurance."), topic("purpose", "Purpose.")], texts, df, DiscoveryParams()
    )
    assert alike > 2 * apart and alike > 0.2, (alike, apart)
    assert coherence([topic("insurance", "Insurance.")], texts, df, DiscoveryParams()) == [alike]  # one at a time
