"""The `wikigen` command, on click: each subcommand is one function that parses its arguments, calls one
library function, and turns the project's own errors into one line on stderr. Results go to stdout,
progress to stderr. Options that several commands take are declared once, as decorators (`json_option`,
`wiki_argument`, `engine_options`, ...); `wikigen --help` lists the commands by what they serve, and
docs/reference.md is written from this help by `python -m wikigen.cli_reference`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from wikigen.agents.backends import BACKENDS, DEFAULT_BACKEND
from wikigen.ask.modes import MODES
from wikigen.core.engine import ENGINES, RAY_INSTALL
from wikigen.core.errors import UsageError, WikigenError

if TYPE_CHECKING:  # tqdm is imported when a bar is drawn
    from tqdm import tqdm

DEFAULT_INDEX = Path(".wikigen-index")

DESCRIPTION = """Compile a document corpus into a wiki of linked markdown pages whose quotes are checked
against the sources, then answer questions from the wiki plus full-text search.

First steps:

\b
  wikigen build corpora/acme --wiki my-wiki      build a wiki offline (no key, no network)
  wikigen ask "Which contracts renew automatically?" --wiki my-wiki
"""

# `wikigen --help` lists the commands under these headings, in this order
SECTIONS = {
    "Build the wiki": ["index", "build", "dream", "rollback"],
    "Read it": ["pages", "stats", "check", "table", "serve", "site"],
    "Ask it": ["ask", "search", "asked", "eval"],
    "Plug it into other tools": ["mcp", "export"],
}
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 110}
COMPLETE_VAR = "_WIKIGEN_COMPLETE"  # eval "$(_WIKIGEN_COMPLETE=bash_source wikigen)": shell completion


def _print_json(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=None))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wikigen-memory")
    except PackageNotFoundError:  # run from a source tree that was never installed
        from wikigen import __version__

        return __version__


# what each stage counts; topic discovery reads every document twice (agents/topics.py), so it counts readings
UNITS = {"indexing": "file", "embedding": "passage", "page writing": "agent-session", "topic discovery": "reading"}
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


# --- click: exclusive options, options of many values, sections ---------------------


class Many(click.Option):
    """An option followed by one or more of its choices (`--modes wiki search`), as before; click options
    take a fixed number of values, so each value after the first is given its own `--modes` before parsing."""

    def spread(self, args: list[str]) -> list[str]:
        choices = set(getattr(self.type, "choices", ()))
        out: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            out.append(a)
            i += 1
            if a == "--":
                return out + args[i:]
            if a in self.opts and i < len(args):  # the first value, as click reads it
                out.append(args[i])
                i += 1
            elif not a.startswith(tuple(f"{o}=" for o in self.opts)):
                continue
            while i < len(args) and args[i] in choices:  # the values after it, each as `--modes VALUE`
                out += [self.opts[0], args[i]]
                i += 1
        return out


class Command(click.Command):
    """A subcommand with options of many values (Many), long options known by their start, and `exclusive`:
    pairs of options that cannot be given together (a usage error, as before)."""

    def __init__(self, *args: Any, exclusive: tuple[tuple[str, str], ...] = (), **kwargs: Any):
        kwargs.setdefault("context_settings", CONTEXT)  # -h too, however the command is reached
        super().__init__(*args, **kwargs)
        self.exclusive = exclusive

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        args = self._whole_names(ctx, args)
        for p in self.params:
            if isinstance(p, Many):
                args = p.spread(args)
        return super().parse_args(ctx, args)

    def _whole_names(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Long options as the parser before click read them: the start of one (`--agent` for `--agents`) is
        that option; the start of several is a usage error that names them."""
        names = [o for p in self.get_params(ctx) for o in [*p.opts, *p.secondary_opts] if o.startswith("--")]
        out: list[str] = []
        for i, a in enumerate(args):
            if a == "--":
                return out + args[i:]
            head, eq, value = a.partition("=")
            if head.startswith("--") and head not in names:
                hits = [n for n in names if n.startswith(head)]
                if len(hits) > 1:
                    raise click.UsageError(f"ambiguous option: {head} could match {', '.join(hits)}", ctx)
                a = hits[0] + eq + value if hits else a
            out.append(a)
        return out

    def invoke(self, ctx: click.Context) -> Any:
        by_name = {p.name: p for p in self.params}
        for pair in self.exclusive:
            given = [by_name[n] for n in pair if ctx.get_parameter_source(n) is ParameterSource.COMMANDLINE]
            if len(given) > 1:
                first, second = (p.opts[0] for p in given)
                raise click.UsageError(f"argument {second}: not allowed with argument {first}", ctx)
        return super().invoke(ctx)


class Group(click.Group):
    """The `wikigen` group: its commands listed by what they serve (SECTIONS), in that order."""

    command_class = Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        listed = [name for names in SECTIONS.values() for name in names]
        return listed + sorted(set(self.commands) - set(listed))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        width = formatter.width - 6 - max(len(name) for name in self.commands)
        for title, names in SECTIONS.items():
            with formatter.section(title):
                formatter.write_dl([(n, self.commands[n].get_short_help_str(width)) for n in names])


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"wikigen {_version()}")
        ctx.exit()


@click.group(cls=Group, help=DESCRIPTION, context_settings=CONTEXT)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_show_version,
    help="print the installed version and exit",
)
@click.option("-v", "--verbose", is_flag=True, help="log progress details to stderr")
def cli(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )


# --- options shared by several commands ------------------------------------------------------------

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def wiki_argument(help: str = "the wiki folder") -> Decorator:
    return click.argument("wiki", type=click.Path(), help=help)


def wiki_option(help: str = "the wiki folder") -> Decorator:
    return click.option("--wiki", type=click.Path(), metavar="DIR", required=True, help=help)


def json_option(help: str) -> Decorator:
    return click.option("--json", "as_json", is_flag=True, help=help)


def backend_option(help: str) -> Decorator:
    return click.option("--backend", type=click.Choice(BACKENDS), default=DEFAULT_BACKEND, help=help)


def model_option(help: str) -> Decorator:
    return click.option("--model", metavar="M", default=None, help=help)


def budget_option(help: str) -> Decorator:
    return click.option("--budget", type=int, metavar="TOKENS", default=4000, help=help)


def force_option(help: str) -> Decorator:
    return click.option("--force", is_flag=True, help=help)


def quiet_option(help: str = "no progress bar") -> Decorator:
    return click.option("--quiet", is_flag=True, help=help)


NO_LOG_HELP = (
    "do not record the questions in the wiki's question log (WIKI/.wikigen/questions.jsonl, read by "
    "`wikigen asked` and `wikigen dream`); `wikigen asked WIKI --log off` turns it off for good"
)
MODES_HELP = (
    "wiki+search: the wiki's pages and quotes first, then corpus passages (the default); "
    "search: corpus passages only, the baseline; wiki: wiki pages only"
)

no_log_option = click.option("--no-log", is_flag=True, help=NO_LOG_HELP)
no_dense_option = click.option(
    "--no-dense",
    is_flag=True,
    help="skip the passage vectors (dense search) after indexing (by default they are updated when the model is "
    "installed)",
)


def engine_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--engine and --ray-address: where the per-document passes of `index` and `build` run."""
    fn = click.option(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="the Ray cluster to run on with --engine ray (e.g. auto, ray://head:10001; default: a Ray "
        "instance started on this machine)",
    )(fn)
    return click.option(
        "--engine",
        type=click.Choice(ENGINES),
        default="local",
        help="where extraction, embedding, fact detection, topic discovery's and the values' per-document passes "
        f"run: local worker processes (default) or a Ray cluster ({RAY_INSTALL}); the output is the same",
    )(fn)


def _positive(name: str, value: int | None) -> None:
    if value is not None and value < 1:
        raise UsageError(f"{name} must be 1 or more (got {value})")


# --- build the wiki ------------------------------------------------------------------------------------


@cli.command(
    "index",
    short_help="index a corpus folder (incremental)",
    help="Index a folder of documents (.txt .md .html .pdf .docx) for full-text search. Re-running re-reads only "
    "changed files.",
)
@click.argument("corpus", type=click.Path(), required=False, help="the corpus folder (leave it out with --dense)")
@click.option(
    "--index",
    type=click.Path(),
    metavar="DIR",
    default=str(DEFAULT_INDEX),
    help=f"index folder (default {DEFAULT_INDEX})",
)
@click.option(
    "--dense",
    is_flag=True,
    help="without CORPUS: only compute the passage vectors the index still lacks (an interrupted build's)",
)
@force_option("replace an index folder made from another corpus")
@json_option("print the summary as JSON (see docs/reference.md)")
@quiet_option()
@no_dense_option
@engine_options
def index_command(corpus, index, dense, force, as_json, quiet, no_dense, engine, ray_address) -> int:
    from wikigen.core.engine import open_engine
    from wikigen.search.cluster import check_cluster
    from wikigen.search.index import CorpusIndex

    if dense and no_dense:
        raise UsageError("--dense and --no-dense contradict each other")
    if corpus is None:
        if not dense:
            raise UsageError("give the CORPUS folder to index, or --dense to compute the vectors an index lacks")
        return _finish_vectors(Path(index), as_json, quiet, engine, ray_address)
    with open_engine(engine, address=ray_address) as workers, _Bars(quiet) as bars:
        check_cluster(workers, Path(corpus), dense=not no_dense and _model_here())
        built, summary = CorpusIndex.build(
            Path(corpus), Path(index), progress=bars.of("indexing"), force=force, workers=workers
        )
        vectors = None if no_dense else _embed(built, bars, workers)
    if as_json:
        d = dataclasses.asdict(summary)
        d["skipped"] = [{"path": p, "reason": r} for p, r in summary.skipped]
        d["decoded"] = [{"path": p, "encoding": e} for p, e in summary.decoded]
        d["overlong"] = [{"path": p, "tokens": n, "characters": c} for p, n, c in summary.overlong]
        d["dense"] = dataclasses.asdict(vectors.summary) if vectors is not None and vectors.ok else None
        _print_json(d)
    else:
        print(summary.to_text() + (f"\n{vectors.note}" if vectors is not None and vectors.ok else ""))
    return 0


def _finish_vectors(index: Path, as_json: bool, quiet: bool, engine: str, ray_address: str | None) -> int:
    """`wikigen index --dense`: the passage vectors an existing index still lacks, nothing else."""
    from wikigen.core.engine import open_engine
    from wikigen.search.cluster import check_cluster
    from wikigen.search.dense.service import check_model
    from wikigen.search.index import CorpusIndex

    check_model()  # a missing model is refused before the index is opened
    opened = CorpusIndex.open(index)
    with open_engine(engine, address=ray_address) as workers, _Bars(quiet) as bars:
        check_cluster(workers, None, dense=True)
        dense = _embed(opened, bars, workers)
    if as_json:
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


@cli.command(
    "build",
    short_help="build or extend the wiki of a corpus",
    help="Build the wiki of a corpus, or extend it: sessions continue from the progress log. The offline backend "
    "needs no key; --backend claude --dry-run shows what a Claude run would send and cost, without sending "
    "anything.",
)
@click.argument("corpus", type=click.Path(), help="the corpus folder")
@wiki_option("the wiki folder (created if missing; outside the corpus)")
@click.option("--agents", type=int, metavar="N", default=2, help="agents working at the same time (default 2)")
@click.option("--sessions", type=int, metavar="N", default=2, help="sessions to run now (default 2)")
@backend_option(
    "offline: deterministic, no key, no network (default); claude: the Anthropic API "
    "(ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL for a compatible local server)"
)
@model_option("Claude model (default WIKIGEN_MODEL, else the built-in default)")
@click.option("--max-ratio", type=float, metavar="R", default=1.0, help="largest wiki/corpus size ratio (default 1.0)")
@click.option(
    "--index", type=click.Path(), metavar="DIR", default=None, help="index folder (default WIKI/.wikigen/index)"
)
@click.option(
    "--session-budget",
    type=int,
    metavar="TOKENS",
    default=200_000,
    help="tokens one agent may use in one session, cache reads included (default 200000)",
)
@click.option(
    "--session-turns",
    type=int,
    metavar="N",
    default=40,
    help="model turns one agent may take in one session (default 40)",
)
@click.option(
    "--max-tokens",
    type=int,
    metavar="TOKENS",
    default=None,
    help="stop the build cleanly once the run has used this many tokens in all (pages kept)",
)
@click.option(
    "--max-cost",
    type=float,
    metavar="USD",
    default=None,
    help="stop the build cleanly once the run's estimated cost reaches this many USD (pages kept)",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="print the documents, estimated tokens per session, cache share and cost; send and write nothing",
)
@json_option("print the build report (or the dry-run estimate) as JSON")
@click.option(
    "--rate-itpm",
    type=int,
    metavar="N",
    default=None,
    help="your API key's input tokens a minute: Claude agents pace themselves to stay under it",
)
@click.option(
    "--rate-rpm",
    type=int,
    metavar="N",
    default=None,
    help="your API key's requests a minute: Claude agents pace themselves to stay under it",
)
@click.option(
    "--workers",
    type=int,
    metavar="N",
    default=None,
    help="worker processes for topic discovery on large corpora (default: one per core)",
)
@quiet_option()
@force_option("build into a wiki (or index) made from another corpus")
@no_dense_option
@engine_options
def build_command(corpus, wiki, index, no_dense, dry_run, as_json, **options) -> int:
    from wikigen.agents.orchestrate import BuildConfig, build

    config = BuildConfig(
        corpus=Path(corpus),
        wiki=Path(wiki),
        dense=not no_dense,
        index_dir=Path(index) if index else None,
        **options,  # agents, sessions, backend, model, limits, rates, workers, engine, ray_address, quiet, force
    )
    if dry_run:
        return _dry_run(config, as_json)
    lines_to = sys.stderr if as_json else sys.stdout  # with --json, session lines go to stderr
    agent_sessions = max(0, config.sessions) * max(0, config.agents)
    with _Bars(config.quiet) as bars:
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
    if as_json:
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
    if not as_json and not config.quiet and report.sessions:
        last = report.sessions[-1]
        print(
            f"built {config.wiki}: {last.pages} pages, {last.quotes} quotes, ratio {last.ratio:.2f} of the corpus.\n"
            f'next: `wikigen serve {config.wiki}` to read it, `wikigen ask "..." --wiki {config.wiki}` to ask it, '
            f"`wikigen check {config.wiki}` to check it",
            file=sys.stderr,
        )
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


@cli.command(
    "dream",
    short_help="learn from the questions the wiki served weakly: find their answers, write and merge pages",
    help="Dreaming sessions: take the logged questions the wiki served weakly, find their answers in the corpus, "
    "and write (or extend, merge) the dreamer's pages so the wiki alone serves such a question next time. "
    "Applied at once by default; --review keeps the change on a branch for --apply.",
)
@wiki_argument()
@click.option("--sessions", type=int, metavar="N", default=1, help="dreaming sessions to run (default 1)")
@click.option(
    "--review",
    is_flag=True,
    help="write the change as a commit on the branch wikigen-review of the wiki's repository; the wiki itself "
    "stays as it is until --apply",
)
@click.option("--apply", is_flag=True, help="take the change waiting for review")
@json_option("print the report as JSON (session lines go to stderr)")
def dream_command(wiki, sessions, review, apply, as_json) -> int:
    from wikigen.agents.dream_sessions import DreamConfig, apply_dream, dream

    if review and apply:
        raise UsageError("--review makes a change to review, --apply takes one: give one of them")
    if apply:
        applied = apply_dream(Path(wiki))
        if as_json:
            _print_json({"applied": applied.to_dict()})
        else:
            print(f"applied {applied.subject} (commit {applied.commit[:12]}) to {wiki}")
        return 0
    lines_to = sys.stderr if as_json else sys.stdout
    report = dream(
        DreamConfig(Path(wiki), sessions=sessions, review=review),
        on_session=lambda line: print(line.text(), file=lines_to, flush=True),
        on_warning=lambda text: print(f"warning: {text}", file=sys.stderr),
    )
    if as_json:
        _print_json(report.to_dict())
    elif report.note:
        print(report.note)
    if report.review and not as_json:
        r = report.review
        print(
            f"the change waits for review as commit {r['commit'][:12]} on branch wikigen-review "
            f"(`git -C {wiki} show wikigen-review`); `wikigen dream {wiki} --apply` takes it"
        )
    return 0 if report.ok else 1


@cli.command(
    "rollback",
    short_help="restore the wiki to the end of session N (a new commit; history kept)",
    help="Restore a wiki's pages to what they were at the end of session N, as a new commit (the history is kept, "
    "so a rollback can itself be undone).",
)
@wiki_argument()
@click.option("--session", type=int, metavar="N", required=True, help="the session to go back to")
def rollback_command(wiki, session) -> int:
    from wikigen.wiki.history import rollback_to_session

    commit = rollback_to_session(Path(wiki), session)
    print(f"restored {wiki} to the end of session {session} (commit {commit[:12]})")
    return 0


# --- read it -------------------------------------------------------------------------------------------


@cli.command(
    "pages",
    short_help="every page: front matter, links, quotes",
    help="List every page of a wiki with its owner; --json gives each page's front matter, links and quotes.",
)
@wiki_argument()
@json_option("print every page's front matter, links and quotes as JSON")
def pages_command(wiki, as_json) -> int:
    _warn_if_stale(Path(wiki))
    from wikigen.search.sources import open_wiki
    from wikigen.wiki.lint import list_pages

    pages = list_pages(open_wiki(Path(wiki)))
    if as_json:
        _print_json(pages)
    else:
        for p in pages:
            print(f"{p['front_matter']['slug']:40} {p['front_matter'].get('owner', '')}")
    return 0


@cli.command(
    "stats",
    short_help="wiki size, links and quotes against the corpus",
    help="Figures of a wiki: pages, links, quotes verified, its size against the corpus (characters and tokens) "
    "and which documents no page cites.",
)
@wiki_argument()
@json_option("print the figures as JSON")
def stats_command(wiki, as_json) -> int:
    _warn_if_stale(Path(wiki))
    from wikigen.search.dense.service import vectors_line
    from wikigen.search.sources import open_wiki, stats_report

    stats, cov = stats_report(open_wiki(Path(wiki)))
    if as_json:
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
            f"as verified); `wikigen check {wiki}` names them, a build refreshes them"
        )
    print(
        f"coverage         {len(cov.read)} documents read, {len(cov.cited)} cited, {len(cov.uncited)} cited by no page"
        + (": " + ", ".join(cov.uncited[:10]) + (" ..." if len(cov.uncited) > 10 else "") if cov.uncited else "")
    )
    return 0


@cli.command(
    "check",
    short_help="lint a wiki; exit 1 on problems",
    help="Check a wiki: pages that do not parse, quotes that do not match their source, broken links, orphans, "
    "stale sources, secrets, owners. Exits 1 when there is a problem; flags (text addressed to a model) are "
    "listed without failing.",
)
@wiki_argument()
@json_option("print the problems as JSON")
def check_command(wiki, as_json) -> int:
    from wikigen.search.sources import open_wiki
    from wikigen.wiki.lint import check_wiki

    report = check_wiki(open_wiki(Path(wiki)))
    _note_pending_vectors(Path(wiki))
    if as_json:
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


@cli.command(
    "table",
    short_help="the provisions table: each document's values, each with the span of its quote",
    help="Print a wiki's provisions table for one kind of document: a row per document, a column per field, each "
    "value with the span of the quote that states it (--csv, --json).",
    exclusive=(("csv", "as_json"),),
)
@wiki_argument()
@click.option(
    "--kind", metavar="K", help="the kind of document (contract, policy, periodic-report, ...; default: the first)"
)
@click.option("--csv", is_flag=True, help="one row a document, one column a field (not with --json)")
@json_option("one record a document, each value with its quote (not with --csv)")
def table_command(wiki, kind, csv, as_json) -> int:
    from wikigen.search.sources import open_wiki
    from wikigen.wiki.provisions import CHECK, POSSIBLE, STATED, records, to_csv

    table = open_wiki(Path(wiki)).table()  # stale documents marked: their records carry `stale`
    if not table.documents:
        raise UsageError(
            f"{wiki} has no provisions table yet: build the wiki first (wikigen build CORPUS --wiki {wiki})"
        )
    kind = kind or next((k for k in sorted(table.kinds) if table.rows(k)), None)
    if csv:
        sys.stdout.write(to_csv(table, kind or ""))
        return 0
    recs = records(table, kind)
    if as_json:
        _print_json(recs)
        return 0
    fields = [f for f in table.fields(kind or "") if f.get("type") != "figures"]
    for rec in recs:
        print(f"{rec['doc_id']}  {rec['title']}")
        if rec.get("stale"):
            print(f"  ! stale: {rec['stale']}; these values may no longer be what it says")
        for f in fields:
            e = rec.get(f["name"]) or {}
            shown = e.get("value") if e.get("status") == STATED else e.get("status")
            if e.get("status") == POSSIBLE:
                shown = f"{shown} ({CHECK})"  # a clause that may state it, no value claimed
            where = f"  (chars {e['quote']['start']}-{e['quote']['end']})" if e.get("quote") else ""
            print(f"  {f['label']:<28} {shown}{where}")
    return 0


@cli.command(
    "serve",
    short_help="read the wiki in a browser: pages, quotes in their sources, search, ask, graph, growth (on 127.0.0.1)",
    help="Serve a wiki's web view on 127.0.0.1: the documents table, pages with each quote linked to its span in "
    "the source, search over pages and corpus, ask, the link graph and the growth view. Read-only; Ctrl+C stops "
    "it.",
)
@wiki_argument("a wiki folder made by 'wikigen build'")
@click.option(
    "--port", type=int, metavar="N", default=8000, help="port on 127.0.0.1 (default 8000; 0 picks a free one)"
)
@no_log_option
def serve_command(wiki, port, no_log) -> int:
    from wikigen.web.server import serve

    def ready(url: str) -> None:  # the port is bound by now: a busy one was refused before anything was read
        print(f"serving {wiki} at {url} (Ctrl+C stops)", flush=True)
        _note_pending_vectors(Path(wiki))

    serve(Path(wiki), port=port, ready=ready, log=not no_log)
    return 0


@cli.command(
    "site",
    short_help="write the same web view as a static site (opens from disk; page search only)",
    help="Write a wiki's web view as a static site into a folder outside the wiki: it opens from disk (file://) "
    "or any web server. Page search runs in the browser; corpus search and ask need `wikigen serve`.",
)
@wiki_argument("a wiki folder made by 'wikigen build'")
@click.option(
    "--out",
    type=click.Path(),
    metavar="DIR",
    required=True,
    help="folder for the site (new, empty, or a site written before)",
)
def site_command(wiki, out) -> int:
    from wikigen.web.site import write_site

    print(write_site(Path(wiki), Path(out)).to_text())
    return 0


# --- ask it --------------------------------------------------------------------------------------------


@cli.command(
    "ask",
    short_help="answer a question from the wiki plus search",
    help="Answer a question from a wiki's pages and its corpus: the answer quotes its sources (each with its "
    "document and character span), then the context it was drawn from. --questions answers a file of questions "
    "in one process.",
)
@click.argument("question", required=False, help="the question (or use --questions)")
@wiki_option()
@click.option("--mode", type=click.Choice(MODES), default="wiki+search", help=MODES_HELP)
@budget_option("context tokens (default 4000)")
@json_option("print the answer and its context as JSON")
@click.option("--questions", type=click.Path(), metavar="FILE", help="a questions.jsonl to answer in one process")
@click.option("--out", type=click.Path(), metavar="FILE", help="results .jsonl for --questions")
@backend_option("offline: an extractive answer from the context (default); claude: a generated answer")
@model_option("Claude model for --backend claude")
@quiet_option("no progress bar for --questions")
@no_log_option
def ask_command(question, wiki, mode, budget, as_json, questions, out, backend, model, quiet, no_log) -> int:
    from wikigen.agents.backends import answer_generator
    from wikigen.ask.batch import ask_batch, ask_one

    _positive("--budget", budget)
    _warn_if_stale(Path(wiki))
    generator = answer_generator(backend, model=model)
    if questions:
        if not out:
            raise UsageError("--questions needs --out RESULTS.jsonl")
        with _Bars(quiet) as bars:
            n = ask_batch(
                Path(questions),
                Path(out),
                wiki=Path(wiki),
                mode=mode,
                budget=budget,
                generator=generator,
                progress=bars.of("answering"),
                log=None if no_log else "cli",
            )
        if as_json:
            _print_json({"answered": n, "out": out})
        else:
            print(f"answered {n} questions -> {out}")
        return 0
    if not question:
        raise WikigenError("give a QUESTION, or --questions FILE.jsonl --out RESULTS.jsonl")
    result = ask_one(
        question, wiki=Path(wiki), mode=mode, budget=budget, generator=generator, log=None if no_log else "cli"
    )
    if as_json:
        _print_json(result.to_dict())
    else:
        print(result.to_text())
    return 0


def _wikis_here(folder: Path = Path(".")) -> list[str]:
    """The wiki folders in folder (and folder itself): those with a .wikigen/config.json."""
    found = [p for p in [folder, *sorted(folder.iterdir())] if (p / ".wikigen" / "config.json").is_file()]
    return [str(p) for p in found[:5]]


def _search_index(wiki: str | None, index: str | None):
    """The index `search` reads: the wiki's own (--wiki), or an --index folder (default .wikigen-index); when
    that folder has no index, the error names where a build keeps its index."""
    from wikigen.core.errors import SearchIndexError
    from wikigen.search.index import CorpusIndex
    from wikigen.search.sources import open_wiki

    if wiki:
        return open_wiki(Path(wiki)).sources
    try:
        return CorpusIndex.open(Path(index or DEFAULT_INDEX))
    except SearchIndexError as e:
        if index:
            raise
        wikis = _wikis_here()
        where = (
            f"the wiki{'s' if len(wikis) > 1 else ''} here keep{'' if len(wikis) > 1 else 's'} theirs: "
            + ", ".join(f"`wikigen search QUERY --wiki {w}`" for w in wikis)
            if wikis
            else "search a wiki's with `wikigen search QUERY --wiki WIKI`"
        )
        raise SearchIndexError(f"{e}; a build keeps its index in WIKI/.wikigen/index, and {where}") from None


@cli.command(
    "search",
    short_help="BM25 search over the indexed passages",
    help="Search the corpus passages (BM25) of a wiki (--wiki: the index its build keeps) or of an index folder "
    "made by `wikigen index`. Each hit is a document, a character span and a snippet.",
    exclusive=(("wiki", "index"),),
)
@click.argument("query", help="words to search for (any language; no query syntax needed)")
@click.option(
    "--wiki",
    type=click.Path(),
    metavar="DIR",
    help="search the index this wiki's build keeps (WIKI/.wikigen/index; not with --index)",
)
@click.option(
    "--index", type=click.Path(), metavar="DIR", default=None, help=f"an index folder (default {DEFAULT_INDEX})"
)
@click.option("-k", "k", type=int, metavar="N", default=10, help="how many hits (default 10)")
@json_option("print the hits as JSON")
def search_command(query, wiki, index, k, as_json) -> int:
    _positive("-k", k)
    hits = _search_index(wiki, index).search(query, k=k)
    if as_json:
        _print_json({"query": query, "hits": [h.to_dict() for h in hits]})
    else:
        for h in hits:
            print(f"{h.score:7.2f}  {h.doc_id} [{h.start}-{h.end}]  {h.snippet}")
    return 0


@cli.command(
    "asked",
    short_help="what people asked the wiki and how well it served them (the question log)",
    help="List the questions asked of the wiki (wikigen ask, the web view, MCP) with how much of each answer the "
    "wiki supplied against search; weak: the answer came mostly from search, or there was none.",
)
@wiki_argument()
@click.option("--weak", is_flag=True, help="only the questions the wiki served weakly")
@json_option("print the log's summary and questions as JSON")
@click.option(
    "--log",
    type=click.Choice(["on", "off"]),
    default=None,
    help="turn the question log on or off for every surface (kept in WIKI/.wikigen/config.json)",
)
def asked_command(wiki, weak, as_json, log) -> int:
    from wikigen.wiki.question_log import asked_report, set_logging

    if log is not None:
        set_logging(Path(wiki), log == "on")
    report = asked_report(Path(wiki), weak_only=weak)
    if as_json:
        _print_json(report.to_dict())
    else:
        print("\n".join(report.lines()))
    return 0


@cli.command(
    "eval",
    short_help="score every mode on a questions.jsonl",
    help="Score each answer mode on a questions.jsonl with gold evidence spans: how much of the gold text the "
    "context and the answer recall within the token budget; writes a JSON report and a chart.",
)
@click.argument("questions", type=click.Path(), help="a questions.jsonl with gold evidence spans")
@wiki_option()
@click.option(
    "--modes",
    cls=Many,
    type=click.Choice(MODES),
    multiple=True,
    metavar="MODE...",
    default=list(MODES),
    help="modes to score (default all); " + MODES_HELP,
)
@budget_option("context tokens per question (default 4000)")
@click.option(
    "--out", type=click.Path(), metavar="DIR", default="eval-out", help="folder for the JSON report and the SVG chart"
)
@click.option("--limit", type=int, metavar="N", default=None, help="only the first N questions")
@json_option("print the summary and every scored row as JSON")
@quiet_option()
def eval_command(questions, wiki, modes, budget, out, limit, as_json, quiet) -> int:
    from wikigen.ask.evaluate import run_eval

    _positive("--budget", budget)
    _warn_if_stale(Path(wiki))
    with _Bars(quiet) as bars:
        report = run_eval(
            Path(questions),
            wiki=Path(wiki),
            modes=list(modes),
            budget=budget,
            out_dir=Path(out),
            limit=limit,
            progress=bars.of("evaluating"),
        )
    if as_json:
        _print_json({**report.to_dict(), "report_path": str(report.report_path), "chart_path": str(report.chart_path)})
    else:
        print(report.table())
    return 0


# --- plug it into other tools ------------------------------------------------------------------------


@cli.command(
    "mcp",
    short_help="serve a wiki to an agent over MCP (stdio, read-only)",
    help="Serve a wiki to an agent over the Model Context Protocol on stdin/stdout: search, ask, read_page, "
    "list_pages, list_documents, stats, read_source; each reply within a token budget, paged with a cursor.",
)
@wiki_argument("the wiki folder to serve")
@no_log_option
def mcp_command(wiki, no_log) -> int:
    from wikigen.mcp_server import serve

    _note_pending_vectors(Path(wiki))  # on stderr: stdout is the protocol's
    serve(Path(wiki), log=not no_log)  # opens the wiki first: a bad folder is an error here
    return 0


@cli.command(
    "export",
    short_help="export a wiki for another tool (claude-code: a Claude Code memory folder)",
    help="Export a wiki for another tool. claude-code: a memory folder whose MEMORY.md (200 lines, 25,000 bytes) "
    "lists the documents (title, parties, date, key facts) and the topics (what each holds) and links one file "
    "per page.",
)
@click.argument(
    "format",
    type=click.Choice(["claude-code"]),
    help="claude-code: MEMORY.md (200 lines, 25,000 bytes) linking one topic file per page",
)
@wiki_argument("the wiki folder to export")
@click.argument("dir", type=click.Path(), help="the folder to write (outside the wiki and the corpus)")
@json_option("print the report as JSON")
def export_command(format, wiki, dir, as_json) -> int:
    from wikigen.export import export_claude_code
    from wikigen.search.sources import open_wiki

    report = export_claude_code(open_wiki(Path(wiki)), Path(dir))
    if as_json:
        _print_json(report.to_dict())
    else:
        print(report.to_text())
    return 0


# --- the entry point ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status. --help, --version and a usage error end the process (SystemExit, 2
    for a usage error); the project's own errors print one line `Error: ...` and return their exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    if os.environ.get(COMPLETE_VAR):  # the shell asks for completions: eval "$(_WIKIGEN_COMPLETE=bash_source wikigen)"
        from click.shell_completion import shell_complete

        return shell_complete(cli, {}, "wikigen", COMPLETE_VAR, os.environ[COMPLETE_VAR])
    try:
        with cli.make_context("wikigen", args) as ctx:
            return cli.invoke(ctx)
    except click.exceptions.Exit as e:  # --help, --version
        raise SystemExit(e.exit_code) from None
    except click.ClickException as e:  # a usage error: the usage line, then `Error: ...`
        e.show()
        raise SystemExit(e.exit_code) from None
    except WikigenError as e:
        print(f"Error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:  # Ctrl-C: every step keeps what it finished (see docs/guide.md)
        print(INTERRUPTED, file=sys.stderr)
        return 130
    except BrokenPipeError:  # `wikigen ... | head`: the reader left; stop quietly, as other tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def build_parser() -> argparse.ArgumentParser:
    """The commands and their options as an argparse parser, for code written against the parser this CLI had
    before click (it reads `_subparsers` and `_actions`): names, option strings, help. It parses nothing."""
    parser = argparse.ArgumentParser(prog="wikigen", description=cli.help)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in cli.list_commands(click.Context(cli)):
        cmd = cli.commands[name]
        s = sub.add_parser(name, help=cmd.short_help, description=cmd.help)
        for p in cmd.params:
            if isinstance(p, click.Option):
                s.add_argument(*p.opts, *p.secondary_opts, dest=p.name, help=p.help)
            else:
                s.add_argument(p.name, help=p.help)
    return parser


if __name__ == "__main__":
    sys.exit(main())
