"""Abbreviations the index cannot read ("R&D") are spelled out by the wiki's own titles, and the answer then finds
what the spelled-out words find."""

import pytest
from ask_helpers import answerer_over, document_page, figure_page, quoted

from wikigen.ask.abbreviations import Abbreviations

TITLES = [
    ("Research and development", 8),
    ("Repayment of debt", 1),
    ("Selling, general and administrative", 4),
    ("Gross property, plant and equipment", 3),
    ("Net sales", 8),
    ("Mortgage- and asset-backed securities", 6),
]


def test_an_abbreviation_is_spelled_out_by_the_titles_most_documents_carry():
    ab = Abbreviations(TITLES)
    assert ab.expand("How much did the company spend on R&D last year?") == (
        "How much did the company spend on R&D last year? (research and development)"
    )  # not "repayment of debt": one report's label against eight
    assert ab.expand("Did SG&A grow faster than sales?").endswith("(selling general and administrative)")
    assert ab.expand("What was PP&E at year end?").endswith("(property plant and equipment)")  # inside a title
    assert ab.expand("How did R&D and SG&A change?").endswith(
        "(research and development; selling general and administrative)"
    )


def test_words_the_index_reads_and_unknown_abbreviations_are_left_alone():
    ab = Abbreviations(TITLES)
    for q in (
        "What did the NDA say about AI?",  # words of their own in the index
        "Any M&A in the quarter?",  # no title spells it out ("mortgage- and asset-backed" qualifies "securities")
        "Who are AT&T's partners?",
        "What were net sales?",
    ):
        assert ab.expand(q) == q
    assert Abbreviations([("Research", 5)]).expand("R&D?") == "R&D?"  # one word spells nothing


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    docs = {
        "acme-q1": "ACME QUARTERLY REPORT\n\nResearch and development  1,234  1,100\nNet sales  9,870  9,500\n"
        + "The company sold lamps and chairs in the quarter. " * 30,
        "acme-q2": "ACME QUARTERLY REPORT\n\nResearch and development  1,456  1,234\nNet sales  9,990  9,870\n"
        + "Demand for lamps rose in the quarter and chairs sold well. " * 30,
    }
    pages = [
        document_page(d, "ACME QUARTERLY REPORT", quoted(d, t, t[:21]), "A quarterly report") for d, t in docs.items()
    ]
    lines = [quoted(d, t, t.split("\n")[2]) for d, t in docs.items()]
    pages.append(figure_page("figure-research-and-development", "Research and development", lines))
    return answerer_over(tmp_path_factory.mktemp("abbr"), docs, pages)


@pytest.mark.parametrize("mode", ["wiki", "wiki+search"])
def test_a_question_saying_r_and_d_gets_the_research_and_development_lines(answerer, mode):
    r = answerer.ask("How has R&D spending changed?", mode=mode)
    text = "\n".join(c.text for c in r.context)
    assert "1,234" in text and "1,456" in text, [c.ref for c in r.context]
    assert r.question == "How has R&D spending changed?"  # the answer keeps the question as asked
