"""A title several document pages share ("SUPPLY AGREEMENT", from `search.facts.title`) names a kind of
document, not one document: a question about "supply agreements" is scoped to their collection, while a
question naming a document's parties is still scoped to that document."""

import pytest
from ask_helpers import answerer_over
from test_answer import DOCS, _q, _slug

from wikigen.wiki.markup import format_quote
from wikigen.wiki.page import Page


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    root = tmp_path_factory.mktemp("shared-titles")
    pages = []
    for doc, title, desc, opening in [
        (
            "supply/alpha-supply",
            "MASTER SUPPLY AGREEMENT",
            "Between ALPHA WIDGETS LTD and ZENITH FOODS PLC.",
            'This Supply Agreement is made on 2 May 2021 between ALPHA WIDGETS LTD ("Alpha") and ZENITH FOODS PLC ("Zenith").',
        ),
        (
            "supply/beta-supply",
            "MASTER SUPPLY AGREEMENT",
            "Between BETA METALS INC and ORION RETAIL LLC.",
            'This Supply Agreement is made on 9 June 2022 between BETA METALS INC ("Beta") and ORION RETAIL LLC ("Orion").',
        ),
        (
            "nda/gamma-nda",
            "MUTUAL NON-DISCLOSURE AGREEMENT",
            "Between GAMMA SOFT LTD and DELTA HEALTH LTD.",
            "This Mutual Non-Disclosure Agreement is made on 1 March 2020 between GAMMA SOFT LTD and DELTA HEALTH LTD.",
        ),
    ]:
        kind = "kind-supply" if doc.startswith("supply") else "kind-nda"
        pages.append(
            Page(
                slug=_slug(doc),
                title=title,
                owner="agent-1",
                description=desc,
                type="document",
                sources=[doc],
                body=f"{format_quote(_q(doc, opening))}\n\nIn [[{kind}]].\n",
            )
        )
    pages.append(
        Page(
            slug="kind-supply",
            title="Supply agreements",
            owner="agent-1",
            description="2 documents.",
            type="collection",
            sources=["supply/alpha-supply", "supply/beta-supply"],
            body="- [[doc-supply-alpha-supply]]\n- [[doc-supply-beta-supply]]\n",
        )
    )
    pages.append(
        Page(
            slug="kind-nda",
            title="Non-disclosure agreements",
            owner="agent-1",
            description="1 document.",
            type="collection",
            sources=["nda/gamma-nda"],
            body="- [[doc-nda-gamma-nda]]\n",
        )
    )
    return answerer_over(root, DOCS, pages)


def test_a_shared_title_scopes_to_the_collection(answerer):
    r = answerer.ask("Which master supply agreements contain an audit clause?", mode="wiki+search")
    assert r.scope["kind"] == "collection" and r.scope["pages"] == ["kind-supply"]


def test_a_unique_title_still_names_its_document(answerer):
    r = answerer.ask("Under the mutual non-disclosure agreement, which law governs?", mode="wiki+search")
    assert r.scope["kind"] == "document" and r.scope["pages"] == ["doc-nda-gamma-nda"]


def test_parties_still_name_a_document_with_a_shared_title(answerer):
    q = "Consider the Supply Agreement between BETA METALS INC and ORION RETAIL LLC. Which law governs it?"
    r = answerer.ask(q, mode="wiki+search")
    assert r.scope["kind"] == "document" and r.scope["pages"] == ["doc-supply-beta-supply"]


@pytest.mark.parametrize(
    ("question", "page"),
    [
        ("what law governs our supply agreement with beta?", "doc-supply-beta-supply"),  # lower case
        ("Which law governs the Zenith supply agreement? Thanks!", "doc-supply-alpha-supply"),  # the name first
        ("Is the supply agreement with BMI governed by English law?", "doc-supply-beta-supply"),  # initials
        ("Does the supply agreement with Orion have an audit clause?", "doc-supply-beta-supply"),  # defined name
    ],
)
def test_a_kind_narrows_a_name_to_its_member(answerer, question, page):
    """The kind's phrase plus a word that names one of its members (a party, its initials, a short name the
    document defines), in any case: that member, though the title is shared and the word is not capitalised."""
    r = answerer.ask(question, mode="wiki+search")
    assert r.scope["kind"] == "document" and r.scope["pages"] == [page], question


def test_a_name_typed_in_lower_case_names_its_document(answerer):
    """People type names in lower case; the documents write them capitalised ("GAMMA SOFT LTD"), never in lower
    case: such a word is a name in any case. A word the documents also write in lower case ("supply") is not."""
    r = answerer.ask("what law governs our agreement with gamma soft?", mode="wiki+search")
    assert r.scope["kind"] == "document" and r.scope["pages"] == ["doc-nda-gamma-nda"]
    assert answerer.scopes._name_words("what law governs the supply made with gamma soft") == {"gamma", "soft"}
