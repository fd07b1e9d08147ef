"""Chaos benchmark: kill -9 a build at random points (some while it runs git), and run two builds at
once, on one wiki; then count what was lost. Then the attacks of issue 25: links out of the wiki, two
`wikigen index` runs at once on one index, a zip-bomb .docx, and slow clients of `wikigen serve`.

    .venv/bin/python bench/chaos_bench.py [CORPUS] [--kills 20] [--git-kills 6] [--seed 7]
        [--concurrent 3] [--index-pairs 4] [--bomb-mb 1000] [--slow-clients 200]

Each kill trial starts `wikigen build CORPUS --wiki W --sessions 2` in its own process group and sends
SIGKILL to the whole group (the build and any git it runs, as `kill -9` on a job does) at a random
moment of a build's run time, or, for the git trials, the moment a `git` child of the build is seen.
Then a recovery build (`--sessions 1`) runs. After the kill trials, two builds start at the same moment,
three times. Then:

    links out         a copy of the corpus is built, then a folder the build writes to is replaced by a
                      symlink to an empty folder outside (archive/ with two sources deleted, so pages must
                      be archived; .wikigen/cache; the site's pages/), and the build (or `wikigen site`)
                      runs again; every file that appears outside is an outside write (target 0)
    index pairs       two `wikigen index` runs start at once on a fresh index folder; the passages in
                      tantivy are counted against the manifest: duplicated and lost passages (target 0),
                      and every loser must be the clean refusal naming the writer's pid (exit 3)
    zip bomb          a .docx of about 1 MB whose document.xml unpacks to --bomb-mb MB is added to a
                      copy of the corpus; `wikigen index` must skip it with a reason; its peak memory is
                      printed beside the same run without the bomb (the baseline)
    slow clients      `wikigen serve` gets --slow-clients connections that send half a request, half a
                      request line or nothing; the server's threads are counted before, during and after
                      its read timeout, every connection must be closed by the server, and a normal
                      request must be answered once they are gone

Prints pages lost, quotes unverified, builds blocked, outside writes, duplicated and lost passages
(targets 0), plus git fsck and duplicate sessions in the progress log. Everything is written into a
temporary folder that is removed afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

REFUSED = 3  # BuildLockedError.exit_code


def build_cmd(corpus: Path, wiki: Path, sessions: int, *extra: str) -> list[str]:
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
        *extra,
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


# --- issue 25: links out, index pairs, zip bomb, slow clients ---------------------------------------------


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wikigen.cli", *args], cwd=REPO, capture_output=True, text=True, **kw)


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def links_out_trials(corpus: Path, work: Path) -> list[dict]:
    """Replace a folder wikigen writes to by a symlink to an empty folder outside; run what writes there."""
    out = []
    for name in ("archive", ".wikigen/cache", "site/pages"):
        base = work / f"links-{name.replace('/', '-').lstrip('.')}"
        copy, wiki, outside = base / "corpus", base / "wiki", base / "outside"
        shutil.copytree(corpus, copy)
        outside.mkdir(parents=True)
        first = subprocess.run(build_cmd(copy, wiki, 1, "--no-dense"), cwd=REPO, capture_output=True, text=True)
        target = wiki / name if not name.startswith("site/") else base / name
        if name.startswith("site/"):
            cli("site", str(wiki), "--out", str(base / "site"))
        before = pages_on_disk(wiki)
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(outside)
        if name == "archive":  # pages must move to archive/: their documents leave the corpus
            docs = sorted(p for p in copy.rglob("*.txt"))[:2]
            for d in docs:
                d.unlink()
        if name.startswith("site/"):
            run = cli("site", str(wiki), "--out", str(base / "site"))
        else:
            run = subprocess.run(build_cmd(copy, wiki, 1, "--no-dense"), cwd=REPO, capture_output=True, text=True)
        err = run.stderr.strip().splitlines()[-1:] if run.returncode else []
        out.append(
            {
                "link": name,
                "first_rc": first.returncode,
                "rc": run.returncode,
                "refused": bool(err) and "leads outside" in err[0],
                "error": err,
                "outside": files_under(outside),
                "pages_lost": sorted(before - pages_on_disk(wiki)),
            }
        )
    return out


def passages_on_disk(index_dir: Path) -> tuple[int, int, int]:
    """(live passages in tantivy, passages the manifest lists, distinct (doc id, start, end))."""
    import tantivy

    idx = tantivy.Index.open(str(index_dir / "tantivy"))
    idx.reload()
    s = idx.searcher()
    hits = s.search(tantivy.Query.all_query(), max(1, s.num_docs)).hits
    keys = {(d.get_first("doc_id"), d.get_first("start"), d.get_first("end")) for d in (s.doc(a) for _, a in hits)}
    manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    return s.num_docs, sum(r["passages"] for r in manifest["docs"].values()), len(keys)


def index_pair_trial(corpus: Path, index: Path) -> dict:
    cmd = [sys.executable, "-m", "wikigen.cli", "index", str(corpus), "--index", str(index), "--no-dense"]
    procs = [
        subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    outs = [p.communicate() for p in procs]
    codes = [p.returncode for p in procs]
    errs = [e for _, e in outs]
    clean = sum(c == REFUSED and "is writing the search index" in e and "pid " in e for c, e in zip(codes, errs))
    raw = sum(c not in (0, REFUSED) or "Traceback" in e or "LockBusy" in e for c, e in zip(codes, errs))
    n, listed, distinct = passages_on_disk(index) if 0 in codes else (0, 0, 0)
    return {
        "codes": codes,
        "clean_refusals": clean,
        "raw_errors": raw,
        "duplicated": n - distinct,
        "lost": listed - distinct,
    }


def zip_bomb(unpacked_mb: int) -> bytes:
    """A real .docx (the sample corpus's) whose document.xml holds unpacked_mb MB of one-letter paragraphs."""
    src = zipfile.ZipFile(REPO / "corpora" / "acme" / "policies" / "calibration-policy.docx")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename != "word/document.xml":
                z.writestr(info.filename, data)
                continue
            xml = data.decode("utf-8")
            cut = xml.index("<w:body>") + len("<w:body>")
            with z.open("word/document.xml", "w", force_zip64=True) as f:
                f.write(xml[:cut].encode())
                chunk = (b"<w:p><w:r><w:t>" + b"A" * 980 + b"</w:t></w:r></w:p>") * 1000
                for _ in range(unpacked_mb):
                    f.write(chunk)
                f.write(xml[cut:].encode())
    return out.getvalue()


# The peak of the process itself is its VmHWM (ru_maxrss would carry the bench's own size across exec);
# its reading workers, forked from it, are counted by RUSAGE_CHILDREN.
PEAK = """
import re, resource, sys
from pathlib import Path
from wikigen.cli import main
rc = main(sys.argv[1:])
own = int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1))
kb = max(own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print("PEAK", rc, kb // 1024, file=sys.stderr)
"""


def index_peak(corpus: Path, index: Path) -> tuple[int, int, str]:
    """(exit code, peak MB of `wikigen index` and its workers, its stdout)."""
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, "index", str(corpus), "--index", str(index), "--no-dense"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    line = next((x for x in proc.stderr.splitlines() if x.startswith("PEAK ")), "PEAK -1 -1")
    _, rc, mb = line.split()
    return int(rc), int(mb), proc.stdout


def zip_bomb_trial(corpus: Path, work: Path, unpacked_mb: int) -> dict:
    copy = work / "bomb-corpus"
    shutil.copytree(corpus, copy)
    rc0, base_mb, _ = index_peak(copy, work / "bomb-baseline-index")
    bomb = zip_bomb(unpacked_mb)
    (copy / "bomb.docx").write_bytes(bomb)
    rc, peak_mb, out = index_peak(copy, work / "bomb-index")
    reason = next((x.strip() for x in out.splitlines() if x.strip().startswith("bomb.docx")), "")
    return {
        "size": len(bomb),
        "rc": rc,
        "baseline_rc": rc0,
        "peak_mb": peak_mb,
        "baseline_mb": base_mb,
        "reason": reason,
    }


def _threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return -1


def _answered(port: int) -> str:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return s.recv(64).split(b"\r\n", 1)[0].decode("ascii", "replace")
    except OSError as e:
        return f"error: {e}"


def slow_clients_trial(wiki: Path, n: int) -> dict:
    from wikigen.web.server import MAX_CONNECTIONS, READ_TIMEOUT

    proc = subprocess.Popen(
        [sys.executable, "-m", "wikigen.cli", "serve", str(wiki), "--port", "0"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    try:
        url = proc.stdout.readline().split(" at ", 1)[1].split()[0]
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        assert _answered(port).endswith("200 OK")
        before = _threads(proc.pid)
        socks = []
        for i in range(n):
            s = socket.create_connection(("127.0.0.1", port))
            if i % 3 == 0:
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never finished
            elif i % 3 == 1:
                s.sendall(b"GE")  # request line never finished
            socks.append(s)
        time.sleep(1.0)
        during = _threads(proc.pid)
        busy = _answered(port)  # a normal request while they hold the server
        t0 = time.perf_counter()
        closed = 0
        for s in socks:
            s.settimeout(max(0.1, READ_TIMEOUT + 10 - (time.perf_counter() - t0)))
            try:
                while s.recv(4096):
                    pass
                closed += 1
            except ConnectionResetError:
                closed += 1
            except OSError:
                pass
            s.close()
        waited = time.perf_counter() - t0
        time.sleep(1.0)
        return {
            "n": n,
            "cap": MAX_CONNECTIONS,
            "timeout": READ_TIMEOUT,
            "threads": (before, during, _threads(proc.pid)),
            "closed": closed,
            "waited": waited,
            "busy_answer": busy,
            "after_answer": _answered(port),
        }
    finally:
        proc.terminate()
        proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="?", default=str(REPO / "corpora" / "acme"))
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--git-kills", type=int, default=6, help="of the kills, how many wait for a git child")
    ap.add_argument("--concurrent", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--index-pairs", type=int, default=4, help="two `wikigen index` runs at once, this many times")
    ap.add_argument("--bomb-mb", type=int, default=1000, help="what the zip-bomb .docx unpacks to, in MB")
    ap.add_argument("--slow-clients", type=int, default=200, help="half-open connections to `wikigen serve`")
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

        outside = 0
        for r in links_out_trials(corpus, work):
            outside += len(r["outside"])
            lost += len(r["pages_lost"])
            print(
                f"link out {r['link']:>14}: exit {r['rc']}, refused with the link named {r['refused']}, "
                f"files outside {len(r['outside'])}, pages lost {len(r['pages_lost'])}"
                + (f"; {r['error']}" if r["error"] and not r["refused"] else "")
            )
        duplicated = lost_passages = raw = 0
        for i in range(args.index_pairs):
            r = index_pair_trial(corpus, work / f"pair-index-{i}")
            duplicated += r["duplicated"]
            lost_passages += r["lost"]
            raw += r["raw_errors"]
            print(
                f"index pair {i + 1}: exit codes {r['codes']}, clean refusals {r['clean_refusals']}, raw errors "
                f"{r['raw_errors']}, duplicated passages {r['duplicated']}, lost passages {r['lost']}"
            )
        bomb = zip_bomb_trial(corpus, work, args.bomb_mb) if args.bomb_mb else None
        if bomb:
            print(
                f"zip bomb: {bomb['size'] / 1e6:.2f} MB .docx unpacking to {args.bomb_mb:,} MB: index exit "
                f"{bomb['rc']}, peak {bomb['peak_mb']} MB (the same corpus without it: {bomb['baseline_mb']} MB); "
                f"{bomb['reason'] or 'NOT SKIPPED'}"
            )
        slow = slow_clients_trial(wiki, args.slow_clients) if args.slow_clients else None
        if slow:
            b, d, a = slow["threads"]
            print(
                f"slow clients: {slow['n']} connections (cap {slow['cap']}, read timeout {slow['timeout']:.0f} s): "
                f"server threads {b} before, {d} during, {a} after; {slow['closed']} closed by the server within "
                f"{slow['waited']:.1f} s; a normal request during: {slow['busy_answer']!r}, after: "
                f"{slow['after_answer']!r}"
            )
        print()
        print(f"kills               {args.kills} ({len(git_at)} aimed at git; {locks} left .git/index.lock)")
        print(f"pages lost          {lost}")
        print(f"quotes unverified   {unverified} (final wiki: {total} quotes)")
        print(f"builds blocked      {blocked}")
        print(f"concurrent refusals {refusals} clean, {tracebacks} tracebacks")
        print(f"duplicate sessions  {duplicate_sessions(wiki)}")
        print(f"git fsck            {'clean' if fsck.returncode == 0 else fsck.stderr.strip()[:200]}")
        print(f"outside writes      {outside}")
        print(f"passages            {duplicated} duplicated, {lost_passages} lost; {raw} raw index errors")
        bomb_ok = bomb is None or (bomb["rc"] == 0 and "zip bomb" in bomb["reason"])
        slow_ok = slow is None or (slow["closed"] == slow["n"] and slow["after_answer"].endswith("200 OK"))
        if bomb:
            print(f"zip bomb            {'skipped' if bomb_ok else 'NOT skipped'}; peak {bomb['peak_mb']} MB")
        if slow:
            print(f"slow clients        {slow['closed']} of {slow['n']} closed by the server; served after: {slow_ok}")
        clean = lost == 0 and unverified == 0 and blocked == 0 and outside == 0 and duplicated == 0
        return 0 if clean and lost_passages == 0 and raw == 0 and bomb_ok and slow_ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
