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


def _common_word_corpus():
    """Two Service agreements among supply agreements that all speak of service in their openings."""
    docs = {
        f"service/s{i}": f"SERVICE AGREEMENT\n\nThis agreement is made between HOST{i} and CLIENT{i}. Host{i} provides "
        f"hosting services. Neither party shall compete with the other for {i + 1} years.\n"
        for i in range(2)
    }
    for i in range(10):
        docs[f"supply/p{i}"] = (
            f"SUPPLY AGREEMENT\n\nThis agreement is made between MAKER{i} and BUYER{i}. Maker{i} supplies parts and "
            f"after-sales service. The buyer pays within {30 + i} days.\n"
        )
    pages = []
    for d, text in docs.items():
        opening = text.split("\n\n")[1].split(". ")[0] + "."
        start = text.index(opening)
        kind = "kind-service" if d.startswith("service/") else "kind-supply"
        pages.append(
            Page(
                slug=_slug(d),
                title=text.split("\n")[0],
                owner="agent-1",
                description=" ".join(text.split("\n\n")[1].split())[:150],
                type="document",
                sources=[d],
                body=format_quote(Quote(d, start, start + len(opening), opening)) + f"\n\nIn [[{kind}]].\n",
            )
        )
    for slug, title, prefix in (
        ("kind-service", "Service agreements", "service/"),
        ("kind-supply", "Supply agreements", "supply/"),
    ):
        members = [d for d in docs if d.startswith(prefix)]
        pages.append(
            Page(
                slug=slug,
                title=title,
                owner="agent-1",
                aliases=[title.split()[0].lower()],
                description=f"{len(members)} documents.",
                type="collection",
                sources=members,
                body="".join(f"- [[{_slug(d)}]]\n" for d in members),
            )
        )
    return docs, pages


@pytest.fixture(scope="module")
def common(tmp_path_factory):
    docs, pages = _common_word_corpus()
    return answerer_over(tmp_path_factory.mktemp("kind-common"), docs, pages)


def test_a_kind_named_by_its_whole_title_is_the_kind_though_its_word_is_common(common):
    """'service' is in every opening (12 documents, 2 members), so the word alone names no kind; 'the Service
    agreements' says the kind's whole title."""
    r = common.ask(
        "Which of the Service agreements in the collection contain a non-compete clause?", mode="wiki+search"
    )
    assert r.scope["kind"] == "collection" and r.scope["pages"] == ["kind-service"], r.scope
    for q in ("Which agreements promise after-sales service?", "Which contracts mention a service?"):
        r = common.ask(q, mode="wiki+search")
        assert r.scope["kind"] != "collection", (q, r.scope)
