"""Deterministic corpora of N times a source corpus's size, made from its own sentences.

    .venv/bin/python bench/scale_corpus.py --factor 4 --out bench-out/scale/4x      # from cuad-dev

How: copy 0 is the source corpus itself. Copy c >= 1 of document d keeps d's sequence of sentences
(so its headings, clause order and length stay those of a real document, and topics recur across the
copies as they recur across the originals), but each sentence is, with probability REPLACE (seeded by
c and d), replaced by a sentence of about the same length drawn from another document, and every run of
digits in the copy is shifted by a per-copy offset (so figures differ between copies). At least one
sentence of every copy is replaced and its numbers shifted, so no copy equals its original or another
copy; file names get a `-cN` suffix. Same arguments, same bytes: the generator uses only
random.Random(seed) and sorted inputs.
"""

from __future__ import annotations

import argparse
import bisect
import random
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)

from wikigen.core.sentences import CLAUSE, sentences  # noqa: E402

DEFAULT_SOURCE = EVAL_ROOT / "cuad-dev" / "docs"
REPLACE = 0.35
_DIGITS = re.compile(r"\d+")


def _pieces(text: str) -> list[tuple[int, int]]:
    return sentences(text, kinds=CLAUSE, min_chars=1)


def _shift_digits(text: str, offset: int) -> str:
    def sub(m: re.Match) -> str:
        s = m.group()
        return str(int(s) + offset).zfill(len(s)) if len(s) <= 12 else s

    return _DIGITS.sub(sub, text)


class SentencePool:
    """Every sentence of the source corpus, findable by length."""

    def __init__(self, texts: dict[str, str]):
        pool = []
        for doc_id in sorted(texts):
            t = texts[doc_id]
            pool += [(b - a, doc_id, t[a:b]) for a, b in _pieces(t)]
        pool.sort()
        self._lens = [n for n, _, _ in pool]
        self._items = pool

    def near(self, length: int, rng: random.Random, not_from: str) -> str:
        i = bisect.bisect_left(self._lens, length)
        lo, hi = max(0, i - 40), min(len(self._items), i + 40)
        for _ in range(8):
            _, doc_id, s = self._items[rng.randrange(lo, hi)]
            if doc_id != not_from:
                return s
        return self._items[rng.randrange(lo, hi)][2]


def make_copy(doc_id: str, text: str, copy: int, pool: SentencePool, seed: int) -> str:
    rng = random.Random(f"{seed}:{copy}:{doc_id}")
    spans = _pieces(text)
    if not spans:
        return _shift_digits(text, copy) + f"\n(copy {copy})\n"
    forced = rng.randrange(len(spans))
    out, pos = [], 0
    for i, (a, b) in enumerate(spans):
        out.append(text[pos:a])
        sentence = text[a:b]
        if i == forced or rng.random() < REPLACE:
            sentence = pool.near(b - a, rng, doc_id)
        out.append(sentence)
        pos = b
    out.append(text[pos:])
    return _shift_digits("".join(out), 7 * copy)


def generate(source: Path, out: Path, factor: int, seed: int = 1) -> tuple[int, int]:
    """Write factor x the source's documents into out; (documents, characters) written."""
    files = sorted(p for p in Path(source).rglob("*.txt") if p.is_file())
    texts = {p.relative_to(source).with_suffix("").as_posix(): p.read_text(encoding="utf-8") for p in files}
    pool = SentencePool(texts)
    out.mkdir(parents=True, exist_ok=True)
    n = chars = 0
    for copy in range(factor):
        for doc_id, text in texts.items():
            body = text if copy == 0 else make_copy(doc_id, text, copy, pool, seed)
            name = doc_id if copy == 0 else f"{doc_id}-c{copy}"
            path = out / f"{name}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
            n += 1
            chars += len(body)
    return n, chars


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", default=str(DEFAULT_SOURCE), help="a folder of .txt documents (default cuad-dev)")
    ap.add_argument("--factor", type=int, required=True, help="how many times the source's size")
    ap.add_argument("--out", required=True, help="the folder to write (created)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    source = Path(args.source)
    if not source.is_dir():
        print(f"no source corpus at {source}; give --source DIR", file=sys.stderr)
        return 2
    n, chars = generate(source, Path(args.out), args.factor, args.seed)
    print(f"wrote {n} documents, {chars:,} characters into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
