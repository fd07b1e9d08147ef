"""Issue 25, item 5: the size guard measures what the agents write, not the wiki's own bookkeeping.
Rebuilding an unchanged corpus used to climb the ratio with every build (log.md grows by a session each
time) until the build stopped; the generated pages (index, log, conflicts) are now reported beside the
ratio, and `build`, `stats` and `check` state the same figure."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_offline_agent import make_corpus

from wikigen.cli import main


def _content_chars(wiki: Path) -> int:
    """Characters of the pages the agents write: every top-level .md but the generated ones (index, log,
    conflicts and the provisions tables)."""
    return sum(
        len(p.read_text(encoding="utf-8"))
        for p in wiki.glob("*.md")
        if p.stem not in {"index", "log", "conflicts"} and not p.stem.startswith(("index-", "provisions-"))
    )


def test_rebuilding_an_unchanged_corpus_keeps_its_ratio(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=3)
    wiki = tmp_path / "wiki"
    ratios, contents = [], []
    for _ in range(7):
        assert main(["build", str(corpus), "--wiki", str(wiki), "--agents", "1", "--sessions", "1"]) == 0
        line = capsys.readouterr().out.strip().splitlines()[-1]
        ratios.append(float(re.search(r"ratio (\d+\.\d+)", line).group(1)))
        contents.append(_content_chars(wiki))
    log_md = len((wiki / "log.md").read_text(encoding="utf-8"))
    assert log_md > contents[-1] / 2  # the log is a large share of the folder by now
    # from the build whose pages are the last build's, the ratio stays
    steady = [r for r, c, before in zip(ratios[1:], contents[1:], contents[:-1]) if c == before]
    assert len(steady) >= 3, contents
    assert len(set(steady)) == 1, ratios


def test_build_stats_and_check_state_one_ratio_and_show_the_bookkeeping_beside_it(tmp_path, capsys):
    corpus = make_corpus(tmp_path, docs=3)
    wiki = tmp_path / "wiki"
    for _ in range(3):
        assert main(["build", str(corpus), "--wiki", str(wiki), "--agents", "1", "--sessions", "1", "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
    built = report["sessions"][-1]["ratio"]
    assert main(["stats", str(wiki), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    corpus_chars = stats["corpus_chars"]
    assert stats["wiki_chars"] == _content_chars(wiki)
    bookkeeping = ["index.md", "log.md", "conflicts.md", *(p.name for p in wiki.glob("provisions-*.md"))]
    generated = sum(len((wiki / n).read_text(encoding="utf-8")) for n in bookkeeping if (wiki / n).exists())
    assert stats["generated_chars"] == generated
    stated = max(stats["ratio_chars"], stats["ratio_tokens"])
    assert round(built, 2) == round(stated, 2)
    assert abs(stats["ratio_chars"] - stats["wiki_chars"] / corpus_chars) < 1e-3
    # check states the same ratio when it reports the size (a limit the wiki is near)
    cfg = wiki / ".wikigen" / "config.json"
    data = json.loads(cfg.read_text(encoding="utf-8"))
    data["max_ratio"] = stated / 0.9
    cfg.write_text(json.dumps(data), encoding="utf-8")
    main(["check", str(wiki)])
    out = capsys.readouterr().out
    note = next(line for line in out.splitlines() if "the corpus in" in line)
    assert f"{stated:.2f}x the corpus" in note
    assert "not counted" in note and "log.md" in note
