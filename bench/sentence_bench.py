"""Sentence boundaries: wikigen.core.sentences against pysbd and blingfire on a hand-labelled sample.

    .venv/bin/python bench/sentence_bench.py                 # precision / recall / F1 of sentence ends, speed
    .venv/bin/python bench/sentence_bench.py --candidates    # print the sample's candidate ends (for labelling)

The sample (bench/data/sentence-gold.jsonl) is paragraphs of the two dev corpora (../shared/eval/cuad-dev,
sec10q-dev) and of the Korean documents of corpora/acme, chosen deterministically (every k-th paragraph of
200-1,500 characters, half of them among paragraphs with abbreviations, decimals or clause numbers). Each
line holds the paragraph's place (corpus, doc_id, start, end) and its labelled sentence ends (character
offsets into the document, after the closing punctuation), labelled by hand from the union of the
candidate ends the three splitters propose. Only ends inside a paragraph are scored (every splitter
splits at blank lines alike). pysbd and blingfire are optional (`pip install pysbd blingfire`): a
missing one is reported and skipped. Speed: characters a second over the whole of cuad-dev's first
40 documents, paragraph by paragraph.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wikigen.core.sentences import SENTENCE, sentences  # noqa: E402

GOLD = ROOT / "bench" / "data" / "sentence-gold.jsonl"
CORPORA = {
    "cuad-dev": ROOT.parent / "shared" / "eval" / "cuad-dev" / "docs",
    "sec10q-dev": ROOT.parent / "shared" / "eval" / "sec10q-dev" / "docs",
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
    out = []
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
    texts = {}
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--candidates", action="store_true", help="print the sample with every splitter's ends")
    args = ap.parse_args(argv)
    if args.candidates:
        show_candidates(pick_sample({"cuad-dev": 30, "sec10q-dev": 10, "acme-ko": 8}))
        return 0
    if not CORPORA["cuad-dev"].is_dir():
        print(f"cuad-dev not found at {CORPORA['cuad-dev']}", file=sys.stderr)
        return 2
    gold = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]
    print(f"{len(gold)} labelled paragraphs, {sum(len(g['ends']) for g in gold)} sentence ends inside them")
    evaluate(gold)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
