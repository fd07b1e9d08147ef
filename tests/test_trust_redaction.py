"""Issue 25, item 2: the detector does not flag ordinary text, and a redaction keeps every quote verifiable.

Share purchase agreements printed from EDGAR carry a page header on every page (the filing's URL, with its
accession number); the detector must leave those alone, and where it does keep a secret out (a data-room
password), the spans shown with the text must still verify (tests/span_check.py) on every surface.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from span_check import SpanChecker

from wikigen.cli import main
from wikigen.wiki.secrets import find_secrets, redact

BENCH = Path(__file__).resolve().parent.parent / "bench" / "data"


def _benign() -> list[str]:
    lines = (BENCH / "secrets-benign.txt").read_text(encoding="utf-8").splitlines()
    return [x for x in lines if x.strip() and not x.startswith("# ")]


def _planted() -> list[dict]:
    return [json.loads(x) for x in (BENCH / "secrets-planted.jsonl").read_text(encoding="utf-8").splitlines() if x]


@pytest.mark.parametrize("line", _benign())
def test_urls_accession_numbers_hashes_and_reference_numbers_are_not_secrets(line):
    assert find_secrets(line) == []


@pytest.mark.parametrize("p", _planted(), ids=lambda p: p["kind"])
def test_planted_secrets_are_found_and_kept_out(p):
    text, secret = p["text"], p["secret"]
    at = text.index(secret)
    assert any(s.start <= at and at + len(secret) <= s.end for s in find_secrets(text))
    assert secret not in redact(text)


def test_a_piece_that_cuts_a_secret_shows_neither_half_and_its_spans_verify():
    from wikigen.wiki.secrets import keep_out

    text = "Data room login: buyer-team\nData room password: Kestrel#2021 (rotated monthly)\nEnd of schedule.\n"
    at = text.index("Kestrel#2021")
    for start, end in [(0, at + 4), (at + 3, len(text)), (at - 10, at + 20), (0, len(text))]:
        ex = keep_out("spa", text, start, end)
        assert "Kest" not in ex.text and "2021" not in ex.text.replace("(rotated", "")
        assert "[secret kept out: Secret Keyword]" in ex.text
        for sp in ex.spans():
            assert text[sp["start"] : sp["end"]] in ex.text
        assert all(start <= sp["start"] < sp["end"] <= end for sp in ex.spans())


HEADER = "https://www.sec.gov/Archives/edgar/data/1428336/000110465921033359/tm218713d1_ex10-{n}.htm {p}/12"
CLAUSES = [
    "The Seller shall sell and the Buyer shall purchase the Shares free from all Encumbrances on Completion.",
    "The consideration for the Shares is USD 12,500,000, payable in cash on Completion by wire transfer.",
    "Completion shall take place at the offices of the Buyer's counsel on the fifth Business Day after the "
    "Conditions are satisfied.",
    "The Seller warrants that the Accounts give a true and fair view of the financial position of the Company.",
    "No claim may be brought under the Warranties unless notice is given within eighteen months after Completion.",
    "This Agreement is governed by the laws of England and Wales and the courts of London have exclusive jurisdiction.",
]


def _spa(n: int, secret: bool) -> str:
    lines = [f"SHARE PURCHASE AGREEMENT {n}", "", HEADER.format(n=n, p=1), ""]
    for i, clause in enumerate(CLAUSES, 1):
        lines += [f"{i}. {clause}", ""]
        if i % 2 == 0:
            lines += [HEADER.format(n=n, p=i // 2 + 1), "Accession Number: 0001104659-21-033359", ""]
    if secret:
        lines += [
            "7. Data Room.",
            "The data room is at https://dataroom.example.com/spa-2021 (password: Kestrel#2021).",
            "",
        ]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def edgar(tmp_path_factory):
    root = tmp_path_factory.mktemp("edgar")
    corpus = root / "corpus" / "spa"
    corpus.mkdir(parents=True)
    for n in range(1, 4):
        (corpus / f"spa-{n}.txt").write_text(_spa(n, secret=n == 2), encoding="utf-8")
    wiki = root / "wiki"
    assert (
        main(["build", str(root / "corpus"), "--wiki", str(wiki), "--quiet", "--sessions", "1", "--max-ratio", "3"])
        == 0
    )
    return wiki


def test_edgar_page_headers_are_shown_as_they_are_and_every_span_verifies(edgar, capsys):
    from wikigen.search.sources import open_wiki

    texts = open_wiki(edgar).sources.texts
    checker = SpanChecker(texts.text)
    index = str(edgar / ".wikigen" / "index")
    failures, shown = [], 0
    for q in ("completion consideration shares", "data room password", "governing law courts"):
        assert main(["search", q, "--index", index, "--json", "-k", "20"]) == 0
        hits = json.loads(capsys.readouterr().out)["hits"]
        failures += checker.hits(hits, f"search {q!r}")
        for mode in ("wiki+search", "search", "wiki"):
            assert (
                main(
                    [
                        "ask",
                        f"What does the agreement say about the {q}?",
                        "--wiki",
                        str(edgar),
                        "--mode",
                        mode,
                        "--json",
                    ]
                )
                == 0
            )
            out = capsys.readouterr().out
            assert "Kestrel#2021" not in out
            result = json.loads(out)
            shown += "sec.gov/Archives/edgar/data/1428336/000110465921033359" in out
            failures += checker.ask(result, f"ask {mode} {q!r}")
    assert checker.checked > 50
    assert failures == []
    assert shown >= 3  # the page headers are shown as they are
    assert not [d for d in ("spa/spa-1", "spa/spa-3") if find_secrets(texts.text(d))]
