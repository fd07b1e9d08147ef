"""A question about a kind of document ("Which of the Reseller agreements ...") that happens to hold every
word of one member's title ("License Agreement - Reseller Agreement") is about the kind, not that member; a
question naming the member's parties, or saying its title as a phrase, still names the document."""

import pytest
from ask_helpers import answerer_over

from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import Page

DOCS = {
    "resellers/acme-zeta": (
        "LICENSE AGREEMENT - RESELLER AGREEMENT\n\nThis agreement is made between ACME LTD and "
        "ZETA INC. Acme grants Zeta a non-exclusive license to resell the Software. "
        "This agreement is governed by the laws of Ontario.\n"
    ),
    "resellers/birch-orbit": (
        "RESELLER AGREEMENT\n\nThis agreement is made between BIRCH SYSTEMS and ORBIT TRADING. "
        "Birch appoints Orbit as a reseller of its products. Orbit may not grant sublicenses. "
        "The laws of Delaware govern this agreement.\n"
    ),
    "resellers/cedar-polar": (
        "RESELLER AGREEMENT\n\nThis agreement is made between CEDAR TOOLS and POLAR GOODS. "
        "Cedar grants Polar a license to use its marks to resell the products. "
        "The laws of Texas govern this agreement.\n"
    ),
    "nda/delta-echo": (
        "MUTUAL NON-DISCLOSURE AGREEMENT\n\nThis agreement is made between DELTA HEALTH and ECHO LABS. "
        "Each party keeps the other's information confidential.\n"
    ),
}
TITLES = {
    "resellers/acme-zeta": "LICENSE AGREEMENT - RESELLER AGREEMENT",
    "resellers/birch-orbit": "RESELLER AGREEMENT",
    "resellers/cedar-polar": "RESELLER AGREEMENT",
    "nda/delta-echo": "MUTUAL NON-DISCLOSURE AGREEMENT",
}


def _slug(doc: str) -> str:
    return "doc-" + doc.replace("/", "-")


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    root = tmp_path_factory.mktemp("kind-words")
    resellers = [d for d in DOCS if d.startswith("resellers/")]
    pages = []
    for d, text in DOCS.items():
        opening = text.split("\n\n")[1].split(". ")[0] + "."
        start = text.index(opening)
        quote = format_quote(Quote(d, start, start + len(opening), opening))
        kind = "kind-reseller" if d in resellers else "kind-nda"
        pages.append(
            Page(
                slug=_slug(d),
                title=TITLES[d],
                owner="agent-1",
                description=opening,
                type="document",
                sources=[d],
                body=f"{quote}\n\nIn [[{kind}]].\n",
            )
        )
    pages.append(
        Page(
            slug="kind-reseller",
            title="Reseller agreements",
            owner="agent-1",
            description="3 documents.",
            type="collection",
            sources=resellers,
            body="".join(f"- [[{_slug(d)}]]\n" for d in resellers),
        )
    )
    pages.append(
        Page(
            slug="kind-nda",
            title="Non-disclosure agreements",
            owner="agent-1",
            description="1 document.",
            type="collection",
            sources=["nda/delta-echo"],
            body="- [[doc-nda-delta-echo]]\n",
        )
    )
    return answerer_over(root, DOCS, pages)


def test_a_kind_holding_a_members_title_words_scopes_to_the_kind(answerer):
    r = answerer.ask("Which of the Reseller agreements contain a license grant?", mode="wiki+search")
    assert r.scope["kind"] == "collection" and r.scope["pages"] == ["kind-reseller"], r.scope
    assert {sp["doc_id"] for c in r.context for sp in c.spans} >= {"resellers/acme-zeta", "resellers/cedar-polar"}


def test_parties_still_name_the_member(answerer):
    q = "Consider the License Agreement - Reseller Agreement between ACME LTD and ZETA INC. Which law governs it?"
    r = answerer.ask(q, mode="wiki+search")
    assert r.scope["kind"] == "document" and r.scope["pages"] == ["doc-resellers-acme-zeta"], r.scope


def test_the_title_said_as_a_phrase_still_names_the_member(answerer):
    r = answerer.ask("Under the license agreement - reseller agreement, which law governs?", mode="wiki+search")
    assert r.scope["kind"] == "document" and r.scope["pages"] == ["doc-resellers-acme-zeta"], r.scope
