"""Current terms over superseded ones, for `ask`: the amendment chains a build found
(`wikigen.search.facts.amendments`, kept in WIKI/.wikigen/amendments.json) applied to a context and an answer.

* In the context, a piece that holds superseded text is labelled so (its header says which amendment
  superseded it and where the current term is), and the current term's sentence is added beside it.
* An extractive answer that quotes superseded text gets the current term first, quoted from the
  amendment, with what it superseded kept after it and labelled.
* `supersedes` (in `ask --json`) lists each pair: the current term's quote and the superseded quote,
  both with document and character span.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wikigen.ask.context import ContextBuilder, Unit
from wikigen.search.facts.amendments import Amendment, Change

__all__ = ["Supersessions"]


@dataclass(frozen=True)
class Pair:
    amendment: Amendment
    change: Change

    def label(self) -> str:
        a, c = self.amendment, self.change
        when = f" ({a.date})" if a.date else ""
        return (
            f"SUPERSEDED by {a.doc_id}{when}: the current term is [{a.doc_id} chars {c.new_quote[0]}-{c.new_quote[1]}]"
        )

    def to_dict(self, texts) -> dict:
        a, c = self.amendment, self.change
        cur, old = texts.text(a.doc_id), texts.text(a.base_id)
        return {
            "label": c.label,
            "date": a.date,
            "current": {
                "doc_id": a.doc_id,
                "start": c.new_quote[0],
                "end": c.new_quote[1],
                "text": cur[c.new_quote[0] : c.new_quote[1]],
            },
            "superseded": {
                "doc_id": a.base_id,
                "start": c.old_quote[0],
                "end": c.old_quote[1],
                "text": old[c.old_quote[0] : c.old_quote[1]],
            },
        }


class Supersessions:
    """The current change of each superseded text (the latest amendment's where several change one text)."""

    def __init__(self, chains: Sequence[Amendment], texts):
        self.texts = texts
        self.by_base: dict[str, list[Pair]] = {}
        for a in sorted(chains, key=lambda a: (a.date or "", a.doc_id)):
            kept = self.by_base.setdefault(a.base_id, [])
            for c in a.changes:
                kept[:] = [p for p in kept if not _overlap(p.change.old_span, c.old_span)]
                kept.append(Pair(a, c))

    def __bool__(self) -> bool:
        return any(self.by_base.values())

    def of(self, doc_id: str, start: int, end: int) -> list[Pair]:
        """The pairs whose superseded text lies (partly) within doc_id[start:end]."""
        return [p for p in self.by_base.get(doc_id, ()) if _overlap(p.change.old_span, (start, end))]

    def mark_context(self, cb: ContextBuilder) -> list[Pair]:
        """Label each taken piece that holds superseded text and add its current term beside it (when the
        budget allows). The pairs found, in context order."""
        found: list[Pair] = []
        for u in list(cb.units):
            for p in self.of(u.doc_id, u.start, u.end):
                if p in found:
                    continue
                found.append(p)
                u.label = f"{u.label} {p.label()}".strip()
                a, c = p.amendment, p.change
                s, e = c.new_quote
                if not cb.covers(a.doc_id, s, e):
                    cb.add(
                        Unit(
                            "passage",
                            a.doc_id,
                            s,
                            e,
                            self.texts.text(a.doc_id)[s:e],
                            label=f"CURRENT TERM (amends {a.base_id})",
                        ),
                        trim=False,
                    )
        return found

    def prefer_current(self, text: str, spans: list[dict]) -> tuple[str, list[dict], list[Pair]]:
        """An extractive answer with the current term first wherever it quotes superseded text: the
        amendment's quote, then the superseded quote, labelled. Unchanged when it quotes none."""
        pairs: list[Pair] = []
        for sp in spans:
            for p in self.of(sp["doc_id"], sp["start"], sp["end"]):
                if p not in pairs:
                    pairs.append(p)
        if not pairs:
            return text, spans, []
        head, new_spans = [], []
        for p in pairs:
            a, c = p.amendment, p.change
            when = f", {a.date}" if a.date else ""
            cur = " ".join(self.texts.text(a.doc_id)[c.new_quote[0] : c.new_quote[1]].split())
            old = " ".join(self.texts.text(a.base_id)[c.old_quote[0] : c.old_quote[1]].split())
            head += [
                f'Current term ({c.label or c.kind}; {a.doc_id}{when}): "{cur}" -- {a.doc_id} '
                f"(chars {c.new_quote[0]}-{c.new_quote[1]})",
                f'  It supersedes (superseded text): "{old}" -- {a.base_id} (chars {c.old_quote[0]}-{c.old_quote[1]})',
            ]
            new_spans.append({"doc_id": a.doc_id, "start": c.new_quote[0], "end": c.new_quote[1]})
        lines = text.split("\n")
        for sp in spans:
            if self.of(sp["doc_id"], sp["start"], sp["end"]):
                where = f"{sp['doc_id']} (chars {sp['start']}-{sp['end']})"
                lines = [f"{ln} [superseded; the current term is above]" if ln.endswith(where) else ln for ln in lines]
        return "\n".join(head + lines), new_spans + list(spans), pairs


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]
