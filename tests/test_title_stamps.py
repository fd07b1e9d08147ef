"""A title is never a stamp, a legend or a filing line, and does not run on into the first party's name
(search/facts/title.py); small synthetic openings, one per slip."""

from __future__ import annotations

import pytest
from wikigen.search.facts.title import document_title

_BODY = " This Agreement binds the parties. Each party signs this Agreement."


@pytest.mark.parametrize(
    ("text", "title"),
    [
        (  # a legend line explaining a redaction mark, above the title
            "[***] = CONFIDENTIAL TREATMENT REQUESTED\n\nSCHEDULE A\n\nPRODUCT LICENSE SCHEDULE\n\n"
            "This Schedule is issued under the License Agreement." + _BODY,
            "PRODUCT LICENSE SCHEDULE",
        ),
        (  # the same legend as a statement in flattened text: its runs are not titles
            "[*] = CERTAIN CONFIDENTIAL INFORMATION CONTAINED IN THIS DOCUMENT, MARKED BY BRACKETS, HAS BEEN "
            "OMITTED AND FILED SEPARATELY WITH THE COMMISSION PURSUANT TO RULE 24B-2, AS AMENDED. EXHIBIT 10.2 "
            'FIRST AMENDMENT TO SUPPLY AGREEMENT This First Amendment ("Amendment") is made on 22 June 2018. '
            "RECITALS A. Northwind and Contoso wish to change the price. This statement and this statement hold.",
            "FIRST AMENDMENT TO SUPPLY AGREEMENT",
        ),
        (  # a dated field line: neither it nor its label is the title
            "Exhibit 10.1\n\nNorthwind Time Warner Cable and Contoso Media Content and License Agreement\n\n"
            "Effective Dates: September 1, 2006, August 31, 2007\n\nNorthwind agrees to provide the content.",
            "Northwind Time Warner Cable and Contoso Media Content and License Agreement",
        ),
        (  # a redaction mark left after the title
            "Exhibit 10.1\n\n\n\nSales, Marketing, Distribution, and Supply Agreement {***}   WHEREAS NORTHWIND is a "
            'company with headquarters at One Penn Center ("NORTHWIND") and Contoso Ltd is a company.' + _BODY,
            "Sales, Marketing, Distribution, and Supply Agreement",
        ),
        (  # an exhibit number, and the title echoed in the first sentence of flattened text
            'Exhibit 10.22 SERVICES AGREEMENT SERVICES AGREEMENT, dated as of April 1, 2019 (the "Agreement"), '
            'between Jane Roe ("Roe") and Northwind Solutions, Inc., a Nevada corporation (the "Company"). '
            "WHEREAS, the Company desires to engage Roe as the Company's Chief Executive Officer." + _BODY,
            "SERVICES AGREEMENT",
        ),
    ],
)
def test_a_stamp_legend_or_filing_line_is_not_the_title(text, title):
    assert document_title(text) == title


def test_a_quoted_term_in_a_legend_is_not_the_title_nor_is_a_title_cut_before_its_object_lost():
    """The legend's runs lose to the title even though a run cut before its object ("ADDENDUM TO") now scores
    lower than a whole one."""
    text = (
        "Exhibit 10.2\n\nIN ACCORDANCE WITH ITEM 601(b) OF REGULATION S-K, CERTAIN IDENTIFIED INFORMATION "
        '(THE "CONFIDENTIAL INFORMATION") HAS BEEN LEFT OUT OF THIS EXHIBIT AS IT IS (I) NOT MATERIAL AND (II) '
        "WOULD HARM THE COMPANY IF DISCLOSED. THE CONFIDENTIAL INFORMATION IS MARKED BY [*****].\n\n"
        "NORTHWIND PARTNER PROGRAM\n\nADDENDUM TO\n\nNORTHWIND DISTRIBUTOR AGREEMENT\n\n"
        'THIS ADDENDUM ("Addendum") is made. This Addendum binds. This Addendum ends.'
    )
    assert document_title(text) == "ADDENDUM TO"


@pytest.mark.parametrize(
    "opening",
    [
        "Exhibit 10.26 MICOA Agency Agreement Mutual Insurance Corporation of America, a Michigan insurance "
        'corporation (MICOA) and Stratton Walsh, Inc., a Nevada corporation, ("Agency"), agree as follows: ',
        "EXHIBIT 10.26 MICOA AGENCY AGREEMENT MUTUAL INSURANCE CORPORATION OF AMERICA, a Michigan insurance "
        'corporation (MICOA) and STRATTON WALSH, INC., a Nevada corporation, ("Agency"), agree as follows: ',
    ],
)
def test_a_title_does_not_run_on_into_the_first_partys_name(opening):
    text = opening + "A. Authority of Agency. Subject to law, this Agreement and this Agreement bind the Agency."
    assert document_title(text).casefold() == "micoa agency agreement"


def test_a_title_that_goes_on_after_its_noun_is_kept_when_no_party_follows():
    text = "AGREEMENT AND PLAN OF MERGER\n\nThis Agreement is made by Acme Ltd and Beta Inc. This Agreement binds."
    assert document_title(text) == "AGREEMENT AND PLAN OF MERGER"
