"""The tail of a page body: what consolidation adds to a page (`Related pages:`, `## Merged from`, the
documents an extension or a move brought, a flagged line), which a later revision of the page keeps."""

from __future__ import annotations

from wikigen.agents.flagged import HEADING as FLAG_HEADING

from wikigen.wiki.merge import MERGED_HEADING

RELATED = "Related pages: "
FURTHER = "More documents on this subject:"


def tail_start(body: str) -> int | None:
    """The line number where the body's tail starts (see split_tail), None without one."""
    for i, line in enumerate(body.split("\n")):
        if line.startswith((RELATED, MERGED_HEADING, FURTHER, FLAG_HEADING)):
            return i
    return None


def split_tail(body: str) -> tuple[str, str]:
    """(head, tail): the tail starts at the first consolidation line (`Related pages:`, `## Merged from`)."""
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if line.startswith((RELATED, MERGED_HEADING, FURTHER, FLAG_HEADING)):
            return "\n".join(lines[:i]).rstrip("\n"), "\n".join(lines[i:]).strip("\n")
    return body.rstrip("\n"), ""


def carry_tail(old_body: str, new_body: str) -> str:
    """A rebuilt body that keeps what consolidation added to the old one."""
    _, tail = split_tail(old_body)
    head, new_tail = split_tail(new_body)
    if not tail or new_tail:
        return new_body
    return f"{head}\n\n{tail}\n"
