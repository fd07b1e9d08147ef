"""The shared, append-only progress log: WIKI/.wikigen/progress.jsonl, one JSON object a line, plus
WIKI/log.md rendered from it for people.

An entry: ``{"v": 1, "time": ISO UTC, "session", "agent", "action", "pages", "queries", "docs", ...extra}``.
Appends and reads are wikigen.core.jsonl's: the whole line under a file lock with a single ``os.write``
on an ``O_APPEND`` fd (concurrent appends never interleave); a torn last line (a crash mid-write) is kept
out of the entries and listed in ``LogRead.torn``, and the next append starts on a fresh line.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from wikigen.core.atomic import atomic_write
from wikigen.core.errors import WikigenError
from wikigen.core.jsonl import LogRead, append_record, read_records
from wikigen.wiki.secrets import redact_value

__all__ = ["LogRead", "ProgressLog", "coverage", "render_log", "session_summary"]

LOG_VERSION = 1
RESERVED = ("v", "time", "session", "agent", "action", "pages", "queries", "docs")


def now_utc() -> str:
    """The time of an entry: ISO 8601, UTC, milliseconds ("2026-12-01T05:36:00.123Z")."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ProgressLog:
    def __init__(self, wiki_root: Path, *, clock: Callable[[], str] = now_utc):
        self.root = Path(wiki_root)
        self.path = self.root / ".wikigen" / "progress.jsonl"
        self.md_path = self.root / "log.md"
        self._clock = clock

    def _lock_path(self) -> Path:
        return self.root / ".wikigen" / "locks" / "progress.lock"

    def entry(
        self,
        *,
        session: int,
        agent: str,
        action: str,
        pages: Iterable[str] = (),
        queries: Iterable[str] = (),
        docs: Iterable[str] = (),
        at: str | None = None,
        **extra,
    ) -> dict:
        """The entry `append` would write (at: its time, else now), without writing it."""
        clash = [k for k in extra if k in RESERVED]
        if clash:
            raise WikigenError(f"progress log extra fields may not be named {', '.join(clash)}")
        entry = {
            "v": LOG_VERSION,
            "time": at or self._clock(),
            "session": session,
            "agent": agent,
            "action": action,
            "pages": list(pages),
            "queries": list(queries),
            "docs": list(docs),
            **extra,
        }
        return redact_value(entry)  # a secret never enters the log (wikigen.wiki.secrets)

    def append(
        self,
        *,
        session: int,
        agent: str,
        action: str,
        pages: Iterable[str] = (),
        queries: Iterable[str] = (),
        docs: Iterable[str] = (),
        at: str | None = None,
        **extra,
    ) -> dict:
        entry = self.entry(
            session=session, agent=agent, action=action, pages=pages, queries=queries, docs=docs, at=at, **extra
        )
        append_record(self.path, self._lock_path(), entry, root=self.root)
        return entry

    def read(self) -> LogRead:
        return read_records(self.path)

    def write_markdown(self, pending: Iterable[dict] = ()) -> Path:
        """Render log.md from the log (called by the orchestrator after each session); `pending`: entries
        about to be appended, rendered as if they were (the session summary: see SUMMARY_WIKI_SIZE)."""
        log = self.read()
        log.entries.extend(pending)
        atomic_write(self.md_path, render_log(log), root=self.root)
        return self.md_path


LOG_MD_PAGES = 2  # slugs shown per log.md entry; the full list stays in progress.jsonl
# what people asked is never shown: log.md is part of the wiki and its history (an older dreamer logged the
# questions behind each change; the dreamer now logs their number and the subject, as its sources name it)
NOT_SHOWN = ("questions",)


def _short(v):
    """A list extra as its first few items and how many more (the documents a change read can be dozens);
    anything else as it is."""
    if isinstance(v, list) and len(v) > LOG_MD_PAGES:
        return f"{v[:LOG_MD_PAGES]} +{len(v) - LOG_MD_PAGES} more"
    return v


def _entry_md(e: dict) -> str:
    """One entry, compact: its action, how many pages (the first few linked), counts, note and extras."""
    details = []
    pages = [p for p in (e.get("pages") or []) if isinstance(p, str)]
    if pages:
        shown = ", ".join(f"[[{p}]]" for p in pages[:LOG_MD_PAGES])
        more = f", +{len(pages) - LOG_MD_PAGES} more" if len(pages) > LOG_MD_PAGES else ""
        details.append(f"{len(pages)} page{'s' if len(pages) != 1 else ''}: {shown}{more}")
    if e.get("queries"):
        details.append(f"queries: {len(e['queries'])}")
    if e.get("docs"):
        details.append(f"docs read: {len(e['docs'])}")
    extra = {k: _short(v) for k, v in e.items() if k not in RESERVED and k not in NOT_SHOWN}
    if e.get("agent") == SUMMARY_AGENT and e.get("action") == SUMMARY_ACTION:
        extra = {k: v for k, v in extra.items() if k not in SUMMARY_WIKI_SIZE}
    if extra:
        details.append(", ".join(f"{k}: {v}" for k, v in extra.items()))
    action = str(e.get("action", "")).strip()
    return f"{action} ({'; '.join(details)})" if details else action


def render_log(log: LogRead) -> str:
    """log.md, compact: one section per session (newest last), one line per agent in the order the agents
    first logged in it: the time of its first entry, then each entry's action with its page count, the
    first few pages, counts, note and extras. Every page of every entry stays in .wikigen/progress.jsonl."""
    lines = ["# Progress log", "", "_Rendered from .wikigen/progress.jsonl (the full record); do not edit._", ""]
    by_session: dict = {}
    for e in log.entries:
        by_session.setdefault(e.get("session"), {}).setdefault(str(e.get("agent", "?")), []).append(e)
    for session in sorted(by_session, key=lambda s: (not isinstance(s, int), str(s) if not isinstance(s, int) else s)):
        lines += [f"## Session {session}", ""]
        for agent, entries in by_session[session].items():
            lines.append(f"- {entries[0].get('time', '?')} **{agent}** " + "; ".join(_entry_md(e) for e in entries))
        lines.append("")
    if log.torn:
        lines += [f"_{len(log.torn)} torn line(s) skipped._", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


SUMMARY_AGENT = "system"
SUMMARY_ACTION = "session summary"
# the wiki's size is not on the summary's line in log.md: log.md is part of the wiki, so its line is written
# first and the size measured after it, and the size logged is the wiki's size as `stats` measures it then
SUMMARY_WIKI_SIZE = ("wiki_chars", "wiki_tokens")


def session_summary(
    size,
    *,
    max_ratio: float,
    warn_fraction: float,
    pages: int,
    quotes: int,
    links_repaired: int,
    docs_cited: int,
    docs_total: int,
) -> dict:
    """The figures of one finished session, as the extra fields of its "session summary" entry (logged
    by the build as agent "system"; the web view's growth chart reads them back). ``size`` is a
    wikigen.wiki.size_guard.SizeReport measured after the session."""
    return {
        "wiki_chars": size.wiki_chars,
        "wiki_tokens": size.wiki_tokens,
        "corpus_chars": size.corpus_chars,
        "corpus_tokens": size.corpus_tokens,
        "max_ratio": max_ratio,
        "warn_fraction": warn_fraction,
        "n_pages": pages,
        "quotes": quotes,
        "links_repaired": links_repaired,
        "docs_cited": docs_cited,
        "docs_total": docs_total,
    }


@dataclass
class Coverage:
    docs_total: int
    read: list[str]  # documents some agent read (from the log)
    cited: list[str]  # documents some page cites (quotes or sources)
    uncited: list[str]  # documents no page cites
    unread: list[str]  # documents no agent read

    def to_dict(self) -> dict:
        return {
            "docs_total": self.docs_total,
            "read": self.read,
            "cited": self.cited,
            "uncited": self.uncited,
            "unread": self.unread,
        }


def coverage(log, wiki, all_doc_ids: Iterable[str]) -> Coverage:
    """Which documents were read (per the log), which are cited by some page, which by none.
    ``log`` is a ProgressLog or a LogRead; ``wiki`` a Wiki or a list of Pages."""
    read_log = log.read() if hasattr(log, "read") else log
    pages = wiki.pages() if hasattr(wiki, "pages") else list(wiki)
    all_ids = sorted(set(all_doc_ids))
    read = {d for e in read_log.entries for d in (e.get("docs") or [])}
    cited: set[str] = set()
    for p in pages:
        cited.update(p.sources)
        with contextlib.suppress(WikigenError):
            cited.update(q.doc_id for q in p.quotes())
    known = set(all_ids)
    return Coverage(
        len(all_ids), sorted(read & known), sorted(cited & known), sorted(known - cited), sorted(known - read)
    )
