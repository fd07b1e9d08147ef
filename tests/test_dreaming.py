"""Dreaming: the questions the wiki served weakly become the dreamer's pages, so the wiki alone serves them;
each change is logged with its subject and how many questions caused it (never the questions); a person's page
stays theirs; --review keeps the wiki (history and
working pages) as it was until --apply; build sessions dream once questions are logged; superseded text
gives way to the current term; pages that answer the same thing merge; the size share holds."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from shared_builds import copy_wiki, sample_wiki
from wikigen.agents.dream_sessions import DreamConfig, dream
from wikigen.agents.dreaming import HUB, ValueQuote, dream_answerer, dream_session
from wikigen.agents.orchestrate import BuildConfig, build
from wikigen.agents.params import DreamParams
from wikigen.agents.subjects import AskedQuestion, group_subjects, named_by, subject_of, without_common
from wikigen.search.facts.amendments import read_chains
from wikigen.search.sources import open_wiki

from wikigen.ask.retrieval import Answerer
from wikigen.cli import main
from wikigen.web.model import SiteData
from wikigen.web.site import write_site
from wikigen.wiki.human import DREAMER, HUMAN
from wikigen.wiki.lint import check_wiki
from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import Page, parse_page, render_page
from wikigen.wiki.progress import ProgressLog
from wikigen.wiki.question_log import QuestionLog, asked_questions

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpora" / "acme"
QUESTIONS = [  # a one-session wiki of the acme corpus answers these from search, not from its pages
    "How long is the notice period to terminate for convenience?",
    "How quickly must security incidents be reported?",
    "What insurance must the supplier carry?",
    "Who owns the intellectual property created under the services?",
]


@pytest.fixture(scope="module")
def asked_wiki(tmp_path_factory):
    """A one-session wiki of the acme corpus whose question log holds QUESTIONS, asked from the CLI."""
    root = sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("dream") / "wiki", sessions=1)
    answerer = Answerer.open(root, log="cli", dense=False)
    for q in QUESTIONS:
        answerer.ask(q)
    return root


@pytest.fixture
def wiki(asked_wiki, tmp_path):
    return copy_wiki(asked_wiki, tmp_path / "wiki")


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def _served(root: Path) -> int:
    """How many of QUESTIONS the wiki alone serves: its wiki-mode context holds at least half of what the
    answer with search quotes."""
    a = Answerer.open(root, dense=False)
    n = 0
    for q in QUESTIONS:
        target = a.ask(q, mode="wiki+search").answer_spans or []
        have = [(s["doc_id"], s["start"], s["end"]) for c in a.ask(q, mode="wiki").context for s in c.spans]
        total = sum(t["end"] - t["start"] for t in target)
        held = 0
        for t in target:
            covered: set[int] = set()
            for d, s, e in have:
                if d == t["doc_id"]:
                    covered.update(range(max(s, t["start"]), min(e, t["end"])))
            held += len(covered)
        n += bool(total) and held * 2 >= total
    return n


def _dream_pages(root: Path) -> list[Page]:
    return [p for p in open_wiki(root).pages() if p.owner == DREAMER and p.slug != HUB]


def test_the_questions_were_served_weakly(asked_wiki):
    asked = asked_questions(QuestionLog(asked_wiki).read().entries)
    assert [a.question for a in asked] == QUESTIONS
    assert all(a.weak for a in asked)  # a one-session wiki: their answers came from search


def test_dreaming_makes_the_wiki_alone_serve_the_questions(wiki, capsys):
    before = _served(wiki)
    assert main(["dream", str(wiki)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dream session 2: 4 of 4 questions served weakly, ")
    pages = _dream_pages(wiki)
    assert pages and all(p.type == "topic" for p in pages)
    after = _served(wiki)
    assert after > before, (before, after)
    # every quote verifies; the dreamer's pages are linked (the hub) and link back
    report = check_wiki(open_wiki(wiki))
    assert not [p for p in report.problems if p.kind in ("quote", "orphan", "page", "unverified-quote")]
    hub = parse_page((wiki / f"{HUB}.md").read_text(encoding="utf-8"))
    assert {p.slug for p in pages} <= set(hub.links())
    assert all(HUB in p.links() for p in pages)
    # each change is in the progress log with its subject (its page's title) and how many questions caused it
    changes = [e for e in ProgressLog(wiki).read().entries if e["agent"] == DREAMER and e["action"] == "dream: wrote"]
    assert {e["pages"][0] for e in changes} == {p.slug for p in pages}
    titles = {p.slug: p.title for p in pages}
    assert all(e["subject"] == titles[e["pages"][0]] and e["n_questions"] >= 1 for e in changes)
    # one change per question (each asks of its own subject); a subject whose clause the wiki's pages already
    # quote (the IP clause is among its contract's provisions) may get none
    assert sum(e["n_questions"] for e in changes) == len(changes) >= len(QUESTIONS) - 1
    assert "questions" not in changes[0]
    summary = [e for e in ProgressLog(wiki).read().entries if e["action"] == "session summary"][-1]
    assert summary["session"] == 2 and summary["kind"] == "dream" and summary["dream"]["changes"]["wrote"] == len(pages)
    # the session is committed like a build's
    assert _git(wiki, "log", "-1", "--format=%s").startswith("session 2: dream: ")


def test_the_growth_view_shows_the_dreaming_session_and_what_it_changed(wiki, tmp_path):
    assert main(["dream", str(wiki)]) == 0
    data = SiteData.load(wiki)
    row = next(r for r in data.sessions if r.session == 2)
    assert row.kind == "dream" and row.dream_changes
    assert {c.action for c in row.dream_changes} <= {"wrote", "extended", "merged", "replaced superseded"}
    assert all(c.n_questions >= 1 for c in row.dream_changes)
    html = (write_site(wiki, tmp_path / "site", data=data).out / "growth.html").read_text(encoding="utf-8")
    assert '<tr data-session="2"><td>2 <span class="session-kind" data-kind="dream">dreaming</span>' in html
    assert 'id="dream-changes"' in html
    page = row.dream_changes[0].pages[0]
    assert f'href="pages/{page}.html"' in html and html.count('class="dream-change"') == len(row.dream_changes)
    assert ", for 1 question</li>" in html  # how many questions caused it, never the questions
    assert not [q for q in QUESTIONS if q in html or q.split()[-1] in html]


def test_a_second_session_extends_or_leaves_served_subjects_alone(wiki):
    first = dream(DreamConfig(wiki, dense=False))
    slugs = {p.slug for p in _dream_pages(wiki)}
    second = dream(DreamConfig(wiki, sessions=2, dense=False))
    line = second.sessions[0]
    assert line.served_now + line.worked == first.sessions[0].subjects
    assert line.served_now >= 1
    # no second page on a subject: a page is written only for a subject the first session left without one (a
    # subject whose clause the wiki already quoted may have got none then)
    assert set(line.changes) <= {"wrote", "extended", "merged", "replaced superseded"}
    new = {p.slug for p in _dream_pages(wiki)} - slugs
    assert line.changes.get("wrote", 0) == len(new) <= first.sessions[0].worked - len(slugs)


def test_a_page_a_person_edited_stays_theirs(wiki):
    # short windows: each dream page quotes its own subject, so no other page serves the one the person edits
    params = DreamParams(window_chars=500)
    dream(DreamConfig(wiki, dense=False, params=params))
    page = _dream_pages(wiki)[0]
    path = wiki / f"{page.slug}.md"
    # the person keeps the page but replaces its quotes with a note: the wiki no longer serves that subject
    edited = render_page(page.with_(body="Checked by Ana: see the signed copy in the legal drive.\n"))
    path.write_text(edited, encoding="utf-8")
    report = dream(DreamConfig(wiki, sessions=2, dense=False, params=params))
    kept = parse_page(path.read_text(encoding="utf-8"))
    assert kept.owner == HUMAN and kept.body == "Checked by Ana: see the signed copy in the legal drive.\n"
    assert _git(wiki, "log", "-1", "--format=%s", "--", path.name).startswith("human edits: ")
    # the dreamer came back to that subject and left it to the person
    assert report.sessions and report.sessions[0].left == 1 and report.sessions[0].errors == 0
    entries = [e for e in ProgressLog(wiki).read().entries if e["agent"] == DREAMER and e["session"] >= 3]
    assert not any(page.slug in e["pages"] for e in entries)


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the wiki but its machine state (git internals, locks, caches, the question log)."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        machine = rel.startswith(
            (".git/", ".wikigen/locks/", ".wikigen/page-index/", ".wikigen/cache/", ".wikigen/index/")
        )
        if p.is_file() and not machine and rel != ".wikigen/questions.jsonl":
            out[rel] = p.read_bytes()
    return out


def test_review_leaves_the_wiki_untouched_until_apply(wiki, capsys):
    head, history = _git(wiki, "rev-parse", "HEAD"), _git(wiki, "log", "--format=%H %s")
    files = _snapshot(wiki)
    assert main(["dream", str(wiki), "--review"]) == 0
    out = capsys.readouterr().out
    assert "waits for review" in out and "--apply" in out
    assert _git(wiki, "rev-parse", "HEAD") == head and _git(wiki, "log", "--format=%H %s") == history
    assert _snapshot(wiki) == files
    assert not _dream_pages(wiki)
    assert _git(wiki, "status", "--porcelain", "--untracked-files=no") == ""
    body = _git(wiki, "log", "-1", "--format=%B", "wikigen-review")
    assert body.startswith("dream: sessions 2-2") and not [q for q in QUESTIONS if q in body]
    assert any(
        name.startswith("dream-") for name in _git(wiki, "show", "--name-only", "--format=", "wikigen-review").split()
    )
    assert main(["dream", str(wiki), "--apply"]) == 0
    assert "applied dream: sessions 2-2" in capsys.readouterr().out
    assert _git(wiki, "rev-parse", "HEAD") == _git(
        wiki, "log", "-1", "--format=%H", "--all", "--", "dream-questions.md"
    )
    assert _git(wiki, "log", "--format=%H %s").endswith(history)  # the old history is under the new commit
    assert _dream_pages(wiki) and all(f"): {p.title}\n" in body + "\n" for p in _dream_pages(wiki))  # by subject
    assert "wikigen-review" not in _git(wiki, "branch")
    assert main(["dream", str(wiki), "--apply"]) == 1
    assert "no change is waiting for review" in capsys.readouterr().err


def test_apply_refuses_a_review_the_wiki_moved_past(wiki, capsys):
    assert main(["dream", str(wiki), "--review"]) == 0
    assert build(BuildConfig(corpus=CORPUS, wiki=wiki, agents=2, sessions=1, quiet=True, dense=False)).ok
    head = _git(wiki, "rev-parse", "HEAD")
    capsys.readouterr()
    assert main(["dream", str(wiki), "--apply"]) == 1
    assert "changed since the review was made" in capsys.readouterr().err
    assert _git(wiki, "rev-parse", "HEAD") == head


def test_review_and_apply_together_is_a_usage_error(wiki, capsys):
    assert main(["dream", str(wiki), "--review", "--apply"]) == 2
    assert "give one of them" in capsys.readouterr().err


def test_dream_with_nothing_asked_says_what_to_do(tmp_path, asked_wiki, capsys):
    root = tmp_path / "wiki"
    shutil.copytree(asked_wiki, root, symlinks=True)
    (root / ".wikigen" / "questions.jsonl").unlink()
    assert main(["dream", str(root), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["sessions"] == [] and d["note"].startswith("no questions logged yet")


def test_build_sessions_dream_once_questions_are_logged(wiki):
    lines = []
    report = build(
        BuildConfig(corpus=CORPUS, wiki=wiki, agents=2, sessions=1, quiet=True, dense=False), on_session=lines.append
    )
    assert report.ok and lines[0].dream is not None and lines[0].dream["worked"] >= 1
    entries = ProgressLog(wiki).read().entries
    assert any(e["agent"] == DREAMER and e["session"] == 2 and e["action"].startswith("dream: ") for e in entries)
    summary = next(e for e in entries if e["action"] == "session summary" and e["session"] == 2)
    assert "kind" not in summary and summary["dream"]["worked"] >= 1  # a build session that also dreamed
    assert _dream_pages(wiki)


def _session(root: Path, params: DreamParams = DreamParams(), values=None):
    w = open_wiki(root)
    asked = asked_questions(QuestionLog(root).read().entries)
    progress = ProgressLog(root)
    answerer = dream_answerer(w, w.sources, dense=False)
    return dream_session(w, w.sources, progress, 2, asked, params=params, values=values, answerer=answerer), w


def test_superseded_text_gives_way_to_the_current_term(wiki):
    chain = read_chains(wiki / ".wikigen" / "amendments.json")[0]
    change = chain.changes[0]
    w = open_wiki(wiki)
    text = w.sources.texts.text(chain.base_id)
    s, e = change.old_quote
    old = Quote(chain.base_id, s, e, text[s:e])
    body = f"About the renewal notice.\n\n{format_quote(old)}\n"
    page = Page(
        "dream-renewal-notice", "Renewal notice", DREAMER, "Asked once", aliases=["What is the renewal notice?"]
    )
    w.write(page.with_(body=body), agent=DREAMER, session=1)
    outcome, _ = _session(wiki, DreamParams(subjects_per_session=0))  # only keeping its pages current
    assert any(c.action == "replaced superseded" and c.page == page.slug for c in outcome.changes)
    quotes = parse_page((wiki / f"{page.slug}.md").read_text(encoding="utf-8")).quotes()
    assert (chain.doc_id, *change.new_quote) in {(q.doc_id, q.start, q.end) for q in quotes}
    assert (old.doc_id, old.start, old.end) not in {(q.doc_id, q.start, q.end) for q in quotes}
    assert f"it supersedes chars {s}-{e} of {chain.base_id}" in (wiki / f"{page.slug}.md").read_text(encoding="utf-8")
    logged = [e for e in ProgressLog(wiki).read().entries if e["action"] == "dream: replaced superseded"]
    assert logged and logged[0]["pages"] == [page.slug]


def test_a_dream_page_of_the_subjects_name_is_extended_never_replaced(asked_wiki, tmp_path):
    """A page is named by its quotes' words, so a later session may not find it by its names; a dreamer's page
    under the very name a subject gets is that subject's page all the same: extended, its quotes kept."""
    outcome, _ = _session(copy_wiki(asked_wiki, tmp_path / "first"))
    slug = next(c.page for c in outcome.changes if c.action == "wrote")
    root = copy_wiki(asked_wiki, tmp_path / "second")
    w = open_wiki(root)
    doc = "contracts/msa-brightline-logistics"
    kept = Quote(doc, 48, 142, w.sources.texts.text(doc)[48:142])
    w.write(
        Page(slug, "Unrelated name", DREAMER, "Asked once", body=format_quote(kept) + "\n"), agent=DREAMER, session=1
    )
    outcome, _ = _session(root)
    assert [c.action for c in outcome.changes if c.page == slug] == ["extended"]
    quotes = parse_page((root / f"{slug}.md").read_text(encoding="utf-8")).quotes()
    assert (kept.doc_id, kept.start, kept.end) in {(q.doc_id, q.start, q.end) for q in quotes} and len(quotes) > 1


def test_pages_that_answer_the_same_thing_are_merged(wiki):
    w = open_wiki(wiki)
    text = w.sources.texts.text("contracts/msa-brightline-logistics")
    quotes = [Quote("contracts/msa-brightline-logistics", a, b, text[a:b]) for a, b in ((48, 142), (8578, 8749))]
    body = "\n\n".join(format_quote(q) for q in quotes) + "\n"
    for slug, title in (("dream-brightline-law", "Brightline law"), ("dream-law-of-the-msa", "Law of the MSA")):
        w.write(Page(slug, title, DREAMER, "Asked once", body=body, aliases=[title + "?"]), agent=DREAMER, session=1)
    outcome, _ = _session(wiki, DreamParams(subjects_per_session=0))  # only keeping its pages distinct
    merged = [c for c in outcome.changes if c.action == "merged"]
    assert len(merged) == 1 and {merged[0].page, merged[0].into} == {"dream-brightline-law", "dream-law-of-the-msa"}
    gone = merged[0].page
    assert not (wiki / f"{gone}.md").exists() and (wiki / "archive" / f"{gone}.md").exists()
    kept = parse_page((wiki / f"{merged[0].into}.md").read_text(encoding="utf-8"))
    assert kept.owner == DREAMER and len(kept.aliases) >= 2


def test_dreaming_stops_at_its_share_of_the_size_limit(wiki):
    before = sorted(p.name for p in wiki.glob("*.md"))
    outcome, _ = _session(wiki, DreamParams(size_share=0.01))
    assert outcome.stopped.startswith("the wiki reached 1% of its size limit")
    assert not outcome.changes and sorted(p.name for p in wiki.glob("*.md")) == before


class _Values:
    """A ValueSource that knows one value: the Brightline MSA's professional indemnity cover."""

    def __init__(self, text: str):
        self.start = text.index("GBP 5,000,000")
        self.end = self.start + len("GBP 5,000,000")
        self.asked: list[str] = []

    def values(self, question, doc_ids):
        self.asked.append(question)
        if "insurance" not in question:
            return []
        return [ValueQuote("contracts/msa-brightline-logistics", self.start, self.end, "professional indemnity cover")]


def test_values_a_source_offers_are_quoted_with_their_label(wiki):
    w = open_wiki(wiki)
    values = _Values(w.sources.texts.text("contracts/msa-brightline-logistics"))
    outcome, _ = _session(wiki, values=values)
    assert set(values.asked) <= set(QUESTIONS) and values.asked
    pages = {c.page for c in outcome.changes if c.action == "wrote"}
    found = [
        (slug, q)
        for slug in pages
        for q in parse_page((wiki / f"{slug}.md").read_text(encoding="utf-8")).quotes()
        if (q.doc_id, q.start) == ("contracts/msa-brightline-logistics", values.start)
    ]
    assert found
    assert "professional indemnity cover:" in (wiki / f"{found[0][0]}.md").read_text(encoding="utf-8")


# --- subjects -------------------------------------------------------------------------------------------


def _aq(question: str, terms: set[str], words: str) -> AskedQuestion:
    return AskedQuestion(question, {}, frozenset(terms), words, question)


def test_questions_that_ask_the_same_thing_are_one_subject():
    a = _aq("What is the term of the Acme lease?", {"term"}, "term")
    b = _aq("What is the term of the Globex lease?", {"term"}, "term")
    c = _aq("Who may terminate the Acme lease early?", {"termin", "earli"}, "terminate early")
    d = _aq("Can the Globex lease be terminated early by the tenant?", {"termin", "earli", "tenant"}, "terminated")
    subjects = group_subjects([a, c, b, d], similarity=0.6)
    assert [len(s.questions) for s in subjects] == [2, 2]
    assert subjects[0].terms == frozenset({"term"}) and subjects[1].words == "terminate early"


def test_a_questions_subject_leaves_out_the_words_that_name_its_document(asked_wiki):
    answerer = Answerer.open(asked_wiki, dense=False)
    question = "What law governs the Fenwick Water master services agreement?"
    scope = answerer.scopes.resolve(question, answerer.page_index.search(question, k=answerer.params.page_hits))
    assert scope.kind == "document" and scope.removed  # the wiki names a document by some of its words
    one = subject_of(question, {}, answerer)
    assert {"law", "govern"} <= one.terms and not one.terms & scope.removed
    assert one.scope_docs == scope.doc_ids
    assert not {w.lower() for w in ("master", "services")} & set(one.asking.lower().split())
    two = subject_of("Which law governs this agreement?", {}, answerer)
    assert "agreement" not in two.terms  # "this agreement": the document in scope, not the subject
    assert two.asking == "Which law governs this agreement?"


def test_a_questions_subject_leaves_out_the_words_that_say_which_documents_it_ranges_over(asked_wiki):
    answerer = Answerer.open(asked_wiki, dense=False)
    many = subject_of("Across all 5 agreements, how many have a confidentiality clause? List them.", {}, answerer)
    one = subject_of("Does this agreement have a confidentiality clause?", {}, answerer)
    assert many.terms == one.terms and not {"5", "mani", "agreement"} & many.terms
    assert group_subjects([many, one], similarity=0.6)[0].questions == [many, one]


def test_a_redacted_secret_and_a_url_in_a_question_are_no_subject(asked_wiki):
    answerer = Answerer.open(asked_wiki, dense=False)
    plain = subject_of("What insurance must the supplier carry?", {}, answerer)
    asked = subject_of(
        "[secret kept out: AWS Access Key] What insurance must the supplier carry? ![p](https://host.example/x.png)",
        {},
        answerer,
    )
    assert asked.terms == plain.terms and "insur" in asked.terms  # not "secret", "kept", "host", "png"


def test_a_subject_is_named_by_the_words_its_quotes_write():
    said = (
        "Either party may terminate this Agreement for convenience on 90 days' notice. TERMINATION FOR "
        "CONVENIENCE. Termination takes effect at the end of the notice period. 공급자는 계약을 해지할 수 있다."
    )
    # a word as the quotes write it, else another form of its stem; the asker's own words are left out
    assert named_by("terminating convenience hunter2 zorblax", said) == "terminate convenience"
    assert named_by("notice period", said) == "notice period"
    assert named_by("script alert onerror AKIAIOSFODNN7EXAMPLE", said) == ""
    assert named_by("계약의 해지 비밀번호", said) == "계약 해지"  # Korean: without the particle, as the text has it


def test_terms_most_subjects_share_are_how_people_ask_not_what():
    subjects = ["audit", "insur", "audit", "escrow", "royalti", "warranti", "audit", "insur", "escrow", "lien"]
    asked = [
        _aq(f"Which of the kind-{i} agreements contain {w}?", {"agreement", "contain", w}, w)
        for i, w in enumerate(subjects)
    ]
    kept = without_common(asked, share=0.3, min_subjects=5, similarity=0.6)
    assert [sorted(q.terms) for q in kept[:2]] == [["audit"], ["insur"]]  # "audit", asked 3 times, stays
    assert [len(s.questions) for s in group_subjects(kept, similarity=0.6)][:3] == [3, 2, 2]
    few = asked[:4]  # too few subjects to tell how people ask
    assert without_common(few, share=0.3, min_subjects=5, similarity=0.6) == few


def test_the_wikis_values_give_the_field_a_question_names_in_every_document(asked_wiki):
    """WikiValues (what dream and build sessions pass): the provisions table's field, each document's value
    with its verified quote, labelled with the field and the value."""
    from wikigen.agents.dream_values import WikiValues

    from wikigen.wiki.provisions import STATED, read_table

    w = open_wiki(asked_wiki)
    found = WikiValues(asked_wiki, w.sources).values("Which law governs this agreement?", [])
    table = read_table(asked_wiki)
    stated = {
        d: c
        for d, row in table.documents.items()
        if (c := (row.get("cells") or {}).get("governing_law") or {}).get("status") == STATED
    }
    assert stated and {v.doc_id for v in found} == set(stated)
    for v in found:
        text = w.sources.texts.read(v.doc_id, v.start, v.end)
        assert [v.start, v.end] == list(stated[v.doc_id]["quote"]) and text.strip()  # Korean contracts too
        assert v.label == f"Governing law: {stated[v.doc_id]['display']}"
