"""The secrets detector (wikigen.wiki.secrets): its false positives on ordinary text, its recall on planted secrets.

    .venv/bin/python bench/secrets_bench.py                  # every corpus found, both fixtures
    .venv/bin/python bench/secrets_bench.py --show 20        # and the first 20 flagged passages of each
    .venv/bin/python bench/secrets_bench.py --corpora none   # the fixtures alone (seconds)

False positives: the passages (search/passages.py, as the index cuts them) in which the detector finds
anything, per 1,000 passages, on the dev corpora (--data-root, default ../shared/eval: cuad-dev, sec10q-dev, contractnli-dev;
contracts, quarterly reports and NDAs, which hold no secret) and on bench/data/secrets-benign.txt (one
passage a line: EDGAR page headers and file names, accession numbers, file hashes, account and reference
numbers, written by hand). Recall: the share of bench/data/secrets-planted.jsonl (cloud keys, tokens,
private keys, passwords in config lines, card numbers; realistic, fake) whose secret lies wholly inside
a span the detector finds and is gone from the redacted text, per class. The classes include AWS secret
access keys holding '/' and '+' in every layout (prose, config lines, `aws_secret_access_key =`, JSON),
passwords after their word with no colon, `pw:`, Google API keys, cards grouped by spaces or dashes, and
cards in a corpus file's name (a row with "in": "name" is a relative path, checked as the corpus scan
checks names: search/corpus.py name_secrets). Sentence kept: the share of planted one-line texts whose
other words all survive the redaction, in order (the text without its secret and the redacted text without
its marks have the same words; a private-key block is kept out whole, so its rows are not counted). The
load (`uptime`) is printed with the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _eval_data import EVAL_ROOT  # noqa: E402  (the dev corpora, found from any checkout)
from wikigen.search.corpus import name_secrets  # noqa: E402
from wikigen.search.passages import split_passages  # noqa: E402

from wikigen.wiki.secrets import MARK, find_secrets, redact  # noqa: E402

DATA = ROOT / "bench" / "data"
EVAL = EVAL_ROOT
CORPORA = ("cuad-dev", "sec10q-dev", "contractnli-dev")


def load_benign() -> list[str]:
    lines = (DATA / "secrets-benign.txt").read_text(encoding="utf-8").splitlines()
    return [x for x in lines if x.strip() and not x.startswith("# ")]


def load_planted() -> list[dict]:
    with open(DATA / "secrets-planted.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def corpus_passages(root: Path, name: str, limit: int | None) -> list[str] | None:
    folder = root / name / "docs"
    if not folder.is_dir():
        return None
    out: list[str] = []
    for path in sorted(folder.glob("*.txt"))[:limit]:
        text = path.read_text(encoding="utf-8")
        out.extend(text[s:e] for s, e in split_passages(text))
    return out


def false_positives(name: str, passages: list[str], show: int) -> dict:
    t0 = time.perf_counter()
    flagged, kinds, shown = 0, Counter[str](), list[str]()
    for p in passages:
        found = find_secrets(p)
        if found:
            flagged += 1
            kinds.update(s.kind for s in found)
            if len(shown) < show:
                shown.extend(f"    {s.kind}: {' '.join(p[s.start : s.end].split())[:100]!r}" for s in found[:2])
    secs = time.perf_counter() - t0
    chars = sum(len(p) for p in passages)
    per_k = 1000 * flagged / max(1, len(passages))
    print(
        f"{name:16} {len(passages):7,} passages  {flagged:5} flagged  {per_k:7.2f} per 1,000  "
        f"{secs:6.1f} s ({chars / max(secs, 1e-9) / 1e6:.2f} MB/s)  {dict(kinds.most_common())}"
    )
    for line in shown[:show]:
        print(line)
    return {"passages": len(passages), "flagged": flagged, "per_1000": round(per_k, 2), "kinds": dict(kinds)}


_MARKED = re.compile(re.escape(MARK) + r"[^\]]*\]")


def sentence_kept(text: str, secret: str, redacted: str) -> bool:
    """Whether the redaction kept every other word of the text, in order: the text without its secret and the
    redacted text without its marks read the same, word for word."""
    return text.replace(secret, " ").split() == _MARKED.sub(" ", redacted).split()


def recall(planted: list[dict], show: int) -> dict:
    by_kind: dict[str, list[int]] = {}
    missed, cut = [], []
    kept = lines = 0
    for p in planted:
        text, secret = p["text"], p["secret"]
        at = text.index(secret)
        found = name_secrets(text) if p.get("in") == "name" else find_secrets(text)
        redacted = redact(text, found)
        hit = any(s.start <= at and at + len(secret) <= s.end for s in found) and secret not in redacted
        by_kind.setdefault(p["kind"], [0, 0])
        by_kind[p["kind"]][0] += hit
        by_kind[p["kind"]][1] += 1
        if not hit:
            missed.append(f"    missed ({p['kind']}): {' '.join(text.split())[:100]!r}")
        elif "\n" not in text.strip() and p["kind"] != "private key":
            lines += 1
            if sentence_kept(text, secret, redacted):
                kept += 1
            else:
                cut.append(f"    words lost ({p['kind']}): {' '.join(redacted.split())[:100]!r}")
    total = sum(h for h, _ in by_kind.values())
    print(
        f"planted secrets  {total}/{len(planted)} found, recall {total / len(planted):.3f}  "
        + ", ".join(f"{k} {h}/{n}" for k, (h, n) in by_kind.items())
    )
    for line in missed[:show] if show else missed:
        print(line)
    print(
        f"sentence kept    {kept}/{lines} one-line texts keep every other word after redaction ({kept / max(1, lines):.3f})"
    )
    for line in cut[:show] if show else cut:
        print(line)
    return {
        "found": total,
        "planted": len(planted),
        "recall": round(total / len(planted), 3),
        "by_kind": {k: {"found": h, "planted": n, "recall": round(h / n, 3)} for k, (h, n) in by_kind.items()},
        "sentence_kept": {"kept": kept, "lines": lines, "share": round(kept / max(1, lines), 3)},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=",".join(CORPORA), help="dev corpora to scan, comma-separated, or 'none'")
    ap.add_argument("--data-root", default=str(EVAL), help="folder of the dev corpora")
    ap.add_argument("--limit", type=int, default=None, help="at most this many documents of each corpus")
    ap.add_argument("--show", type=int, default=0, help="print this many flagged passages of each set")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min)")
    out = {}
    for name in [c for c in args.corpora.split(",") if c and c != "none"]:
        passages = corpus_passages(Path(args.data_root), name, args.limit)
        if passages is None:
            print(f"{name:16} not found under {args.data_root}: skipped")
            continue
        out[name] = false_positives(name, passages, args.show)
    out["benign fixture"] = false_positives("benign fixture", load_benign(), args.show)
    out["planted"] = recall(load_planted(), args.show)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
