"""Key-facts scoring (sec10q-dev's README): which facts a gold answer has and when a context holds them."""

from __future__ import annotations

import pytest

from wikigen.ask.keyfacts import context_text, fact_found, key_facts, score_keyfacts


def test_numbers_of_three_or_more_digits_without_bare_years():
    answer = (
        "For the quarter ended June 25, 2022, total net sales were $82,959 million; in Q1 2023 "
        "$117,154 million (SOURCE: 2023 Q1 AAPL.pdf). Margin 36.3%, up 1.2 points; 82,959 again."
    )
    assert key_facts(answer) == ["82,959", "117,154", "36.3"]


def test_short_answer_is_its_own_fact_and_long_answer_without_numbers_has_none():
    assert key_facts("  No.  ") == ["No."]
    assert key_facts("Delaware") == ["Delaware"]
    assert key_facts("x" * 41) == []
    assert key_facts("The risk factors have not changed over the reporting period in any way.") == []
    assert key_facts(None) == []


def test_trailing_punctuation_is_not_part_of_a_number():
    assert key_facts("Revenue was 1,234, then 5,678.") == ["1,234", "5,678"]
    assert key_facts("Figures: 1,000,000 and 12.50") == ["1,000,000", "12.50"]


def test_found_without_regard_to_whitespace_and_case():
    assert fact_found("82,959", "Total net sales $ 82,959 $ 81,797")
    assert fact_found("82,959", "82,\n959")
    assert fact_found("No.", "... NO. none")
    assert not fact_found("82,959", "82.959")


def test_score_is_the_share_of_facts_found():
    q = {"answer": "Sales were $82,959 million and $117,154 million."}
    ctx = [{"text": "net sales 82,959", "spans": []}, {"text": "other", "spans": []}]
    assert score_keyfacts(q, ctx) == pytest.approx(0.5)
    assert score_keyfacts(q, "117,154 and 82,959") == 1.0
    assert score_keyfacts(q, []) == 0.0
    assert (
        score_keyfacts({"answer": "A long answer that has no figures in it at all, so it cannot be graded."}, ctx)
        is None
    )


def test_context_text_joins_items():
    assert context_text([{"text": "a"}, {"text": "b"}]) == "a\nb"
    assert context_text("plain") == "plain"
