"""conflicts.md: the documents that state different values for the same figure about the same parties,
generated after each session (like index.md; never written by an agent) and linked from the index.

The conflicts come from `wikigen.search.facts.conflicts` and are kept in WIKI/.wikigen/conflicts.json;
the page is rendered from that file alone, so `wikigen check` can tell a stale page and flag each
conflict without the corpus (it verifies each side's quote against the sources when it has them).
Each conflict quotes both sides in the wiki's quote form, with document and character span::

    ## written notice: acme, beta

    [[doc-contracts-a]] states 30 days; [[doc-contracts-b]] states 60 days.

    > [!quote] contracts/a (chars 120-181)
    > Either party may terminate on thirty (30) days' written notice.

    > [!quote] contracts/b (chars 98-158)
    > Either party may terminate on sixty (60) days' written notice.
"""

from __future__ import annotations

import json
from pathlib import Path

from wikigen.core import confine
from wikigen.core.atomic import atomic_write
from wikigen.core.slugs import doc_slug
from wikigen.wiki.markup import Quote, format_quote

__all__ = ["CONFLICTS", "STORE", "index_note", "read_conflicts", "render_conflicts", "write_conflicts"]

CONFLICTS = "conflicts"  # the page's file stem (a reserved slug)
STORE = Path(".wikigen") / "conflicts.json"
MAX_CHARS = 24_000  # the page stays within a page's limit (wikigen check)
NOTE = (
    "_Generated after each session from the corpus: documents with the same parties and title that "
    "state different values for the same figure, outside an amendment chain; do not edit._"
)


def _section(c: dict) -> str:
    a, b = c["sides"]
    head = f"## {c['label']}: {', '.join(c['parties'])}"
    said = f"[[{doc_slug(a['doc_id'])}]] states {a['value']}; [[{doc_slug(b['doc_id'])}]] states {b['value']}."
    quotes = [format_quote(Quote(s["doc_id"], s["quote_start"], s["quote_end"], s["text"])) for s in (a, b)]
    return "\n\n".join([head, said, *quotes])


def render_conflicts(conflicts: list[dict]) -> str:
    """The page's text: every conflict while the page stays within MAX_CHARS, then how many were left out."""
    head = ["# Conflicts between documents", "", NOTE, "", f"{len(conflicts):,} conflicts."]
    parts, used = [], sum(len(x) + 1 for x in head)
    for i, c in enumerate(conflicts):
        sec = _section(c)
        if used + len(sec) + 2 > MAX_CHARS:
            parts.append(f"{len(conflicts) - i:,} more are listed by `wikigen check --json`.")
            break
        parts.append(sec)
        used += len(sec) + 2
    return "\n".join(head) + ("\n\n" + "\n\n".join(parts) if parts else "") + "\n"


def write_conflicts(root, conflicts: list[dict]) -> Path | None:
    """Keep the conflicts and write conflicts.md; with none, remove both (None)."""
    root = Path(root)
    page, store = root / f"{CONFLICTS}.md", root / STORE
    if not conflicts:
        for p in (page, store):
            if p.exists():
                confine.remove(p, root)
        return None
    confine.make_dirs(store.parent, root)
    atomic_write(store, json.dumps(conflicts, ensure_ascii=False, indent=1) + "\n", root=root)
    text = render_conflicts(conflicts)
    if not page.exists() or page.read_text(encoding="utf-8") != text:
        atomic_write(page, text, root=root)
    return page


def read_conflicts(root) -> list[dict]:
    """The kept conflicts; [] when none were found (or the file cannot be read)."""
    try:
        data = json.loads((Path(root) / STORE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [c for c in data if isinstance(c, dict) and len(c.get("sides") or ()) == 2] if isinstance(data, list) else []


def index_note(root, note: str) -> str:
    """The index's note, with links to the provisions tables and the conflicts page when the wiki has them."""
    from wikigen.wiki.provisions import PREFIX, read_table

    table = read_table(root)
    for kind, spec in sorted(table.kinds.items()):
        if table.rows(kind):
            note = f"{note} [[{PREFIX}{kind}|{spec.get('label') or kind}: the provisions table]]."
    if not (Path(root) / STORE).exists():
        return note
    n = len(read_conflicts(root))
    return f"{note} [[{CONFLICTS}|{n:,} conflicts between documents]]."
