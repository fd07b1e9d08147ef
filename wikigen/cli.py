"""The `wikigen` command: each subcommand parses its arguments, calls one library function, and turns
the project's own errors into one line on stderr. Results go to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from wikigen.agents.backends import BACKENDS, DEFAULT_BACKEND
from wikigen.ask.modes import MODES
from wikigen.core.errors import UsageError, WikigenError

if TYPE_CHECKING:  # tqdm is imported when a bar is drawn
    from tqdm import tqdm

DEFAULT_INDEX = Path(".wikigen-index")

DESCRIPTION = """Compile a document corpus into a wiki of linked markdown pages whose quotes are checked
against the sources, then answer questions from the wiki plus full-text search.

First steps:
  wikigen build corpora/acme --wiki my-wiki      build a wiki offline (no key, no network)
  wikigen ask "Which contracts renew automatically?" --wiki my-wiki
"""


def _print_json(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=None))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wikigen-memory")
    except PackageNotFoundError:  # run from a source tree that was never installed
        from wikigen import __version__

        return __version__


UNITS = {"indexing": "file", "embedding": "passage", "page writing": "agent-session"}
INTERRUPTED = "interrupted: what was finished is kept; run the same command again to go on from there"


class _Bars:
    """Progress on stderr, one bar at a time: progress(stage, done, total) draws the stage's bar (a new
    stage closes the last one), with its rate and time left from the updates it was given; `say` prints a
    line (a warning, a session line) above the bar instead of over it. Nothing is drawn when stderr is
    not a terminal or the command is --quiet; lines are still printed."""

    def __init__(self, quiet: bool = False):
        self.enabled = not quiet and sys.stderr.isatty()
        self.bar: tqdm | None = None
        self.stage = ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None or stage != self.stage:
            from tqdm import tqdm

            self.close()
            self.stage = stage
            self.bar = tqdm(  # initial: work done before the bar was seen does not count in its rate
                total=total,
                initial=done,
                desc=stage,
                unit=UNITS.get(stage, "doc"),
                file=sys.stderr,
                leave=False,
                mininterval=0.5,
            )
        if total != self.bar.total:
            self.bar.total = total
        self.bar.update(max(0, done - self.bar.n))  # update(): tqdm measures the rate and the time left
        if done >= total:
            self.bar.refresh()  # the finished count is drawn, however soon it came

    def of(self, stage: str):
        """A progress(done, total) callback for one stage."""
        return lambda done, total: self(stage, done, total)

    def say(self, text: str, file=None) -> None:
        file = file or sys.stderr
        if self.bar is not None:
            self.bar.clear()
        print(text, file=file, flush=True)
        if self.bar is not None:
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> _Bars:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _note_pending_vectors(wiki: Path) -> None:
    """Say so on stderr when documents of the wiki's index still lack the passage vectors a build asked for."""
    from wikigen.search.dense.service import pending_note
    from wikigen.search.sources import open_wiki

    try:
        note = pending_note(open_wiki(wiki).sources)
    except (WikigenError, AttributeError, OSError):
        return
    if note:
        print(f"note: {note}", file=sys.stderr)


def _warn_if_stale(wiki: Path) -> None:
    """Say so on stderr when the wiki's corpus changed since it was indexed (content hashes)."""
    from wikigen.search.sources import open_wiki

    try:
        changes = open_wiki(wiki).sources.corpus_changes()
    except WikigenError:
        return
    if changes.any:
        print(
            f"warning: {changes.text()}; pages and answers may quote old text - run `wikigen build` "
            f"to refresh (`wikigen check {wiki}` names the stale pages)",
            file=sys.stderr,
        )
    _note_pending_vectors(wiki)


# --- subcommands -------------------------------------------------------------------------------


def cmd_index(args) -> int:
    from wikigen.core.engine import open_engine
    from wikigen.search.cluster import check_cluster
    from wikigen.search.index import CorpusIndex

    if args.dense and args.no_dense:
        raise UsageError("--dense and --no-dense contradict each other")
    if args.corpus is None:
        if not args.dense:
            raise UsageError("give the CORPUS folder to index, or --dense to compute the vectors an index lacks")
        return _finish_vectors(args)
    with open_engine(args.engine, address=args.ray_address) as workers, _Bars(args.quiet) as bars:
        check_cluster(workers, Path(args.corpus), dense=not args.no_dense and _model_here())
        index, summary = CorpusIndex.build(
            Path(args.corpus), Path(args.index), progress=bars.of("indexing"), force=args.force, workers=workers
        )
        dense = None if args.no_dense else _embed(index, bars, workers)
    if args.json:
        d = dataclasses.asdict(summary)
        d["skipped"] = [{"path": p, "reason": r} for p, r in summary.skipped]
        d["decoded"] = [{"path": p, "encoding": e} for p, e in summary.decoded]
        d["overlong"] = [{"path": p, "tokens": n, "characters": c} for p, n, c in summary.overlong]
        d["dense"] = dataclasses.asdict(dense.summary) if dense is not None and dense.ok else None
        _print_json(d)
    else:
        print(summary.to_text() + (f"\n{dense.note}" if dense is not None and dense.ok else ""))
    return 0


def _finish_vectors(args) -> int:
    """`wikigen index --dense`: the passage vectors an existing index still lacks, nothing else."""
    from wikigen.core.engine import open_engine
    from wikigen.search.cluster import check_cluster
    from wikigen.search.dense.service import check_model
    from wikigen.search.index import CorpusIndex

    check_model()  # a missing model is refused before the index is opened
    index = CorpusIndex.open(Path(args.index))
    with open_engine(args.engine, address=args.ray_address) as workers, _Bars(args.quiet) as bars:
        check_cluster(workers, None, dense=True)
        dense = _embed(index, bars, workers)
    if args.json:
        _print_json({"dense": dataclasses.asdict(dense.summary) if dense.ok else None})
    else:
        print(dense.note)
    return 0


def _model_here() -> bool:
    """Whether the dense model is installed here (else the command stays BM25 only and asks no machine for it)."""
    from wikigen.search.dense.encoder import DenseUnavailable
    from wikigen.search.dense.service import check_model

    try:
        check_model()
    except DenseUnavailable:
        return False
    return True


def _embed(index, bars: _Bars, workers=None):
    """The passage vectors after indexing (a bar "embedding"), on the engine when one is given (local worker
    counts embed in this process); without the model one note on stderr."""
    from wikigen.core.engine import Engine
    from wikigen.search.dense.service import update_vectors

    engine = workers if isinstance(workers, Engine) else None
    dense = update_vectors(index, progress=bars.of("embedding"), engine=engine)
    if not dense.ok and dense.note:
        bars.say(f"note: {dense.note}")
    return dense


def _positive(name: str, value: int) -> None:
    if value is not None and value < 1:
        raise UsageError(f"{name} must be 1 or more (got {value})")


def _wikis_here(folder: Path = Path(".")) -> list[str]:
    """The wiki folders in folder (and folder itself): those with a .wikigen/config.json."""
    found = [p for p in [folder, *sorted(folder.iterdir())] if (p / ".wikigen" / "config.json").is_file()]
    return [str(p) for p in found[:5]]


def _search_index(args):
    """The index `search` reads: the wiki's own (--wiki), or an --index folder (default .wikigen-index); when
    that folder has no index, the error names where a build keeps its index."""
    from wikigen.core.errors import SearchIndexError
    from wikigen.search.index import CorpusIndex
    from wikigen.search.sources import open_wiki

    if args.wiki:
        return open_wiki(Path(args.wiki)).sources
    try:
        return CorpusIndex.open(Path(args.index or DEFAULT_INDEX))
    except SearchIndexError as e:
        if args.index:
            raise
        wikis = _wikis_here()
        where = (
            f"the wiki{'s' if len(wikis) > 1 else ''} here keep{'' if len(wikis) > 1 else 's'} theirs: "
            + ", ".join(f"`wikigen search QUERY --wiki {w}`" for w in wikis)
            if wikis
            else "search a wiki's with `wikigen search QUERY --wiki WIKI`"
        )
        raise SearchIndexError(f"{e}; a build keeps its index in WIKI/.wikigen/index, and {where}") from None


def cmd_search(args) -> int:
    _positive("-k", args.k)
    index = _search_index(args)
    hits = index.search(args.query, k=args.k)
    if args.json:
        _print_json({"query": args.query, "hits": [h.to_dict() for h in hits]})
    else:
        for h in hits:
            print(f"{h.score:7.2f}  {h.doc_id} [{h.start}-{h.end}]  {h.snippet}")
    return 0


def cmd_build(args) -> int:
    from wikigen.agents.orchestrate import BuildConfig, build

    config = BuildConfig(
        corpus=Path(args.corpus),
        wiki=Path(args.wiki),
        agents=args.agents,
        sessions=args.sessions,
        backend=args.backend,
        model=args.model,
        max_ratio=args.max_ratio,
        dense=not args.no_dense,
        index_dir=Path(args.index) if args.index else None,
        quiet=args.quiet,
        force=args.force,
        session_budget=args.session_budget,
        session_turns=args.session_turns,
        max_tokens=args.max_tokens,
        max_cost=args.max_cost,
        workers=args.workers,
        engine=args.engine,
        ray_address=args.ray_address,
        rate_itpm=args.rate_itpm,
        rate_rpm=args.rate_rpm,
    )
    if args.dry_run:
        return _dry_run(config, args.json)
    lines_to = sys.stderr if args.json else sys.stdout  # with --json, session lines go to stderr
    agent_sessions = max(0, args.sessions) * max(0, args.agents)
    with _Bars(args.quiet) as bars:
        done = [0]

        def agent_done(agent, session) -> None:
            done[0] += 1
            bars("page writing", done[0], agent_sessions)

        report = build(
            config,
            on_session=lambda line: bars.say(line.text(), file=lines_to),
            on_warning=lambda text: bars.say(f"warning: {text}"),
            on_agent_done=agent_done,
            on_progress=bars,
        )
    if args.json:
        _print_json(report.to_dict())
    elif report.usage.total:
        u = report.usage
        cost = "" if report.cost_usd is None else f", about ${report.cost_usd:,.2f}"
        print(
            f"usage: {u.total:,} tokens (input {u.input:,}, output {u.output:,}, cache write "
            f"{u.cache_creation:,}, cache read {u.cache_read:,}){cost}"
        )
        if report.cost_usd is not None:
            from wikigen.agents.cost import PRICE_NOTE

            print(f"  {PRICE_NOTE}")
    return 0 if report.ok else 1


def _dry_run(config, as_json: bool) -> int:
    """Everything the real run checks first (its errors, its warnings on stderr), then what it would cost."""
    from wikigen.agents.orchestrate import preflight

    for line in preflight(config):
        print(f"warning: {line}", file=sys.stderr)
    if config.backend != "claude":
        msg = "dry run: the offline backend sends nothing to any API and costs nothing; nothing was written"
        _print_json({"backend": config.backend, "cost_usd": 0.0}) if as_json else print(msg)
        return 0
    from wikigen.agents.claude import resolve_model
    from wikigen.agents.cost import estimate_corpus

    model = resolve_model(config.model)
    est = estimate_corpus(
        config.corpus,
        agents=config.agents,
        sessions=config.sessions,
        model=model,
        token_budget=config.session_budget,
        max_turns=config.session_turns,
    )
    _print_json(est.to_dict()) if as_json else print(est.to_text() + "\nnothing was sent and nothing was written")
    return 0


def cmd_check(args) -> int:
    from wikigen.search.sources import open_wiki
    from wikigen.wiki.lint import check_wiki

    report = check_wiki(open_wiki(Path(args.wiki)))
    _note_pending_vectors(Path(args.wiki))
    if args.json:
        _print_json(
            {
                "ok": report.ok,
                "pages": report.pages,
                "counts": report.counts(),
                "problems": [dataclasses.asdict(p) for p in report.problems],
                "notes": report.notes,
                "flags": [dataclasses.asdict(f) for f in report.flags],
            }
        )
    else:
        for line in report.lines():
            print(line)
    return 0 if report.ok else 1


def cmd_stats(args) -> int:
    _warn_if_stale(Path(args.wiki))
    from wikigen.search.dense.service import vectors_line
    from wikigen.search.sources import open_wiki, stats_report

    stats, cov = stats_report(open_wiki(Path(args.wiki)))
    if args.json:
        _print_json(stats)
        return 0
    for k, v in stats.items():
        if not k.startswith("vectors"):
            print(f"{k:16} {v}")
    vectors = vectors_line(stats)
    if vectors:
        print(f"{'vectors':16} {vectors}")
    if stats.get("quotes_stale"):
        print(
            f"note: {stats['quotes_stale']} quotes cite sources that changed since they were indexed (not counted "
            f"as verified); `wikigen check {args.wiki}` names them, a build refreshes them"
        )
    print(
        f"coverage         {len(cov.read)} documents read, {len(cov.cited)} cited, {len(cov.uncited)} cited by no page"
        + (": " + ", ".join(cov.uncited[:10]) + (" ..." if len(cov.uncited) > 10 else "") if cov.uncited else "")
    )
    return 0


def cmd_pages(args) -> int:
    _warn_if_stale(Path(args.wiki))
    from wikigen.search.sources import open_wiki
    from wikigen.wiki.lint import list_pages

    pages = list_pages(open_wiki(Path(args.wiki)))
    if args.json:
        _print_json(pages)
    else:
        for p in pages:
            print(f"{p['front_matter']['slug']:40} {p['front_matter'].get('owner', '')}")
    return 0


def cmd_ask(args) -> int:
    from wikigen.agents.backends import answer_generator
    from wikigen.ask.batch import ask_batch, ask_one

    _positive("--budget", args.budget)
    _warn_if_stale(Path(args.wiki))
    generator = answer_generator(args.backend, model=args.model)
    if args.questions:
        if not args.out:
            raise UsageError("--questions needs --out RESULTS.jsonl")
        with _Bars(args.quiet) as bars:
            n = ask_batch(
                Path(args.questions),
                Path(args.out),
                wiki=Path(args.wiki),
                mode=args.mode,
                budget=args.budget,
                generator=generator,
                progress=bars.of("answering"),
                log=None if args.no_log else "cli",
            )
        if args.json:
            _print_json({"answered": n, "out": args.out})
        else:
            print(f"answered {n} questions -> {args.out}")
        return 0
    if not args.question:
        raise WikigenError("give a QUESTION, or --questions FILE.jsonl --out RESULTS.jsonl")
    result = ask_one(
        args.question,
        wiki=Path(args.wiki),
        mode=args.mode,
        budget=args.budget,
        generator=generator,
        log=None if args.no_log else "cli",
    )
    if args.json:
        _print_json(result.to_dict())
    else:
        print(result.to_text())
    return 0


def cmd_asked(args) -> int:
    from wikigen.wiki.question_log import asked_report, set_logging

    if args.log is not None:
        set_logging(Path(args.wiki), args.log == "on")
    report = asked_report(Path(args.wiki), weak_only=args.weak)
    if args.json:
        _print_json(report.to_dict())
    else:
        print("\n".join(report.lines()))
    return 0


def cmd_dream(args) -> int:
    from wikigen.agents.dream_sessions import DreamConfig, apply_dream, dream

    if args.review and args.apply:
        raise UsageError("--review makes a change to review, --apply takes one: give one of them")
    if args.apply:
        review = apply_dream(Path(args.wiki))
        if args.json:
            _print_json({"applied": review.to_dict()})
        else:
            print(f"applied {review.subject} (commit {review.commit[:12]}) to {args.wiki}")
        return 0
    lines_to = sys.stderr if args.json else sys.stdout
    report = dream(
        DreamConfig(Path(args.wiki), sessions=args.sessions, review=args.review),
        on_session=lambda line: print(line.text(), file=lines_to, flush=True),
        on_warning=lambda text: print(f"warning: {text}", file=sys.stderr),
    )
    if args.json:
        _print_json(report.to_dict())
    elif report.note:
        print(report.note)
    if report.review and not args.json:
        r = report.review
        print(
            f"the change waits for review as commit {r['commit'][:12]} on branch wikigen-review "
            f"(`git -C {args.wiki} show wikigen-review`); `wikigen dream {args.wiki} --apply` takes it"
        )
    return 0 if report.ok else 1


def cmd_rollback(args) -> int:
    from wikigen.wiki.history import rollback_to_session

    commit = rollback_to_session(Path(args.wiki), args.session)
    print(f"restored {args.wiki} to the end of session {args.session} (commit {commit[:12]})")
    return 0


def cmd_eval(args) -> int:
    from wikigen.ask.evaluate import run_eval

    _positive("--budget", args.budget)
    _warn_if_stale(Path(args.wiki))
    with _Bars(args.quiet) as bars:
        report = run_eval(
            Path(args.questions),
            wiki=Path(args.wiki),
            modes=args.modes,
            budget=args.budget,
            out_dir=Path(args.out),
            limit=args.limit,
            progress=bars.of("evaluating"),
        )
    if args.json:
        _print_json({**report.to_dict(), "report_path": str(report.report_path), "chart_path": str(report.chart_path)})
    else:
        print(report.table())
    return 0


def cmd_serve(args) -> int:
    from wikigen.web.server import serve

    def ready(url: str) -> None:  # the port is bound by now: a busy one was refused before anything was read
        print(f"serving {args.wiki} at {url} (Ctrl+C stops)", flush=True)
        _note_pending_vectors(Path(args.wiki))

    serve(Path(args.wiki), port=args.port, ready=ready, log=not args.no_log)
    return 0


def cmd_site(args) -> int:
    from wikigen.web.site import write_site

    print(write_site(Path(args.wiki), Path(args.out)).to_text())
    return 0


def cmd_export(args) -> int:
    from wikigen.export import export_claude_code
    from wikigen.search.sources import open_wiki

    report = export_claude_code(open_wiki(Path(args.wiki)), Path(args.dir))
    if args.json:
        _print_json(report.to_dict())
    else:
        print(report.to_text())
    return 0


def cmd_table(args) -> int:
    from wikigen.search.sources import open_wiki
    from wikigen.wiki.provisions import records, to_csv

    table = open_wiki(Path(args.wiki)).table()  # stale documents marked: their records carry `stale`
    if not table.documents:
        raise UsageError(
            f"{args.wiki} has no provisions table yet: build the wiki first (wikigen build CORPUS --wiki {args.wiki})"
        )
    kind = args.kind or next((k for k in sorted(table.kinds) if table.rows(k)), None)
    if args.csv:
        sys.stdout.write(to_csv(table, kind or ""))
        return 0
    recs = records(table, kind)
    if args.json:
        _print_json(recs)
        return 0
    fields = [f for f in table.fields(kind or "") if f.get("type") != "figures"]
    for rec in recs:
        print(f"{rec['doc_id']}  {rec['title']}")
        if rec.get("stale"):
            print(f"  ! stale: {rec['stale']}; these values may no longer be what it says")
        for f in fields:
            e = rec.get(f["name"]) or {}
            shown = e.get("value") if e.get("status") == "stated" else e.get("status")
            where = f"  (chars {e['quote']['start']}-{e['quote']['end']})" if e.get("quote") else ""
            print(f"  {f['label']:<28} {shown}{where}")
    return 0


def cmd_mcp(args) -> int:
    from wikigen.mcp_server import serve

    _note_pending_vectors(Path(args.wiki))  # on stderr: stdout is the protocol's
    serve(Path(args.wiki), log=not args.no_log)  # opens the wiki first: a bad folder is an error here
    return 0


# --- parser ------------------------------------------------------------------------------------


NO_LOG_HELP = (
    "do not record the questions in the wiki's question log (WIKI/.wikigen/questions.jsonl, read by "
    "`wikigen asked` and `wikigen dream`); `wikigen asked WIKI --log off` turns it off for good"
)
MODES_HELP = (
    "wiki+search: the wiki's pages and quotes first, then corpus passages (the default); "
    "search: corpus passages only, the baseline; wiki: wiki pages only"
)


def _engine_options(s: argparse.ArgumentParser) -> None:
    from wikigen.core.engine import ENGINES, RAY_INSTALL

    s.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="where extraction, embedding, fact detection, topic discovery's and the values' per-document passes "
        f"run: local worker processes (default) or a Ray cluster ({RAY_INSTALL}); the output is the same",
    )
    s.add_argument(
        "--ray-address",
        default=None,
        help="the Ray cluster to run on with --engine ray (e.g. auto, ray://head:10001; default: a Ray "
        "instance started on this machine)",
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="wikigen", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--version", action="version", version=f"wikigen {_version()}", help="print the installed version and exit"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log progress details to stderr")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser(
        "index",
        help="index a corpus folder (incremental)",
        description="Index a folder of documents (.txt .md .html .pdf .docx) for full-text search. "
        "Re-running re-reads only changed files.",
    )
    s.add_argument("corpus", nargs="?", help="the corpus folder (leave it out with --dense)")
    s.add_argument("--index", default=str(DEFAULT_INDEX), help=f"index folder (default {DEFAULT_INDEX})")
    s.add_argument(
        "--dense",
        action="store_true",
        help="without CORPUS: only compute the passage vectors the index still lacks (an interrupted build's)",
    )
    s.add_argument("--force", action="store_true", help="replace an index folder made from another corpus")
    s.add_argument("--json", action="store_true", help="print the summary as JSON (see docs/reference.md)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--no-dense", action="store_true", help="skip the passage vectors (dense search) after indexing")
    _engine_options(s)
    s.set_defaults(func=cmd_index)

    s = sub.add_parser(
        "search",
        help="BM25 search over the indexed passages",
        description="Search the corpus passages (BM25) of a wiki (--wiki: the index its build keeps) or of an "
        "index folder made by `wikigen index`. Each hit is a document, a character span and a snippet.",
    )
    s.add_argument("query", help="words to search for (any language; no query syntax needed)")
    where = s.add_mutually_exclusive_group()
    where.add_argument("--wiki", help="search the index this wiki's build keeps (WIKI/.wikigen/index)")
    where.add_argument("--index", default=None, help=f"an index folder (default {DEFAULT_INDEX})")
    s.add_argument("-k", type=int, default=10, help="how many hits (default 10)")
    s.add_argument("--json", action="store_true", help="print the hits as JSON")
    s.set_defaults(func=cmd_search)

    s = sub.add_parser(
        "build",
        help="build or extend the wiki of a corpus",
        description="Build the wiki of a corpus, or extend it: sessions continue from the "
        "progress log. The offline backend needs no key; --backend claude --dry-run shows "
        "what a Claude run would send and cost, without sending anything.",
    )
    s.add_argument("corpus", help="the corpus folder")
    s.add_argument("--wiki", required=True, help="the wiki folder (created if missing; outside the corpus)")
    s.add_argument("--agents", type=int, default=2, help="agents working at the same time (default 2)")
    s.add_argument("--sessions", type=int, default=2, help="sessions to run now (default 2)")
    s.add_argument(
        "--backend",
        choices=BACKENDS,
        default=DEFAULT_BACKEND,
        help="offline: deterministic, no key, no network (default); claude: the Anthropic API "
        "(ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL for a compatible local server)",
    )
    s.add_argument("--model", default=None, help="Claude model (default WIKIGEN_MODEL, else the built-in default)")
    s.add_argument("--max-ratio", type=float, default=1.0, help="largest wiki/corpus size ratio (default 1.0)")
    s.add_argument("--index", default=None, help="index folder (default WIKI/.wikigen/index)")
    s.add_argument(
        "--session-budget",
        type=int,
        default=200_000,
        help="tokens one agent may use in one session, cache reads included (default 200000)",
    )
    s.add_argument(
        "--session-turns", type=int, default=40, help="model turns one agent may take in one session (default 40)"
    )
    s.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help="stop the build cleanly once the run has used this many tokens in all (pages kept)",
    )
    s.add_argument(
        "--max-cost",
        type=float,
        default=None,
        help="stop the build cleanly once the run's estimated cost reaches this many USD (pages kept)",
    )
    s.add_argument(
        "--dry-run",
        action="store_true",
        help="print the documents, estimated tokens per session, cache share and cost; send and write nothing",
    )
    s.add_argument("--json", action="store_true", help="print the build report (or the dry-run estimate) as JSON")
    s.add_argument(
        "--rate-itpm",
        type=int,
        default=None,
        help="your API key's input tokens a minute: Claude agents pace themselves to stay under it",
    )
    s.add_argument(
        "--rate-rpm",
        type=int,
        default=None,
        help="your API key's requests a minute: Claude agents pace themselves to stay under it",
    )
    s.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes for topic discovery on large corpora (default: one per core)",
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--force", action="store_true", help="build into a wiki (or index) made from another corpus")
    s.add_argument("--no-dense", action="store_true", help="skip the passage vectors (dense search) after indexing")
    _engine_options(s)
    s.set_defaults(func=cmd_build)

    s = sub.add_parser(
        "check",
        help="lint a wiki; exit 1 on problems",
        description="Check a wiki: pages that do not parse, quotes that do not match their source, broken links, "
        "orphans, stale sources, secrets, owners. Exits 1 when there is a problem; flags (text addressed to a "
        "model) are listed without failing.",
    )
    s.add_argument("wiki", help="the wiki folder")
    s.add_argument("--json", action="store_true", help="print the problems as JSON")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser(
        "stats",
        help="wiki size, links and quotes against the corpus",
        description="Figures of a wiki: pages, links, quotes verified, its size against the corpus (characters "
        "and tokens) and which documents no page cites.",
    )
    s.add_argument("wiki", help="the wiki folder")
    s.add_argument("--json", action="store_true", help="print the figures as JSON")
    s.set_defaults(func=cmd_stats)

    s = sub.add_parser(
        "pages",
        help="every page: front matter, links, quotes",
        description="List every page of a wiki with its owner; --json gives each page's front matter, links and "
        "quotes.",
    )
    s.add_argument("wiki", help="the wiki folder")
    s.add_argument("--json", action="store_true", help="print every page's front matter, links and quotes as JSON")
    s.set_defaults(func=cmd_pages)

    s = sub.add_parser(
        "ask",
        help="answer a question from the wiki plus search",
        description="Answer a question from a wiki's pages and its corpus: the answer quotes its sources (each "
        "with its document and character span), then the context it was drawn from. --questions answers a "
        "file of questions in one process.",
    )
    s.add_argument("question", nargs="?", help="the question (or use --questions)")
    s.add_argument("--wiki", required=True, help="the wiki folder")
    s.add_argument("--mode", choices=MODES, default="wiki+search", help=MODES_HELP)
    s.add_argument("--budget", type=int, default=4000, help="context tokens (default 4000)")
    s.add_argument("--json", action="store_true", help="print the answer and its context as JSON")
    s.add_argument("--questions", help="a questions.jsonl to answer in one process")
    s.add_argument("--out", help="results .jsonl for --questions")
    s.add_argument(
        "--backend",
        choices=BACKENDS,
        default=DEFAULT_BACKEND,
        help="offline: an extractive answer from the context (default); claude: a generated answer",
    )
    s.add_argument("--model", default=None, help="Claude model for --backend claude")
    s.add_argument("--quiet", action="store_true", help="no progress bar for --questions")
    s.add_argument("--no-log", action="store_true", help=NO_LOG_HELP)
    s.set_defaults(func=cmd_ask)

    s = sub.add_parser(
        "asked",
        help="what people asked the wiki and how well it served them (the question log)",
        description="List the questions asked of the wiki (wikigen ask, the web view, MCP) with how much of each "
        "answer the wiki supplied against search; weak: the answer came mostly from search, or there was none.",
    )
    s.add_argument("wiki", help="the wiki folder")
    s.add_argument("--weak", action="store_true", help="only the questions the wiki served weakly")
    s.add_argument("--json", action="store_true", help="print the log's summary and questions as JSON")
    s.add_argument(
        "--log",
        choices=["on", "off"],
        default=None,
        help="turn the question log on or off for every surface (kept in WIKI/.wikigen/config.json)",
    )
    s.set_defaults(func=cmd_asked)

    s = sub.add_parser(
        "dream",
        help="learn from the questions the wiki served weakly: find their answers, write and merge pages",
        description="Dreaming sessions: take the logged questions the wiki served weakly, find their answers in "
        "the corpus, and write (or extend, merge) the dreamer's pages so the wiki alone serves such a question "
        "next time. Applied at once by default; --review keeps the change on a branch for --apply.",
    )
    s.add_argument("wiki", help="the wiki folder")
    s.add_argument("--sessions", type=int, default=1, help="dreaming sessions to run (default 1)")
    s.add_argument(
        "--review",
        action="store_true",
        help="write the change as a commit on the branch wikigen-review of the wiki's repository; the wiki "
        "itself stays as it is until --apply",
    )
    s.add_argument("--apply", action="store_true", help="take the change waiting for review")
    s.add_argument("--json", action="store_true", help="print the report as JSON (session lines go to stderr)")
    s.set_defaults(func=cmd_dream)

    s = sub.add_parser(
        "rollback",
        help="restore the wiki to the end of session N (a new commit; history kept)",
        description="Restore a wiki's pages to what they were at the end of session N, as a new commit (the "
        "history is kept, so a rollback can itself be undone).",
    )
    s.add_argument("wiki", help="the wiki folder")
    s.add_argument("--session", type=int, required=True, help="the session to go back to")
    s.set_defaults(func=cmd_rollback)

    s = sub.add_parser(
        "eval",
        help="score every mode on a questions.jsonl",
        description="Score each answer mode on a questions.jsonl with gold evidence spans: how much of the gold "
        "text the context and the answer recall within the token budget; writes a JSON report and a chart.",
    )
    s.add_argument("questions", help="a questions.jsonl with gold evidence spans")
    s.add_argument("--wiki", required=True, help="the wiki folder")
    s.add_argument(
        "--modes", nargs="+", choices=MODES, default=list(MODES), help="modes to score (default all); " + MODES_HELP
    )
    s.add_argument("--budget", type=int, default=4000, help="context tokens per question (default 4000)")
    s.add_argument("--out", default="eval-out", help="folder for the JSON report and the SVG chart")
    s.add_argument("--limit", type=int, default=None, help="only the first N questions")
    s.add_argument("--json", action="store_true", help="print the summary and every scored row as JSON")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_eval)

    s = sub.add_parser(
        "serve",
        help="read the wiki in a browser: pages, quotes in their sources, search, ask, graph, growth (on 127.0.0.1)",
        description="Serve a wiki's web view on 127.0.0.1: the documents table, pages with each quote linked to "
        "its span in the source, search over pages and corpus, ask, the link graph and the growth view. "
        "Read-only; Ctrl+C stops it.",
    )
    s.add_argument("wiki", help="a wiki folder made by 'wikigen build'")
    s.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0 picks a free one)")
    s.add_argument("--no-log", action="store_true", help=NO_LOG_HELP)
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser(
        "site",
        help="write the same web view as a static site (opens from disk; page search only)",
        description="Write a wiki's web view as a static site into a folder outside the wiki: it opens from "
        "disk (file://) or any web server. Page search runs in the browser; corpus search and ask need "
        "`wikigen serve`.",
    )
    s.add_argument("wiki", help="a wiki folder made by 'wikigen build'")
    s.add_argument("--out", required=True, help="folder for the site (new, empty, or a site written before)")
    s.set_defaults(func=cmd_site)

    s = sub.add_parser(
        "export",
        help="export a wiki for another tool (claude-code: a Claude Code memory folder)",
        description="Export a wiki for another tool. claude-code: a memory folder whose MEMORY.md (200 lines, "
        "25,000 bytes) lists the documents (title, parties, date, key facts) and the topics (what each holds) "
        "and links one file per page.",
    )
    s.add_argument(
        "format",
        choices=["claude-code"],
        help="claude-code: MEMORY.md (200 lines, 25,000 bytes) linking one topic file per page",
    )
    s.add_argument("wiki", help="the wiki folder to export")
    s.add_argument("dir", help="the folder to write (outside the wiki and the corpus)")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser(
        "table",
        help="the provisions table: each document's values, each with the span of its quote",
        description="Print a wiki's provisions table for one kind of document: a row per document, a column per "
        "field, each value with the span of the quote that states it (--csv, --json).",
    )
    s.add_argument("wiki", help="the wiki folder")
    s.add_argument("--kind", help="the kind of document (contract, policy, periodic-report, ...; default: the first)")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="one row a document, one column a field")
    fmt.add_argument("--json", action="store_true", help="one record a document, each value with its quote")
    s.set_defaults(func=cmd_table)

    s = sub.add_parser(
        "mcp",
        help="serve a wiki to an agent over MCP (stdio, read-only)",
        description="Serve a wiki to an agent over the Model Context Protocol on stdin/stdout: search, ask, "
        "read_page, list_pages, list_documents, stats, read_source; each reply within a token budget, paged "
        "with a cursor.",
    )
    s.add_argument("wiki", help="the wiki folder to serve")
    s.add_argument("--no-log", action="store_true", help=NO_LOG_HELP)
    s.set_defaults(func=cmd_mcp)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return args.func(args)
    except WikigenError as e:
        print(f"Error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:  # Ctrl-C: every step keeps what it finished (see docs/guide.md)
        print(INTERRUPTED, file=sys.stderr)
        return 130
    except BrokenPipeError:  # `wikigen ... | head`: the reader left; stop quietly, as other tools do
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
