"""`wikigen export claude-code WIKI DIR`: the wiki as a Claude Code memory folder.

Claude Code reads ``MEMORY.md`` at start-up (its first 200 lines, at most 25 KB) and opens the topic
files it links when they look relevant. What loads at start-up is all an agent knows before it opens a
file, so ``MEMORY.md`` uses its room for what tells the agent which file to open:

* **Start here**: the provisions table's files (``provisions-<kind>.md``, ``-2.md``, ...: every document of
  the kind with each value it states, whole, and the doc id and chars of the quote that states it, from
  `wikigen.wiki.provisions`), where every collection (kind of document) is listed, and where every page is;
* **Documents**, one line each: the label that tells same-titled documents apart, the parties,
  the date and the two or three values a reader most needs (the key facts the document's page states;
  the documents table of `wikigen.search.documents`), as many as fit in `DOC_SHARE` of the room;
* **then the collections** (and topics, figures), each with what it holds (`wikigen.wiki.summary`:
  its subject and other names, how many documents it quotes of those that have it, its first quote's
  opening), the most widely held first, in the rest of the room (documents take what topics leave);
* **then the section files** that list every page the same way (``index-<type>.md``, ..., packed the way
  index.md is: `wikigen.wiki.index_page.build_index`), so every page is reachable. A wiki small enough
  gets one ``MEMORY.md`` with every page and no section file.

``MEMORY.md`` and each section file stay within 200 lines and 25,000 **bytes** of UTF-8 (Korean is 3
bytes a character), one line an entry, each under 200 characters, linking topic files with relative
markdown links ``[Title](slug.md)``. A line never ends in the middle of a word: a document's parts
(parties, date, each value) are kept whole or left out (`fit_parts`), other text ends at a word's end
(`clip_words`). The provisions files keep to the same 200 lines and 25,000 bytes.

* Each page becomes ``<slug>.md`` (a slug longer than 40 characters is cut and hashed: `file_stem`) with
  the front matter memory folders use (``name``,
  ``description``: what it holds, as in MEMORY.md; ``type: reference``) and opens with that
  description; its ``[[wikilinks]]`` become relative markdown links (Claude Code does not follow
  wikilinks), links to pages that are not exported become plain text; quotes stay verbatim in their
  callout, whose header names the document and character span.

A page holding a secret (one edited by hand: the store refuses them) is left out and named in the report.
Everything is built in memory first, then written: only into DIR, never over a file that an earlier
export did not write, and a DIR inside the corpus or the wiki is refused. Files of an earlier export
that are no longer produced are removed (only those, listed in DIR/.wikigen-export.json).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write
from wikigen.core.errors import UsageError, WikigenError
from wikigen.core.slugs import slugify
from wikigen.core.text import clip_words, fit_parts, one_line
from wikigen.search.documents import DocumentRow, document_rows
from wikigen.wiki.index_page import Entry, build_index, count_lines
from wikigen.wiki.markup import WIKI_RE, body_links, explicit_quotes, split_target
from wikigen.wiki.page import Page, dump_front_matter
from wikigen.wiki.provisions import CHECK, POSSIBLE, PREFIX, STATED, Table, mark, read_table, records
from wikigen.wiki.secrets import find_secrets, page_secrets
from wikigen.wiki.summary import page_summary, quoted_docs

log = logging.getLogger(__name__)

__all__ = [
    "MAX_BYTES",
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "ExportReport",
    "build_memory",
    "export_claude_code",
    "file_stem",
    "markdown_links",
    "provisions_files",
    "topic_file",
    "utf8_len",
]

MAX_LINES = 200
MAX_BYTES = 25_000
MAX_LINE_CHARS = 199  # "under 200 characters"
DESCRIPTION_MAX = 200
DOC_SHARE = 0.7  # of MEMORY.md's room (lines and bytes) for document lines, when topics need the rest
LABEL_MAX = 70  # characters of a document's label in its MEMORY.md line
PARTY_MAX = 40  # characters of a party's name in it
VALUE_SEP = " · "  # between the parts of a document's line
VALUE_MAX = 60  # characters of each of its values ("Governing law: New York"): a longer one is left out, never cut
VALUES_SHOWN = 3  # values a document's line names (those within VALUE_MAX, in the order `DocumentRow.values` gives)
FILE_STEM_MAX = 40  # characters of a topic file's name (a longer slug is cut and hashed: file_stem)
SECTION_ORDER = ("document", "collection", "topic", "figure")  # collections (the kinds of document) before topics
MANIFEST = ".wikigen-export.json"
MEMORY = "MEMORY.md"
NOTE = (
    "Exported from a wikigen wiki: quotes are verbatim, each with its source (doc id, chars). "
    "Regenerate with `wikigen export claude-code`; do not edit."
)
_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def file_stem(slug: str) -> str:
    """The file name (without .md) of a page's topic file: its slug, or for a slug longer than FILE_STEM_MAX
    its start and a hash of the whole (so names stay distinct): every link in MEMORY.md spells it, and long
    doc ids made a third of a document's line its file name."""
    if len(slug) <= FILE_STEM_MAX:
        return slug
    return slug[: FILE_STEM_MAX - 9].rstrip("-") + "-" + hashlib.sha1(slug.encode("utf-8")).hexdigest()[:8]


def _md_link(target: str, label: str) -> str:
    section = target == "index" or target.startswith(("index-", PREFIX))  # a section or provisions file: its name
    return f"[{label}]({target if section else file_stem(target)}.md)"


def _entry_line(e: Entry) -> str:
    """The entry's line within MAX_LINE_CHARS, no word cut in it: a document's line keeps each of its parts (its
    parties, date and values: "Governing law: Delaware") whole or leaves it out (`fit_parts`); any other line's
    description ends at the end of a word."""
    if e.type != "document":
        return e.line(link=_md_link, max_len=MAX_LINE_CHARS)
    head = Entry(e.slug, e.title, e.type, "").line(link=_md_link, max_len=MAX_LINE_CHARS)
    desc = fit_parts(e.description.split(VALUE_SEP), MAX_LINE_CHARS - len(head) - len(" — "), VALUE_SEP)
    return Entry(e.slug, e.title, e.type, desc).line(link=_md_link, max_len=MAX_LINE_CHARS)


@dataclass
class ExportReport:
    dir: Path
    pages: int
    memory_files: list[str] = field(default_factory=list)  # MEMORY.md and its section files
    removed: list[str] = field(default_factory=list)  # stale files of an earlier export
    kept_out: list[str] = field(default_factory=list)  # "slug: where" of pages left out: they hold a secret
    provisions: list[str] = field(default_factory=list)  # the provisions table's files (`provisions_files`)

    def to_dict(self) -> dict:
        return {
            "dir": str(self.dir),
            "pages": self.pages,
            "memory_files": self.memory_files,
            "removed": self.removed,
            "kept_out": self.kept_out,
            "provisions": self.provisions,
        }

    def to_text(self) -> str:
        more = f", {len(self.memory_files) - 1} section files" if len(self.memory_files) > 1 else ""
        gone = f"; removed {len(self.removed)} stale files" if self.removed else ""
        table = f" and {len(self.provisions)} provisions files" if self.provisions else ""
        lines = [f"exported {self.pages} pages{table} to {self.dir} ({MEMORY}{more}){gone}"]
        lines += [f"  left out {k} (a secret; `wikigen check` names it, remove it)" for k in self.kept_out]
        return "\n".join(lines)


# --- building (pure) ---------------------------------------------------------------------------


def markdown_links(body: str, exported: dict[str, str]) -> str:
    """The body with each [[link]] as a relative markdown link labelled with its label or the page's
    title (exported: slug -> title), plain text when its page is not exported. Links in code and
    inside quotes are left alone: a quote is verbatim data."""
    lines = body.split("\n")
    for idx in sorted({link.line for link in body_links(body)}):
        line = lines[idx]
        code = [(m.start(), m.end()) for m in _CODE.finditer(line)]

        def sub(m: re.Match) -> str:
            if any(a <= m.start() < b for a, b in code):  # noqa: B023
                return m.group(0)
            target = split_target(m.group(1))
            if target not in exported:
                return (m.group(2) or m.group(1)).strip()
            label = (m.group(2) or exported[target] or target).strip()
            return _md_link(target, " ".join(label.replace("[", "(").replace("]", ")").split()))

        lines[idx] = WIKI_RE.sub(sub, line)
    return "\n".join(lines)


def _one_line(text: str, limit: int, ellipsis: str = "...") -> str:
    """The text on one line within limit, cut at the end of a word (at the limit only for one long word)."""
    text = " ".join(text.split())
    return clip_words(text, limit, ellipsis) or text[: limit - len(ellipsis)] + ellipsis


def document_parts(row: DocumentRow) -> list[str]:
    """What a document's MEMORY.md line says after its label, in parts each kept whole or left out: its parties;
    its date; up to VALUES_SHOWN values ("Governing law: Delaware"), each whole (one longer than VALUE_MAX is
    left out: the provisions files give it)."""
    parts = []
    if row.names:
        parts.append("; ".join(_one_line(n, PARTY_MAX, "…") for n in row.names[:2]))
    if row.date:
        parts.append(row.date.value)
    values = [one_line(f"{c.label}: {c.value}") for c in row.values(len(row.extra) + len(row.facts))]
    parts += [v for v in values if len(v) <= VALUE_MAX][:VALUES_SHOWN]
    parts = [p.replace(VALUE_SEP, ", ") for p in parts]  # a part never reads as two
    return parts if parts else [row.kind] if row.kind else []


def document_line(row: DocumentRow, limit: int = DESCRIPTION_MAX) -> str:
    """A document's parts (`document_parts`) on one line within limit, each whole or left out."""
    return fit_parts(document_parts(row), limit, VALUE_SEP)


def descriptions(pages: list[Page], rows: list[DocumentRow]) -> dict[str, str]:
    """slug -> what the page holds, in one line: a document page by its row of the documents table, any
    other page by `page_summary`."""
    by_doc = {r.doc_id: r for r in rows}
    out = {}
    for p in pages:
        row = by_doc.get(p.sources[0]) if p.type == "document" and len(p.sources) == 1 else None
        out[p.slug] = document_line(row) if row else page_summary(p, DESCRIPTION_MAX)
    return out


def _description(page: Page, about: str = "") -> str:
    if about.strip():
        return _one_line(about, DESCRIPTION_MAX)
    if page.description.strip():
        return _one_line(page.description, DESCRIPTION_MAX)
    what = f"document {page.sources[0]}" if page.type == "document" and page.sources else f"{page.type or 'topic'} page"
    return _one_line(f"{page.title} ({what})", DESCRIPTION_MAX)


def topic_file(page: Page, exported: dict[str, str], about: str = "") -> str:
    """One page as a memory topic file: name/description/type front matter, the description (what it holds),
    then the body with markdown links."""
    desc = _description(page, about)
    fm = {"name": _one_line(page.title, DESCRIPTION_MAX), "description": desc, "type": "reference"}
    head = dump_front_matter(fm)
    body = markdown_links(
        explicit_quotes(page.body, page.quote_doc).strip("\n"), exported
    )  # the export has no sources list
    sources = ", ".join(page.sources) if page.sources else "none listed"
    foot = f"_From wikigen page `{page.slug}` ({page.type}, {page.status}, owner {page.owner}); documents: {sources}._"
    return f"---\n{head}---\n\n# {page.title}\n\n{desc}\n\n{body}\n\n{foot}\n"


def _entries(pages: list[Page], rows: list[DocumentRow], about: dict[str, str]) -> list[Entry]:
    """Index entries: a line's link text is a document's title when its line goes on with its parties or date
    (which tell same-titled documents apart), else its label; what follows does not repeat it."""
    label = {r.slug: r.title if (r.names or r.date) else r.label for r in rows if r.slug}
    return [
        Entry(
            p.slug,
            _one_line(label.get(p.slug, p.title), LABEL_MAX, "…"),
            p.type or "topic",
            about[p.slug] if p.type == "document" else page_summary(p, DESCRIPTION_MAX, title=False),
        )
        for p in pages
    ]


def _memory(groups: list[tuple[str, list[str]]], hub: list[str], intro: dict[str, str], start: list[str]) -> str:
    lines = ["# Memory", "", NOTE, ""] + (["## Start here", "", *start, ""] if start else [])
    for heading, items in groups:
        if not items:
            continue
        lines += [f"## {heading}", ""] + ([intro[heading], ""] if intro.get(heading) else []) + items + [""]
    if hub:
        lines += ["## Every page", "", *hub, ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _fits(text: str) -> bool:
    return count_lines(text) <= MAX_LINES and utf8_len(text) <= MAX_BYTES


PROVISIONS_NOTE = (
    "Each document, then each value it states, whole, with the characters of its document's text that state it "
    "(`doc id`, chars START-END: the quote; `wikigen table --json` prints it); a field not listed is not stated; "
    f"a field marked {mark(POSSIBLE)}: a clause that may state it, no value claimed ({CHECK})."
)


def _fields_said(fields: list[str], limit: int) -> str:
    """The fields' names within limit, each whole: as many as fit, then ", ..." when some are left out."""
    said = fit_parts(fields, limit, ", ")
    while said and said.count(", ") + 1 < len(fields) and len(said) + 5 > limit:
        said = fit_parts(said.split(", ")[:-1], limit, ", ")
    return said + (", ..." if said.count(", ") + 1 < len(fields) else "") if said else "..."


def _provisions_blocks(table: Table, kind: str, links: dict[str, str], exported: dict[str, str]) -> list[list[str]]:
    """A block of lines a document of the kind: its title (a link to its page), its doc id, then a line a value it
    states, whole, with the span of its quote (and the other values other sentences state, with theirs)."""
    fields = [f for f in table.fields(kind) if f.get("type") != "figures"]
    blocks = []
    for rec in records(table, kind):
        doc_id, title = rec["doc_id"], " ".join(str(rec.get("title") or rec["doc_id"]).split())
        title = title if not find_secrets(title) else doc_id
        slug = links.get(doc_id)
        name = _md_link(slug, title.replace("[", "(").replace("]", ")")) if slug in exported else title
        block = [f"- {name} · `{doc_id}`"]
        stated = 0
        for f in fields:
            entry = rec.get(f["name"]) or {}
            field_label = " ".join(str(f.get("label") or f["name"]).split())
            q = entry.get("quote")
            if entry.get("status") == POSSIBLE and q:  # the clause that may state it: no value claimed
                block.append(
                    f"  - {field_label}: {mark(POSSIBLE)}, no value claimed ({CHECK}: chars {q['start']}-{q['end']})"
                )
                continue
            if entry.get("status") != STATED or find_secrets(str(entry.get("value") or "")):
                continue  # not stated; or a secret, never shown (as on every surface)
            stated += 1
            where = f"chars {q['start']}-{q['end']}" if q else "no quote kept"
            line = f"  - {field_label}: {one_line(str(entry.get('value') or 'Yes'))} ({where})"
            also = [
                f"{one_line(str(o.get('value') or ''))} (chars {o['quote']['start']}-{o['quote']['end']})"
                for o in entry.get("others") or []
                if not find_secrets(str(o.get("value") or ""))
            ]
            block.append(line + (f"; another sentence states {', '.join(also)}" if also else ""))
        if not stated:
            block[0] += " · no value stated"
        blocks.append(block)
    return blocks


def _table_head(label: str, desc: str, n: int, names: list[str]) -> list[str]:
    """The opening of part n of a kind's provisions files (names: every part's file): front matter, title, what it
    holds, how to read it, the other parts."""
    part = f" (part {n} of {len(names)})" if len(names) > 1 else ""
    fm = dump_front_matter({"name": f"{label}: provisions table{part}", "description": desc, "type": "reference"})
    others = [_md_link(m[:-3], f"part {i}") for i, m in enumerate(names, 1) if i != n]
    head = ["---", *fm.rstrip("\n").split("\n"), "---", "", f"# {label}: provisions table{part}", "", desc, ""]
    return head + [PROVISIONS_NOTE, ""] + ([f"Parts: {', '.join(others)}.", ""] if others else [])


def _table_parts(stem: str, label: str, desc: str, blocks: list[list[str]]) -> dict[str, str]:
    """The blocks in parts (``stem.md``, ``stem-2.md``, ...), each with its opening within MAX_LINES and MAX_BYTES;
    packed with the opening of as many parts as the last packing made, until that is how many it makes."""
    total = 1
    while True:
        names = [f"{stem}.md"] + [f"{stem}-{i}.md" for i in range(2, total + 1)]
        head = _table_head(label, desc, total, names)  # the longest opening: the last part's
        parts: list[list[str]] = [[]]
        for b in blocks:
            if parts[-1] and not _fits("\n".join(head + parts[-1] + b) + "\n"):
                parts.append(list(b))
            else:
                parts[-1] = parts[-1] + b
        if len(parts) <= total:
            break
        total = len(parts)
    names = names[: len(parts)]
    return {
        name: "\n".join(_table_head(label, desc, n, names) + part) + "\n"
        for n, (name, part) in enumerate(zip(names, parts), 1)
    }


def provisions_files(table: Table, links: dict[str, str], exported: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The provisions table as topic files, one a kind of document (the most documents first), in parts within
    MAX_LINES and MAX_BYTES: every document's stated values, each whole with its quote's doc id and chars; and the
    MEMORY.md lines that link them (a line a kind, to its first part). links: doc id -> its document page's slug;
    exported: the exported pages."""
    files: dict[str, str] = {}
    start: list[str] = []
    kinds = sorted((k for k in table.kinds if table.rows(k)), key=lambda k: (-len(table.rows(k)), k))
    for kind in kinds:
        label = " ".join(str(table.kinds[kind].get("label") or kind).split())
        n_docs = len(table.rows(kind))
        fields = [str(f.get("label") or f["name"]) for f in table.fields(kind) if f.get("type") != "figures"]
        stem = f"{PREFIX}{slugify(kind) or 'kind'}"  # a page's slug never starts so (`wikigen.wiki.page`)
        said = f"{n_docs:,} documents' stated values, each whole with the doc id and chars that state it: "
        parts = _table_parts(
            stem,
            label,
            said + _fields_said(fields, DESCRIPTION_MAX - len(said)),
            _provisions_blocks(table, kind, links, exported),
        )
        files.update(parts)
        split = f" in {len(parts)} parts (each links the others)" if len(parts) > 1 else ""
        first = f"- {_md_link(stem, f'{label}: provisions table')} — {n_docs:,} documents' values{split}, with doc id and chars: "
        start.append(first + _fields_said(fields, MAX_LINE_CHARS - len(first)))  # one line a kind, however many parts
    return files, start


def build_memory(
    pages: list[Page], rows: list[DocumentRow] | None = None, table: Table | None = None
) -> dict[str, str]:
    """File name -> text for MEMORY.md, its section files, one topic file per page and the provisions files (a
    kind of document's values: `provisions_files`). rows: the documents table (`document_rows(pages, sources)`,
    its values whole); without it, documents are known by their pages alone. table: the provisions table."""
    pages = sorted(pages, key=lambda p: p.slug)
    rows = rows if rows is not None else document_rows(pages, value_chars=None)
    about = descriptions(pages, rows)
    exported = {p.slug: p.title for p in pages}
    provisions, start = provisions_files(table or Table({}, {}), {r.doc_id: r.slug for r in rows if r.slug}, exported)
    entries = _entries(pages, rows, about)
    heading = {"document": "Documents", "topic": "Topics", "collection": "Collections", "figure": "Figures"}
    by_type: dict[str, list[Entry]] = {}
    for e in entries:
        by_type.setdefault(e.type, []).append(e)
    widely = {p.slug: len(quoted_docs(p)) for p in pages}
    order = [*SECTION_ORDER, *sorted(set(by_type) - set(SECTION_ORDER))]
    for t in order:
        if t == "document":
            by_type.get(t, []).sort(key=lambda e: (e.title.casefold(), e.slug))
        else:
            by_type.get(t, []).sort(key=lambda e: (-widely.get(e.slug, 0), e.title.casefold(), e.slug))
    lines = {t: [_entry_line(e) for e in by_type.get(t, [])] for t in order}
    names = {t: heading.get(t, f"{t.capitalize()} pages") for t in order}
    n_kinds = len(lines.get("collection", []))
    kinds = f"the {n_kinds:,} kinds of document, each listing its documents" if n_kinds else ""
    flat_start = [*start, *([f"- {names['collection']}: {kinds}, under {names['collection']} below."] if kinds else [])]
    flat = _memory([(names[t], lines[t]) for t in order], [], {}, flat_start)
    files: dict[str, str] = {**provisions}
    if _fits(flat):
        files[MEMORY] = flat
    else:
        files.update(_sections(pages, entries, by_type, lines, names, order, start, kinds))
    for p in pages:
        files[f"{file_stem(p.slug)}.md"] = topic_file(p, exported, about[p.slug])
    for name, text in files.items():  # the packing guarantees these; a failure here is a bug
        if name == MEMORY or name.startswith("index-"):
            assert _fits(text) and all(len(line) < 200 for line in text.splitlines()), name
    return files


def _sections(pages, entries, by_type, lines, names, order, start, kinds) -> dict[str, str]:
    """MEMORY.md with what to open first (start: the provisions files; the collections' and every page's section
    files), documents (up to DOC_SHARE of the room, more when the rest leaves room), then the other pages by type,
    then links to section files that list every page; and those files."""
    index = build_index(
        [p.with_(title=e.title, description=e.description) for p, e in zip(pages, entries)],
        max_lines=MAX_LINES,
        max_chars=MAX_BYTES,
        size=utf8_len,
        link=_md_link,
        line=_entry_line,
        note=NOTE,
        title="Memory",
        max_line=MAX_LINE_CHARS,
    )
    hub = [line for line in index.pop("index").splitlines() if line.startswith("- [")]
    out = {f"{stem}.md": text for stem, text in index.items()}
    n_docs = len(lines.get("document", []))
    intro = {
        names["document"]: f"{n_docs:,} documents: label, parties, date, key facts. The first ones by title; "
        "every one in the section files under Every page.",
    }
    others = [t for t in order if t != "document" and lines.get(t)]
    for t in others:
        intro[names[t]] = f"{len(lines[t]):,} {names[t].lower()}, the most widely quoted first: what each holds."
    start = list(start)
    if kinds:  # every collection: in its section file (the first ones under Collections too)
        if "index-collection.md" in out:
            start.append(f"- {_md_link('index-collection', names['collection'])}: {kinds}.")
        else:  # every page in one section file, or split by letter: the Every page links reach them
            start.append(f"- {names['collection']}: {kinds}, under Every page below.")
    start.append("- Every page, by type: the section files under Every page below.")

    def text(k_docs: int, k_other: dict[str, int]) -> str:
        groups = [(names["document"], lines.get("document", [])[:k_docs])]
        groups += [(names[t], lines[t][: k_other[t]]) for t in others]
        return _memory(groups, hub, intro, start)

    empty = dict.fromkeys(others, 0)
    room_lines = MAX_LINES - count_lines(text(0, empty)) - 2 * (len(others) + 1)
    room_bytes = MAX_BYTES - utf8_len(text(0, empty)) - 200 * (len(others) + 1)
    k_docs, used_l, used_b = 0, 0, 0
    for line in lines.get("document", []):  # documents: their share of the room
        b = utf8_len(line) + 1
        if used_l + 1 > DOC_SHARE * room_lines or used_b + b > DOC_SHARE * room_bytes:
            break
        k_docs, used_l, used_b = k_docs + 1, used_l + 1, used_b + b
    k_other = dict(empty)
    for t in others:  # then the others, in type order, while they fit
        while k_other[t] < len(lines[t]) and _fits(text(k_docs, {**k_other, t: k_other[t] + 1})):
            k_other[t] += 1
    while k_docs < n_docs and _fits(text(k_docs + 1, k_other)):  # documents take what the others left
        k_docs += 1
    out[MEMORY] = text(k_docs, k_other)
    return out


# --- writing -----------------------------------------------------------------------------------


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _check_target(out: Path, wiki_root: Path, corpus: Path | None) -> None:
    if _inside(out, wiki_root):
        raise UsageError(f"{out} is inside the wiki {wiki_root}; export to a folder outside it")
    if corpus is not None and _inside(out, corpus):
        raise UsageError(
            f"{out} is inside the corpus {corpus}; the export would be indexed as a document - "
            "choose a folder outside the corpus"
        )
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} exists and is not a folder")


def _previous(out: Path) -> set[str]:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        return {f for f in data.get("files", []) if isinstance(f, str) and "/" not in f and f.endswith(".md")}
    except (OSError, ValueError, AttributeError):
        return set()


def export_claude_code(wiki, out_dir: Path, *, corpus_dir: Path | None = None) -> ExportReport:
    """Write the wiki (a `Wiki`) as a Claude Code memory folder in out_dir. UsageError, with nothing
    written, when out_dir is inside the corpus or the wiki, or holds .md files an export did not write."""
    root = Path(wiki.root).resolve()
    out = Path(out_dir).resolve()
    if corpus_dir is None and wiki.config.get("corpus_dir"):
        corpus_dir = Path(wiki.config["corpus_dir"])
        corpus_dir = corpus_dir if corpus_dir.is_absolute() else root / corpus_dir
    _check_target(out, root, corpus_dir.resolve() if corpus_dir else None)
    pages, kept_out = [], []
    for p in sorted(wiki.pages(), key=lambda p: p.slug):
        where = page_secrets(p)  # a page edited by hand may hold one; the store refuses them
        if where:
            kept_out.append(f"{p.slug}: {'; '.join(where)}")
        else:
            pages.append(p)
    try:
        sources = wiki.sources
    except WikigenError as e:  # parties and dates come from the corpus; without it, from the pages alone
        log.warning("export without the corpus index: %s", e)
        sources = None
    table = read_table(root)
    files = build_memory(pages, document_rows(pages, sources, table, value_chars=None), table)
    previous = _previous(out)
    foreign = sorted(n for n in files if (out / n).exists() and n not in previous)
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise UsageError(
            f"{out} already has {shown}, not written by wikigen export; export to an empty folder or move those files"
        )
    out.mkdir(parents=True, exist_ok=True)
    for name in files:  # a file that is a symlink out of the folder: refused before anything is written
        confine.inside(out / name, out)
    for name, text in files.items():
        path = out / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            atomic_write(path, text, root=out)
    removed = sorted(previous - set(files))
    for name in removed:
        confine.remove(out / name, out)
    atomic_write(out / MANIFEST, json.dumps({"files": sorted(files)}, indent=1) + "\n", root=out)
    memory = [MEMORY] + sorted(n for n in files if n.startswith("index-"))
    table_files = [n for n in files if n.startswith(PREFIX)]  # a kind's parts in order
    return ExportReport(out, len(files) - len(memory) - len(table_files), memory, removed, kept_out, table_files)
