"""Where a secret from a corpus file's name reached the wiki, for `wikigen check`.

The corpus scan skips a file whose name holds a secret (wikigen.search.corpus), so today such a name never
becomes a doc id, a page's slug, a line of index.md or log.md, a progress-log entry or a commit. A wiki built
before that, or by hand, may still hold one, and check says where: in the names of the wiki's files, in its
pages and generated pages, in the progress log, in its git history. The secret is looked for as it was
written, lower-cased and slugified (a page's slug), and never printed: where it is found it is shown as
"[secret kept out]".

Generated pages (index.md, log.md, conflicts.md) are also scanned with the detector itself, as pages are.
"""

from __future__ import annotations

import re
from pathlib import Path

from wikigen.core.slugs import slugify
from wikigen.wiki.history import commits_holding
from wikigen.wiki.secrets import find_secrets

HIDDEN = "[secret kept out]"
FIX = "rename the corpus file, remove the secret from the wiki, and rotate it"


def forms(secret: str) -> list[str]:
    """The ways a secret from a file name is written in a wiki: as is, lower-cased (slugs), slugified."""
    return [f for f in dict.fromkeys([secret, secret.lower(), slugify(secret)]) if len(f) >= 8]


def hide(text: str, needles: list[str]) -> str:
    for n in needles:
        text = re.sub(re.escape(n), HIDDEN, text, flags=re.I)
    return text


def _wiki_files(root: Path):
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if rel.parts[0] == ".git" or not p.is_file():
            continue
        yield rel, p


def name_leaks(root: Path, secret_names: list[tuple[str, tuple[str, ...]]]) -> list[tuple[str, str]]:
    """(where, message) for each place the secrets of the corpus file names reached; the secret never shown."""
    root = Path(root)
    out: list[tuple[str, str]] = []
    for shown, secrets in secret_names:
        needles = [f for s in secrets for f in forms(s)]
        low = [n.lower() for n in needles]
        named, lines = [], []
        for rel, p in _wiki_files(root):
            if any(n in str(rel).lower() for n in low):
                named.append(hide(str(rel), needles))
            if p.suffix not in (".md", ".jsonl") or rel.parts[0] not in (".wikigen", "archive", rel.name):
                continue
            text = p.read_text(encoding="utf-8", errors="replace")
            if any(n in text.lower() for n in low):
                at = next(i for i, line in enumerate(text.splitlines(), 1) if any(n in line.lower() for n in low))
                lines.append(f"{hide(str(rel), needles)}:{at}")
        what = f"a secret in the name of the corpus file {shown}"
        if named:
            more = f" and {len(named) - 3} more" if len(named) > 3 else ""
            out.append((named[0], f"{what} is in the name of {', '.join(named[:3])}{more}; {FIX}"))
        for where in lines:
            out.append((where, f"{what} is in this file; {FIX}"))
        commits = commits_holding(root, needles)
        if commits:
            out.append(
                (
                    ".git",
                    f"{what} reached the git history (commits {', '.join(commits[:5])}); {FIX}, then rewrite the "
                    "history (git filter-repo) or start the wiki afresh",
                )
            )
    return out


def generated_secrets(root: Path) -> list[tuple[str, str]]:
    """(file:line, kind) of the secrets the detector finds in the generated pages (index, log, conflicts)."""
    out = []
    for p in sorted(Path(root).glob("*.md")):
        if not re.fullmatch(r"index(-.+)?|log|conflicts", p.stem):
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        for s in find_secrets(text):
            out.append((f"{p.name}:{text.count(chr(10), 0, s.start) + 1}", s.kind))
    return out
