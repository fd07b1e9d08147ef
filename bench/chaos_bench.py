"""Chaos benchmark: kill -9 a build at random points (some while it runs git), and run two builds at
once, on one wiki; then count what was lost.

    .venv/bin/python bench/chaos_bench.py [CORPUS] [--kills 20] [--git-kills 6] [--seed 7]

Each kill trial starts `wikigen build CORPUS --wiki W --sessions 2` in its own process group and sends
SIGKILL to the whole group (the build and any git it runs, as `kill -9` on a job does) at a random
moment of a build's run time, or, for the git trials, the moment a `git` child of the build is seen.
Then a recovery build (`--sessions 1`) runs. After the kill trials, two builds start at the same moment,
three times. Prints:

    pages lost        pages on disk before a kill that are neither in the wiki nor in archive/ after
                      the recovery build (target 0)
    quotes unverified quotes that do not verify after each recovery (target 0)
    builds blocked    recovery builds that fail, and concurrent builds that fail other than by the
                      clean refusal naming the running build's pid (target 0)
plus git fsck and duplicate sessions in the progress log. Everything is written into a temporary
folder that is removed afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

REFUSED = 3  # BuildLockedError.exit_code


def build_cmd(corpus: Path, wiki: Path, sessions: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "wikigen.cli",
        "build",
        str(corpus),
        "--wiki",
        str(wiki),
        "--agents",
        "2",
        "--sessions",
        str(sessions),
        "--quiet",
    ]


def pages_on_disk(wiki: Path) -> set[str]:
    return {p.stem for p in wiki.glob("*.md")} | {p.stem for p in (wiki / "archive").glob("*.md")}


def git_children(pgid: int) -> bool:
    """Whether a git process runs in the process group."""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if os.getpgid(int(d.name)) != pgid:
                continue
            cmd = (d / "cmdline").read_bytes().split(b"\0")[0]
        except (OSError, ProcessLookupError):
            continue
        if cmd.endswith(b"git"):
            return True
    return False


def kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def quotes_unverified(wiki: Path) -> tuple[int, int]:
    from wikigen.search.sources import open_wiki

    from wikigen.wiki.lint import wiki_stats

    s = wiki_stats(open_wiki(wiki))
    return s["quotes"] - s["quotes_verified"], s["quotes"]


def duplicate_sessions(wiki: Path) -> int:
    seen, dup = set(), 0
    for line in (wiki / ".wikigen" / "progress.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("action") == "session finished":
            key = (e.get("session"), e.get("agent"))
            dup += key in seen
            seen.add(key)
    return dup


def kill_trial(corpus: Path, wiki: Path, at: float | None, rng: random.Random) -> dict:
    before = pages_on_disk(wiki)
    proc = subprocess.Popen(
        build_cmd(corpus, wiki, 2),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    t0 = time.perf_counter()
    during_git = False
    while proc.poll() is None:
        elapsed = time.perf_counter() - t0
        if at is None:
            if git_children(proc.pid):
                during_git = True
                break
        elif elapsed >= at:
            during_git = git_children(proc.pid)
            break
        time.sleep(0.002 if at is None else 0.01)
    finished = proc.poll() is not None
    kill_group(proc)
    lock_left = (wiki / ".git" / "index.lock").exists()
    rec = subprocess.run(build_cmd(corpus, wiki, 1), cwd=REPO, capture_output=True, text=True)
    after = pages_on_disk(wiki)
    bad, total = quotes_unverified(wiki)
    return {
        "killed_at": round(time.perf_counter() - t0, 2) if not finished else None,
        "during_git": during_git,
        "index_lock_left": lock_left,
        "recovery_rc": rec.returncode,
        "recovery_err": rec.stderr.strip().splitlines()[-1:] if rec.returncode else [],
        "pages_lost": sorted(before - after),
        "unverified": bad,
        "quotes": total,
    }


def concurrent_trial(corpus: Path, wiki: Path) -> dict:
    procs = [
        subprocess.Popen(
            build_cmd(corpus, wiki, 1), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outs = [p.communicate() for p in procs]
    codes = [p.returncode for p in procs]
    errs = [o[1] for o in outs]
    clean_refusals = sum(
        1 for c, e in zip(codes, errs) if c == REFUSED and "another build is running" in e and "pid " in e
    )
    blocked = sum(1 for c in codes if c not in (0, REFUSED)) + sum(
        1 for c, e in zip(codes, errs) if c == REFUSED and "pid " not in e
    )
    tracebacks = sum("Traceback" in e for e in errs)
    return {"codes": codes, "clean_refusals": clean_refusals, "blocked": blocked, "tracebacks": tracebacks}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="?", default=str(REPO / "corpora" / "acme"))
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--git-kills", type=int, default=6, help="of the kills, how many wait for a git child")
    ap.add_argument("--concurrent", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    corpus = Path(args.corpus).resolve()
    work = Path(tempfile.mkdtemp(prefix="wikigen-chaos-"))
    try:
        wiki = work / "wiki"
        t0 = time.perf_counter()
        first = subprocess.run(build_cmd(corpus, wiki, 2), cwd=REPO, capture_output=True, text=True)
        t1 = time.perf_counter()
        again = subprocess.run(build_cmd(corpus, wiki, 2), cwd=REPO, capture_output=True, text=True)
        base = time.perf_counter() - t1  # kill points fall within a continuing build, like the trials
        print(
            f"baseline: first build (2 sessions) {t1 - t0:.1f} s exit {first.returncode}; continuing build "
            f"(2 sessions) {base:.1f} s exit {again.returncode}; {len(pages_on_disk(wiki))} pages"
        )
        git_at = set(rng.sample(range(args.kills), min(args.git_kills, args.kills)))
        lost, unverified, blocked, locks = 0, 0, 0, 0
        for i in range(args.kills):
            at = None if i in git_at else rng.uniform(0.05, base * 0.95)
            r = kill_trial(corpus, wiki, at, rng)
            lost += len(r["pages_lost"])
            unverified += r["unverified"]
            blocked += r["recovery_rc"] != 0
            locks += r["index_lock_left"]
            where = (
                "during git" if r["during_git"] else f"at {r['killed_at']} s" if r["killed_at"] else "after it ended"
            )
            print(
                f"kill {i + 1:2d} {where:>14}: index.lock left {r['index_lock_left']!s:5}, recovery exit "
                f"{r['recovery_rc']}, pages lost {len(r['pages_lost'])}, quotes {r['quotes']} "
                f"({r['unverified']} unverified)" + (f"; {r['recovery_err']}" if r["recovery_err"] else "")
            )
        refusals, tracebacks = 0, 0
        for i in range(args.concurrent):
            r = concurrent_trial(corpus, wiki)
            blocked += r["blocked"]
            refusals += r["clean_refusals"]
            tracebacks += r["tracebacks"]
            print(
                f"concurrent pair {i + 1}: exit codes {r['codes']}, clean refusals {r['clean_refusals']}, "
                f"blocked {r['blocked']}, tracebacks {r['tracebacks']}"
            )
        after = subprocess.run(build_cmd(corpus, wiki, 1), cwd=REPO, capture_output=True, text=True)
        blocked += after.returncode != 0
        bad, total = quotes_unverified(wiki)
        unverified += bad
        fsck = subprocess.run(["git", "fsck", "--no-progress"], cwd=wiki, capture_output=True, text=True)
        print()
        print(f"kills               {args.kills} ({len(git_at)} aimed at git; {locks} left .git/index.lock)")
        print(f"pages lost          {lost}")
        print(f"quotes unverified   {unverified} (final wiki: {total} quotes)")
        print(f"builds blocked      {blocked}")
        print(f"concurrent refusals {refusals} clean, {tracebacks} tracebacks")
        print(f"duplicate sessions  {duplicate_sessions(wiki)}")
        print(f"git fsck            {'clean' if fsck.returncode == 0 else fsck.stderr.strip()[:200]}")
        return 0 if lost == 0 and unverified == 0 and blocked == 0 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
