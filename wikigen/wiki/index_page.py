"""index.md (and section indexes) generated from the pages' front matter; never written by an agent.

Every index file stays within 200 lines and 25,000 characters, the limits Claude Code applies to the
MEMORY.md it loads. When the flat index would not fit, index.md becomes a top index linking to one
section index per page type (``index-<type>.md``); a section that does not fit splits by the slug's
initial letter (``index-<type>-<letter>.md``), then into numbered parts (``...-1.md``). A hub that has
too many links is itself split into numbered parts. Entries are sorted by slug, sections by name.

The packing is shared with other generated indexes (the Claude Code memory export): `build_index`
takes how a link is written, how an entry line is written, how size is measured (characters here,
UTF-8 bytes for MEMORY.md) and the note under the title.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write
from wikigen.core.slugs import slugify
from wikigen.core.text import clip_words
from wikigen.wiki.page import Page

MAX_LINES = 200
MAX_CHARS = 25_000
TITLE_MAX = 100
NOTE = "_Generated from the pages' front matter after each session; do not edit._"


def count_lines(text: str) -> int:
    return len(text.splitlines())


def fits(text: str, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS, size: Callable[[str], int] = len) -> bool:
    return count_lines(text) <= max_lines and size(text) <= max_chars


def wikilink(target: str, label: str) -> str:
    return f"[[{target}|{label}]]"


@dataclass(frozen=True)
class Entry:
    slug: str
    title: str
    type: str
    description: str

    @classmethod
    def of(cls, p: Page) -> Entry:
        return cls(p.slug, p.title, p.type or "topic", p.description)

    def line(self, link: Callable[[str, str], str] = wikilink, max_len: int | None = None) -> str:
        """`- [[slug|Title]] — description`; with max_len, the description is cut so the line fits."""
        title = " ".join(self.title.replace("|", "/").replace("[", "(").replace("]", ")").split())
        if len(title) > TITLE_MAX:  # at a word's end; a title of one long word, at the limit
            title = clip_words(title, TITLE_MAX) or title[: TITLE_MAX - 3] + "..."
        desc = " ".join(self.description.split())
        if desc.casefold() == title.casefold():
            desc = ""  # a description that only repeats the title says nothing
        head = f"- {link(self.slug, title)}"
        if desc and max_len is not None and len(head) + 3 + len(desc) > max_len:
            room = max_len - len(head) - 3  # " — "
            desc = clip_words(desc, room) if room >= 23 else ""  # never in the middle of a word
        return f"{head} — {desc}" if desc else head


def _render(title: str, count: int, groups: list[tuple[str | None, list[str]]], note: str = NOTE) -> str:
    lines = [f"# {title}", "", f"{count:,} pages. {note}", ""]
    for heading, items in groups:
        if heading:
            lines += [f"## {heading}", ""]
        lines += items + [""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _by_type(entries: list[Entry], line: Callable[[Entry], str] = Entry.line) -> list[tuple[str | None, list[str]]]:
    groups: dict[str, list[str]] = {}
    for e in sorted(entries, key=lambda e: (e.type, e.slug)):
        groups.setdefault(e.type, []).append(line(e))
    return sorted(groups.items())


def _initial(e: Entry) -> str:
    c = e.slug[:1]
    return c if c.isalpha() else "0-9"


Splitter = tuple[str, Callable[[Entry], str]]
SPLITTERS: list[Splitter] = [("type", lambda e: e.type), ("letter", _initial)]


class _Builder:
    def __init__(
        self,
        max_lines: int,
        max_chars: int,
        *,
        size: Callable[[str], int] = len,
        link: Callable[[str, str], str] = wikilink,
        line: Callable[[Entry], str] = Entry.line,
        note: str = NOTE,
        max_line: int | None = None,
    ):
        self.max_lines, self.max_chars, self.size, self.max_line = max_lines, max_chars, size, max_line
        self.link, self.line, self.note = link, line, note
        self.files: dict[str, str] = {}
        self._used: set[str] = set()

    def fits(self, text: str) -> bool:
        return fits(text, self.max_lines, self.max_chars, self.size)

    def _render(self, title: str, count: int, groups: list[tuple[str | None, list[str]]]) -> str:
        return _render(title, count, groups, self.note)

    def _by_type(self, entries: list[Entry]) -> list[tuple[str | None, list[str]]]:
        return _by_type(entries, self.line)

    def name(self, base: str) -> str:
        name, i = base, 2
        while name in self._used:
            name, i = f"{base}-{i}", i + 1
        self._used.add(name)
        return name

    def _pack(self, title: str, items: list, render: Callable[[list], str]) -> list[list]:
        """Greedy: consecutive items in parts whose rendering fits."""
        parts: list[list] = [[]]
        for it in items:
            trial = parts[-1] + [it]
            if parts[-1] and not self.fits(render(trial)):
                parts.append([it])
            else:
                parts[-1] = trial
        return parts

    def pages(self, name: str, title: str, entries: list[Entry], splitters: list[Splitter]) -> None:
        text = self._render(title, len(entries), self._by_type(entries))
        if self.fits(text):
            self.files[name] = text
            return
        for i, (_kind, key) in enumerate(splitters):
            groups: dict[str, list[Entry]] = {}
            for e in entries:
                groups.setdefault(key(e), []).append(e)
            if len(groups) < 2:
                continue
            hub = []
            for k in sorted(groups):
                child = self.name(f"{name}-{slugify(k) or 'other'}")
                label = f"{title.split(': ', 1)[-1]}, {k}" if name != "index" else k
                self.pages(child, f"Index: {label}", groups[k], splitters[i + 1 :])
                hub.append((f"- {self.link(child, label)} — {len(groups[k]):,} pages", len(groups[k])))
            self.hub(name, title, hub)
            return
        ordered = sorted(entries, key=lambda e: e.slug)
        worst = f"{title} (part {len(ordered)})"  # packed as written: with the longest part title
        parts = self._pack(title, ordered, lambda es: self._render(worst, len(es), self._by_type(es)))
        hub = []
        for n, part in enumerate(parts, 1):
            child = self.name(f"{name}-{n}")
            self.files[child] = self._render(f"{title} (part {n})", len(part), self._by_type(part))
            hub.append((self._part_line(child, n, part), len(part)))
        self.hub(name, title, hub)

    def _part_line(self, child: str, n: int, part: list[Entry]) -> str:
        """`- [[child|part n]] — first-slug to last-slug, N pages`, the slugs shortened to max_line."""
        head, first, last, count = (
            f"- {self.link(child, f'part {n}')} — ",
            part[0].slug,
            part[-1].slug,
            f", {len(part):,} pages",
        )
        if self.max_line is not None:
            room = (self.max_line - len(head) - len(count) - len(" to ")) // 2
            first, last = (s if len(s) <= room else s[: max(room - 3, 1)] + "..." for s in (first, last))
        return f"{head}{first} to {last}{count}"

    def hub(self, name: str, title: str, links: list[tuple[str, int]]) -> None:
        total = sum(n for _, n in links)
        text = self._render(title, total, [(None, [ln for ln, _ in links])])
        if self.fits(text):
            self.files[name] = text
            return
        worst = f"{title} (part {len(links)})"
        parts = self._pack(
            title, links, lambda ls: self._render(worst, sum(n for _, n in ls), [(None, [ln for ln, _ in ls])])
        )
        upper = []
        for n, part in enumerate(parts, 1):
            child = self.name(f"{name}-{n}")
            count = sum(c for _, c in part)
            self.files[child] = self._render(f"{title} (part {n})", count, [(None, [ln for ln, _ in part])])
            upper.append((f"- {self.link(child, f'part {n}')} — {count:,} pages", count))
        self.hub(name, title, upper)


def build_index(
    pages: list[Page],
    *,
    max_lines: int = MAX_LINES,
    max_chars: int = MAX_CHARS,
    size: Callable[[str], int] = len,
    link: Callable[[str, str], str] = wikilink,
    line: Callable[[Entry], str] = Entry.line,
    note: str = NOTE,
    title: str = "Index",
    max_line: int | None = None,
) -> dict[str, str]:
    """File stem -> text for index.md and any section indexes; every text within the limits
    (lines, and `size` of the text: characters by default; with max_line, hub lines are kept to it)."""
    b = _Builder(max_lines, max_chars, size=size, link=link, line=line, note=note, max_line=max_line)
    b._used.add("index")
    b.pages("index", title, [Entry.of(p) for p in pages], SPLITTERS)
    return dict(sorted(b.files.items()))


def write_index(wiki, *, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS) -> list[Path]:
    """Regenerate index.md (and section indexes) from the wiki's front matter; remove stale section files."""
    from wikigen.wiki.conflicts_page import index_note

    files = build_index(wiki.pages(), max_lines=max_lines, max_chars=max_chars, note=index_note(wiki.root, NOTE))
    root = Path(wiki.root)
    written = []
    for stem, text in files.items():
        path = root / f"{stem}.md"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            atomic_write(path, text, root=root)
        written.append(path)
    for stale in root.glob("index-*.md"):
        if stale.stem not in files:
            confine.remove(stale, root)
    return written
