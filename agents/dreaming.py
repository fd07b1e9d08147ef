"""Dreaming: a session that learns from the questions people asked (`wikigen dream WIKI`, and every build
session once the question log holds questions the wiki served weakly).

The question log (wikigen.wiki.question_log) says which questions the wiki served weakly: their answer
came from search rather than the wiki, or there was none (wikigen.ask.served). A dreaming session:

1. groups those questions by subject (wikigen.agents.subjects), the most asked first, and asks `probe`
   of each again: a subject is served when the wiki alone (mode wiki) now holds at least half of what the
   answer with search quotes, and then there is nothing to do;
2. for up to `subjects_per_session` subjects still served weakly, finds the answers in the corpus:
   each question's answer as wikigen gives it with search (the sentences it quotes, verbatim spans), the
   values a `ValueSource` offers for it (dream and build sessions pass wikigen.agents.dream_values.WikiValues:
   the provisions table's field the question names and the documents' table rows whose label it names, each
   with its quote and a line saying what it is; none when called without one), and - so that the same question about any other document is served too - the subject's
   best window in every document where search finds it (wikigen.ask.candidates: one window of whole
   sentences per document for the subject's words, expanded with the words the found answers share, the
   best `max_docs`; the room left takes the lowest ranked first);
3. writes the dreamer's page on the subject (`dream-<subject>`, type topic, owner "dreamer"), extending
   the page it wrote before on that subject or writing a new one: it links the topic pages on the subject,
   and a quote of text that a newer amendment superseded (WIKI/.wikigen/amendments.json) gives way to the
   amendment's current term, on new quotes and on quotes the page already had;
4. merges its pages that answer the same thing (most of one's quotes are the other's spans:
   wikigen.wiki.merge);
5. logs each change in the progress log with its subject and how many questions caused it (action
   "dream: ...").

What people ask stays in the private question log: a dream writes what its sources say, named by their
own words. A page's title, slug, description and aliases are the subject's words as its quotes write them
(wikigen.agents.subjects.named_by: a word no quote has - a secret, a link, markup, anything only the
asker wrote - is left out), and a name that holds a secret or text addressed to an AI agent (wikigen.wiki.secrets,
wikigen.wiki.injection, the filters quotes pass) is not used; a subject no quote names is left alone. The
progress log, log.md, the commits and the review's summary name the subject and count the questions;
none holds a question.

Every write goes through the agents' ToolBox and so the store: quotes verified, ownership (a person's
page is never written: a person who edits a dream page owns it from then on), the size guard; and the
dreamer adds nothing once the wiki reaches `size_share` of its size limit (counted like the size guard:
the larger of characters and tokens). Nothing here knows a corpus or a question template.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from wikigen.agents.params import DreamParams
from wikigen.agents.subjects import (
    AskedQuestion,
    Subject,
    group_subjects,
    named_by,
    subject_match,
    subject_of,
    without_common,
)

from wikigen.ask.page_index import terms
from wikigen.core.errors import WikigenError
from wikigen.core.slugs import dream_slug
from wikigen.core.text import trim_span
from wikigen.wiki.human import DREAMER
from wikigen.wiki.injection import find_instructions
from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.question_log import Asked
from wikigen.wiki.secrets import find_secrets

log = logging.getLogger(__name__)

__all__ = [
    "DREAMER",
    "Change",
    "DreamOutcome",
    "NoValues",
    "ValueQuote",
    "ValueSource",
    "dream_answerer",
    "dream_session",
    "weak_questions",
]

ANSWER_MODE = "wiki+search"  # how a question's answer is looked up: the wiki first, then search
INTRO = "Gathered by dreaming, for questions the wiki served weakly"
MAX_DESCRIPTION = 190
HUB = "dream-questions"  # the dreamer's page that lists its pages (each links back: none is an orphan)
HUB_TITLE = "Questions people asked"


@dataclass(frozen=True)
class ValueQuote:
    """A value a question needs, as the verbatim span of the document that states it."""

    doc_id: str
    start: int
    end: int
    label: str = ""  # what the value is ("renewal term"), shown before its quote


class ValueSource(Protocol):
    """Values per document for a question (wikigen.agents.dream_values.WikiValues: the provisions table's and
    the documents' table rows): the dreamer quotes each one on the subject's page, under its label."""

    def values(self, question: str, doc_ids: Sequence[str]) -> list[ValueQuote]: ...


class NoValues:
    """No values: the dreamer finds answers by search alone."""

    def values(self, question: str, doc_ids: Sequence[str]) -> list[ValueQuote]:
        return []


@dataclass
class Change:
    """One change of a session: its subject (as the documents name it) and how many questions caused it. The
    questions themselves stay in the private question log: nothing a change writes or reports holds one."""

    action: str  # wrote | extended | merged | replaced superseded
    page: str
    subject: str  # the page's title: the subject in its sources' words
    asked: int  # how many questions caused it
    docs: list[str] = field(default_factory=list)
    quotes: int = 0  # quotes added (or moved, for a merge)
    into: str = ""  # for a merge: the page kept

    def text(self) -> str:
        where = f"{self.page} into {self.into}" if self.into else self.page
        return f"{self.action} {where} ({self.quotes} quotes, {self.asked} questions)"

    def to_dict(self) -> dict:
        return {
            "action": self.action,
            "page": self.page,
            "into": self.into,
            "subject": self.subject,
            "quotes": self.quotes,
            "docs": len(self.docs),
            "questions": self.asked,
        }


@dataclass
class DreamOutcome:
    session: int
    asked: int = 0  # distinct questions in the log
    weak: int = 0  # of those, served weakly when last asked
    subjects: int = 0  # subjects of the weak questions
    served_now: int = 0  # subjects the wiki serves now (asked again)
    worked: int = 0  # subjects worked on in this session
    changes: list[Change] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # pages on a worked subject that a person owns: left as they are
    stopped: str = ""  # why the session stopped early ("" when it did not)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.changes:
            out[c.action] = out.get(c.action, 0) + 1
        return out

    def summary(self) -> dict:
        """The session's figures, compact (for the build report and the session summary entry): what each
        change did is in the progress log, one "dream: ..." entry per change."""
        return {
            "asked": self.asked,
            "weak": self.weak,
            "subjects": self.subjects,
            "served_now": self.served_now,
            "worked": self.worked,
            "changes": self.counts(),
            "errors": len(self.errors),
            "left": len(self.left),
            "stopped": self.stopped,
        }

    def to_dict(self) -> dict:
        return {
            "session": self.session,
            "asked": self.asked,
            "weak": self.weak,
            "subjects": self.subjects,
            "served_now": self.served_now,
            "worked": self.worked,
            "changes": [c.to_dict() for c in self.changes],
            "errors": list(self.errors),
            "left": list(self.left),
            "stopped": self.stopped,
        }


def weak_questions(asked: Sequence[Asked]) -> list[Asked]:
    """The distinct questions whose latest answer the wiki served weakly."""
    return [a for a in asked if a.weak]


def dream_answerer(wiki, index, *, dense: bool = True):
    """An Answerer over the wiki's pages as they are now (page index in RAM: nothing is written beside the
    pages), with passage vectors where the index has them and the amendment chains the wiki keeps. It logs
    nothing: the dreamer's own questions are not people's."""
    from wikigen.agents.amendment_pages import STORE
    from wikigen.search.dense.service import open_dense
    from wikigen.search.facts.amendments import read_chains

    from wikigen.ask.retrieval import Answerer
    from wikigen.ask.supersede import Supersessions

    chains = read_chains(wiki.root / STORE)
    return Answerer(
        index,
        wiki.pages(),
        dense=open_dense(index) if dense else None,
        supersessions=Supersessions(chains, index.texts) if chains else None,
    )


# --- the session ---------------------------------------------------------------------------------------


class _Room:
    """How many more characters the dreamer may add: up to size_share of the size limit, counted like the
    size guard (the larger of the character and token ratios; tokens are turned into characters at the
    wiki's own rate)."""

    def __init__(self, wiki, index, share: float, counter=None):
        from wikigen.core.tokens import default_counter
        from wikigen.wiki.size_guard import check_size

        counter = counter or default_counter()
        report = check_size(
            wiki.root,
            index.corpus_chars,
            getattr(index, "corpus_tokens", None),
            max_ratio=wiki.max_ratio,
            counter=counter,
        )
        ratio = max(report.ratio_chars, report.ratio_tokens or 0.0)
        chars_per_ratio = report.wiki_chars / ratio if ratio > 0 else index.corpus_chars
        self.left = int((share * wiki.max_ratio - ratio) * chars_per_ratio)

    def take(self, chars: int) -> None:
        self.left -= chars


def dream_session(
    wiki,
    index,
    progress,
    session: int,
    asked: Sequence[Asked],
    *,
    params: DreamParams = DreamParams(),
    values: ValueSource | None = None,
    answerer=None,
    counter=None,
) -> DreamOutcome:
    """One dreaming session over the wiki (see the module docstring); `asked` comes from the question log
    (wikigen.wiki.question_log.asked_questions). Errors of single pages are reported in the outcome."""
    from wikigen.agents.tools import ToolBox

    out = DreamOutcome(session, asked=len(asked))
    weak = weak_questions(asked)
    out.weak = len(weak)
    if not weak:
        return out
    answerer = answerer or dream_answerer(wiki, index)
    tools = ToolBox(wiki, index, progress, DREAMER, session)
    dreamer = _Dreamer(wiki, index, tools, answerer, progress, session, params, values or NoValues())
    found = [subject_of(a.question, a.last, answerer) for a in weak]
    found = without_common(found, params.common_share, params.common_min, params.similarity)
    subjects = group_subjects(found, params.similarity)
    out.subjects = len(subjects)
    room = _Room(wiki, index, params.size_share, counter)
    for subject in subjects:
        if out.worked >= params.subjects_per_session:
            break
        if dreamer.served(subject):
            out.served_now += 1
            continue
        if room.left <= 0:
            out.stopped = f"the wiki reached {params.size_share:.0%} of its size limit"
            break
        out.worked += 1
        try:
            change = dreamer.work(subject, room)
        except WikigenError as e:
            out.errors.append(f"{subject.words}: {e}")
            continue
        if change is not None:
            out.changes.append(change)
    out.changes.extend(dreamer.replace_superseded())
    out.changes.extend(dreamer.merge_same())
    if out.changes:
        dreamer.write_hub()
    out.errors.extend(dreamer.errors)
    out.left.extend(dreamer.left)
    return out


class _Dreamer:
    """The dreamer's work in one session: asking whether a subject is served, finding its answers, writing or
    extending its page, and keeping its pages current (superseded text) and distinct (merges); every write
    through the ToolBox as the agent "dreamer"."""

    def __init__(self, wiki, index, tools, answerer, progress, session: int, params: DreamParams, values: ValueSource):
        self.wiki = wiki
        self.index = index
        self.tools = tools
        self.answerer = answerer
        self.progress = progress
        self.session = session
        self.params = params
        self.values = values
        self.errors: list[str] = []
        self.left: list[str] = []  # pages on a subject that a person took over: never written
        self.known = sorted(answerer.known_docs)
        self._found: dict[str, list[dict]] = {}

    # --- is a subject served? ------------------------------------------------------------------------

    def _answer(self, question: str) -> list[dict]:
        """The spans of the question's answer as wikigen gives it with the wiki and search (remembered for the
        session: the wiki's page index is the session's first)."""
        if question not in self._found:
            result = self.answerer.ask(question, mode=ANSWER_MODE)
            self._found[question] = [dict(s) for s in result.answer_spans or []]
        return self._found[question]

    def served(self, subject: Subject) -> bool:
        """Whether the wiki alone serves the subject now: for `probe` of its questions, the wiki's own context
        (mode wiki) holds at least half of what the answer with search quotes. A question search finds no answer
        to is no work for the dreamer either."""
        for q in subject.questions[: self.params.probe]:
            target = self._answer(q.question)
            if not target:
                continue
            wiki_only = self.answerer.ask(q.question, mode="wiki")
            have: dict[str, list[tuple[int, int]]] = {}
            for c in wiki_only.context:
                for sp in c.spans:
                    have.setdefault(sp["doc_id"], []).append((sp["start"], sp["end"]))
            total = sum(t["end"] - t["start"] for t in target)
            held = sum(_covered(t["start"], t["end"], have.get(t["doc_id"], [])) for t in target)
            if total and held * 2 < total:
                return False
        return True

    # --- finding the answers ---------------------------------------------------------------------------

    def _answers(self, subject: Subject) -> list[tuple[AskedQuestion, list[dict]]]:
        """Each question's answer spans as wikigen answers it with the wiki and search."""
        return [(q, self._answer(q.question)) for q in subject.questions[: self.params.answers_per_subject]]

    def _learned_terms(self, subject: Subject, answers: list[tuple[AskedQuestion, list[dict]]]) -> dict[str, float]:
        """The words most found answers share and the subject lacks ("governed", "laws" for "governing law"),
        with a lower weight than the subject's own: pseudo-relevance feedback from the answers."""
        p = self.params
        sets = []
        for _, spans in answers:
            text = " ".join(self.index.texts.read(s["doc_id"], s["start"], s["end"]) for s in spans)
            if text.strip():
                sets.append(set(terms(text)))
        if len(sets) < 2:
            return {}
        df: dict[str, int] = {}
        for s in sets:
            for t in s:
                df[t] = df.get(t, 0) + 1
        cands = []
        for t, n in df.items():
            if t in subject.terms or not t.isalpha() or n < max(2, p.expansion_share * len(sets)):
                continue
            idf = self.answerer.candidates.idf(t)
            cands.append((n / len(sets) * idf, t, idf))
        cands.sort(reverse=True)
        return {t: p.expansion_weight * idf for _, t, idf in cands[: p.expansion_terms]}

    def _windows(self, subject: Subject, expansion: dict[str, float]) -> list[tuple[str, int, int]]:
        """(doc id, start, end) of the subject's best window in each document search finds it in, best first."""
        p = self.params
        rounds = self.answerer.candidates.scoped_passages(
            subject.words,
            self.known,
            per_doc=1,
            window=p.window_chars,
            passages=p.window_passages,
            expansion=expansion or None,
        )
        return [(u.doc_id, u.start, u.end) for u in (rounds[0] if rounds else [])[: p.max_docs]]

    # --- the page --------------------------------------------------------------------------------------

    def _own_page(self, subject: Subject):
        """The dreamer's page on this subject already (by its title or the names it keeps), or None."""
        best, best_score = None, 0.0
        for page in self.wiki.pages():
            if page.owner != DREAMER or page.status == "deprecated":
                continue
            score = subject_match(subject.terms, [page.title, *page.aliases])
            if score > best_score:
                best, best_score = page, score
        return best if best_score >= self.params.similarity else None

    def _quote(self, doc_id: str, start: int, end: int) -> Quote | None:
        """The verbatim quote of a span (trimmed of edge whitespace), or None when it holds a secret or the
        quote markup itself."""
        text = self.index.texts.text(doc_id)
        s, e = trim_span(text, start, end)
        body = text[s:e]
        if e <= s or find_secrets(body) or "[!quote]" in body:
            return None
        return Quote(doc_id, s, e, body)

    def _current(self, q: Quote) -> tuple[Quote, str] | None:
        """The current term that supersedes the quote's text, with a note naming what it supersedes."""
        sup = self.answerer.supersede
        if sup is None:
            return None
        for pair in sup.of(q.doc_id, q.start, q.end):
            a, c = pair.amendment, pair.change
            cur = self._quote(a.doc_id, *c.new_quote)
            if cur is not None:
                when = f" ({a.date})" if a.date else ""
                return (
                    cur,
                    f"Current term{when}, from {a.doc_id}; it supersedes chars {c.old_quote[0]}-{c.old_quote[1]} of {q.doc_id}:",
                )
        return None

    def _gather(self, subject: Subject, page) -> list[tuple[str, Quote]]:
        """The page's quotes (each with the line shown before it, '' for none): the old page's first, then the
        questions' values and answers (an answer's best quote in each document), then the window of each other
        document search finds the subject in; superseded text gives way to its current term."""
        have = _noted_quotes(page) if page is not None else []
        answers = self._answers(subject)
        expansion = self._learned_terms(subject, answers)
        spans: list[tuple[str, str, int, int]] = []
        for q, found in answers:  # a value first: it is the precise span, an answer's sentence may hold it
            for v in self.values.values(q.question, q.scope_docs):
                spans.append((f"{v.label}:" if v.label else "", v.doc_id, v.start, v.end))
            best: dict[str, dict] = {}  # an answer's best quote in each document it quotes
            for sp in found:
                best.setdefault(sp["doc_id"], sp)
            spans.extend(("", sp["doc_id"], sp["start"], sp["end"]) for sp in best.values())
        quoted = {q.doc_id for _, q in have} | {d for _, d, _, _ in spans}
        # every other document search finds the subject in: its best window (a document quoted already has its own)
        spans.extend(("", d, s, e) for d, s, e in self._windows(subject, expansion) if d not in quoted)
        out: list[tuple[str, Quote]] = []
        for note, d, s, e in [(n, h.doc_id, h.start, h.end) for n, h in have] + spans:
            quote = self._quote(d, s, e)
            if quote is None:
                continue
            current = self._current(quote)
            if current is not None:
                quote, note = current
            if any(_overlap(o, quote) for _, o in out):
                continue  # a span already quoted (or overlapped) on the page
            out.append((note, quote))
        return out

    def _related(self, subject: Subject) -> list[str]:
        hits = self.answerer.page_index.search(subject.words, k=20, types=["topic"])
        pages = self.answerer.pages  # as the session began: the pages written since are not in its page index
        return [h.slug for h in hits if h.slug in pages and pages[h.slug].owner != DREAMER][: self.params.related]

    def _name(self, words: str, quotes: list[tuple[str, Quote]]) -> str:
        """Subject words as the page's quotes (and the labels above them) write them, '' when they write none of
        them or the name would hold a secret or text addressed to an AI agent (the filters every quote passes)."""
        said = "\n".join([*(note for note, _ in quotes), *(q.text for _, q in quotes)])
        return _safe(named_by(words, said))

    def _named(self, subject: Subject, quotes: list[tuple[str, Quote]], related: list[str]) -> str:
        """The subject's name: its words as the quotes found for it write them, else the title of the first topic
        page on it (the first related); '' for none."""
        if name := self._name(subject.words, quotes):
            return name
        pages = self.answerer.pages
        return next((t for s in related if (t := _safe(pages[s].title))), "")

    def _body(self, name: str, quotes: list[tuple[str, Quote]], related: list[str], n_asked: int) -> str:
        lines = [f"{INTRO} ({n_asked} asked), on {name}. One of the [[{HUB}]].", ""]
        if related:
            lines += ["Related: " + ", ".join(f"[[{s}]]" for s in related) + ".", ""]
        for note, q in quotes:
            if note:
                lines += [note, ""]
            lines += [format_quote(q), ""]
        return "\n".join(lines)

    def work(self, subject: Subject, room: _Room) -> Change | None:
        """Write or extend the dreamer's page on the subject; the change, or None when nothing was added (or no
        quote names the subject)."""
        page = self._own_page(subject)
        quotes = self._gather(subject, page)
        related = self._related(subject)
        name = self._named(subject, quotes, related)
        if not name:
            log.info("dreaming: a subject that no quote found for it names is left alone")
            return None
        slug = page.slug if page is not None else dream_slug(name)
        if page is None and self.wiki.exists(slug):
            other = self.wiki.read(slug)
            if other.owner != DREAMER:  # a person took the page over: the subject is theirs now
                self.left.append(other.slug)
                return None
            if other.status != "deprecated":  # its page on the subject under the same name: extended, not replaced
                page = other
                quotes = self._gather(subject, page)
        old_quotes = len(page.quotes()) if page is not None else 0
        old_chars = len(self.wiki.path(page.slug).read_text(encoding="utf-8")) if page is not None else 0
        if len(quotes) <= old_quotes:
            return None
        n_asked = len(subject.questions)
        # within the room left: the old quotes and the answers first, the lowest-ranked windows go first
        while len(quotes) > old_quotes:
            body = self._body(name, quotes, related, n_asked)
            est = len(body) + sum(len(d) + 80 for d in dict.fromkeys(q.doc_id for _, q in quotes)) + 400
            if est - old_chars <= room.left:
                break
            quotes = quotes[: max(old_quotes, int(len(quotes) * 0.8))]
        else:
            return None
        title = (page.title if page is not None else name[:1].upper() + name[1:])[:100]
        # the page is found by the subject's names as its sources write them, never by the words that named the
        # documents asked about nor by words only a person used
        names = [self._name(a, quotes) for a in [*(page.aliases if page else []), *subject.names]]
        aliases = [a for a in dict.fromkeys(names) if a and a.casefold() != title.casefold() and len(a) <= 300]
        asked = "once" if n_asked == 1 else f"{n_asked} times"
        description = f"What the documents state on {name} (asked {asked})"
        if len(description) > MAX_DESCRIPTION:
            description = description[: MAX_DESCRIPTION - 3].rstrip() + "..."
        result = self.tools.write_page(
            slug,
            title,
            " ".join(description.split()),
            body,
            type="topic",
            aliases=aliases[: self.params.max_aliases],
        )
        room.take(result.chars - old_chars)
        docs = list(dict.fromkeys(q.doc_id for _, q in quotes))
        change = Change(
            "extended" if page is not None else "wrote", slug, title, n_asked, docs, len(quotes) - old_quotes
        )
        self._log(change)
        return change

    def _log(self, change: Change) -> None:
        """The change in the progress log (and so log.md and the commit): its subject and how many questions
        caused it, never the questions."""
        self.progress.append(
            session=self.session,
            agent=DREAMER,
            action=f"dream: {change.action}",
            pages=[change.page] + ([change.into] if change.into else []),
            docs=change.docs,
            subject=change.subject,
            n_questions=change.asked,
            quotes_added=change.quotes,
        )

    # --- keeping its pages current and distinct ----------------------------------------------------------

    def _own_pages(self) -> list:
        return [p for p in self.wiki.pages() if p.owner == DREAMER and p.status != "deprecated" and p.slug != HUB]

    def write_hub(self) -> None:
        """The dreamer's list of its pages, each with the first phrasing it was written for."""
        pages = sorted(self._own_pages(), key=lambda p: p.title.lower())
        lines = [
            "The subjects people asked about that the wiki had served weakly, each gathered by dreaming from "
            "the documents that state it:",
            "",
        ]
        lines += [f"- [[{p.slug}]]: {p.description}" for p in pages]
        try:
            self.tools.write_page(
                HUB, HUB_TITLE, "What dreaming sessions gathered, by subject", "\n".join(lines) + "\n"
            )
        except WikigenError as e:
            self.errors.append(f"{HUB}: {e}")

    def replace_superseded(self) -> list[Change]:
        """Each of the dreamer's pages whose quotes a newer amendment superseded: those quotes give way to the
        current term (the pages written this session did so already)."""
        if self.answerer.supersede is None:
            return []
        out = []
        for page in self._own_pages():
            try:
                quotes = page.quotes()
            except WikigenError:
                continue
            if not any(self._current(q) for q in quotes):
                continue
            body = page.body
            replaced = 0
            for q in quotes:
                cur = self._current(q)
                if cur is None:
                    continue
                new, note = cur
                old_block = format_quote(q)
                if old_block in body:
                    body = body.replace(old_block, f"{note}\n\n{format_quote(new)}", 1)
                    replaced += 1
            if not replaced:
                continue
            try:
                self.tools.write_page(
                    page.slug, page.title, page.description, body, type=page.type, aliases=page.aliases
                )
            except WikigenError as e:
                self.errors.append(f"{page.slug}: {e}")
                continue
            change = Change(
                "replaced superseded",
                page.slug,
                page.title,
                _asked_of(self.progress, page.slug),
                [q.doc_id for q in quotes],
                replaced,
            )
            self._log(change)
            out.append(change)
        return out

    def merge_same(self) -> list[Change]:
        """Merge the dreamer's pages that answer the same thing: when most of one page's quotes (`merge_overlap`,
        and two at least) overlap the other's, the page with fewer quotes goes into the other
        (wikigen.wiki.merge)."""
        pages = []
        for p in self._own_pages():
            try:
                pages.append((p, p.quotes()))
            except WikigenError:
                continue
        pages.sort(key=lambda pq: (-len(pq[1]), pq[0].slug))
        gone: set[str] = set()
        out = []
        for i, (keep, kq) in enumerate(pages):
            if keep.slug in gone:
                continue
            for other, oq in pages[i + 1 :]:
                if other.slug in gone or not oq:
                    continue
                same = sum(1 for q in oq if any(_overlap(q, k) for k in kq))
                if same < 2 or same / len(oq) < self.params.merge_overlap:  # one shared quote is no one subject
                    continue
                try:
                    report = self.tools.merge_pages(keep.slug, other.slug)
                except WikigenError as e:
                    self.errors.append(f"merge {other.slug} into {keep.slug}: {e}")
                    continue
                gone.add(other.slug)
                change = Change(
                    "merged",
                    other.slug,
                    other.title,
                    _asked_of(self.progress, other.slug),
                    [q.doc_id for q in oq],
                    report.quotes_moved,
                    into=keep.slug,
                )
                self._log(change)
                out.append(change)
        return out


def _noted_quotes(page) -> list[tuple[str, Quote]]:
    """A dream page's quotes, each with the line it shows before it (a value's label, a current term's note:
    a text line ending with ':' right above the quote; '' for none)."""
    try:
        blocks = page.quote_blocks()
    except WikigenError:
        return []
    lines = page.body.split("\n")
    out = []
    for b in blocks:
        i = b.header_line - 1
        while i >= 0 and not lines[i].strip():
            i -= 1
        above = lines[i].strip() if i >= 0 else ""
        out.append((above if above.endswith(":") and not above.startswith(">") else "", b.quote))
    return out


def _covered(start: int, end: int, spans: list[tuple[int, int]]) -> int:
    """How many characters of [start, end) the spans cover."""
    n, pos = 0, start
    for s, e in sorted(spans):
        s, e = max(s, pos), min(e, end)
        if e > s:
            n += e - s
            pos = e
    return n


def _overlap(a: Quote, b: Quote) -> bool:
    return a.doc_id == b.doc_id and a.start < b.end and b.start < a.end


def _asked_of(progress, slug: str) -> int:
    """How many questions a dream page was written for: the most that one of its progress-log entries counts."""
    counts = [0]
    for e in progress.read().entries:
        if e.get("agent") == DREAMER and (e.get("pages") or [None])[0] == slug:
            n = e.get("n_questions")
            counts.append(n if isinstance(n, int) and not isinstance(n, bool) else len(e.get("questions") or []))
    return max(counts)


def _safe(name: str) -> str:
    """The name, one line, or '' when it holds a secret or text addressed to an AI agent or a tool."""
    name = " ".join(name.split())
    return "" if find_secrets(name) or find_instructions(name) else name
