"""`make demo` is the first thing a user runs: it must work end to end on the shipped corpus, and every answer it
prints must be right: each document an answer cites is, by the sample's own text at the cited span, governed by
the law the question names."""

from __future__ import annotations

import re

import pytest
from wikigen.search.sources import open_wiki

from wikigen.demo import main

# a cited span: "(DOC_ID, chars S-E)" in a table answer, "DOC_ID: "..." -- (chars S-E)" in an extractive one
_TABLE_CITE = re.compile(r"\((?P<doc>[\w./-]+), chars (?P<s>\d+)-(?P<e>\d+)\)")
_LINE_CITE = re.compile(r"^- (?P<doc>[\w./-]+): .* -- \(chars (?P<s>\d+)-(?P<e>\d+)\)$")
_ENGLISH_LAW = re.compile(r"\b(?:England and Wales|English law)\b")
_OTHER_LAW = re.compile(r"\blaws? of (?:the )?(?:State of |Republic of |Federal Republic of )?(?!England)[A-Z]\w+")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "demo"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(out) == 0
    return out, buf.getvalue()


def _answers(printed: str) -> list[tuple[str, str]]:
    """(question, answer text) of every `wikigen ask` the demo ran: the lines after its command, up to the context."""
    blocks = []
    for m in re.finditer(r'^\$ wikigen ask "(?P<q>[^"]+)".*\n(?P<a>(?:(?!-- context).*\n)*)', printed, re.M):
        blocks.append((m.group("q"), m.group("a")))
    return blocks


def test_the_demo_runs_end_to_end(demo):
    out, printed = demo
    assert "indexed 43 documents" in printed
    assert "session 2:" in printed
    for mode in ("wiki", "wiki+search"):
        assert f"Ask ({mode})" in printed
    assert "doc_id,title," in printed  # the provisions table as CSV
    assert "contracts have Governing law: England" in printed  # answered from the table, each with its quote
    assert (out / "wiki" / "index.md").is_file()
    site = out / "site" / "index.html"
    assert site.is_file() and f"Read it in a browser: open {site.resolve().as_uri()}" in printed


def test_every_answer_the_demo_prints_cites_documents_governed_by_the_law_asked(demo):
    out, printed = demo
    texts = open_wiki(out / "wiki").sources.texts
    answers = _answers(printed)
    assert len(answers) >= 3  # the aggregate question in two modes, and step 6's question
    for question, answer in answers:
        assert re.search(r"England|English", question), question  # the demo's questions ask about English law
        cited = [
            (m.group("doc"), int(m.group("s")), int(m.group("e")))
            for line in answer.splitlines()
            for m in [_TABLE_CITE.search(line) or _LINE_CITE.match(line)]
            if m
        ]
        assert len({d for d, _, _ in cited}) >= 4, (question, answer)
        for doc, s, e in cited:
            said = " ".join(texts.text(doc)[s:e].split())
            assert _ENGLISH_LAW.search(said), (question, doc, said)  # the cited clause names the law asked
            assert not _OTHER_LAW.search(said), (question, doc, said)
            assert " ".join(said.split()) in " ".join(answer.split()) or said[:60] in " ".join(answer.split())


def test_a_table_answer_counts_the_documents_its_scope_says(demo):
    """ "4 of N contracts" beside "scope: collection, N documents": the answer and its scope range over the same
    documents (the table's kind, when the question names it), not over two classifications of one kind."""
    _, printed = demo
    found = 0
    for m in re.finditer(
        r"^\d+ of (?P<n>\d+) (?P<kind>\w+) have .*?^-- scope: collection, (?P<m>\d+) documents", printed, re.M | re.S
    ):
        found += 1
        assert m.group("n") == m.group("m"), m.group()[:200]
    assert found >= 1, printed[-3000:]
