"""The spans an answer cites: the sentences of the document the question names that answer it, not its other
clauses and not another document's.

Three supply agreements share one title; their files are named for the customer ("acme-widgets"), which their
own text never says, and one of them mentions another's customer in passing; one file name also spells out
"supply-agreement", which every one of them says. A user asks about "the Acme supply
agreement" the way they filed it."""

import pytest
from ask_helpers import answerer_over

from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import Page

ACME = (
    "SUPPLY AGREEMENT\n\n"
    "This Supply Agreement is made on 3 March 2021 between the Supplier and the Buyer.\n\n"
    "1. Supply. The Supplier shall deliver the goods listed in Schedule A each month. The Buyer shall pay each "
    "invoice within thirty days of receipt. The Supplier shall replace any goods the Buyer finds defective.\n\n"
    "2. Term and Termination. This Agreement runs for two years from its date. Either party may end this "
    "Agreement at once if the other party becomes insolvent. The Buyer may end this Agreement for convenience by "
    "giving the Supplier ninety (90) days' written notice. On termination the Buyer shall pay for the goods "
    "already delivered, and each party shall return the other's documents. Sections 3 and 4 survive the end of "
    "this Agreement.\n\n"
    "3. Confidentiality. Each party shall keep the other's prices and volumes confidential for three years after "
    "this Agreement ends. A party may disclose them where a court orders it.\n\n"
    "4. Governing Law. The laws of Ontario govern this Agreement.\n"
)
GLOBEX = (
    "SUPPLY AGREEMENT\n\n"
    "This Supply Agreement is made on 9 June 2020 between the Supplier and the Buyer.\n\n"
    "1. Supply. The Supplier shall deliver the parts the Buyer orders. The Supplier shall not buy parts from "
    "Acme or any of its affiliates.\n\n"
    "2. Termination. The Buyer may end this Agreement by giving the Supplier thirty (30) days' notice. Either "
    "party may end this Agreement if the other breaches it and does not cure the breach within ten days of "
    "notice.\n\n"
    "3. Governing Law. The laws of Texas govern this Agreement.\n"
)
INITECH = (
    "SUPPLY AGREEMENT\n\n"
    "This Supply Agreement is made on 1 May 2019 between the Supplier and the Buyer.\n\n"
    "1. Supply. The Supplier shall deliver the tools the Buyer orders within five business days.\n\n"
    "2. Termination. Either party may end this Agreement on sixty (60) days' notice to the other.\n\n"
    "3. Governing Law. The laws of New York govern this Agreement.\n"
)
DOCS = {"contracts/acme-widgets": ACME, "contracts/globex-parts": GLOBEX, "contracts/initech-supply-agreement": INITECH}
NOTICE = "The Buyer may end this Agreement for convenience by giving the Supplier ninety (90) days' written notice."


def _slug(doc: str) -> str:
    return "doc-" + doc.replace("/", "-")


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    root = tmp_path_factory.mktemp("answer-spans")
    pages = []
    for d, text in DOCS.items():
        opening = text.split("\n\n")[1]
        start = text.index(opening)
        quote = format_quote(Quote(d, start, start + len(opening), opening))
        pages.append(
            Page(
                slug=_slug(d),
                title="SUPPLY AGREEMENT",
                owner="agent-1",
                description=opening,
                type="document",
                sources=[d],
                body=f"{quote}\n",
            )
        )
    return answerer_over(root, DOCS, pages)


def _cited(result) -> set[str]:
    return {sp["doc_id"] for sp in result.answer_spans}


def _covers(result, doc_id: str, sentence: str) -> bool:
    start = DOCS[doc_id].index(sentence)
    end = start + len(sentence)
    return any(sp["doc_id"] == doc_id and sp["start"] <= start and end <= sp["end"] for sp in result.answer_spans)


@pytest.mark.parametrize(
    "question",
    [
        "How much notice does the buyer have to give to end the Acme supply agreement?",
        "Under the Acme supply agreement, how many days' notice must the buyer give to terminate it?",
        "Acme supply agreement: what notice period applies if the buyer wants out?",
    ],
)
def test_a_document_named_by_its_file_name_is_the_one_quoted(answerer, question):
    r = answerer.ask(question, mode="wiki+search")
    assert r.scope["kind"] == "document" and r.scope["pages"] == [_slug("contracts/acme-widgets")], r.scope
    assert _cited(r) == {"contracts/acme-widgets"}, r.answer
    assert _covers(r, "contracts/acme-widgets", NOTICE), r.answer
    assert "thirty (30) days' notice" not in r.answer  # Globex's clause, which only mentions Acme


def test_a_file_name_word_every_document_says_names_none(answerer):
    """One file is named "initech-supply-agreement", the others not: yet every one of them says "Supply
    Agreement", so those words say what kind of document it is, not which one."""
    r = answerer.ask("Which law governs Globex's Supply Agreement?", mode="wiki+search")
    assert r.scope["kind"] == "document" and r.scope["pages"] == [_slug("contracts/globex-parts")], r.scope
    assert "Texas" in r.answer and _cited(r) == {"contracts/globex-parts"}, r.answer


def test_the_answer_keeps_to_the_named_documents_best_sentences(answerer):
    """Asked about one clause of a named contract, the answer cites that clause's sentence, not a weaker
    sentence of another clause that shares a word of the question, nor another contract's sentence."""
    q = "How long must the Acme supply agreement's prices stay confidential?"
    r = answerer.ask(q, mode="wiki+search")
    assert _cited(r) == {"contracts/acme-widgets"}, r.answer
    assert _covers(
        r,
        "contracts/acme-widgets",
        "Each party shall keep the other's prices and volumes confidential for three years after this Agreement ends.",
    ), r.answer
    assert "Texas" not in r.answer and "New York" not in r.answer
    assert len(r.answer_spans) <= 2, r.answer
