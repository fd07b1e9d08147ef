"""A question names a document by a word of its catalogue (its names, the short names its parties are given, its
file name) the way people write it: in lower case, run together ("adams golf" for adamsgolfinc), the start of
the name it is filed under ("thrivent"), with one letter wrong ("Kriomic"), or by a party's short name
(hereinafter "WCC"). Places, the language's defined terms and words a document holds are not such names."""

import pytest
from ask_helpers import answerer_over, document_page

from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import Page

DOCS = {
    "adamsgolfinc-2005-endorsement-agreement": (
        "ENDORSEMENT AGREEMENT\n\nThis agreement is made on January 13, 2005 with the Player named below. "
        "The Player endorses the golf clubs of the Company. This agreement ends on December 31, 2007.\n"
    ),
    "northsideinc-2011-endorsement-agreement": (
        "ENDORSEMENT AGREEMENT\n\nThis agreement is made between NORTHSIDE INC. and the Athlete. "
        "The Athlete endorses the shoes of Northside on the circuit. This agreement ends on June 30, 2013.\n"
    ),
    "thriventvariableaccount-2019-assignment-rider": (
        "RIDER\n\nThis rider is issued to the owner of the account. The owner may not assign this rider "
        "without the prior written consent of the insurer.\n"
    ),
    "xlitech-2015-sponsorship-agreement": (
        "SPONSORSHIP AGREEMENT\n\nThis agreement is made between RMF Empire, Inc., a California corporation "
        '(hereinafter "WCC"), and Bosch Lighting, LLC, a Nevada company (hereinafter "XLI"). WCC shall keep '
        "insurance of USD 2,000,000. The Affiliates of XLI may use the marks.\n"
    ),
    "gainsco-2010-sponsorship-agreement": (
        "SPONSORSHIP AGREEMENT\n\nThis agreement is made between Stallings Capital, Ltd., a Texas partnership "
        '("Racing"), and GAINSCO, INC., a Texas corporation ("Sponsor"). The Sponsor pays USD 500,000.\n'
    ),
    "prolong-1998-sponsorship-agreement": (
        "SPONSORSHIP AGREEMENT\n\nThis agreement is made between Florida Motorsports, Inc., a Florida "
        'corporation ("Team"), and Prolong Oil, Inc., a Nevada corporation ("Sponsor"). The Sponsor pays USD '
        "90,000. The Affiliates of the Team may use the marks. This agreement is governed by the laws of Florida.\n"
    ),
    "harborspeedway-2003-sponsorship-agreement": (
        'SPONSORSHIP AGREEMENT\n\nThis agreement is made on March 1, 2003. In it "Circuit" means Harbor Speedway '
        'Holdings and "Sponsor" means the company named below. The Sponsor pays USD 40,000.\n'
    ),
    "kiromic-2020-consulting-agreement": (
        "CONSULTING AGREEMENT\n\nThis agreement is made between Kiromic, Inc., a Delaware corporation, and the "
        "Consultant. Either party may terminate this agreement at any time on thirty days' notice.\n"
    ),
    "tribunemedia-2006-consulting-agreement": (
        "CONSULTING AGREEMENT\n\nThis agreement is made between Tribune Media Company, a Delaware corporation, "
        "and the Consultant. This agreement may not be terminated before its term ends.\n"
    ),
    "pinecrest-2012-consulting-agreement": (
        "CONSULTING AGREEMENT\n\nMarlow Analytics Group, One Market Street, Boston. Ladies and Gentlemen: the "
        "Company engages you as its consultant on the terms below. Either party may end this engagement on sixty "
        "days' notice.\n"
    ),
    "intltest-2000-distributor-agreement": (
        "DISTRIBUTOR AGREEMENT\n\nCOMWARE TECHNICAL SERVICES (COMWARE) certifies that the products furnished by "
        "INTERNATIONAL TEST SYSTEMS, INC. (ITS) are part of its systems. Either party may end this agreement on "
        "ninety days' notice.\n"
    ),
    "accuray-2010-distributor-agreement": (
        "DISTRIBUTOR AGREEMENT\n\nThis agreement is made between Accuray Incorporated and its distributor named "
        "below. The distributor may not cancel this agreement before its term ends.\n"
    ),
    "igene-2003-joint-venture-agreement": (
        "JOINT VENTURE AGREEMENT\n\nThis agreement is made between Igene Biotechnology, Inc. and Tate & Lyle PLC. "
        "The joint venture runs for ten years.\n"
    ),
    "veoneer-2019-joint-venture-agreement": (
        "JOINT VENTURE AGREEMENT\n\nThis agreement is made between Veoneer AB, a Swedish corporation, and Nissin "
        "Kogyo Co., Ltd., a Japanese corporation. The joint venture ends on December 31, 2024.\n"
    ),
    "kazakhoil-2000-transportation-contract": (
        'TRANSPORTATION CONTRACT\n\nJSC NOC KazakhOil, hereinafter referred to as the "Company", and JSC '
        'Karakudukmunay, hereinafter referred to as the "Principal", agree as follows. The contract renews each year '
        "unless a party gives sixty days' notice.\n"
    ),
    "andes-2012-transportation-contract": (
        'TRANSPORTATION CONTRACT\n\nThis contract is made between Andes Network Pipelines S.A. ("Sender") and '
        "Ecopetrol S.A. The principal duty of the Sender is to pay the tariff on time.\n"
    ),
    "tubemedia-2006-affiliation-agreement": (
        'AFFILIATION AGREEMENT\n\nThis agreement is made between The TUBE Music Network, Inc. (the "Network") and '
        'Tribune Broadcasting Company ("Affiliate"). The Affiliate carries the service alone in its market.\n'
    ),
    "cybergy-2014-affiliation-agreement": (
        "AFFILIATION AGREEMENT\n\nThis agreement is made between Cybergy Partners and the affiliate named below. "
        "The affiliate may market the services of Cybergy on its network in any market.\n"
    ),
    "oldco-2016-agents-certificate": (
        "AGENTS' CERTIFICATE\n\nThe undersigned agents certify to Tribute Holdings that the offering closed. "
        "The agents keep its terms under their NDA. This certificate is governed by the laws of Ontario.\n"
    ),
}
KINDS = {
    "kind-endorsement": ("Endorsement agreements", ["adamsgolfinc", "northsideinc"]),
    "kind-sponsorship": ("Sponsorship agreements", ["xlitech", "gainsco", "prolong", "harborspeedway"]),
    "kind-consulting": ("Consulting agreements", ["kiromic", "tribunemedia", "pinecrest"]),
    "kind-distributor": ("Distributor agreements", ["intltest", "accuray"]),
    "kind-joint-venture": ("Joint venture agreements", ["igene", "veoneer"]),
    "kind-transportation": ("Transportation contracts", ["kazakhoil", "andes"]),
    "kind-affiliation": ("Affiliation agreements", ["tubemedia", "cybergy"]),
}


def _slug(doc: str) -> str:
    return "doc-" + doc


def _kind_of(doc: str) -> str | None:
    return next((k for k, (_, firms) in KINDS.items() if doc.split("-")[0] in firms), None)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    pages = []
    for d, text in DOCS.items():
        title, body = text.split("\n\n", 1)
        opening = body.split(". ")[0] + "."
        start = text.index(opening)
        kind = _kind_of(d)
        pages.append(
            Page(
                slug=_slug(d),
                title=title,
                owner="agent-1",
                description=f"{title.capitalize()}.",  # no parties: the catalogue has them from the text
                type="document",
                sources=[d],
                body=format_quote(Quote(d, start, start + len(opening), opening))
                + (f"\n\nIn [[{kind}]].\n" if kind else "\n"),
            )
        )
    for slug, (title, firms) in KINDS.items():
        members = [d for d in DOCS if d.split("-")[0] in firms]
        pages.append(
            Page(
                slug=slug,
                title=title,
                owner="agent-1",
                description=f"{len(members)} documents.",
                type="collection",
                sources=members,
                body="".join(f"- [[{_slug(d)}]]\n" for d in members),
            )
        )
    return answerer_over(tmp_path_factory.mktemp("catalogue"), DOCS, pages)


@pytest.mark.parametrize(
    ("question", "doc"),
    [
        ("When does our endorsement agreement with adams golf end?", "adamsgolfinc-2005-endorsement-agreement"),
        (
            "Can we hand our rider with thrivent over to a buyer of our business?",
            "thriventvariableaccount-2019-assignment-rider",
        ),
        ("Which insurance is required by our sponsorship agreement with wcc?", "xlitech-2015-sponsorship-agreement"),
        (
            "How much does the Sponsor pay under the sponsorship agreement with Racing?",
            "gainsco-2010-sponsorship-agreement",
        ),
        (
            "Are we allowed to cancel the consulting agreement with Kriomic at any time?",
            "kiromic-2020-consulting-agreement",
        ),
        # a role the opening defines ('"Circuit" means ...'), though another document writes it in lower case
        (
            "How much does the sponsor pay under the sponsorship agreement with Circuit?",
            "harborspeedway-2003-sponsorship-agreement",
        ),
        # a counterparty the opening names without a party formula or a short name, in either case
        ("How much notice ends the consulting agreement with Marlow?", "pinecrest-2012-consulting-agreement"),
        ("how much notice ends the consulting agreement with marlow", "pinecrest-2012-consulting-agreement"),
        # a short name in capitals, bracketed alone (and a pronoun's spelling): "INTERNATIONAL TEST SYSTEMS, INC. (ITS)"
        (
            "Are we allowed to cancel the distributor agreement with ITS at any time?",
            "intltest-2000-distributor-agreement",
        ),
        # a party's name run together ("Veoneer AB")
        ("What is the term of the joint venture agreement with VeoneerAB?", "veoneer-2019-joint-venture-agreement"),
        # a role "hereinafter" gives without brackets, though another opening writes the word in lower case
        (
            "How many days' notice stops the renewal of the Principal transportation contract?",
            "kazakhoil-2000-transportation-contract",
        ),
        # a role the opening defines, capitalised, though another document's name holds the word (a kind of two)
        ("Does the affiliation agreement with Network grant exclusivity?", "tubemedia-2006-affiliation-agreement"),
    ],
)
def test_a_question_names_a_document_by_its_catalogue(answerer, question, doc):
    r = answerer.ask(question, mode="wiki+search")
    assert r.scope["kind"] == "document" and r.scope["pages"] == [_slug(doc)], (question, r.scope)
    assert {sp["doc_id"] for sp in r.answer_spans} <= {doc}, r.answer_spans


@pytest.mark.parametrize(
    "question",
    [
        "Which contracts are governed by Florida law?",  # a place, though a party is Florida Motorsports
        "Which of the sponsorship agreements let the Affiliates use the marks?",  # a defined term of the language
        "Which consulting agreements can be cancelled at any time?",
        "Can the distributor cancel its agreement at any time?",  # "its", not "ITS"; no pronoun names a party
    ],
)
def test_places_terms_and_kinds_name_no_document(answerer, question):
    r = answerer.ask(question, mode="wiki+search")
    assert not (r.scope["kind"] == "document" and r.scope["docs"] == 1), (question, r.scope)


def test_a_word_a_document_holds_is_no_misspelling(answerer):
    """'Tribute' is one edit from 'Tribune', but the certificate's opening writes it: it is not read as Tribune."""
    r = answerer.ask("Which law governs the agreement with Tribute?", mode="wiki+search")
    assert "doc-tribunemedia-2006-consulting-agreement" not in r.scope["pages"], r.scope


def test_a_misspelt_name_read_as_a_document_is_answered_and_said(answerer):
    """The scope read 'Kriomic' as Kiromic's agreement: the answer quotes it and says how the name was read,
    rather than 'no document matches'."""
    r = answerer.ask("Are we allowed to cancel the consulting agreement with Kriomic at any time?")
    assert r.answer.startswith("Read 'Kriomic' as 'Kiromic', the name a document writes."), r.answer
    assert r.answer_spans and {sp["doc_id"] for sp in r.answer_spans} == {"kiromic-2020-consulting-agreement"}


def test_an_acronyms_plural_is_no_absent_name(answerer):
    """'NDAs' is the plural of a word the documents write ('NDA'); no stemmer cuts it, yet it names nothing absent."""
    r = answerer.ask("Which NDAs do the agents keep?")
    assert "No document in this corpus matches" not in r.answer, r.answer


def test_a_quarter_in_a_name_is_no_absent_name(answerer):
    """'NDA for Q3 2023' runs a word the documents write into a quarter: the quarter is a period, not a name, so
    nothing reads as absent."""
    r = answerer.ask("Do the agents keep the NDA for Q3 2023?")
    assert "No document in this corpus matches" not in r.answer, r.answer


def test_a_kind_written_in_capitals_names_no_document(tmp_path):
    """One NDA defines itself as the "NDA" in capitals, but the word names a kind of document (many documents are
    filed under it): "any NDA" asks of them all, while a party's short name in capitals still names its own."""
    docs = {
        f"{firm}-nda": (
            f"NON-DISCLOSURE AGREEMENT\n\nThis agreement is made between {firm.capitalize()} Holdings Inc. and the "
            f"recipient named below. Each party keeps the other's information confidential for {n} years.\n"
        )
        for n, firm in enumerate(["alder", "birch", "cedar", "dogwood"], start=2)
    }
    docs["elm-nda"] = (
        'MUTUAL NON-DISCLOSURE AGREEMENT\n\nThis mutual agreement (the "NDA") is made between Elm Research Ltd. '
        '("ERL") and the recipient. The parties waive any right to a jury trial.\n'
    )
    pages = []
    for d, text in docs.items():
        title, body = text.split("\n\n", 1)
        start = text.index(body)
        pages.append(document_page(d, title, Quote(d, start, start + 40, body[:40]), f"{title.capitalize()}."))
    answerer = answerer_over(tmp_path, docs, pages)
    assert answerer.read("Does any NDA waive a jury trial?").scope.doc_ids != ["elm-nda"]
    assert answerer.read("Does the agreement with ERL waive a jury trial?").scope.doc_ids == ["elm-nda"]
