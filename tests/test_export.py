"""`wikigen export claude-code WIKI DIR`: a Claude Code memory folder within its limits.

MEMORY.md and its section files: at most 200 lines and 25,000 UTF-8 bytes, each line under 200
characters, every link a relative markdown link to a file in DIR; topic files with name/description/
type front matter, no [[wikilinks]] outside quotes, quotes verbatim against the index. Checked on the
sample corpus, on a generated Korean corpus (where bytes, not characters, are the binding limit) and on
the full CUAD dev wiki when cuad-dev is present (in $WIKIGEN_EVAL_DATA, else ../shared/eval).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
import yaml
from shared_builds import sample_wiki
from wikigen.agents.orchestrate import BuildConfig, build
from wikigen.search.sources import open_wiki

from wikigen import cli
from wikigen.core.errors import UsageError
from wikigen.core.text import clip_words, fit_parts
from wikigen.export import (
    MAX_BYTES,
    MAX_LINE_CHARS,
    MAX_LINES,
    MEMORY,
    VALUE_SEP,
    _entry_line,
    _md_link,
    build_memory,
    export_claude_code,
    file_stem,
    utf8_len,
)
from wikigen.wiki.index_page import Entry, build_index
from wikigen.wiki.markup import scan_quotes
from wikigen.wiki.page import Page
from wikigen.wiki.provisions import STATED, read_table, records

ROOT = Path(__file__).resolve().parent.parent
ACME = ROOT / "corpora" / "acme"
MD_LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]+)\)")


def _tree(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _build(corpus: Path, wiki: Path, agents: int = 2, max_ratio: float = 1.0) -> Path:
    assert build(BuildConfig(corpus=corpus, wiki=wiki, agents=agents, sessions=1, quiet=True, max_ratio=max_ratio)).ok
    return wiki


def assert_sound_export(out: Path, wiki_root: Path, others: tuple[str, ...] = ()) -> dict:
    """Every limit of the memory folder, and every quote verbatim against the corpus (others: the
    user's own files in DIR, left alone by the export)."""
    wiki = open_wiki(wiki_root)
    texts = wiki.sources.texts
    files = {p.name: p.read_text(encoding="utf-8") for p in out.glob("*.md") if p.name not in others}
    memory = {n: t for n, t in files.items() if n == MEMORY or n.startswith("index-")}
    topics = {n: t for n, t in files.items() if n not in memory}
    tables = {n: t for n, t in topics.items() if n.startswith("provisions-")}  # the provisions table's files
    assert MEMORY in memory
    assert sorted(n[:-3] for n in topics if n not in tables) == sorted(file_stem(s) for s in wiki.slugs())
    for name, text in tables.items():  # within the same limits as MEMORY.md
        assert len(text.splitlines()) <= MAX_LINES and utf8_len(text) <= MAX_BYTES, name
    linked = set()
    for name, text in memory.items():
        assert len(text.splitlines()) <= MAX_LINES, name
        assert utf8_len(text) <= MAX_BYTES, (name, utf8_len(text))
        for line in text.splitlines():
            assert len(line) < 200, (name, line)
            assert "[[" not in line
            for _, target in MD_LINK.findall(line):
                assert (out / target).is_file(), (name, target)
                linked.add(target)
    tables_linked = {t for n in linked & set(tables) for _, t in MD_LINK.findall(tables[n])}
    assert linked | tables_linked >= set(topics)  # every page is reachable from MEMORY.md (a table's part: from part 1)
    quotes = 0
    for name, text in topics.items():
        lines = text.split("\n")
        assert lines[0] == "---"
        close = lines.index("---", 1)  # front matter ends at the first line that is "---"
        fm = yaml.safe_load("\n".join(lines[1:close]))
        assert set(fm) == {"name", "description", "type"} and fm["type"] == "reference"
        assert fm["name"].strip() and fm["description"].strip() and "\n" not in fm["description"]
        assert len(fm["description"]) <= 200
        assert lines[close + 1] == lines[close + 3] == "" and lines[close + 2].startswith("# ")
        assert lines[close + 4] == fm["description"]  # the file opens with what it holds
        body = "\n".join(lines[close + 1 :])
        quote_lines: set[int] = set()
        for block in scan_quotes(body):
            q = block.quote
            assert texts.text(q.doc_id)[q.start : q.end] == q.text, (name, q.label())
            quote_lines.update(range(block.header_line, block.end_line))
            quotes += 1
        for i, line in enumerate(body.split("\n")):
            if i not in quote_lines:
                assert "[[" not in line, (name, line)
            for _, target in MD_LINK.findall(line) if i not in quote_lines else []:
                assert (out / target).is_file(), (name, target)
    assert quotes > 0
    return {"memory": memory, "topics": topics, "tables": tables, "quotes": quotes}


@pytest.fixture(scope="module")
def acme_wiki(tmp_path_factory):
    return sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("acme") / "wiki", sessions=1)


def test_export_the_sample_wiki(acme_wiki, tmp_path, capsys):
    before = _tree(acme_wiki)
    out = tmp_path / "memory"
    assert cli.main(["export", "claude-code", str(acme_wiki), str(out)]) == 0
    pages = len(open_wiki(acme_wiki).slugs())
    tables = len(list(out.glob("provisions-*.md")))
    assert tables >= 2  # the contracts' and the policies' values
    assert capsys.readouterr().out == f"exported {pages} pages and {tables} provisions files to {out} (MEMORY.md)\n"
    got = assert_sound_export(out, acme_wiki)
    assert len(got["memory"]) == 1  # the sample wiki fits in one MEMORY.md
    assert _tree(acme_wiki) == before  # nothing written into the wiki
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory"]  # nor beside DIR


def test_wikilinks_become_markdown_links_but_quotes_stay_verbatim():
    from wikigen.export import markdown_links

    body = (
        "See [[acme-msa]] and [[acme-msa#Term|the term]], [[gone-page|a lost page]], `[[code]]`.\n\n"
        "> [!quote] contracts/x (chars 0-20)\n> as defined in [[Schedule 1]]"
    )
    got = markdown_links(body, {"acme-msa": "Acme [MSA]"})
    assert got == (
        "See [Acme (MSA)](acme-msa.md) and [the term](acme-msa.md), a lost page, `[[code]]`.\n\n"
        "> [!quote] contracts/x (chars 0-20)\n> as defined in [[Schedule 1]]"
    )


def test_refusals_write_nothing(acme_wiki, tmp_path):
    wiki = open_wiki(acme_wiki)
    with pytest.raises(UsageError, match="inside the corpus"):
        export_claude_code(wiki, ACME / "memory")
    assert not (ACME / "memory").exists()
    with pytest.raises(UsageError, match="inside the wiki"):
        export_claude_code(wiki, acme_wiki / "memory")
    assert not (acme_wiki / "memory").exists()
    mine = tmp_path / "claude-memory"
    mine.mkdir()
    (mine / MEMORY).write_text("# my own notes\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"MEMORY\.md, not written by wikigen export"):
        export_claude_code(wiki, mine)
    assert [p.name for p in mine.iterdir()] == [MEMORY]
    assert (mine / MEMORY).read_text(encoding="utf-8") == "# my own notes\n"


def test_re_export_replaces_its_own_files_and_keeps_others(acme_wiki, tmp_path):
    wiki = open_wiki(acme_wiki)
    out = tmp_path / "memory"
    export_claude_code(wiki, out)
    (out / "notes.md").write_text("mine", encoding="utf-8")
    manifest = (out / ".wikigen-export.json").read_text(encoding="utf-8")
    stale = "doc-old-page.md"
    (out / stale).write_text("from an earlier export", encoding="utf-8")
    (out / ".wikigen-export.json").write_text(
        manifest.replace('"MEMORY.md"', f'"MEMORY.md", "{stale}"'), encoding="utf-8"
    )
    report = export_claude_code(wiki, out)
    assert report.removed == [stale] and not (out / stale).exists()
    assert (out / "notes.md").read_text(encoding="utf-8") == "mine"
    assert_sound_export(out, acme_wiki, others=("notes.md",))


KO_TITLES = [
    "물품 공급 기본계약서 및 품질보증에 관한 특약 (센서 모듈 부품 정기 납품용)",
    "비밀유지계약서 (공동 연구개발 프로젝트 참여 기업 간 기술자료 보호 목적)",
    "설비 유지보수 용역계약서 (생산라인 계측장비 정기점검 및 긴급출동 포함)",
]


def _korean_corpus(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True)
    for i in range(n):
        title = f"{KO_TITLES[i % 3]} 제{i + 1:03d}호"
        body = (
            f"{title}\n\n제1조 (목적) 이 계약은 갑과 을 사이의 거래 조건을 정한다. 계약번호 KO-{i:04d}.\n"
            f"제2조 (기간) 계약 기간은 {1 + i % 5}년으로 하며 서면 합의로 연장할 수 있다.\n"
            f"제3조 (대금) 대금은 매월 말일에 지급하며 금액은 {1000 + 37 * i:,}만원으로 한다.\n"
            "제4조 (비밀유지) 양 당사자는 이 계약의 이행 과정에서 알게 된 상대방의 영업상 비밀을 제3자에게 "
            "누설하여서는 아니 되며, 이 의무는 계약 종료 후 3년간 존속한다.\n"
            "제5조 (해지) 일방 당사자가 계약상 의무를 위반하고 서면 통지를 받은 날부터 30일 이내에 "
            "시정하지 아니하는 경우 상대방은 이 계약을 해지할 수 있다.\n"
            "제6조 (손해배상) 고의 또는 중대한 과실로 상대방에게 손해를 입힌 당사자는 그 손해를 배상한다.\n"
            "제7조 (분쟁해결) 이 계약과 관련한 분쟁은 서울중앙지방법원을 제1심 관할법원으로 한다.\n"
        )
        (folder / f"contract-{i:03d}.txt").write_text(body, encoding="utf-8")
    return folder


def test_korean_wiki_splits_by_bytes_not_characters(tmp_path):
    corpus = _korean_corpus(tmp_path / "ko-corpus", 260)
    wiki_root = _build(corpus, tmp_path / "ko-wiki", agents=1, max_ratio=2.0)  # short documents: a page is ~their size
    pages = open_wiki(wiki_root).pages()
    # Packed by characters, the same index would break the byte limit: the bytes are what bind here.
    by_chars = build_index(pages, max_lines=MAX_LINES, max_chars=MAX_BYTES, link=_md_link, line=_entry_line)
    assert max(utf8_len(t) for t in by_chars.values()) > MAX_BYTES
    out = tmp_path / "memory"
    export_claude_code(open_wiki(wiki_root), out)
    got = assert_sound_export(out, wiki_root)
    assert len(got["memory"]) > 1
    assert any("물품 공급 기본계약서" in t for t in got["memory"].values())
    docs = _memory_lines(got["memory"][MEMORY], "doc-")  # a line per document, as many as 25,000 bytes hold
    assert len(docs) >= 100 and all("물품" in d or "계약서" in d for d in docs)
    assert utf8_len(got["memory"][MEMORY]) > 0.95 * MAX_BYTES


def test_build_memory_is_deterministic(acme_wiki):
    pages = open_wiki(acme_wiki).pages()
    assert build_memory(pages) == build_memory(list(reversed(pages)))


def _memory_lines(text: str, prefix: str) -> list[str]:
    """MEMORY.md's entry lines whose file name starts with prefix."""
    return [line for line in text.splitlines() if line.startswith("- [") and f"]({prefix}" in line]


# --- values whole, the provisions table and the collections reachable (issue 43) ---------------------------------


def whole_values(wiki_root: Path) -> dict[str, dict[str, set[str]]]:
    """doc id -> {label: the whole values the wiki holds for it}: each field the provisions table states (as
    written and in its canonical form) and each key fact its document page states."""
    from wikigen.search.documents import page_facts

    table = read_table(wiki_root)
    out: dict[str, dict[str, set[str]]] = {}
    for rec in records(table):
        for f in table.fields(rec["kind"]):
            entry = rec.get(f["name"]) or {}
            if entry.get("status") == STATED:
                said = {" ".join(str(v).split()) for v in (entry.get("value") or "Yes", entry.get("norm")) if v}
                out.setdefault(rec["doc_id"], {}).setdefault(str(f["label"]), set()).update(said)
    for page in open_wiki(wiki_root).pages():
        if page.type == "document" and len(page.sources) == 1:
            for c in page_facts(page):
                out.setdefault(page.sources[0], {}).setdefault(c.label, set()).add(" ".join(c.value.split()))
    return out


def assert_values_whole(memory: dict[str, str], wiki_root: Path) -> int:
    """Every `Field: value` part of a document's line in MEMORY.md and the section files is a whole value the
    wiki holds for that document (a field of the provisions table, a key fact of its page); the number checked."""
    by_file = {f"{file_stem(p.slug)}.md": p.sources[0] for p in open_wiki(wiki_root).pages() if p.type == "document"}
    values = whole_values(wiki_root)
    checked = 0
    for name, text in memory.items():
        for line in text.splitlines():
            m = re.match(r"- \[[^\]]*\]\(([^)]+)\) — (.*)$", line)
            if not m or m.group(1) not in by_file:
                continue
            known = values.get(by_file[m.group(1)], {})
            for part in m.group(2).split(VALUE_SEP):
                label, sep, value = part.partition(": ")
                if sep and label in known:
                    assert value in known[label], (name, line, part, known[label])
                    checked += 1
    return checked


def provisions_blocks(texts: list[str]) -> dict[str, list[str]]:
    """doc id -> the value lines under its entry in the provisions files (`- [Title](file) · `doc id``)."""
    out: dict[str, list[str]] = {}
    doc = None
    for text in texts:
        for line in text.splitlines():
            head = re.match(r"- .* · `([^`]+)`( · no value stated)?$", line)
            if head:
                doc = head.group(1)
                out[doc] = []
            elif line.startswith("  - ") and doc is not None:
                out[doc].append(line[4:])
            elif not line.strip():
                continue
            else:
                doc = None
    return out


def test_no_value_is_cut_and_the_provisions_table_is_reachable_from_memory(acme_wiki, tmp_path):
    """On the sample: each `Field: value` of a document's line is a whole value; MEMORY.md starts with links to the
    provisions files, which hold every contract's stated governing law with its doc id and the span of its quote
    (checked against the document's text); every collection is listed in MEMORY.md."""
    out = tmp_path / "memory"
    report = export_claude_code(open_wiki(acme_wiki), out)
    got = assert_sound_export(out, acme_wiki)
    memory = got["memory"][MEMORY]
    assert assert_values_whole(got["memory"], acme_wiki) >= 20
    start = memory.split("## Start here\n", 1)[1].split("\n## ", 1)[0]
    assert memory.index("## Start here") < memory.index("## Documents")
    linked = {t for _, t in MD_LINK.findall(start)}
    assert "provisions-contract.md" in linked and "provisions-policy.md" in linked  # each kind's, from the start
    assert {t for n in linked & set(report.provisions) for _, t in MD_LINK.findall(got["tables"][n])} | linked >= set(
        report.provisions
    )  # and every part from its first
    contract = sorted((n for n in got["tables"] if n.startswith("provisions-contract")), key=lambda n: (len(n), n))
    blocks = provisions_blocks([got["tables"][n] for n in contract])
    table = read_table(acme_wiki)
    texts = open_wiki(acme_wiki).sources.texts
    laws = 0
    for rec in records(table, "contract"):
        assert rec["doc_id"] in blocks, rec["doc_id"]  # every document of the kind
        law = rec["governing_law"]
        if law["status"] != STATED:
            assert not any(v.startswith("Governing law: ") for v in blocks[rec["doc_id"]])
            continue
        q = law["quote"]
        assert f"Governing law: {law['value']} (chars {q['start']}-{q['end']})" in blocks[rec["doc_id"]]
        assert texts.text(rec["doc_id"])[q["start"] : q["end"]] == q["text"]  # the span an agent reads states it
        laws += 1
    assert laws >= 6
    collections = [p for p in open_wiki(acme_wiki).pages() if p.type == "collection"]
    assert collections and all(f"]({file_stem(p.slug)}.md)" in memory for p in collections)


def test_line_fitting_keeps_each_value_whole():
    """The fitting functions with a long value: a document's line keeps a part whole or leaves it out (a shorter
    one after it may take its place); other text ends at a word's end, in Korean too; never mid-word."""
    law = "Governing law: the Commonwealth of Massachusetts"
    notice = "Termination for convenience: Yes: 30 days' prior written notice to the other party"
    parts = ["Alamogordo Financial Corporation; Alamogordo Federal Savings", "1998-09-30", notice, law]
    title = "AMENDMENT NO. 1 TO THE SUPPLY AGREEMENT"  # leaves the values 143 characters: not the three
    line = _entry_line(Entry("doc-x", title, "document", VALUE_SEP.join(parts)))
    assert len(line) <= MAX_LINE_CHARS
    said = line.split(" — ", 1)[1].split(VALUE_SEP)
    assert said == [parts[0], parts[1], law]  # the notice, too long for what is left, is left out whole
    assert fit_parts(parts, 60, VALUE_SEP) == parts[0]
    assert fit_parts([notice, "Venue: Iowa"], 40, VALUE_SEP) == "Venue: Iowa"
    assert clip_words("Governing law: Massachusetts", 24) == "Governing law..."
    assert clip_words("Supercalifragilistic", 10) == ""  # one word longer than the room: left out
    assert clip_words("물품공급 기본계약서 및 품질보증", 13) == "물품공급 기본계약서..."
    assert clip_words("東京都港区の契約書", 8) == "東京都港区..."  # between ideographs is a word's end
    topic = Entry("topic-law", "Law", "topic", "Governing law: quoted from 3 documents; e.g. Massachusetts " * 5)
    cut = topic.line(link=_md_link, max_len=MAX_LINE_CHARS)
    assert len(cut) <= MAX_LINE_CHARS and cut.endswith("...")
    assert cut[:-3].split()[-1] in topic.description.split()  # the last word before the ellipsis is whole


def _page(slug: str, title: str, kind: str, description: str, sources: list[str]) -> Page:
    return Page(slug, title, "o", description, type=kind, sources=sources)


def test_every_collection_is_reachable_from_the_start_of_a_large_memory():
    """A wiki larger than MEMORY.md's room (300 documents, 150 topics, 20 collections): the collections are listed
    before the topics, and the Start here block links the section file that lists every one of them."""
    docs = [
        _page(f"doc-d{i:03d}", f"Supply agreement number {i:03d} of the group", "document", "d" * 120, [f"d{i:03d}"])
        for i in range(300)
    ]
    topics = [
        _page(f"topic-t{i:03d}", f"Topic {i:03d}", "topic", "what the contracts say " * 6, []) for i in range(150)
    ]
    kinds = [
        _page(f"kind-k{i:02d}", f"Kind {i:02d} agreements", "collection", "", [f"d{j:03d}" for j in range(i, 300, 20)])
        for i in range(20)
    ]
    files = build_memory(docs + topics + kinds)
    memory = files[MEMORY]
    assert len(memory.splitlines()) <= MAX_LINES and utf8_len(memory) <= MAX_BYTES
    start = memory.split("## Start here\n", 1)[1].split("\n## ", 1)[0]
    section = [t for label, t in MD_LINK.findall(start) if label == "Collections"]
    assert section and section[0] in files
    listed = {t for _, t in MD_LINK.findall(files[section[0]])}
    assert listed >= {f"{file_stem(k.slug)}.md" for k in kinds}
    assert memory.index("## Collections") < memory.index("## Topics")
    assert all(f"]({k.slug}.md)" in memory for k in kinds)  # 20 short lines: all of them fit in MEMORY.md too


def test_provisions_files_part_within_limits_and_show_no_secret():
    """A kind of 300 documents: its provisions files split into parts within the limits, each naming the others,
    every document once; a stated value holding a secret (a card number pasted as a party) is left out."""
    from wikigen.export import provisions_files
    from wikigen.wiki.provisions import Table

    fields = [
        {"name": "governing_law", "label": "Governing law", "type": "jurisdiction", "group": "law"},
        {"name": "parties", "label": "Parties", "type": "party", "group": "basics"},
    ]
    docs = {}
    for i in range(300):
        law = {
            "status": STATED,
            "display": "the Commonwealth of Massachusetts",
            "norm": "Massachusetts",
            "quote": [100 + i, 180 + i],
            "text": "governed by the laws of the Commonwealth of Massachusetts",
        }
        party = {
            "status": STATED,
            "display": "Acme Corp; card 4111 1111 1111 1111" if i == 7 else "Acme Corp; Beta LLC",
            "quote": [0, 40],
            "text": "between Acme Corp and Beta LLC",
        }
        docs[f"c/{i:03d}"] = {
            "kind": "contract",
            "title": f"Supply agreement {i:03d}",
            "cells": {"governing_law": law, "parties": party},
        }
    table = Table({"contract": {"label": "Contracts", "fields": fields}}, docs)
    files, start = provisions_files(table, {"c/001": "doc-c-001"}, {"doc-c-001": "Supply agreement 001"})
    assert len(files) > 1 and len(start) == 1 and f"in {len(files)} parts" in start[0]  # a line, however many parts
    assert len(start[0]) <= MAX_LINE_CHARS and "(provisions-contract.md)" in start[0]
    for name, text in files.items():
        assert len(text.splitlines()) <= MAX_LINES and utf8_len(text) <= MAX_BYTES, name
        assert all(f"({other})" in text for other in files if other != name)  # each part names the others
    blocks = provisions_blocks(list(files.values()))
    assert sorted(blocks) == sorted(docs)
    assert all(
        f"Governing law: the Commonwealth of Massachusetts (chars {100 + i}-{180 + i})" in blocks[f"c/{i:03d}"]
        for i in range(300)
    )
    assert "4111" not in "".join(files.values()) and not any(v.startswith("Parties") for v in blocks["c/007"])
    assert "- [Supply agreement 001](doc-c-001.md) · `c/001`" in files["provisions-contract.md"]
