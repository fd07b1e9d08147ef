"""Whether two built wikis are the same: every page (figure and provision pages included), .wikigen/values.json
and .wikigen/amendments.json byte for byte, and log.md without its timestamps (its lines as a multiset: two
agents of one session log in the order they finish). The screen of a build knob (docs/benchmarks.md, "Knobs", the
command named **knob**): a knob whose wikis are the same as the defaults' on every corpus has no effect.

    .venv/bin/python bench/compare_wikis.py BASE_WIKI OTHER_WIKI [...]   # pairs: BASE1 OTHER1 BASE2 OTHER2 ...

Prints `same` or what differs (pages added, removed, changed) for each pair; exit status 0 when every pair is
the same, 1 otherwise.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

STATE = (".wikigen/values.json", ".wikigen/amendments.json")
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?")


def contents(wiki: Path) -> dict[str, bytes]:
    """{relative path: what is compared} of a wiki's pages and state."""
    out: dict[str, bytes] = {}
    for p in sorted(wiki.rglob("*.md")):
        rel = p.relative_to(wiki).as_posix()
        if rel.startswith((".git/", ".wikigen/")):
            continue
        data = p.read_bytes()
        if rel == "log.md":
            data = b"\n".join(sorted(_STAMP.sub("T", data.decode("utf-8")).encode().splitlines()))
        out[rel] = data
    for rel in STATE:
        if (wiki / rel).is_file():
            out[rel] = (wiki / rel).read_bytes()
    return out


def differences(base: Path, other: Path) -> list[str]:
    a, b = contents(base), contents(other)
    out = [f"only in the base: {k}" for k in sorted(a.keys() - b.keys())]
    out += [f"only in the other: {k}" for k in sorted(b.keys() - a.keys())]
    out += [f"changed: {k}" for k in sorted(a.keys() & b.keys()) if a[k] != b[k]]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("wikis", nargs="+", type=Path, help="BASE OTHER pairs")
    args = ap.parse_args(argv)
    if len(args.wikis) % 2:
        ap.error("wikis come in pairs: BASE OTHER")
    same = True
    for base, other in zip(args.wikis[::2], args.wikis[1::2]):
        diff = differences(base, other)
        same = same and not diff
        kinds = {k: sum(d.startswith(k) for d in diff) for k in ("only in the base", "only in the other", "changed")}
        print(f"{other.name}: " + ("same" if not diff else ", ".join(f"{k} {n}" for k, n in kinds.items())))
        for d in diff[:8]:
            print("   " + d)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
