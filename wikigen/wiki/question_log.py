"""The question log: what people asked a wiki and how well the wiki served it (WIKI/.wikigen/questions.jsonl).

Every `ask` through a surface (the CLI, the web view, MCP) appends one record; dreaming sessions
(wikigen.agents.dreaming) read it back to learn what the wiki lacks. A record::

    {"v": 1, "time", "via": "cli"|"web"|"mcp"|..., "question", "mode", "budget",
     "answer_spans": [{doc_id, start, end}], "context_spans": [{doc_id, start, end, from: "wiki"|"search"}],
     "wiki_share", "context_wiki_share", "empty", "weak", "scope": {kind, docs}}

(what the answer path knows; wikigen.ask.served computes it). The log is private state: the file is 0600
in the 0700 state folder, appended whole under a lock (wikigen.core.jsonl), kept out of the wiki's git
history (a question is not part of the wiki), and every string in a record has its secrets redacted
(wikigen.wiki.secrets) before it is written.

It is on by default. `"question_log": false` in WIKI/.wikigen/config.json turns it off for every surface
(`wikigen asked WIKI --log off` writes it); `--no-log` turns it off for one command.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core.atomic import STATE_DIR, atomic_write
from wikigen.core.errors import WikigenError
from wikigen.core.jsonl import LogRead, append_record, read_records
from wikigen.core.text import one_line
from wikigen.wiki.progress import now_utc
from wikigen.wiki.secrets import redact_value
from wikigen.wiki.store import not_a_wiki

__all__ = [
    "CONFIG_KEY",
    "LOG_NAME",
    "QUESTION_LOG_VERSION",
    "Asked",
    "AskedReport",
    "QuestionLog",
    "asked_questions",
    "asked_report",
    "logging_enabled",
    "open_question_log",
    "set_logging",
]

LOG_NAME = "questions.jsonl"
CONFIG_KEY = "question_log"  # config.json: false turns the log off
QUESTION_LOG_VERSION = 1


def _config_path(root: Path) -> Path:
    return Path(root) / STATE_DIR / "config.json"


def _read_config(root: Path) -> dict:
    path = _config_path(root)
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise not_a_wiki(root) from None
    except ValueError as e:
        raise WikigenError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(config, dict):
        raise WikigenError(f"{path} must hold a JSON object")
    return config


def logging_enabled(root: Path) -> bool:
    """Whether the wiki's config lets surfaces log questions (on unless `"question_log": false`)."""
    return _read_config(root).get(CONFIG_KEY, True) is not False


def set_logging(root: Path, on: bool) -> None:
    """Turn the question log on or off for every surface (config.json's `question_log`)."""
    config = _read_config(root)
    config[CONFIG_KEY] = bool(on)
    atomic_write(_config_path(root), json.dumps(config, indent=2) + "\n", root=Path(root))


class QuestionLog:
    """The append-only question log of one wiki; `via` names the surface its appends come from."""

    def __init__(self, wiki_root: Path, *, via: str = ""):
        self.root = Path(wiki_root)
        self.path = self.root / STATE_DIR / LOG_NAME
        self.via = via

    def append(self, record: dict, *, time: str | None = None) -> dict:
        """Append one record (secrets redacted); the record as written."""
        entry = {"v": QUESTION_LOG_VERSION, "time": time or now_utc(), "via": self.via, **record}
        entry = redact_value(entry)  # a secret never enters the log (wikigen.wiki.secrets)
        append_record(self.path, self.root / STATE_DIR / "locks" / "questions.lock", entry, root=self.root)
        return entry

    def read(self) -> LogRead:
        return read_records(self.path)


def open_question_log(wiki_root: Path, via: str) -> QuestionLog | None:
    """The wiki's question log for a surface, or None when the wiki's config turns it off."""
    return QuestionLog(wiki_root, via=via) if logging_enabled(wiki_root) else None


@dataclass
class Asked:
    """One distinct question (by its text, whitespace and case aside) and how the wiki served it the last time."""

    question: str
    times: int
    last: dict  # the latest record
    modes: list[str] = field(default_factory=list)

    @property
    def weak(self) -> bool:
        return bool(self.last.get("weak"))

    @property
    def empty(self) -> bool:
        return bool(self.last.get("empty"))


def question_key(question: str) -> str:
    return " ".join(str(question).split()).casefold()


def asked_questions(entries: Iterable[dict]) -> list[Asked]:
    """The distinct questions of the log's records, in the order first asked, each with its latest record."""
    out: dict[str, Asked] = {}
    for e in entries:
        q = e.get("question")
        if not isinstance(q, str) or not q.strip():
            continue
        key = question_key(q)
        a = out.get(key)
        if a is None:
            out[key] = a = Asked(q, 0, e)
        a.times += 1
        a.last = e
        mode = e.get("mode")
        if isinstance(mode, str) and mode not in a.modes:
            a.modes.append(mode)
    return list(out.values())


@dataclass
class AskedReport:
    """What `wikigen asked WIKI` shows: whether the log is on, and every distinct question with how the wiki
    served it the last time it was asked."""

    enabled: bool
    records: int
    questions: list[Asked]
    torn: int = 0

    def _shares(self) -> list[float]:
        return [a.last["wiki_share"] for a in self.questions if isinstance(a.last.get("wiki_share"), (int, float))]

    def to_dict(self) -> dict:
        shares = self._shares()
        return {
            "enabled": self.enabled,
            "records": self.records,
            "questions": len(self.questions),
            "weak": sum(a.weak for a in self.questions),
            "empty": sum(a.empty for a in self.questions),
            "wiki_share": round(sum(shares) / len(shares), 4) if shares else None,
            "asked": [
                {
                    "question": a.question,
                    "times": a.times,
                    "time": a.last.get("time"),
                    "mode": a.last.get("mode"),
                    "via": a.last.get("via"),
                    "wiki_share": a.last.get("wiki_share"),
                    "context_wiki_share": a.last.get("context_wiki_share"),
                    "empty": a.empty,
                    "weak": a.weak,
                    "answer_spans": a.last.get("answer_spans") or [],
                }
                for a in self.questions
            ],
        }

    def lines(self) -> list[str]:
        d = self.to_dict()
        share = (
            "" if d["wiki_share"] is None else f"; the wiki supplied {d['wiki_share']:.0%} of what the answers quote"
        )
        out = [
            f"question log {'on' if self.enabled else 'off'}: {d['questions']} questions asked ({self.records} times), "
            f"{d['weak']} served weakly ({d['empty']} with no answer){share}"
        ]
        for a in d["asked"]:
            state = "empty" if a["empty"] else "weak" if a["weak"] else "served"
            ws = a["wiki_share"]
            wiki = "   -" if ws is None else f"{ws:4.0%}"
            times = f" x{a['times']}" if a["times"] > 1 else ""
            out.append(
                f"  {state:6} wiki {wiki}  {a['mode'] or '?':11} {a['via'] or '?':4} {one_line(a['question'])}{times}"
            )
        if self.torn:
            out.append(f"  ({self.torn} torn lines skipped)")
        return out


def asked_report(wiki_root: Path, *, weak_only: bool = False) -> AskedReport:
    """The question log of a wiki for `wikigen asked` (only the questions served weakly with weak_only)."""
    read = QuestionLog(wiki_root).read()
    questions = asked_questions(read.entries)
    if weak_only:
        questions = [a for a in questions if a.weak]
    return AskedReport(logging_enabled(wiki_root), len(read.entries), questions, len(read.torn))
