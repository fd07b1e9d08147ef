"""`wikigen export claude-code WIKI DIR`: the wiki as a Claude Code memory folder.

Claude Code reads ``MEMORY.md`` at start-up (its first 200 lines, at most 25 KB) and opens the topic
files it links when they look relevant. So:

* ``MEMORY.md`` stays within 200 lines and 25,000 **bytes** of UTF-8 (Korean is 3 bytes a
  character), one line an entry, each under 200 characters, linking topic files with relative
  markdown links ``[Title](slug.md)``. When the pages do not fit, it links section files
  (``index-<type>.md``, ...) packed the way index.md is (`wikigen.wiki.index_page.build_index`),
  each within the same limits.
* Each page becomes ``<slug>.md`` with the front matter memory folders use (``name``,
  ``description``, ``type: reference``); its ``[[wikilinks]]`` become relative markdown links
  (Claude Code does not follow wikilinks), links to pages that are not exported become plain text;
  quotes stay verbatim in their callout, whose header names the document and character span.

A page holding a secret (one edited by hand: the store refuses them) is left out and named in the report.
Everything is built in memory first, then written: only into DIR, never over a file that an earlier
export did not write, and a DIR inside the corpus or the wiki is refused. Files of an earlier export
that are no longer produced are removed (only those, listed in DIR/.wikigen-export.json).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write
from wikigen.core.errors import UsageError
from wikigen.wiki.index_page import Entry, build_index, count_lines
from wikigen.wiki.markup import WIKI_RE, body_links, explicit_quotes, split_target
from wikigen.wiki.page import Page, dump_front_matter
from wikigen.wiki.secrets import page_secrets

__all__ = [
    "MAX_BYTES",
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "ExportReport",
    "build_memory",
    "export_claude_code",
    "markdown_links",
    "topic_file",
    "utf8_len",
]

MAX_LINES = 200
MAX_BYTES = 25_000
MAX_LINE_CHARS = 199  # "under 200 characters"
DESCRIPTION_MAX = 200
MANIFEST = ".wikigen-export.json"
MEMORY = "MEMORY.md"
NOTE = (
    "Exported from a wikigen wiki: quotes are verbatim, each with its source (doc id, chars). "
    "Regenerate with `wikigen export claude-code`; do not edit."
)
_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def _md_link(target: str, label: str) -> str:
    return f"[{label}]({target}.md)"


def _entry_line(e: Entry) -> str:
    return e.line(link=_md_link, max_len=MAX_LINE_CHARS)


@dataclass
class ExportReport:
    dir: Path
    pages: int
    memory_files: list[str] = field(default_factory=list)  # MEMORY.md and its section files
    removed: list[str] = field(default_factory=list)  # stale files of an earlier export
    kept_out: list[str] = field(default_factory=list)  # "slug: where" of pages left out: they hold a secret

    def to_dict(self) -> dict:
        return {
            "dir": str(self.dir),
            "pages": self.pages,
            "memory_files": self.memory_files,
            "removed": self.removed,
            "kept_out": self.kept_out,
        }

    def to_text(self) -> str:
        more = f", {len(self.memory_files) - 1} section files" if len(self.memory_files) > 1 else ""
        gone = f"; removed {len(self.removed)} stale files" if self.removed else ""
        lines = [f"exported {self.pages} pages to {self.dir} ({MEMORY}{more}){gone}"]
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


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _description(page: Page) -> str:
    if page.description.strip():
        return _one_line(page.description, DESCRIPTION_MAX)
    what = f"document {page.sources[0]}" if page.type == "document" and page.sources else f"{page.type or 'topic'} page"
    return _one_line(f"{page.title} ({what})", DESCRIPTION_MAX)


def topic_file(page: Page, exported: dict[str, str]) -> str:
    """One page as a memory topic file: name/description/type front matter, the body with markdown links."""
    fm = {"name": _one_line(page.title, DESCRIPTION_MAX), "description": _description(page), "type": "reference"}
    head = dump_front_matter(fm)
    body = markdown_links(
        explicit_quotes(page.body, page.quote_doc).strip("\n"), exported
    )  # the export has no sources list
    sources = ", ".join(page.sources) if page.sources else "none listed"
    foot = f"_From wikigen page `{page.slug}` ({page.type}, {page.status}, owner {page.owner}); documents: {sources}._"
    return f"---\n{head}---\n\n# {page.title}\n\n{body}\n\n{foot}\n"


def build_memory(pages: list[Page]) -> dict[str, str]:
    """File name -> text for MEMORY.md, its section files and one topic file per page."""
    exported = {p.slug: p.title for p in pages}
    index = build_index(
        pages,
        max_lines=MAX_LINES,
        max_chars=MAX_BYTES,
        size=utf8_len,
        link=_md_link,
        line=_entry_line,
        note=NOTE,
        title="Memory",
        max_line=MAX_LINE_CHARS,
    )
    files = {(MEMORY if stem == "index" else f"{stem}.md"): text for stem, text in index.items()}
    for p in pages:
        files[f"{p.slug}.md"] = topic_file(p, exported)
    for name, text in files.items():  # the packing guarantees these; a failure here is a bug
        if name == MEMORY or name.startswith("index-"):
            assert count_lines(text) <= MAX_LINES and utf8_len(text) <= MAX_BYTES, name
    return files


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
    files = build_memory(pages)
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
    return ExportReport(out, len(files) - len(memory), memory, removed, kept_out)
