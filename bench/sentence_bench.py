"""Sentence boundaries: wikigen.core.sentences against pysbd and blingfire on a hand-labelled sample.

    .venv/bin/python bench/sentence_bench.py                 # precision / recall / F1 of sentence ends, speed
    .venv/bin/python bench/sentence_bench.py --candidates    # print the sample's candidate ends (for labelling)
    .venv/bin/python bench/sentence_bench.py --page-breaks   # quotes around cuad-dev's gold clauses at page breaks

The sample (bench/data/sentence-gold.jsonl) is paragraphs of the two dev corpora (../shared/eval/cuad-dev,
sec10q-dev) and of the Korean documents of corpora/acme, chosen deterministically (every k-th paragraph of
200-1,500 characters, half of them among paragraphs with abbreviations, decimals or clause numbers). Each
line holds the paragraph's place (corpus, doc_id, start, end) and its labelled sentence ends (character
offsets into the document, after the closing punctuation), labelled by hand from the union of the
candidate ends the three splitters propose. Only ends inside a paragraph are scored (every splitter
splits at blank lines alike). pysbd and blingfire are optional (`pip install pysbd blingfire`): a
missing one is reported and skipped. Speed: characters a second over the whole of cuad-dev's first
40 documents, paragraph by paragraph.

--page-breaks: the sentence_span (cap 450, agents' phrase_cap) around each of cuad-dev's expert-labelled
clauses, with page breaks ignored (the rule before issue 24 item 5: `page_breaks` returns nothing) and read
(`wikigen.core.pages`), in the same run. A span "ends at page furniture" when the next text after it, or its
own last characters, are page furniture (`wikigen.core.pages.furniture`); "mid-sentence" when the text before
that furniture ends with no stop, colon or semicolon. Also: spans that reach the gold clause's end, and the
CPU seconds that reading the furniture of every document takes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)

import wikigen.core.sentences as rule  # noqa: E402
from wikigen.core.pages import furniture, page_breaks  # noqa: E402
from wikigen.core.sentences import SENTENCE, sentence_span, sentences  # noqa: E402

GOLD = ROOT / "bench" / "data" / "sentence-gold.jsonl"
CORPORA = {
    "cuad-dev": EVAL_ROOT / "cuad-dev" / "docs",
    "sec10q-dev": EVAL_ROOT / "sec10q-dev" / "docs",
    "acme-ko": ROOT / "corpora" / "acme" / "ko",
}
TRICKY = re.compile(
    r"\b(?:[A-Z]\.){2}|\b(?:Inc|Ltd|No|Co|Corp|Mr|Dr)\.|\d\.\d|e\.g\.|i\.e\.|^\s*\(?\d+(?:\.\d+)*[.)]\s", re.M
)


def paragraphs(text: str):
    for m in re.finditer(r"\S(?:.|\n(?![ \t\r]*\n))*", text):
        yield m.start(), m.end()


def ours(par: str) -> list[int]:
    return [b for _, b in sentences(par, kinds=SENTENCE, min_chars=1)]


def _pysbd():
    import pysbd

    seg = pysbd.Segmenter(language="en", clean=False, char_span=True)

    def split(par: str) -> list[int]:
        return [par.rstrip()[: s.end].rstrip().__len__() for s in seg.segment(par)]

    return split


def _blingfire():
    import blingfire

    def split(par: str) -> list[int]:
        _, offs = blingfire.text_to_sentences_and_offsets(par)
        return [e for _, e in offs]

    return split


def splitters() -> dict:
    out = {"wikigen": ours}
    for name, make in (("pysbd", _pysbd), ("blingfire", _blingfire)):
        try:
            out[name] = make()
        except ImportError:
            print(f"{name}: not installed, skipped", file=sys.stderr)
    return out


def inner_ends(split, par: str) -> set[int]:
    """The sentence ends a splitter finds strictly inside the paragraph (trailing whitespace trimmed)."""
    n = len(par.rstrip())
    out = set()
    for e in split(par):
        e = len(par[:e].rstrip())
        if 0 < e < n:
            out.add(e)
    return out


def pick_sample(per_corpus: dict[str, int]) -> list[dict]:
    out: list[dict] = []
    for corpus, want in per_corpus.items():
        folder = CORPORA[corpus]
        if not folder.is_dir():
            continue
        pars = []
        for path in sorted(folder.glob("*.txt")):
            text = path.read_text(encoding="utf-8")
            for s, e in paragraphs(text):
                if 200 <= e - s <= 1500 and text[s:e].count(".") + text[s:e].count("다") >= 2:
                    pars.append((path.stem, s, e, bool(TRICKY.search(text[s:e]))))
        for tricky in (True, False):
            group = [p for p in pars if p[3] == tricky] or pars
            k = max(1, want // 2)
            step = max(1, len(group) // k)
            out.extend({"corpus": corpus, "doc_id": d, "start": s, "end": e} for d, s, e, _ in group[::step][:k])
    return out


def doc_text(corpus: str, doc_id: str) -> str:
    return (CORPORA[corpus] / f"{doc_id}.txt").read_text(encoding="utf-8")


def show_candidates(sample: list[dict]) -> None:
    sp = splitters()
    for i, row in enumerate(sample):
        par = doc_text(row["corpus"], row["doc_id"])[row["start"] : row["end"]]
        cands = sorted(set().union(*(inner_ends(f, par) for f in sp.values())))
        print(json.dumps({**row, "i": i}))
        for c in cands:
            who = ",".join(n for n, f in sp.items() if c in inner_ends(f, par))
            print(f"   {row['start'] + c}  [{who}]  ...{par[max(0, c - 50) : c]!r} | {par[c : c + 30]!r}")


def evaluate(gold: list[dict]) -> None:
    texts: dict[tuple[str, str], str] = {}
    for name, split in splitters().items():
        tp = fp = fn = 0
        for row in gold:
            key = (row["corpus"], row["doc_id"])
            texts.setdefault(key, doc_text(*key))
            par = texts[key][row["start"] : row["end"]]
            got = {row["start"] + e for e in inner_ends(split, par)}
            want = set(row["ends"])
            tp, fp, fn = tp + len(got & want), fp + len(got - want), fn + len(want - got)
        p, r = tp / max(1, tp + fp), tp / max(1, tp + fn)
        f1 = 2 * p * r / max(1e-9, p + r)
        print(
            f"{name:<10} precision {p:.3f}  recall {r:.3f}  F1 {f1:.3f}  (tp {tp}, fp {fp}, fn {fn})  "
            f"{speed(split) / 1e6:.2f} M chars/s"
        )


def speed(split) -> float:
    folder = CORPORA["cuad-dev"]
    docs = [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt"))[:40]] if folder.is_dir() else []
    pars = [t[s:e] for t in docs for s, e in paragraphs(t)]
    t0 = time.perf_counter()
    for par in pars:
        split(par)
    return sum(map(len, pars)) / max(1e-9, time.perf_counter() - t0)


_STOP = re.compile(r"[.!?:;\u3002][\"'\)\]\u2019\u201d]*$")


def _at_furniture(text: str, end: int) -> tuple[bool, bool]:
    """(ends at page furniture, mid-sentence there) for a span ending at `end`."""
    spans = furniture(text)
    nxt = end
    while nxt < len(text) and text[nxt].isspace():
        nxt += 1
    for a, b in spans:
        if a <= nxt < b or a < end <= b:  # furniture follows the span, or ends it ("...BASED ON 16")
            before = text[:a].rstrip()
            return True, not _STOP.search(before[-4:])
        if a > nxt:
            break
    return False, False


def page_break_bench(cap: int = 450) -> None:
    folder = CORPORA["cuad-dev"]
    clauses = set()
    for line in (folder.parent / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        for ev in json.loads(line).get("evidence") or []:
            if ev.get("start") is not None and ev.get("end") is not None and ev["end"] > ev["start"]:
                clauses.add((ev["doc_id"], ev["start"], ev["end"]))
    texts = {d: (folder / f"{d}.txt").read_text(encoding="utf-8") for d in {c[0] for c in clauses}}
    t0 = time.process_time()
    gaps = sum(len(page_breaks(t)) for t in texts.values())
    secs = time.process_time() - t0
    print(
        f"{len(clauses)} gold clauses in {len(texts)} contracts; {gaps} page breaks a sentence runs on across, "
        f"found in {secs:.2f} CPU s ({sum(map(len, texts.values())) / 1e6:.1f} M chars)"
    )
    spans = {}
    for mode in ("ignored", "read"):
        with contextlib.ExitStack() as stack:
            if mode == "ignored":  # the rule before: no page break is seen
                stack.enter_context(mock.patch.object(rule, "page_breaks", lambda text: ()))
            spans[mode] = {c: sentence_span(texts[c[0]], c[1], c[2], cap) for c in sorted(clauses)}
        at = [_at_furniture(texts[c[0]], e) for c, (_, e) in spans[mode].items()]
        reach = sum(e >= c[2] for c, (_, e) in spans[mode].items())
        mean = sum(e - s for s, e in spans[mode].values()) / max(1, len(clauses))
        print(
            f"page breaks {mode:<8} spans ending at page furniture {sum(a for a, _ in at):>4}, mid-sentence "
            f"{sum(m for _, m in at):>4}; spans reaching the clause's end {reach:>5}; mean length {mean:.0f}"
        )
    changed = sum(spans["ignored"][c] != spans["read"][c] for c in clauses)
    print(f"{changed} of {len(clauses)} spans changed")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--candidates", action="store_true", help="print the sample with every splitter's ends")
    ap.add_argument("--page-breaks", action="store_true", help="quotes around cuad-dev's gold clauses at page breaks")
    ap.add_argument("--data-root", default=str(EVAL_ROOT), help="folder of the dev corpora")
    args = ap.parse_args(argv)
    for corpus in ("cuad-dev", "sec10q-dev"):
        CORPORA[corpus] = Path(args.data_root) / corpus / "docs"
    if args.candidates:
        show_candidates(pick_sample({"cuad-dev": 30, "sec10q-dev": 10, "acme-ko": 8}))
        return 0
    if not CORPORA["cuad-dev"].is_dir():
        print(f"cuad-dev not found at {CORPORA['cuad-dev']}", file=sys.stderr)
        return 2
    if args.page_breaks:
        page_break_bench()
        return 0
    gold = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]
    print(f"{len(gold)} labelled paragraphs, {sum(len(g['ends']) for g in gold)} sentence ends inside them")
    evaluate(gold)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
