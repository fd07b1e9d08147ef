"""A small stand-in for wikigen.search.index.CorpusIndex, built on a real TextStore, so wiki tests need no tantivy."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikigen.search.freshness import Changes
from wikigen.search.texts import TextStore

from wikigen.core.text import Span
from wikigen.core.tokens import CharCounter
from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import Page


@dataclass(frozen=True)
class DocInfo:
    doc_id: str
    title: str
    chars: int
    tokens: int


class FakeIndex:
    """Same attributes as CorpusIndex: .texts, .corpus_chars, .corpus_tokens, .documents(), .locate(),
    .corpus_changes(); its documents have no sha256 (sources that cannot tell a changed document)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.index_dir = self.root
        self.texts = TextStore(self.root / "texts")
        self._docs = json.loads((self.root / "docs.json").read_text(encoding="utf-8"))
        counter = CharCounter()
        self.corpus_chars = sum(len(self.texts.text(d)) for d in self._docs)
        self.corpus_tokens = sum(counter.count(self.texts.text(d)) for d in self._docs)

    @classmethod
    def build(cls, root: Path, docs: dict[str, str]) -> FakeIndex:
        root = Path(root)
        store = TextStore(root / "texts")
        for doc_id, text in docs.items():
            store.put(doc_id, text)
        (root / "docs.json").write_text(json.dumps(sorted(docs)), encoding="utf-8")
        return cls(root)

    def documents(self) -> list[DocInfo]:
        c = CharCounter()
        return [
            DocInfo(d, d.rsplit("/", 1)[-1], len(self.texts.text(d)), c.count(self.texts.text(d))) for d in self._docs
        ]

    def locate(self, doc_id: str, text: str, tolerant_whitespace: bool = False) -> list[Span]:
        return self.texts.locate(doc_id, text, tolerant_whitespace=tolerant_whitespace)

    def corpus_changes(self) -> Changes:
        """No corpus folder stands behind it: nothing has changed."""
        return Changes()


CONTRACT = (
    "MASTER SERVICES AGREEMENT\n\n1. Term. This Agreement starts on the Effective Date.\n"
    "2. Termination. Either party may terminate this Agreement\nupon ninety (90) days' written notice.\n"
    "3. Fees. Fees are due within thirty (30) days of invoice.\n"
) * 20
KOREAN = (
    "제1조 (목적) 이 계약은 갑과 을 사이의 용역 제공에 관한 사항을 정한다.\n제2조 (기간) 계약 기간은 1년으로 한다.\n"
    * 10
)
CRLF = "Line one of the memo.\r\nThe budget is approved\r\nfor fiscal year 2025.\r\nEnd.\r\n" * 10


def make_index(tmp_path: Path, docs: dict[str, str] | None = None) -> FakeIndex:
    docs = docs if docs is not None else {"contracts/acme-msa": CONTRACT, "kr/contract": KOREAN, "memos/budget": CRLF}
    return FakeIndex.build(tmp_path / "corpus-index", docs)


def quote_of(index, doc_id: str, needle: str, nth: int = 0) -> Quote:
    """A true quote of needle (newline-normalised text) at its nth occurrence."""
    span = index.locate(doc_id, needle, tolerant_whitespace=True)[nth]
    return Quote(doc_id, span.start, span.end, needle)


def page(slug: str, owner: str = "alice", body: str = "", **kw) -> Page:
    kw.setdefault("title", slug.replace("-", " ").title())
    kw.setdefault("description", f"About {slug}.")
    return Page(slug=slug, owner=owner, body=body, **kw)


def quote_body(*quotes: Quote, text: str = "Notes.") -> str:
    return text + "\n\n" + "\n\n".join(format_quote(q) for q in quotes) + "\n"


def all_files(root: Path) -> set[str]:
    """Every path under root except lock files (machine state a refused write may leave)."""
    return {str(p) for p in Path(root).rglob("*") if "/.wikigen/locks" not in p.as_posix()}


# --- concurrent writers (run in threads and in spawned processes) -------------------------------

FACT_NEEDLE = "Fees are due within thirty (30) days of invoice."


def writer(wiki_root: str, index_root: str, agent: str, others: list[str], rounds: int) -> dict:
    """Add one fact per round to the agent's own page by read-modify-write; try to change others' pages."""
    from wikigen.core.errors import OwnershipError
    from wikigen.wiki.store import Wiki

    wiki = Wiki.open(Path(wiki_root), FakeIndex(Path(index_root)))
    out: dict[str, Any] = {"agent": agent, "written": 0, "refused": 0, "wrongly_allowed": 0}
    for r in range(rounds):
        p = wiki.read(agent)
        wiki.write(p.with_(body=p.body + f"- fact {agent} {r}\n"), agent=agent, session=1)
        out["written"] += 1
        other = others[r % len(others)]
        theirs = wiki.read(other)
        for attempt in (
            theirs.with_(body=theirs.body + f"- stolen {agent} {r}\n"),
            theirs.with_(owner=agent, body=theirs.body + f"- stolen {agent} {r}\n"),
        ):
            try:
                wiki.write(attempt, agent=agent, session=1)
                out["wrongly_allowed"] += 1
            except OwnershipError:
                out["refused"] += 1
    return out


def process_writer(
    wiki_root: str, index_root: str, agents: list[str], everyone: list[str], rounds: int, result_dir: str
) -> None:
    """One process running one writer thread per agent; results as JSON files."""
    import threading

    results = []

    def run(agent):
        results.append(writer(wiki_root, index_root, agent, [a for a in everyone if a != agent], rounds))

    threads = [threading.Thread(target=run, args=(a,)) for a in agents]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        (Path(result_dir) / f"{r['agent']}.json").write_text(json.dumps(r), encoding="utf-8")
