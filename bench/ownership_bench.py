"""The field's known failure, repeated: N agents add facts to ONE shared table page by naive
read-modify-write (plain file read and write, no ownership, no lock), against each agent adding facts to
its own page through wiki.write. Prints facts kept of facts written for both ways.

    python bench/ownership_bench.py 8 100      # N agents (processes), rounds each
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wikigen.search.freshness import Changes
from wikigen.search.texts import TextStore

from wikigen.core.text import Span
from wikigen.wiki.page import Page
from wikigen.wiki.sources import SourceDocument
from wikigen.wiki.store import Wiki

DOC = "A small corpus document for the ownership benchmark. " * 2000


class Sources:
    """Stand-in for CorpusIndex: one document in a real TextStore."""

    def __init__(self, root: Path):
        self.texts = TextStore(root)
        self.corpus_chars = len(DOC)
        self.corpus_tokens = len(DOC) // 4

    def documents(self) -> list[SourceDocument]:
        return []

    def corpus_changes(self) -> Changes:
        return Changes()  # no corpus folder behind it

    def locate(self, doc_id, text, tolerant_whitespace=False) -> list[Span]:
        return self.texts.locate(doc_id, text, tolerant_whitespace=tolerant_whitespace)


def shared_agent(path: str, agent: int, rounds: int, start) -> None:
    start.wait()
    for r in range(rounds):
        with open(path, encoding="utf-8") as f:  # what an agent without ownership does
            table = f.read()
        table += f"| agent-{agent} | fact {r} |\n"
        with open(path, "w", encoding="utf-8") as f:
            f.write(table)


def own_agent(wiki_root: str, texts_root: str, agent: int, rounds: int, start) -> None:
    wiki = Wiki.open(Path(wiki_root), Sources(Path(texts_root)))
    name = f"agent-{agent}"
    start.wait()
    for r in range(rounds):
        page = wiki.read(name) if wiki.exists(name) else Page(name, f"Facts of {name}", name, "Facts.", body="")
        wiki.write(page.with_(body=page.body + f"| {name} | fact {r} |\n"), agent=name, session=1)


def run(target, args_of, n: int) -> float:
    ctx = mp.get_context("spawn")
    start = ctx.Barrier(n)
    procs = [ctx.Process(target=target, args=(*args_of(i), start)) for i in range(n)]
    t = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit(f"an agent process failed (exit {p.exitcode})")
    return time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("agents", type=int, nargs="?", default=8)
    ap.add_argument("rounds", type=int, nargs="?", default=100)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    n, rounds, total = a.agents, a.rounds, a.agents * a.rounds
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        shared = tmp / "shared-table.md"
        shared.write_text("| agent | fact |\n|---|---|\n", encoding="utf-8")
        t_shared = run(shared_agent, lambda i: (str(shared), i, rounds), n)
        kept_shared = len(re.findall(r"^\| agent-\d+ \| fact \d+ \|$", shared.read_text(encoding="utf-8"), re.M))

        src = Sources(tmp / "texts")
        src.texts.put("doc", DOC)
        wiki = Wiki.create(tmp / "wiki", src, max_ratio=10.0)
        t_own = run(own_agent, lambda i: (str(wiki.root), str(tmp / "texts"), i, rounds), n)
        kept_own = sum(len(re.findall(r"^\| agent-\d+ \| fact \d+ \|$", p.body, re.M)) for p in wiki.pages())

    line = (
        f"shared page: {kept_shared}/{total} kept ({100 * kept_shared / total:.1f}%)  "
        f"own pages: {kept_own}/{total} kept ({100 * kept_own / total:.1f}%)"
    )
    print(line)
    print(
        f"agents={n} rounds={rounds} processes; shared {t_shared:.2f}s, own pages via wiki.write {t_own:.2f}s "
        f"({total / t_own:.0f} writes/s, process start-up included)"
    )
    if a.json:
        print(
            json.dumps(
                {
                    "agents": n,
                    "rounds": rounds,
                    "written": total,
                    "shared_kept": kept_shared,
                    "own_kept": kept_own,
                    "shared_s": round(t_shared, 3),
                    "own_s": round(t_own, 3),
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
