"""Append-only JSONL records: one JSON object a line, each appended whole, a torn last line tolerated.

    append_record(path, lock_path, entry)   one line, under a cross-process lock, with a single os.write
    read_records(path) -> LogRead(entries, torn)

Shared by the progress log (wikigen.wiki.progress) and the question log (wikigen.wiki.question_log).
An append holds a file lock and writes the whole line with one ``os.write`` on an ``O_APPEND`` descriptor,
so concurrent appends never interleave. A torn last line (a crash mid-write) is kept out of the entries
and listed in ``LogRead.torn``; the next append first ends it with a newline so the new entry starts on a
fresh line. The file is created 0600 (it lives in the wiki's private state folder).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core import confine
from wikigen.core.locks import file_lock


@dataclass
class LogRead:
    entries: list[dict] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)


def append_record(path: Path, lock_path: Path, entry: dict, *, root: Path | None = None) -> None:
    """Append entry as one JSON line to path (created 0600), under the lock at lock_path; the path stays in
    root (wikigen.core.confine: a symlink cannot carry the write elsewhere)."""
    path = Path(path)
    data = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
    confine.make_dirs(path.parent, root)
    with file_lock(lock_path):
        fd = os.open(confine.inside(path, root), os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # end a torn line so this entry starts fresh
            written = os.write(fd, data)
            while written < len(data):  # only for huge entries; still under the lock
                written += os.write(fd, data[written:])
        finally:
            os.close(fd)


def read_records(path: Path) -> LogRead:
    """Every whole JSON object of the file, in order; lines that are not one go to `torn`."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return LogRead()
    out = LogRead()
    for line in raw.decode("utf-8", errors="replace").split("\n"):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            out.torn.append(line)
            continue
        if isinstance(obj, dict):
            out.entries.append(obj)
        else:
            out.torn.append(line)
    return out
