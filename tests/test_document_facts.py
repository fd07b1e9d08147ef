"""Fact detection before the sessions, in worker processes: the same fact sheets and figures as the
agents make one by one, with any number of workers, and the same wiki."""

import multiprocessing
from pathlib import Path

import pytest
from test_figures import REPORTS, contracts, report
from wikigen.agents.document_facts import FACTS_CHARS, detect_facts, document_sheet
from wikigen.agents.figures import find_figures
from wikigen.agents.offline import OfflineBackend
from wikigen.agents.orchestrate import BuildConfig, build
from wikigen.search.facts.sheet import fact_sheet

import wikigen.core.workers as workers_mod

REPO = Path(__file__).resolve().parent.parent
ACME = REPO / "corpora" / "acme"

KOREAN = (
    "용역 계약서\n\n본 계약은 2023년 3월 1일 주식회사 한빛과 주식회사 누리 사이에 체결된다.\n\n"
    "제1조 (계약기간) 계약기간은 2년으로 한다.\n\n제2조 (대금) 용역 대금은 5,000,000원으로 한다.\n"
)


def corpus() -> dict[str, str]:
    texts = contracts()
    texts.update({f"reports/{d}": report(*args) for d, args in REPORTS.items()})
    texts["ko/용역"] = KOREAN
    texts["long"] = "LONG AGREEMENT\n\n" + "The fee is $10 per unit. " * 4000  # past FACTS_CHARS
    return texts


def test_a_sheet_reads_the_first_facts_chars_of_the_text():
    text = corpus()["long"]
    assert len(text) > FACTS_CHARS
    assert document_sheet(text, "Long") == fact_sheet(text[:FACTS_CHARS], "Long")


def test_two_workers_find_the_sheets_and_figures_of_one(monkeypatch):
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("worker processes need fork on this platform; fact detection then runs in one process")
    texts = corpus()
    titles = {d: d.rsplit("/", 1)[-1] for d in texts}
    one = detect_facts(texts, titles, workers=1)
    assert one.sheets == {d: document_sheet(texts[d], titles[d]) for d in texts}
    assert one.figures == find_figures(texts)
    assert {f.title.lower() for f in one.figures} >= {"total widget sales", "cure period"}
    monkeypatch.setattr(workers_mod, "PARALLEL_MIN_CHARS", 0)
    assert workers_mod.Workers(2, 1).n == 2
    seen = []
    two = detect_facts(texts, titles, workers=2, progress=lambda done, total: seen.append((done, total)))
    assert two.sheets == one.sheets and two.figures == one.figures
    assert seen[-1] == (len(texts), len(texts))


def pages(wiki: Path) -> dict[str, str]:
    """Every page's markdown (log.md, the progress log's view, says when and what was read: left out)."""
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(wiki.glob("*.md")) if p.name != "log.md"}


def test_a_build_with_facts_made_beforehand_writes_the_wiki_made_on_demand(tmp_path, monkeypatch):
    """The build detects facts before its sessions (two workers here); a backend without a catalog
    leaves every sheet and the figures to the sessions, read through the tools. Same pages."""
    monkeypatch.setattr(workers_mod, "PARALLEL_MIN_CHARS", 0)
    ahead = tmp_path / "ahead"
    stages = []
    assert build(
        BuildConfig(corpus=ACME, wiki=ahead, agents=2, sessions=2, quiet=True, workers=2),
        on_progress=lambda stage, done, total: stages.append((stage, done, total)),
    ).ok
    facts = [(done, total) for stage, done, total in stages if stage == "fact detection"]
    assert facts and facts[-1][0] == facts[-1][1] > 1, stages[-5:]
    lazy = tmp_path / "lazy"
    backend = OfflineBackend(agents=2, sessions=2)
    assert build(BuildConfig(corpus=ACME, wiki=lazy, agents=2, sessions=2, quiet=True, workers=1), backend=backend).ok
    assert backend.sheets, "the sessions made the sheets themselves"
    got, want = pages(ahead), pages(lazy)
    assert got.keys() == want.keys()
    assert [n for n in got if got[n] != want[n]] == []
