"""`make demo`: the main job on the shipped sample corpus, through the same CLI a user types.

Indexes corpora/acme, shows a search, builds the wiki offline (2 agents, 2 sessions), prints its
stats against the corpus, asks one aggregate question with the wiki (alone, then with search; step 2 shows
what search alone finds), and ends by writing the wiki's static site (the web view of `wikigen site`) and
printing how to open it. Every answer it prints is checked against the sample's text by tests/test_demo.py.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from wikigen.cli import main as wikigen

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpora" / "acme"
QUESTIONS = ROOT / "corpora" / "acme-questions.jsonl"


def _step(title: str) -> None:
    print(f"\n== {title}", flush=True)


def _run(*argv: str) -> None:
    print("$ wikigen " + " ".join(f'"{a}"' if " " in a else a for a in argv), flush=True)
    code = wikigen(list(argv))
    if code != 0:
        raise SystemExit(f"demo: `wikigen {argv[0]}` exited {code}")


def _demo_question() -> str:
    for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if q["kind"] == "aggregate":
            return q["question"]
    raise SystemExit(f"demo: no aggregate question in {QUESTIONS}")


def main(out: Path | None = None) -> int:
    out = Path(out or os.environ.get("WIKIGEN_DEMO_OUT") or ROOT / "demo-out")
    if out.exists():
        shutil.rmtree(out)
    wiki = out / "wiki"
    index = wiki / ".wikigen" / "index"

    _step("1. Index the sample corpus")
    _run("index", str(CORPUS), "--index", str(index))

    _step("2. Search it")
    _run("search", "termination notice", "--index", str(index), "-k", "3")

    _step("3. Build the wiki offline: 2 agents, 2 sessions")
    _run("build", str(CORPUS), "--wiki", str(wiki), "--agents", "2", "--sessions", "2")

    _step("4. The wiki against its sources")
    _run("stats", str(wiki))
    _run("check", str(wiki))

    question = _demo_question()
    for mode in ("wiki", "wiki+search"):
        _step(f"5. Ask ({mode})")
        _run("ask", question, "--wiki", str(wiki), "--mode", mode)

    _step("6. What the documents say: the provisions table, and a question that names a value")
    _run("table", str(wiki), "--kind", "contract", "--csv")
    _run("ask", "Which contracts are governed by English law?", "--wiki", str(wiki), "--mode", "wiki")

    site = out / "site"
    _step("7. Write the wiki as a static site")
    _run("site", str(wiki), "--out", str(site))

    print(f"\nThe wiki is in {wiki}/ (open index.md, or the folder in Obsidian).")
    print(f"Read it in a browser: open {(site / 'index.html').resolve().as_uri()}")
    print(f"or, with search over the corpus and ask: wikigen serve {wiki}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
