"""`wikigen build`: index the corpus, split the work among agents, run sessions, keep the wiki sound.

    build(BuildConfig(corpus, wiki, agents=2, sessions=2)) -> BuildReport(ok, sessions, stopped_reason)

A build indexes the corpus when needed (incrementally, into WIKI/.wikigen/index unless an index
folder is given), finds the corpus's topics once (`wikigen.agents.topics.discover`, cached in
WIKI/.wikigen/cache by the corpus's content hashes), and gives each agent its own share:

* documents: clusters of related documents (louvain, seed fixed, on the document-topic graph), laid
  out cluster by cluster and cut into contiguous runs of about equal size, one per agent; a document
  whose page exists stays with that page's owner;
* topics and collections: to the agent that owns most of their documents (or the owner of the
  existing page), ties to the lower-numbered agent.

Each session runs the agents concurrently (threads), logs every agent's outcome (pages, errors,
token usage, fatal) in the progress log, then repairs links, regenerates the index, renders
log.md, checks the size guard, logs a "session summary" entry (agent "system": sizes, pages,
quotes, links repaired, documents cited), commits the wiki folder, and reports one SessionLine
through the `on_session` callback (the CLI prints its text):

    session 3: 41 pages, 230 quotes, 4 links repaired, ratio 0.12, 0 tokens, 2.1 s

A warning (a build that stops early) goes to `on_warning`, and each agent's finished session to
`on_agent_done` (the CLI's progress bar); without callbacks they are logged. Nothing is printed here.

Running it again continues from the progress log: session numbers continue and agents revise their
own pages instead of starting over. Nothing is written outside the wiki folder (and the index
folder, when one is given).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Protocol

from wikigen.agents.backends import BACKENDS, get_backend
from wikigen.agents.base import AgentBackend, AgentTask, SessionOutcome, TokenUsage
from wikigen.agents.catalog_cache import CATALOG_VERSION, load_catalog
from wikigen.agents.cost import cost_of
from wikigen.agents.shares import Plan, plan_shares

from wikigen.core.engine import Engine, Parallel, open_engine
from wikigen.core.errors import BackendError, CorpusError, UsageError, WikigenError
from wikigen.core.stages import StageClock, StageListener
from wikigen.wiki.page import count_quotes
from wikigen.wiki.size_guard import check_size

__all__ = [
    "BACKENDS",
    "CATALOG_VERSION",
    "BuildConfig",
    "BuildReport",
    "Plan",
    "SessionLine",
    "build",
    "load_catalog",
    "plan_shares",
    "preflight",
]

log = logging.getLogger(__name__)


@dataclass
class BuildConfig:
    corpus: Path
    wiki: Path
    agents: int = 2
    sessions: int = 2
    backend: str = "offline"
    model: str | None = None
    max_ratio: float = 1.0
    index_dir: Path | None = None
    quiet: bool = False  # for the caller (the CLI shows no progress bar); the build prints nothing
    session_budget: int = 200_000  # tokens one agent may use in one session (Claude backend)
    session_turns: int = 40  # model turns one agent may take in one session
    max_tokens: int | None = None  # stop the build once this many tokens are used in all
    max_cost: float | None = None  # stop the build once this much (USD, estimated) is spent
    workers: int | None = None  # processes for topic discovery (None: one per core); Ray actors with engine="ray"
    engine: str = "local"  # where the per-document stages run: "local" processes or "ray" (wikigen.core.engine)
    ray_address: str | None = None  # the Ray cluster (None: a Ray instance started on this machine)
    rate_itpm: int | None = None  # the API's input tokens a minute: the agents pace themselves under it
    rate_rpm: int | None = None  # the API's requests a minute
    force: bool = False  # build into a wiki or index folder made from another corpus
    dense: bool = True  # embed new passages after the sessions (wikigen.search.dense), when it can


@dataclass
class SessionLine:
    session: int
    pages: int
    quotes: int
    links_repaired: int
    ratio: float
    tokens: int
    seconds: float
    errors: int = 0
    fatal: list[str] = field(default_factory=list)
    usage: dict | None = None  # the session's token usage (input, output, cache_creation, cache_read)
    cost_usd: float | None = None  # its estimated cost, when the model is in the price table
    dream: dict | None = None  # what the session's dreaming did, when it dreamed (wikigen.agents.dreaming)

    def text(self) -> str:
        used = f"{self.tokens} tokens, " if self.tokens else ""  # the offline backend asks no model
        line = (
            f"session {self.session}: {self.pages} pages, {self.quotes} quotes, "
            f"{self.links_repaired} links repaired, ratio {self.ratio:.2f}, {used}{self.seconds:.1f} s"
        )
        if self.cost_usd is not None:
            line += f", about ${self.cost_usd:,.2f}"
        if self.errors:
            line += f", {self.errors} errors"
        if self.fatal:
            line += "; fatal: " + "; ".join(self.fatal)
        return line


@dataclass
class BuildReport:
    ok: bool
    sessions: list[SessionLine] = field(default_factory=list)
    stopped_reason: str | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)  # all sessions of this run
    cost_usd: float | None = None  # estimated (wikigen.agents.cost)
    stages: dict[str, float] = field(default_factory=dict)  # seconds per stage, all sessions

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return {
            "ok": self.ok,
            "stopped_reason": self.stopped_reason,
            "sessions": [asdict(s) for s in self.sessions],
            "usage": self.usage.to_dict(),
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "stages": {k: round(v, 3) for k, v in self.stages.items()},
        }


# --- the build ------------------------------------------------------------------------------------


def next_session(progress) -> int:
    """The number of the next session (a build's or a dreaming one's): after every session the progress log and the wiki's history name: a rollback restores an older log,
    and its sessions' numbers stay taken (wikigen.wiki.history.last_session)."""
    from wikigen.wiki.history import last_session

    last = last_session(progress.root)
    for e in progress.read().entries:
        try:
            last = max(last, int(e.get("session", 0)))
        except (TypeError, ValueError):
            continue
    return last + 1


def _brief(agent: str, session: int, n_docs: int, n_topics: int) -> str:
    return (
        f"You are {agent}, session {session}. Your share: {n_docs} documents and {n_topics} topics or "
        "collections. Write a document page for each of your documents that has none, then topic pages "
        "that gather verbatim quotes on one subject from every document that has it; in later sessions "
        "extend and link your own pages using what other agents logged. Never edit another agent's page."
    )


def _check_config(config: BuildConfig) -> tuple[Path, Path]:
    """(corpus, wiki root) of a usable config; raises CorpusError, UsageError or WikigenError."""
    corpus, root = Path(config.corpus), Path(config.wiki)
    if not corpus.is_dir():
        raise CorpusError(f"corpus folder {corpus} does not exist or is not a folder")
    if config.agents < 1:
        raise UsageError(f"--agents must be at least 1 (got {config.agents})")
    if config.sessions < 1:
        raise UsageError(
            f"--sessions must be 1 or more (got {config.sessions}): a build of no session writes no page; "
            "to index the corpus without building, run `wikigen index CORPUS`"
        )
    for name, value in (
        ("--session-budget", config.session_budget),
        ("--session-turns", config.session_turns),
        ("--max-tokens", config.max_tokens),
        ("--max-cost", config.max_cost),
    ):
        if value is not None and value <= 0:
            raise UsageError(f"{name} must be positive (got {value})")
    if config.max_ratio <= 0:
        raise UsageError(f"--max-ratio must be positive (got {config.max_ratio})")
    _check_price(config)
    if config.backend not in BACKENDS:
        raise UsageError(f"unknown backend {config.backend!r}; choose one of: {', '.join(BACKENDS)}")
    try:
        if root.resolve().is_relative_to(corpus.resolve()):
            raise WikigenError(f"the wiki folder {root} is inside the corpus {corpus}; choose a folder outside it")
    except OSError:
        pass
    return corpus, root


def _no_documents(corpus: Path) -> CorpusError:
    return CorpusError(f"no readable documents in {corpus} (.txt .md .html .pdf .docx); nothing to build")


def preflight(config: BuildConfig) -> list[str]:
    """What `build` checks before it writes anything, for a dry run, writing nothing: raises the error the
    real run would stop with (bad options, a wiki or index of another corpus without --force, a build running
    on the wiki, a corpus with no readable document) and returns the warnings it would print first."""
    from wikigen.search.corpus import scan_corpus
    from wikigen.search.index import check_index_corpus

    from wikigen.wiki import guard
    from wikigen.wiki.buildlock import check_unlocked

    corpus, root = _check_config(config)
    check_unlocked(root)
    guard.check_corpus(root, corpus, force=config.force)
    index_dir = Path(config.index_dir) if config.index_dir else root / ".wikigen" / "index"
    check_index_corpus(index_dir, corpus, force=config.force)
    scan = scan_corpus(corpus, exclude=[index_dir])
    if not scan.files:
        raise _no_documents(corpus)
    lines = []
    if scan.skipped:
        lines.append(
            f"{len(scan.skipped)} files would be skipped while indexing (run `wikigen index {corpus} --index DIR` "
            "for the reasons)"
        )
    edited = guard.pending_human_edits(root)
    if edited:
        lines.append(
            f"{len(edited)} pages were edited since the last commit ({', '.join(edited[:5])}"
            f"{' ...' if len(edited) > 5 else ''}): the build commits them first as human edits, and agents "
            "leave them alone"
        )
    return lines


def _session_line(
    session: int, outcomes: list[SessionOutcome], pages, repaired: int, t0: float, price=None
) -> tuple[SessionLine, TokenUsage]:
    """The session's line; its ratio is set once the session's size is measured (log_summary)."""
    usage = TokenUsage()
    for o in outcomes:
        usage.add(o.usage)
    fatal = [f"{o.agent}: {o.fatal}" for o in outcomes if o.fatal]
    line = SessionLine(
        session,
        len(pages),
        count_quotes(pages),
        repaired,
        0.0,
        usage.total,
        time.perf_counter() - t0,
        sum(len(o.errors) for o in outcomes),
        fatal,
        usage.to_dict(),
        cost_of(usage, price) if usage.total else None,
    )
    return line, usage


def _size_ratio(size) -> float:
    """The size guard's ratio: the larger of the token and the character ratio."""
    if size.ratio_tokens is not None and size.ratio_tokens > size.ratio_chars:
        return size.ratio_tokens
    return size.ratio_chars


def tidy_up(wiki, index, progress, session: int, stage: StageClock, found=None):
    """After a session's agents: links repaired, amendments marked (current terms, superseded text) when the
    session found them (`found`; None: the marks stay as they are), the conflicts page, index.md and log.md
    written."""
    from wikigen.agents.amendment_pages import apply_amendments

    from wikigen.wiki.index_page import write_index
    from wikigen.wiki.links import repair_links

    with stage("link repair"):
        repaired = repair_links(wiki, session=session)
    for e in repaired.errors:
        log.warning("link repair: %s", e)
    if found is not None:
        with stage("amendments"):
            marked = apply_amendments(wiki, found, session)
        for e in marked.errors:
            log.warning("amendments: %s", e)
    with stage("index page"):
        write_index(wiki)
        progress.write_markdown()
    wiki.files_changed()
    return repaired


class SessionFigures(Protocol):
    """What a session summary reads of a session's line (a SessionLine; a dreaming session's figures)."""

    pages: int
    quotes: int
    links_repaired: int
    tokens: int
    usage: dict | None
    cost_usd: float | None


def log_summary(
    progress,
    session: int,
    line: SessionFigures,
    pages,
    doc_ids: list[str],
    max_ratio: float,
    corpus,
    measure,
    **extra,
):
    """One "session summary" entry (agent "system") with the session's figures, for the growth view; returns
    the size guard's report; `extra` adds fields (a dreaming session's `kind`, what dreaming did). The size is measured once log.md holds the entry's line (which shows no wiki
    size: SUMMARY_WIKI_SIZE), so the size logged is the wiki's at the end of the session, as `stats` sees it."""
    from wikigen.wiki.progress import SUMMARY_ACTION, SUMMARY_AGENT, coverage, session_summary
    from wikigen.wiki.provisions import read_table
    from wikigen.wiki.size_guard import WARN_FRACTION

    cov = coverage(progress, pages, doc_ids)
    spend = {"usage": line.usage, "cost_usd": line.cost_usd} if line.tokens else {}
    filled, cells = read_table(progress.root).filled()  # the provisions table: cells stated of all cells
    table = {"values_stated": filled, "values_cells": cells} if cells else {}

    def entry(size) -> dict:
        return session_summary(
            size,
            max_ratio=max_ratio,
            warn_fraction=WARN_FRACTION,
            pages=line.pages,
            quotes=line.quotes,
            links_repaired=line.links_repaired,
            docs_cited=len(cov.cited),
            docs_total=cov.docs_total,
        )

    head = {"session": session, "agent": SUMMARY_AGENT, "action": SUMMARY_ACTION}
    at = progress.entry(**head)["time"]
    progress.write_markdown([progress.entry(**head, at=at, **entry(_Unmeasured(*corpus)), **table, **spend, **extra)])
    size = measure()
    progress.append(**head, at=at, **entry(size), **table, **spend, **extra)
    progress.write_markdown()
    return size


def measure_size(root: Path, index, max_ratio: float, counter, stage: StageClock):
    """The size guard's report on the wiki as it is now (the stage "size check")."""
    with stage("size check"):
        return check_size(root, index.corpus_chars, index.corpus_tokens, max_ratio=max_ratio, counter=counter)


@dataclass
class _Unmeasured:
    """The size fields of a summary entry before the wiki is measured (log.md does not show the wiki's)."""

    corpus_chars: int
    corpus_tokens: int | None
    wiki_chars: int = 0
    wiki_tokens: int = 0


def build(
    config: BuildConfig,
    *,
    on_session: Callable[[SessionLine], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    **kw,
) -> BuildReport:
    """Build or extend the wiki (see _build for the callbacks), one build per wiki.

    The build lock (wikigen.wiki.buildlock) is held for the whole build: a second build is refused
    naming this one's pid, and a lock left by a killed build is taken over. Under it, a stale git
    index.lock is removed, human edits are committed first (wikigen.wiki.guard), and at the end the wiki
    is checked: a problem a build must not leave (guard.BLOCKING) makes the report not ok."""
    from wikigen.search.sources import open_wiki

    from wikigen.wiki import guard
    from wikigen.wiki.buildlock import build_lock, recover_git_lock

    on_warning = on_warning or (lambda text: log.warning("%s", text))
    corpus, root = _check_config(config)
    if config.backend == "claude" and kw.get("backend") is None:
        from wikigen.agents.claude import require_key

        require_key()  # no key: refused before anything is indexed
    with build_lock(root):
        recover_git_lock(root)
        for line in guard.before_build(root, corpus, force=config.force):
            on_warning(line)
        with open_engine(config.engine, address=config.ray_address, workers=config.workers) as workers:
            report = _build(config, workers, on_session=on_session, on_warning=on_warning, **kw)
        for line in guard.after_build(open_wiki(root)):
            report.ok = False
            report.stopped_reason = report.stopped_reason or "the wiki fails `wikigen check`"
            on_warning(line)
    return report


def _pacer(config: BuildConfig):
    """One RatePacer shared by every agent of a Claude build, when the user gave the API's limits."""
    if config.backend != "claude" or not (config.rate_itpm or config.rate_rpm):
        return None
    from wikigen.agents.pacing import RatePacer

    return RatePacer(input_tokens_per_minute=config.rate_itpm, requests_per_minute=config.rate_rpm)


def _stage_progress(on_progress: Callable[[str, int, int], None] | None, stage: str):
    """progress(done, total) for one stage, reported as on_progress(stage, done, total)."""
    if on_progress is None:
        return None
    return lambda done, total: on_progress(stage, done, total)


def _dense_wanted(config: BuildConfig, on_warning) -> bool:
    """Whether this build makes passage vectors: asked for and the model installed (else one note, now,
    before the heavy steps: search is BM25 only)."""
    if not config.dense:
        return False
    from wikigen.search.dense.encoder import DenseUnavailable
    from wikigen.search.dense.service import check_model

    try:
        check_model()
    except DenseUnavailable as e:
        on_warning(f"dense vectors skipped, search is BM25 only: {e}")
        return False
    return True


def _embed(index, on_progress, on_warning, stage, workers: Parallel) -> None:
    """The passage vectors of new or changed documents (dense search), after the pages: a user reads the
    wiki while they are made, and an interrupted run leaves the rest to `wikigen index --dense`. On the
    build's engine when it has one (local worker counts embed in this process, on the encoder's threads)."""
    from wikigen.search.dense.service import update_vectors

    engine = workers if isinstance(workers, Engine) else None
    with stage("embedding"):
        outcome = update_vectors(index, progress=_stage_progress(on_progress, "embedding"), engine=engine)
    if outcome.ok:
        log.info("%s", outcome.note)
    elif outcome.note:
        on_warning(outcome.note)


def _build(
    config: BuildConfig,
    workers: Parallel,
    *,
    on_session: Callable[[SessionLine], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    on_agent_done: Callable[[str, int], None] | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
    on_stage: StageListener | None = None,
    backend: AgentBackend | None = None,
    counter=None,
) -> BuildReport:
    """Build or extend the wiki. Each finished session goes to `on_session`, a build that stops early to
    `on_warning` (one line), each agent's finished session to `on_agent_done(agent, session)`; without
    callbacks they are logged. workers: what the per-document stages run on (`wikigen.core.engine`).
    Returns the BuildReport (every SessionLine, ok, why it stopped)."""
    from wikigen.search.index import CorpusIndex

    from wikigen.core.tokens import default_counter
    from wikigen.wiki.history import commit_session
    from wikigen.wiki.progress import ProgressLog
    from wikigen.wiki.store import Wiki

    on_session = on_session or (lambda line: log.info("%s", line.text()))
    on_warning = on_warning or (lambda text: log.warning("%s", text))
    corpus, root = _check_config(config)
    root.mkdir(parents=True, exist_ok=True)
    index_dir = Path(config.index_dir) if config.index_dir else root / ".wikigen" / "index"
    stage = StageClock(on_stage)
    dense = _dense_wanted(config, on_warning)
    from wikigen.search.cluster import check_cluster

    check_cluster(workers, corpus, dense=dense)  # each machine of a cluster has the corpus and the model
    with stage("indexing"):
        index, summary = CorpusIndex.build(
            corpus,
            index_dir,
            progress=_stage_progress(on_progress, "indexing"),
            force=config.force,
            rehash=True,
            workers=workers,
        )
    counts = [  # counts always; the reasons with -v or `wikigen index`
        (len(summary.skipped), "files skipped"),
        (len(summary.decoded), "decoded from a legacy encoding"),
        (sum(n for _, n, _ in summary.overlong), "tokens too long to index (in no passage)"),
    ]
    if any(n for n, _ in counts):
        on_warning(
            ", ".join(f"{n} {what}" for n, what in counts if n) + " while indexing (run `wikigen -v build ...` or "
            f"`wikigen index {corpus} --index {index_dir}` for the reasons)"
        )
    if summary.repaired:  # passages an earlier race indexed twice (wikigen.search.integrity)
        on_warning(f"repaired the search index {index_dir}: {summary.repaired}")
    stage.seconds["indexing"] -= summary.extract_seconds
    stage.add("extraction", summary.extract_seconds)
    if dense:
        from wikigen.search.dense.service import want_vectors

        want_vectors(index)  # until they are made, commands that read the wiki say what is missing
    docs = index.documents()
    if not docs:
        raise _no_documents(corpus)
    from wikigen.agents.amendment_pages import detect_amendments

    with stage("amendments"):
        found = detect_amendments(index)
    log.info("%s", summary.to_text())
    wiki = Wiki.create(root, index, max_ratio=config.max_ratio, counter=counter, corpus_dir=corpus, index_dir=index_dir)
    progress = ProgressLog(root)
    from wikigen.wiki.freshness import refresh_wiki  # stale sources: re-anchor, archive, re-stamp

    for warning in refresh_wiki(wiki, next_session(progress)).lines():
        on_warning(warning)
    counter = counter or default_counter()
    with stage("topic discovery"):
        cat = load_catalog(
            index,
            root / ".wikigen" / "cache",
            workers=workers,
            progress=_stage_progress(on_progress, "topic discovery"),
        )
    if backend is None:
        backend = get_backend(
            config.backend,
            model=config.model,
            catalog=cat,
            agents=config.agents,
            sessions=config.sessions,
            token_budget=config.session_budget,
            max_turns=config.session_turns,
            pacer=_pacer(config),
        )
    price, limit = _spend_limit(config, backend)
    from wikigen.agents.provisions import update_values

    with stage("values"):  # each document's kind and values: the provisions table (wikigen.wiki.provisions)
        update_values(index, root, workers=workers, progress=_stage_progress(on_progress, "values"), catalog=cat)
    with stage("fact detection"):
        backend.prepare(
            {d.doc_id: index.texts.text(d.doc_id) for d in docs},
            workers=workers,
            progress=_stage_progress(on_progress, "fact detection"),
        )

    agents = [f"agent-{i + 1}" for i in range(config.agents)]
    owners = {p.slug: p.owner for p in wiki.pages()}
    doc_ids = sorted(d.doc_id for d in docs)
    plan = plan_shares(cat, doc_ids, {d.doc_id: d.chars for d in docs}, agents, owners)
    first = next_session(progress)
    report = BuildReport(ok=True)
    for session in range(first, first + config.sessions):
        t0 = time.perf_counter()
        wiki.files_changed()  # the log, human edits or a repair may have written since the last check
        with stage("page writing"):
            outcomes = _run_session(backend, wiki, index, progress, plan, session, on_agent_done, price)
        dreamt = _dream_in_build(wiki, index, progress, session, counter, stage, config.dense)
        repaired = tidy_up(wiki, index, progress, session, stage, found)
        pages = wiki.pages()
        line, usage = _session_line(session, outcomes, pages, repaired.count, t0, price)
        line.dream = dreamt.summary() if dreamt is not None else None
        report.usage.add(usage)
        measure = partial(measure_size, root, index, config.max_ratio, counter, stage)
        corpus_size = (index.corpus_chars, index.corpus_tokens)
        size = log_summary(
            progress, session, line, pages, doc_ids, config.max_ratio, corpus_size, measure, **_dream_fields(dreamt)
        )
        line.ratio = _size_ratio(size)
        with stage("git commit"):
            commit_session(root, session, line.text().split(": ", 1)[1])
        line.seconds = time.perf_counter() - t0
        report.sessions.append(line)
        on_session(line)
        if line.fatal:
            report.ok = False
            report.stopped_reason = "fatal backend error: " + "; ".join(line.fatal)
        elif size.level == "stop":
            report.ok = False
            report.stopped_reason = size.message
        if not report.ok:
            on_warning(f"build stopped after session {session}: {report.stopped_reason}")
            break
        spent = limit.exceeded() if limit is not None else None
        if spent:  # a limit the user set: a clean stop, every page kept and committed
            report.stopped_reason = spent
            on_warning(f"build stopped after session {session}: {spent}")
            break
    if dense:
        _embed(index, on_progress, on_warning, stage, workers)
    report.cost_usd = cost_of(report.usage, price) if report.usage.total else None
    report.stages = dict(stage.seconds)
    return report


def _dream_in_build(wiki, index, progress, session: int, counter, stage: StageClock, dense: bool):
    """Once people asked questions the wiki served weakly (its question log), each build session dreams too
    (wikigen.agents.dreaming), after the agents and before the tidy-up; None when there is nothing to do."""
    from wikigen.agents.dream_values import WikiValues
    from wikigen.agents.dreaming import dream_answerer, dream_session, weak_questions

    from wikigen.wiki.question_log import QuestionLog, asked_questions

    asked = asked_questions(QuestionLog(wiki.root).read().entries)
    if not weak_questions(asked):
        return None
    with stage("dreaming"):
        answerer = dream_answerer(wiki, index, dense=dense)
        values = WikiValues(wiki.root, index)  # the table's values and the documents' table rows
        outcome = dream_session(
            wiki, index, progress, session, asked, values=values, answerer=answerer, counter=counter
        )
    for e in outcome.errors:
        log.warning("dreaming: %s", e)
    return outcome


def _dream_fields(outcome) -> dict:
    """The session summary's field for a build session that also dreamed: what dreaming did."""
    if outcome is None:
        return {}
    return {"dream": outcome.summary()}


def _check_price(config: BuildConfig) -> None:
    """--max-cost needs a price for the model: refuse before anything is indexed or sent."""
    if config.max_cost is None or config.backend != "claude":
        return
    from wikigen.agents.claude import resolve_model
    from wikigen.agents.cost import price_for

    model = resolve_model(config.model)
    if price_for(model) is None:
        raise UsageError(
            f"--max-cost needs the model's price, and {model!r} is not in the price table "
            "(wikigen/agents/cost.py); use --max-tokens instead"
        )


def _spend_limit(config: BuildConfig, backend):
    """The model's price (or None) and the build-wide SpendLimit, attached to a backend that takes one.
    A backend that uses no API (offline) has no price and needs no limit."""
    from wikigen.agents.cost import SpendLimit, price_for

    if getattr(backend, "name", "") != "claude":
        return None, None
    found = price_for(getattr(backend, "model", "") or "")
    price = found[1] if found else None
    if config.max_tokens is None and config.max_cost is None:
        return price, None
    if config.max_cost is not None and price is None:
        raise UsageError(
            f"--max-cost needs the model's price, and {backend.model!r} is not in the price table "
            "(wikigen/agents/cost.py); use --max-tokens instead"
        )
    limit = SpendLimit(max_tokens=config.max_tokens, max_cost=config.max_cost, price=price)
    if hasattr(backend, "limit"):
        backend.limit = limit
    return price, limit


def _run_session(
    backend: AgentBackend,
    wiki,
    index,
    progress,
    plan: Plan,
    session: int,
    on_agent_done: Callable[[str, int], None] | None,
    price=None,
) -> list[SessionOutcome]:
    from wikigen.agents.tools import ToolBox

    stop = threading.Event()

    def one(agent: str) -> tuple[SessionOutcome, dict]:
        tools = ToolBox(wiki, index, progress, agent, session, stop=stop)
        task = AgentTask(
            agent=agent,
            session=session,
            doc_ids=list(plan.docs[agent]),
            topics=list(plan.topics[agent]),
            brief=_brief(agent, session, len(plan.docs[agent]), len(plan.topics[agent])),
        )
        try:
            outcome = backend.run_session(task, tools)
        except BackendError as e:
            outcome = SessionOutcome(agent=agent, session=session, stop_reason="api_error", fatal=str(e))
        except Exception as e:
            log.exception("%s crashed in session %d", agent, session)
            outcome = SessionOutcome(
                agent=agent, session=session, stop_reason="crashed", fatal=f"crashed: {type(e).__name__}: {e}"
            )
        outcome.pages_written = list(dict.fromkeys(outcome.pages_written + tools.activity()["pages"]))
        if on_agent_done is not None:
            on_agent_done(agent, session)
        return outcome, tools.activity()

    if backend.takes_turns:  # one after another, the first agent rotating by session (AgentBackend.takes_turns)
        first = (session - 1) % len(plan.agents) if plan.agents else 0
        order = plan.agents[first:] + plan.agents[:first]
        done = {agent: one(agent) for agent in order}
        results = [done[agent] for agent in plan.agents]
    else:
        pool = ThreadPoolExecutor(max_workers=len(plan.agents), thread_name_prefix="wikigen-agent")
        try:
            results = list(pool.map(one, plan.agents))
        except BaseException:  # Ctrl-C: each agent stops at its next tool call; the session is neither logged
            stop.set()  # nor committed, and the next build runs it again over the pages it had written
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown()
    outcomes = []
    logged: dict[str, set[str]] = {}
    for e in progress.read().entries:
        if e.get("session") == session:
            logged.setdefault(e.get("agent"), set()).update(e.get("pages") or [])
    for outcome, act in results:
        extra: dict = {"pages_written": len(outcome.pages_written)}
        if outcome.errors:
            extra["errors"] = [e[:300] for e in outcome.errors[:10]]
            extra["n_errors"] = len(outcome.errors)
        if outcome.usage.total:
            extra["usage"] = outcome.usage.to_dict()
            cost = cost_of(outcome.usage, price)
            if cost is not None:
                extra["cost_usd"] = round(cost, 6)
        if outcome.turns:
            extra["turns"] = outcome.turns
        if any(outcome.consolidation.values()):
            extra["consolidation"] = outcome.consolidation
        if outcome.stop_reason != "done":
            extra["stop_reason"] = outcome.stop_reason
        if outcome.fatal:
            extra["fatal"] = outcome.fatal
        unlisted = [p for p in outcome.pages_written if p not in logged.get(outcome.agent, set())]
        progress.append(
            session=session,
            agent=outcome.agent,
            action="session finished",
            pages=unlisted,
            queries=act["queries"],
            docs=act["docs"],
            **extra,
        )
        outcomes.append(outcome)
    return outcomes
