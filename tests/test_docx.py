"""Word files: .docx text in reading order with exact character offsets; .doc/.rtf skipped with how to convert."""

from __future__ import annotations

import io
from pathlib import Path

import docx
import pytest
from wikigen.search.corpus import load_corpus
from wikigen.search.extract import extract_bytes
from wikigen.search.index import CorpusIndex

from wikigen.core.errors import ExtractError
from wikigen.wiki.markup import Quote
from wikigen.wiki.quotes import check_quote

ROOT = Path(__file__).resolve().parent.parent


def _sample_docx() -> bytes:
    d = docx.Document()
    d.core_properties.title = "공급 계약서 / Supply Contract"
    d.add_heading("공급 계약서", level=1)
    d.add_paragraph("제1조 (목적) 본 계약은 공급자가 센서 부품을 공급하는 조건을 정한다.")
    table = d.add_table(rows=3, cols=3)
    for r, row in enumerate(
        [["품목", "단가", "납기"], ["온도 센서", "12,000원", "30일"], ["유량계", "85,000원", "45일"]]
    ):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    merged = d.add_table(rows=2, cols=2)
    merged.cell(0, 0).merge(merged.cell(0, 1)).text = "Merged heading"
    merged.cell(1, 0).text = "left"
    merged.cell(1, 1).text = "right"
    d.add_paragraph("")  # an empty paragraph adds nothing
    p = d.add_paragraph("Either party may terminate on ")
    p.add_run("ninety (90) days'").bold = True
    p.add_run(" written notice.")
    d.sections[0].header.paragraphs[0].text = "HEADER TEXT IS NOT BODY TEXT"
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


EXPECTED = (
    "공급 계약서\n\n"
    "제1조 (목적) 본 계약은 공급자가 센서 부품을 공급하는 조건을 정한다.\n\n"
    "품목 | 단가 | 납기\n온도 센서 | 12,000원 | 30일\n유량계 | 85,000원 | 45일\n\n"
    "Merged heading\nleft | right\n\n"
    "Either party may terminate on ninety (90) days' written notice."
)


def test_docx_paragraphs_and_tables_in_reading_order():
    ex = extract_bytes(_sample_docx(), ".docx")
    assert ex.text == EXPECTED
    assert ex.title == "공급 계약서 / Supply Contract"
    assert ex.encoding == "docx"
    assert "HEADER" not in ex.text


def test_docx_round_trip_through_the_index_with_exact_offsets(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "hanbit-supply.docx").write_bytes(_sample_docx())
    (corpus / "old-contract.doc").write_bytes(b"\xd0\xcf\x11\xe0 legacy word")
    (corpus / "memo.rtf").write_bytes(b"{\\rtf1 hello}")
    index, summary = CorpusIndex.build(corpus, tmp_path / "idx")
    skipped = dict(summary.skipped)
    assert skipped == {
        "memo.rtf": "RTF is not supported: convert it to .docx first, e.g. "
        "`libreoffice --headless --convert-to docx FILE`",
        "old-contract.doc": "legacy Word .doc is not supported: convert it to .docx first, e.g. "
        "`libreoffice --headless --convert-to docx FILE`",
    }
    text = index.texts.text("hanbit-supply")
    assert text == EXPECTED
    needle = "온도 센서 | 12,000원 | 30일"
    start = EXPECTED.index(needle)
    [span] = index.locate("hanbit-supply", needle)
    assert (span.start, span.end) == (start, start + len(needle))  # characters, not UTF-8 bytes
    assert index.texts.read("hanbit-supply", span.start, span.end) == needle
    assert check_quote(Quote("hanbit-supply", span.start, span.end, needle), index).status == "ok"
    wrong = Quote("hanbit-supply", len(needle.encode()), 2 * len(needle.encode()), needle)  # byte offsets
    assert check_quote(wrong, index).status == "reanchored"
    hits = index.search("유량계", k=3)
    assert hits and hits[0].doc_id == "hanbit-supply"
    assert hits[0].text == text[hits[0].start : hits[0].end]


def test_a_damaged_docx_is_a_reason_not_a_crash(tmp_path):
    with pytest.raises(ExtractError, match="unreadable Word file"):
        extract_bytes(b"PK\x03\x04 not really a zip", ".docx")
    (tmp_path / "broken.docx").write_bytes(b"this is not a Word file")
    (tmp_path / "ok.txt").write_text("fine", encoding="utf-8")
    docs, skipped = load_corpus(tmp_path)
    assert [d.doc_id for d in docs] == ["ok"]
    assert skipped[0].path == "broken.docx" and skipped[0].reason.startswith("unreadable Word file")


def test_sample_corpus_docx_is_the_generator_output():
    """corpora/make_docx.py regenerates the committed file byte for byte (deterministic output)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_docx", ROOT / "corpora" / "make_docx.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.render() == mod.OUT.read_bytes()
    text = extract_bytes(mod.OUT.read_bytes(), ".docx").text
    assert "Reference gas analysers | 6 months | UKAS-accredited laboratory | \u00b11% of reading" in text


def test_a_nested_table_follows_its_cell_text():
    d = docx.Document()
    outer = d.add_table(rows=1, cols=2)
    cell = outer.cell(0, 0)
    cell.text = "Fees"
    inner = cell.add_table(rows=2, cols=2)
    for r, row in enumerate([["Model", "Price"], ["KS-100", "GBP 120"]]):
        for c, value in enumerate(row):
            inner.cell(r, c).text = value
    outer.cell(0, 1).text = "Payable in 30 days"
    buf = io.BytesIO()
    d.save(buf)
    assert extract_bytes(buf.getvalue(), ".docx").text == "Fees\nModel | Price\nKS-100 | GBP 120 | Payable in 30 days"
