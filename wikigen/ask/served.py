"""How well the wiki served one answer: the question log's record of an `ask` (wikigen.wiki.question_log).

Everything here is what the answer path already knows, nothing is judged anew:

* **wiki share** of the answer: of the characters the answer quotes (`answer_spans`), the share that lies
  in a context item the wiki supplied (a page's quotes) rather than a search passage. In `wiki` mode every
  item is the wiki's, in `search` mode none is. A generated answer that cites no span (a model's) has the
  context's wiki share.
* **context wiki share**: the same over the whole context (characters of each item's text).
* **empty**: there is no answer (the extractive answer's "Not found in the corpus.", "No document in this
  corpus matches ...", or no text).
* **weak**: empty, or the wiki supplied less than half of what the answer quotes (`WEAK_SHARE`): search,
  not the wiki, found the answer. A question the wiki answered from its own pages is served; one it did
  not is what a dreaming session works on.
"""

from __future__ import annotations

from wikigen.ask.absent import NOT_IN_CORPUS
from wikigen.ask.context import ContextItem
from wikigen.ask.generate import NOTHING_FOUND

__all__ = ["WEAK_SHARE", "served_record", "wiki_share"]

WEAK_SHARE = 0.5  # below this share of the answer's quoted text from the wiki, the wiki served it weakly
_ABSENT = NOT_IN_CORPUS.split("{", 1)[0]  # "No document in this corpus matches ": the names asked are not there


def _pieces(items: list[ContextItem]) -> list[tuple[str, int, int, bool]]:
    """(doc id, start, end, from the wiki) of every source piece of the context."""
    return [(u.doc_id, u.start, u.end, c.kind == "page") for c in items for u in c.pieces()]


def wiki_share(answer_spans: list[dict], items: list[ContextItem]) -> float | None:
    """The share of the answer's quoted characters that lie in wiki items; None when it quotes nothing."""
    pieces = _pieces(items)
    total = wiki = 0
    for sp in answer_spans:
        d, s, e = sp["doc_id"], int(sp["start"]), int(sp["end"])
        if e <= s:
            continue
        total += e - s
        covered = [(max(s, ps), min(e, pe)) for pd, ps, pe, w in pieces if w and pd == d and ps < e and s < pe]
        wiki += _union(covered)
    return wiki / total if total else None


def _union(spans: list[tuple[int, int]]) -> int:
    n, last = 0, None
    for s, e in sorted(spans):
        if last is not None and s < last:
            s = last
        if e > s:
            n += e - s
            last = e
    return n


def served_record(result, *, budget: int) -> dict:
    """The question log's record of one answer, a wikigen.ask.retrieval.AskResult (see the module docstring
    and wikigen.wiki.question_log)."""
    spans = [{"doc_id": s["doc_id"], "start": int(s["start"]), "end": int(s["end"])} for s in result.answer_spans or []]
    chars = sum(len(c.text) for c in result.context)
    wiki_chars = sum(len(c.text) for c in result.context if c.kind == "page")
    context_share = wiki_chars / chars if chars else 0.0
    text = (result.answer or "").strip()
    empty = not spans and (not text or text == NOTHING_FOUND or text.startswith(_ABSENT))
    share = wiki_share(spans, result.context) if spans else (None if empty else context_share)
    scope = result.scope or {}
    return {
        "question": result.question,
        "mode": result.mode,
        "budget": budget,
        "answer_spans": spans,
        "context_spans": [
            {**{k: s[k] for k in ("doc_id", "start", "end")}, "from": "wiki" if c.kind == "page" else "search"}
            for c in result.context
            for s in c.spans
        ],
        "wiki_share": None if share is None else round(share, 4),
        "context_wiki_share": round(context_share, 4),
        "empty": empty,
        "weak": empty or (share or 0.0) < WEAK_SHARE,
        "scope": {"kind": scope.get("kind", ""), "pages": list(scope.get("pages") or [])},
    }
