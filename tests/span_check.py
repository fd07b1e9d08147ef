"""An independent check of the source spans a surface returns: the document's extracted text at each span's
offsets must be in the text the span comes with (a context item's text, an answer, a hit, a span's own text).

It reads each document's text from the index's kept texts and compares, line endings normalised (a page's
quote holds the text with "\\n"); an answer cites its quotes with their whitespace collapsed, so those are
compared collapsed. It shares no code with retrieval or with the keeping out of secrets: it only reads
offsets and texts, so a redaction that leaves a span covering text the item no longer holds is caught.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def _nl(s: str) -> str:
    return s.replace("\r\n", "\n").replace("\r", "\n")


def _flat(s: str) -> str:
    return " ".join(s.split())


class SpanChecker:
    def __init__(self, text_of: Callable[[str], str]):
        self.text_of = text_of
        self.checked = 0

    def _doc(self, sp: dict) -> str | None:
        try:
            text = self.text_of(sp["doc_id"])
        except KeyError:
            return None
        if not (0 <= sp["start"] <= sp["end"] <= len(text)):
            return None
        return text[sp["start"] : sp["end"]]

    def within(self, spans: Iterable[dict], shown: str, where: str, *, collapse: bool = False) -> list[str]:
        """Failures of the spans whose document text is not inside `shown`."""
        out = []
        norm = _flat if collapse else _nl
        hay = norm(shown)
        for sp in spans:
            self.checked += 1
            doc = self._doc(sp)
            if doc is None:
                out.append(f"{where}: span {sp} is outside its document")
            elif norm(doc) not in hay:
                out.append(f"{where}: the text at {sp['doc_id']} {sp['start']}-{sp['end']} is not in the shown text")
        return out

    def own_text(self, spans: Iterable[dict], where: str, *, cut: str = "") -> list[str]:
        """Failures of spans that carry their own `text` (MCP, the web view): it must be the document's text there
        (or its start, when the surface cuts long texts and ends them with `cut`)."""
        out = []
        for sp in spans:
            self.checked += 1
            doc = self._doc(sp)
            text = sp["text"]
            if doc is None:
                out.append(f"{where}: span {sp['doc_id']} {sp['start']}-{sp['end']} is outside its document")
                continue
            if cut and text.endswith(cut) and len(text) < len(_nl(doc)):
                ok = _nl(doc).startswith(text[: -len(cut)])
            else:
                ok = _nl(doc) == _nl(text)
            if not ok:
                out.append(
                    f"{where}: the text given with {sp['doc_id']} {sp['start']}-{sp['end']} is not the document's"
                )
        return out

    def ask(self, result: dict, where: str) -> list[str]:
        """An ask result (`ask --json`, MCP ask): every context span is in its item's text, every answer span in
        the answer (quoted with collapsed whitespace), and spans that carry a text carry the document's."""
        out = []
        for i, item in enumerate(result["context"]):
            spans = [{k: s[k] for k in ("doc_id", "start", "end")} for s in item["spans"]]
            out += self.within(spans, item["text"], f"{where} context[{i}]")
            out += self.own_text([s for s in item["spans"] if "text" in s], f"{where} context[{i}]")
        out += self.within(result.get("answer_spans") or [], result["answer"], f"{where} answer", collapse=True)
        return out

    def hits(self, hits: list[dict], where: str) -> list[str]:
        """Search hits: the verbatim parts of each hit (its `spans`, else the hit's own span) are in its text."""
        out = []
        for i, h in enumerate(hits):
            spans = h.get("spans") or [{"doc_id": h["doc_id"], "start": h["start"], "end": h["end"]}]
            out += self.within(spans, h["text"], f"{where} hit[{i}]")
        return out
