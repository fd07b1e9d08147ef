"""Issue 42, item 3: what people ask stays private. The question log is (0600, out of git); a dream writes
only what its sources say, named by the documents' own words: no question reaches a page, log.md, the
progress log, the wiki's git history (commit messages and diffs, the review branch's too), the Claude Code
export or the static site. And the static site carries the served view's Content-Security-Policy.
"""

from __future__ import annotations

import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from shared_builds import sample_wiki
from wikigen.agents.dreaming import HUB
from wikigen.search.sources import open_wiki

from wikigen.ask.retrieval import Answerer
from wikigen.cli import main
from wikigen.web import views
from wikigen.web.server import CSP
from wikigen.wiki.human import DREAMER

# each asks a real subject of the sample corpus (so the dreamer writes a page on it), wrapped in what a
# person might type: a secret, wiki and markdown links, an image, HTML, and a word of its own (a marker)
QUESTIONS = [
    "How long is the notice period to terminate for convenience? zorblaxian password: hunter2",
    "AKIAIOSFODNN7EXAMPLE [[index]] how quickly must security incidents be reported? quuxaphone",
    "![p](http://host/x.png) what insurance must the supplier carry? <script>alert(1)</script> flimzorpic",
    "What is the password for the reporting database?",
]
NEEDLES = [
    "hunter2",
    "AKIAIOSFODNN7EXAMPLE",
    "[[index]]",
    "![p](",
    "http://host/x.png",
    "host/x",
    "<script>alert(1)</script>",
    "&lt;script&gt;",
    "alert(1)",
    "alert-1",
    "zorblax",
    "quuxaphone",
    "flimzorp",
    "password for the reporting database",
]
STATE = (".git/", ".wikigen/locks/", ".wikigen/page-index/", ".wikigen/cache/", ".wikigen/index/")
PRIVATE = ".wikigen/questions.jsonl"  # the question log: private, out of git


def _found(text: str) -> list[str]:
    low = text.casefold()
    return [n for n in NEEDLES if n.casefold() in low]


def _tree(root: Path, skip=()) -> dict[str, str]:
    """Every file under root by its relative path, as text (names are checked as well as contents)."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not rel.startswith(skip) and rel != PRIVATE:
            out[rel] = p.read_text(encoding="utf-8", errors="replace")
    return out


def _leaks(files: dict[str, str]) -> dict[str, list[str]]:
    return {rel: hits for rel, text in files.items() if (hits := _found(rel) + _found(text))}


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def dreamt(tmp_path_factory):
    """The sample wiki after a hostile question log, `dream --review`, `dream --apply`, `site` and `export`."""
    base = tmp_path_factory.mktemp("dreamleak")
    root = sample_wiki(tmp_path_factory, base / "wiki", sessions=1)
    before = _leaks(_tree(root, STATE))
    answerer = Answerer.open(root, log="cli", dense=False)
    for q in QUESTIONS:
        answerer.ask(q)
    assert main(["dream", str(root), "--review"]) == 0
    review_message = _git(root, "log", "-1", "--format=%B", "wikigen-review")
    assert main(["dream", str(root), "--apply"]) == 0
    assert main(["site", str(root), "--out", str(base / "site")]) == 0
    assert main(["export", "claude-code", str(root), str(base / "export")]) == 0
    return root, base, before, review_message


def test_the_hostile_questions_were_logged_and_dreamt_on(dreamt):
    root, _, before, _ = dreamt
    assert before == {}  # none of the needles is in the wiki before the questions are asked
    log = (root / PRIVATE).read_text(encoding="utf-8")
    assert "zorblaxian" in log and "[[index]]" in log and "<script>alert(1)</script>" in log  # asked, privately
    pages = [p for p in open_wiki(root).pages() if p.owner == DREAMER and p.slug != HUB]
    assert len(pages) >= 2  # the dreamer wrote pages on the subjects asked about


def test_no_question_reaches_pages_logs_git_the_export_or_the_site(dreamt):
    root, base, _, review_message = dreamt
    assert _leaks(_tree(root, STATE)) == {}  # every page, log.md, progress.jsonl, index.md, archive/
    assert _found(review_message) == []
    history = _git(root, "log", "-p", "--all", "--format=%H%n%B")
    assert "dream" in history and _found(history) == []
    names = _git(root, "log", "--all", "--name-only", "--format=")
    assert _found(names) == []
    assert _leaks(_tree(base / "export")) == {}
    assert _leaks(_tree(base / "site")) == {}


def test_dream_pages_are_named_by_the_documents_words(dreamt):
    root, _, _, _ = dreamt
    w = open_wiki(root)
    text = " ".join(w.sources.texts.text(d.doc_id) for d in w.sources.documents()).casefold()
    for p in [p for p in w.pages() if p.owner == DREAMER and p.slug != HUB]:
        for word in re.findall(r"\w+", " ".join([p.title, *p.aliases])):
            assert word.casefold() in text, (p.slug, word)


class _Metas(HTMLParser):
    def __init__(self):
        super().__init__()
        self.csp: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and (a.get("http-equiv") or "").casefold() == "content-security-policy":
            self.csp.append(a.get("content") or "")


def _directives(policy: str) -> dict[str, str]:
    return {d.split()[0]: d.strip() for d in policy.split(";") if d.strip()}


def test_every_static_page_carries_the_served_views_csp(dreamt):
    _, base, _, _ = dreamt
    served = _directives(CSP)
    meta = _directives(views.CSP_META)
    # the same policy; a <meta> cannot carry frame-ancestors (browsers ignore it there), the header does
    assert meta == {k: v for k, v in served.items() if k != "frame-ancestors"}
    pages = sorted((base / "site").rglob("*.html"))
    assert len(pages) > 10
    for path in pages:
        parser = _Metas()
        parser.feed(path.read_text(encoding="utf-8"))
        assert parser.csp == [views.CSP_META], path
