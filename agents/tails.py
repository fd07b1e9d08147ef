"""The tail of a page body: what consolidation adds to a page (`Related pages:`, `## Merged from`, the
documents an extension or a move brought, a flagged line), which a later revision of the page keeps."""

from __future__ import annotations

from wikigen.agents.flagged import HEADINGS as FLAG_HEADINGS

from wikigen.wiki.merge import MERGED_HEADING

RELATED = "Related pages: "
FURTHER = "More documents on this subject:"
TAIL_LINES = (RELATED, MERGED_HEADING, FURTHER, *FLAG_HEADINGS)  # a line opening a part of the tail


def tail_start(body: str) -> int | None:
    """The line number where the body's tail starts (see split_tail), None without one."""
    for i, line in enumerate(body.split("\n")):
        if line.startswith(TAIL_LINES):
            return i
    return None


def split_tail(body: str) -> tuple[str, str]:
    """(head, tail): the tail starts at the first consolidation line (`Related pages:`, `## Merged from`)."""
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(TAIL_LINES):
            return "\n".join(lines[:i]).rstrip("\n"), "\n".join(lines[i:]).strip("\n")
    return body.rstrip("\n"), ""


def without_flagged(tail: str) -> str:
    """A page's tail without its flagged section (wikigen.agents.flagged), which runs from its heading to the
    next part of the tail or the end."""
    kept: list[str] = []
    dropping = False
    for line in tail.split("\n"):
        if line.startswith(TAIL_LINES):
            dropping = line.startswith(FLAG_HEADINGS)
        if not dropping:
            kept.append(line)
    return "\n".join(kept).strip("\n")


def carry_tail(old_body: str, new_body: str) -> str:
    """A rebuilt body that keeps what consolidation added to the old one. A new body that ends with its own
    flagged section (a document page's, wikigen.agents.flagged) keeps the rest of the old tail before it."""
    _, tail = split_tail(old_body)
    head, new_tail = split_tail(new_body)
    if new_tail.startswith(FLAG_HEADINGS):
        tail = without_flagged(tail)
    elif new_tail:
        return new_body
    if not tail:
        return new_body
    return "\n\n".join(x for x in (head, tail, new_tail) if x) + "\n"
