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
from wikigen.export import (
    MAX_BYTES,
    MAX_LINES,
    MEMORY,
    _entry_line,
    _md_link,
    build_memory,
    export_claude_code,
    file_stem,
    utf8_len,
)
from wikigen.wiki.index_page import build_index
from wikigen.wiki.markup import scan_quotes

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
    assert MEMORY in memory
    assert sorted(n[:-3] for n in topics) == sorted(file_stem(s) for s in wiki.slugs())
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
    assert linked >= set(topics)  # every page is reachable from MEMORY.md
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
    return {"memory": memory, "topics": topics, "quotes": quotes}


@pytest.fixture(scope="module")
def acme_wiki(tmp_path_factory):
    return sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("acme") / "wiki", sessions=1)


def test_export_the_sample_wiki(acme_wiki, tmp_path, capsys):
    before = _tree(acme_wiki)
    out = tmp_path / "memory"
    assert cli.main(["export", "claude-code", str(acme_wiki), str(out)]) == 0
    pages = len(open_wiki(acme_wiki).slugs())
    assert capsys.readouterr().out == f"exported {pages} pages to {out} (MEMORY.md)\n"
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
