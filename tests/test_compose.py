"""Answer composition (wikigen.ask.generate.ExtractiveAnswer, wikigen.ask.compose) on small fixtures:
a question about one document, a question across documents, and one that nothing answers."""

from wikigen.ask.compose import asking_part, question_terms
from wikigen.ask.context import ContextItem
from wikigen.ask.generate import ExtractiveAnswer
from wikigen.ask.page_index import terms
from wikigen.ask.params import RetrievalParams
from wikigen.ask.scope import Scope
from wikigen.ask.wording import asks_many

LEASE = (
    "1. TERM\n\n1.1 The lease starts on 1 May 2024 and lasts for five years.\n\n"
    "2. RENT\n\n2.1 The rent is GBP 40,000 a year, payable quarterly in advance. "
    "2.2 The rent is reviewed every two years.\n\n3. GOVERNING LAW\n\n"
    "3.1 This lease is governed by the laws of England and Wales."
)
SUPPLY = (
    "The Supplier delivers the goods within ten days. This Agreement is governed by the laws of "
    "the State of New York. Either party may end it on thirty days' notice."
)
ONE_QUOTE = RetrievalParams(answer_quotes=1)


def passage(doc_id: str, text: str, start: int = 0) -> ContextItem:
    return ContextItem(
        "passage",
        f"{doc_id} (chars {start}-{start + len(text)})",
        text,
        [{"doc_id": doc_id, "start": start, "end": start + len(text)}],
    )


def test_one_document_quotes_the_sentence_that_answers_with_its_span():
    q = "Consider the lease of Harbour Unit 4 between Acme and Beta. What rent is payable?"
    scope = Scope("document", doc_ids=["lease"], removed=set(terms("Harbour Unit 4 Acme Beta")))
    g = ExtractiveAnswer().answer(q, [passage("lease", LEASE, 100)], scope)
    assert 1 <= len(g.spans) <= 3
    first = g.spans[0]
    # the clause heading stays with its first sentence
    assert LEASE[first["start"] - 100 : first["end"] - 100].startswith("2. RENT\n\n2.1 The rent is GBP 40,000 a year")
    assert g.text.startswith('1. "2. RENT 2.1 The rent is GBP 40,000 a year') and "lease (chars 1" in g.text
    for sp in g.spans:  # every quote is verbatim at its span
        quoted = " ".join(LEASE[sp["start"] - 100 : sp["end"] - 100].split())
        assert f'"{quoted}"' in g.text


def test_across_documents_gives_one_line_per_document_with_its_deciding_quote():
    q = "Which agreements are governed by the laws of a state or country?"
    items = [passage("lease", LEASE), passage("supply", SUPPLY)]
    g = ExtractiveAnswer().answer(q, items, Scope("collection", doc_ids=["lease", "supply"]))
    lines = g.text.splitlines()
    assert lines[0] == "Found in 2 documents:"
    assert sorted(sp["doc_id"] for sp in g.spans) == ["lease", "supply"]
    by_doc = {sp["doc_id"]: sp for sp in g.spans}
    assert "governed by the laws of England" in LEASE[by_doc["lease"]["start"] : by_doc["lease"]["end"]]
    assert "laws of the State of New York" in SUPPLY[by_doc["supply"]["start"] : by_doc["supply"]["end"]]
    assert any(line.startswith('- supply: "') for line in lines[1:])


def test_nothing_that_answers_is_not_found():
    g = ExtractiveAnswer().answer(
        "What was the revenue of the semiconductor segment?", [passage("lease", LEASE)], Scope("")
    )
    assert g.text == "Not found in the corpus." and g.spans == ()
    assert ExtractiveAnswer().answer("Anything?", []).text == "Not found in the corpus."


def test_the_question_part_that_asks_weighs_more_than_the_setting():
    q = "Consider the Supply Agreement between Orion Ltd. and Beta Inc. What is the notice period?"
    assert asking_part(q) == "What is the notice period?"
    w = question_terms(q, removed={"orion"})
    assert "orion" not in w and w["notic"] == 1.0 and w["beta"] < 1.0
    assert not asks_many("Is there a cap on liability in this contract?", Scope("collection"))
    assert asks_many("Which contracts cap liability?", Scope(""))


class PassageVectors:
    """Stands in for a DenseSearcher's span_scores: the cosine of the passage holding each span."""

    def __init__(self, cos_by_doc: dict[str, float]):
        self.cos_by_doc = cos_by_doc
        self.calls = 0

    def span_scores(self, query, spans):
        self.calls += 1
        return [self.cos_by_doc.get(doc_id) for doc_id, _, _ in spans]


def test_passage_vectors_break_a_tie_between_sentences_that_hold_the_same_words():
    a = "The fee is payable on delivery of the goods."
    b = "The fee is payable on delivery of the software."
    q = "When is the fee payable?"
    items = [passage("one", a), passage("two", b)]
    plain = ExtractiveAnswer(ONE_QUOTE).answer(q, items, Scope(""))
    assert plain.spans[0]["doc_id"] == "one"  # the same words: the first context item wins
    vecs = PassageVectors({"one": 0.1, "two": 0.6})
    g = ExtractiveAnswer(ONE_QUOTE, passages=vecs).answer(q, items, Scope(""))
    assert g.spans[0]["doc_id"] == "two" and vecs.calls == 1
    # a document without vectors scores as before; nothing that answers stays not found
    assert ExtractiveAnswer(ONE_QUOTE, passages=PassageVectors({})).answer(q, items, Scope("")).spans == plain.spans
    assert ExtractiveAnswer(passages=vecs).answer("What is the revenue?", items).text == "Not found in the corpus."


def test_question_words_carry_no_weight():
    """'which', 'how', 'much' are rare in documents, so an inverse frequency would weigh them most: a
    sentence saying "how" must not beat the one about insurance."""
    assert set(question_terms("Which contracts require insurance and for how much?")) == set(
        terms("contracts require insurance")
    )
    assert set(question_terms("How many days of notice?")) == set(terms("days notice"))
    ko = question_terms("어떤 계약에 보험 조항이 있습니까?")
    assert "보험" in ko and not any(t.startswith("어떤") for t in ko)
    assert question_terms("How much?") == dict.fromkeys(terms("How much?"), 1.0)  # nothing else: kept
    text = (
        "Nobody knows how the weather will turn. The Supplier shall maintain product liability "
        "insurance of at least EUR 5,000,000."
    )
    g = ExtractiveAnswer().answer("How much insurance is required?", [passage("supply", text)], Scope(""))
    assert "insurance of at least EUR 5,000,000" in g.text.splitlines()[0]


NDA = (
    "1. CONFIDENTIALITY\n\n1.1 The Recipient keeps the Discloser's information secret for five years after "
    "disclosure. 1.2 The Recipient may share the information with its lawyers and auditors who are bound to "
    "keep it secret.\n\n2. RETURN\n\n2.1 On request the Recipient returns or destroys all copies of the "
    "information.\n\n3. GENERAL\n\n3.1 Notices under this agreement are given in writing to the addresses "
    "above. 3.2 This agreement is governed by the laws of Ontario."
)


def test_an_answer_about_a_named_document_quotes_no_other_document():
    """Asked when copies must be destroyed under one NDA, the answer quotes that NDA's clause first and no
    sentence of another NDA the context holds, though its clauses answer as well."""
    q = "Under the Orbit NDA, must the recipient destroy copies of the information?"
    scope = Scope("document", doc_ids=["orbit-nda"], removed=set(terms("Orbit NDA")))
    items = [passage("other-nda", NDA.replace("Ontario", "Quebec"), 0), passage("orbit-nda", NDA, 50)]
    g = ExtractiveAnswer().answer(q, items, scope)
    assert {sp["doc_id"] for sp in g.spans} == {"orbit-nda"}, g.text
    start = NDA.index("2.1 On request") + 50
    assert g.spans[0]["start"] <= start < g.spans[0]["end"], g.text
