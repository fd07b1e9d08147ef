"""`wikigen dream WIKI`: dreaming sessions over a built wiki, applied at once or kept for review.

    dream(DreamConfig(wiki, sessions=1)) -> DreamReport(ok, sessions, review, note)
    dream(DreamConfig(wiki, review=True))   # the change waits on a branch of the wiki's git repository
    apply_dream(wiki) -> Review             # `wikigen dream WIKI --apply`: take it

Each session is a session of the wiki like a build's (its number continues the progress log): the
dreamer works (wikigen.agents.dreaming), then the tidy-up every session ends with (links repaired, index.md
and log.md, the size check: wikigen.agents.orchestrate.tidy_up), a "session summary" entry of kind "dream"
for the growth view, and - applied directly - one commit. A session that finds nothing left to do ends
the run early.

With review, nothing of the wiki changes: the sessions run in a second working tree of the wiki's
repository (wikigen.wiki.history.start_review, WIKI/.wikigen/review) and end as one commit on the branch
`wikigen-review`, whose message summarises every change (its subject and how many questions were behind
it). The wiki's own branch, its history and its working pages stay as they were until `apply_dream`
fast-forwards the wiki to that commit. Pages a person edited and did not commit yet would be left behind by a review, so a review
refuses to start until they are committed (a plain `wikigen dream` or build keeps them first).

One build or dream at a time per wiki (the build lock). Nothing is printed: each finished session goes
to `on_session`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

from wikigen.agents.dream_values import WikiValues
from wikigen.agents.dreaming import DreamOutcome, ValueSource, dream_answerer, dream_session, weak_questions
from wikigen.agents.orchestrate import log_summary, measure_size, next_session, tidy_up
from wikigen.agents.params import DreamParams

from wikigen.core.errors import UsageError, WikigenError
from wikigen.core.stages import StageClock
from wikigen.wiki.page import count_quotes

log = logging.getLogger(__name__)

__all__ = ["DreamConfig", "DreamLine", "DreamReport", "apply_dream", "dream"]


@dataclass
class DreamConfig:
    wiki: Path
    sessions: int = 1
    review: bool = False  # keep the change on the review branch instead of applying it
    params: DreamParams = field(default_factory=DreamParams)
    dense: bool = True  # the dreamer's searches use passage vectors where the index has them


@dataclass
class DreamLine:
    """One finished dreaming session."""

    session: int
    asked: int
    weak: int
    subjects: int
    served_now: int
    worked: int
    changes: dict[str, int]
    pages: int
    quotes: int
    ratio: float
    seconds: float
    errors: int = 0
    stopped: str = ""
    left: int = 0  # subjects whose page a person owns (left as it is)

    def text(self) -> str:
        did = ", ".join(f"{n} {a}" for a, n in self.changes.items()) or "no change"
        line = (
            f"dream session {self.session}: {self.weak} of {self.asked} questions served weakly, "
            f"{self.subjects} subjects ({self.served_now} served now, {self.worked} worked on): {did}; "
            f"{self.pages} pages, {self.quotes} quotes, ratio {self.ratio:.2f}, {self.seconds:.1f} s"
        )
        if self.left:
            line += f", {self.left} left to the people who own their pages"
        if self.errors:
            line += f", {self.errors} errors"
        if self.stopped:
            line += f"; stopped: {self.stopped}"
        return line


@dataclass
class DreamReport:
    ok: bool = True
    sessions: list[DreamLine] = field(default_factory=list)
    review: dict | None = None  # the commit waiting for review (--review), or None
    note: str = ""  # why nothing was done, when nothing was
    stopped_reason: str | None = None

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "stopped_reason": self.stopped_reason,
            "note": self.note,
            "sessions": [asdict(s) for s in self.sessions],
            "review": self.review,
        }


def _summary(outcomes: list[DreamOutcome]) -> str:
    """The review commit's body: each change with its subject (as the documents name it) and how many questions
    caused it; the questions stay in the private question log."""
    lines = []
    for o in outcomes:
        lines.append(f"Session {o.session}: {o.weak} questions served weakly, {o.worked} subjects worked on.")
        lines += [f"- {c.text()}" + (f": {c.subject}" if c.subject else "") for c in o.changes]
    return "\n".join(lines)


def dream(
    config: DreamConfig,
    *,
    on_session: Callable[[DreamLine], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    values: ValueSource | None = None,
    counter=None,
) -> DreamReport:
    """Run dreaming sessions over the wiki (see the module docstring)."""
    from wikigen.search.sources import open_wiki

    from wikigen.core.tokens import default_counter
    from wikigen.wiki import guard, history
    from wikigen.wiki.buildlock import build_lock, recover_git_lock
    from wikigen.wiki.human import changed_pages, keep_human_edits
    from wikigen.wiki.progress import ProgressLog
    from wikigen.wiki.question_log import QuestionLog, asked_questions
    from wikigen.wiki.store import Wiki

    on_session = on_session or (lambda line: log.info("%s", line.text()))
    on_warning = on_warning or (lambda text: log.warning("%s", text))
    if config.sessions < 1:
        raise UsageError(f"--sessions must be 1 or more (got {config.sessions})")
    root = Path(config.wiki)
    main = open_wiki(root)  # a folder that is no wiki fails here, naming the fix
    index = main.sources
    asked = asked_questions(QuestionLog(root).read().entries)
    if not weak_questions(asked):
        note = (
            f"the wiki served every one of the {len(asked)} questions asked well; nothing to dream about"
            if asked
            else f"no questions logged yet: ask some (`wikigen ask QUESTION --wiki {root}`), then dream"
        )
        return DreamReport(note=note)
    counter = counter or default_counter()
    report = DreamReport()
    with build_lock(root):
        recover_git_lock(root)
        if config.review:
            edited = changed_pages(root)
            if edited:
                raise WikigenError(
                    f"pages of {root} were edited and not committed ({', '.join(edited[:5])}); a review would leave "
                    f"them out - commit them (or run `wikigen dream {root}` without --review, which keeps them first)"
                )
            target = history.start_review(root)
        else:
            kept = keep_human_edits(root)
            if kept.pages:
                on_warning(f"kept human edits to {len(kept.pages)} pages first (commit {kept.commit[:12]})")
            target = root
        outcomes: list[DreamOutcome] = []
        try:
            wiki = Wiki.open(target, sources=index, counter=counter)
            progress = ProgressLog(target)
            doc_ids = sorted(d.doc_id for d in index.documents())
            stage = StageClock()
            for _ in range(config.sessions):
                line, outcome, size = _session(wiki, index, progress, asked, config, values, counter, stage, doc_ids)
                outcomes.append(outcome)
                if not config.review:
                    history.commit_session(root, line.session, "dream: " + line.text().split(": ", 1)[1])
                report.sessions.append(line)
                on_session(line)
                if size.level == "stop":
                    report.ok, report.stopped_reason = False, size.message
                    break
                if not outcome.changes:
                    break  # nothing left that this wiki and corpus can serve better
            if config.review:
                subject = f"dream: sessions {report.sessions[0].session}-{report.sessions[-1].session}"
                commit = history.finish_review(root, subject, _summary(outcomes))
                review = history.pending_review(root) if commit else None
                report.review = review.to_dict() if review else None
                if commit is None:
                    report.note = "the dreaming sessions changed nothing; no review was made"
        except BaseException:
            if config.review:
                history.discard_review(root)
            raise
        if not config.review:
            for problem in guard.after_build(wiki):
                report.ok = False
                report.stopped_reason = report.stopped_reason or "the wiki fails `wikigen check`"
                on_warning(problem)
    return report


def _session(wiki, index, progress, asked, config: DreamConfig, values, counter, stage, doc_ids):
    """One dreaming session, its tidy-up and its summary entry (which measures the wiki: the size guard's
    report): (its line, its outcome, the size report)."""
    t0 = time.perf_counter()
    session = next_session(progress)
    wiki.files_changed()
    with stage("dreaming"):
        answerer = dream_answerer(wiki, index, dense=config.dense)
        outcome = dream_session(
            wiki,
            index,
            progress,
            session,
            asked,
            params=config.params,
            values=values if values is not None else WikiValues(wiki.root, index),
            answerer=answerer,
            counter=counter,
        )
    for e in outcome.errors:
        log.warning("dreaming: %s", e)
    repaired = tidy_up(wiki, index, progress, session, stage)
    pages = wiki.pages()
    quotes = count_quotes(pages)
    size = log_summary(
        progress,
        session,
        _SummaryLine(len(pages), quotes, repaired.count),
        pages,
        doc_ids,
        wiki.max_ratio,
        (index.corpus_chars, index.corpus_tokens),
        partial(measure_size, wiki.root, index, wiki.max_ratio, counter, stage),
        kind="dream",
        dream=outcome.summary(),
    )
    line = DreamLine(
        session,
        outcome.asked,
        outcome.weak,
        outcome.subjects,
        outcome.served_now,
        outcome.worked,
        outcome.counts(),
        len(pages),
        quotes,
        max(size.ratio_chars, size.ratio_tokens or 0.0),
        time.perf_counter() - t0,
        len(outcome.errors),
        outcome.stopped,
        len(outcome.left),
    )
    return line, outcome, size


@dataclass
class _SummaryLine:
    """What log_summary reads of a session line (a dreaming session spends no tokens)."""

    pages: int
    quotes: int
    links_repaired: int
    tokens: int = 0
    usage: dict | None = None
    cost_usd: float | None = None


def apply_dream(root: Path):
    """Take the change waiting for review (`wikigen dream WIKI --apply`): the wiki fast-forwards to it.
    The wikigen.wiki.history.Review applied; WikigenError when there is none or it no longer applies."""
    from wikigen.wiki.buildlock import build_lock, recover_git_lock
    from wikigen.wiki.history import apply_review

    root = Path(root)
    with build_lock(root):
        recover_git_lock(root)
        return apply_review(root)
