"""A party is an organisation's or a person's name as a reviewer reads it (search/facts/parties.py): not a
place, not the title above it, a comma inside a name kept; small synthetic preambles, one per slip."""

from __future__ import annotations

from wikigen.search.facts.parties import find_parties


def _values(text: str) -> list[str]:
    return [m.value for m in find_parties(text)]


def test_a_place_ending_the_clause_before_a_name_is_not_part_of_it():
    text = (
        'This Services Agreement is made by and between [***] (the "Provider"), and KESTREL PTE, LTD., a company '
        "organized and existing under the laws of Singapore and Quillfeather Computer & Software Industries Ltd, "
        'a company organized and existing under the laws of the State of Israel (each of them "Recipient").'
    )
    values = _values(text)
    assert values[:2] == ["KESTREL PTE, LTD.", "Quillfeather Computer & Software Industries Ltd"]
    assert not any("Singapore" in v for v in values)


def test_a_title_above_the_preamble_is_not_part_of_the_first_name_and_each_alias_stays_with_its_name():
    text = (
        "EXHIBIT 10.26                MUTUAL                AGENCY AGREEMENT\n\n"
        "         Mutual Assurance Corporation of Ohio, an Ohio insurance corporation (MUTUAL) and Stratton, "
        'Cheeseman & Walsh-Nevada, Inc., a Nevada corporation, ("Agency"), agree as follows:\n\n'
        "A.       AUTHORITY OF AGENCY\n"
    )
    assert _values(text) == [
        "Mutual Assurance Corporation of Ohio",
        "Stratton, Cheeseman & Walsh-Nevada, Inc. (\u201cAgency\u201d)",
    ]


def test_a_name_that_ends_in_a_place_after_a_comma_is_kept_whole():
    text = (
        "THIS AGREEMENT, made this 17th day of November, 2015, by and between the TOWN OF ELMWOOD, VIRGINIA, a "
        'Virginia municipal corporation ("Grantor"), and BLUE RIDGE GAS COMPANY, a Virginia corporation ("Grantee").'
    )
    assert _values(text) == [
        "TOWN OF ELMWOOD, VIRGINIA (\u201cGrantor\u201d)",
        "BLUE RIDGE GAS COMPANY (\u201cGrantee\u201d)",
    ]


def test_a_name_written_with_a_small_first_letter_is_read_whole():
    text = (
        "This Agreement is made as of April 27, 1999 by and between eWidget.com, Inc., a Washington corporation (the "
        '"Company"), and Kestrel Labs, Inc., a California corporation ("Kestrel").'
    )
    assert _values(text) == ["eWidget.com, Inc. (\u201cCompany\u201d)", "Kestrel Labs, Inc. (\u201cKestrel\u201d)"]


def test_korean_parties_still_read():
    text = '가나전자 주식회사(이하 "갑"이라 한다)와 다라상사 주식회사(이하 "을"이라 한다)는 다음과 같이 계약한다.'
    assert _values(text) == ["가나전자 주식회사 (\u201c갑\u201d)", "다라상사 주식회사 (\u201c을\u201d)"]


def test_a_role_the_document_gives_a_party_is_not_a_name():
    text = (
        'SERVICE AGREEMENT\n\nThis Service Agreement (this "Agreement") is entered into by and between:\n\n'
        'Party A: Kestrel (Tianjin) Education Consulting Co., Ltd. ("Service Provider")\n\nAddress: Room 209, '
        'Tianjin, China\n\nParty B: [*] ("Service Recipient")\n\nAddress: [*]\n\nWhereas: Service Provider '
        "teaches children.\n\nThis Agreement is entered into by and between Service Provider and Service Recipient "
        '(each a "Party" and collectively, the "Parties") upon mutual consultation.\n'
    )
    names = [m.text for m in find_parties(text)]
    assert not any(set(n.split()) <= {"Service", "Provider", "Recipient", "and"} for n in names)


def test_and_with_a_comma_before_the_second_party():
    text = (
        'This Co-Branding Agreement (this "Agreement") is made by and between Snapdragon Technologies, Inc. a '
        'California corporation having its place of business at 111 Townsend St. ("Snap"), and, Blue Airlines, '
        'Inc., a Delaware corporation having its place of business at 1200 Algonquin Road ("Sponsor").\n\n'
        "RECITALS\n\nA. Snap runs a website.\n\nB. Sponsor runs an airline.\n"
    )
    assert [v.split(" (")[0] for v in _values(text)] == ["Snapdragon Technologies, Inc.", "Blue Airlines, Inc."]


def test_a_paragraph_that_opens_with_a_legal_persons_name_names_the_parties():
    text = (
        "Exhibit 10.7\n\nCONSULTING AGREEMENT\n\nKestrel Biotech, Inc., with a place of business at 740 Heinz Avenue, "
        'Berkeley, CA 94710 ("Kestrel") and NORTHWIND B.V having an address at Staalwijk 16, Leiden, the '
        'Netherlands, represented by Jane Roe, ("Consultant") agree to all terms of this Consulting Agreement.\n\n'
        "1. Services. Consultant will advise Kestrel.\n"
    )
    assert _values(text) == ["Kestrel Biotech, Inc. (\u201cKestrel\u201d)", "NORTHWIND B.V (\u201cConsultant\u201d)"]


def test_a_paragraph_that_opens_with_a_title_names_no_party():
    text = (
        'SERVICE AGREEMENT This Agreement ("Agreement") is made between the parties named below.\n\n'
        'Northwind Portfolios ("Trust") and Kestrel Life Co. ("Administrator") agree.\n'
    )
    assert not any("AGREEMENT" in v for v in _values(text))


def test_a_title_on_the_line_above_a_name_is_not_part_of_it():
    """The title on its own line, then the name a comma and a description follow: the name is read backward from
    its comma and stops at the line's start, as a name read forward stops at a line's end."""
    text = (
        "Please sign on the last page and return this document.\nMutual Confidentiality Agreement\nPelican Tools, a "
        "Dutch corporation with its principal place of business in Haarlem [DISCLOSING PARTY], and the company "
        "named below agree as follows.\n"
    )
    values = _values(text)
    assert values and values[0] == "Pelican Tools", values
