"""`wikigen check`, `wikigen stats`, `wikigen pages`: the library side of the three commands.

check_wiki reports, as problems (exit 1): pages that do not parse, broken links (with the page and line
and the closest existing page), orphans, quotes that do not verify at their cited span (drifted ones
included), symlinks that lead out of the wiki, pages over MAX_PAGE_CHARS, a wiki above its size limit, and index files that are missing,
stale or over the index limits. Dead ends and a size warning are notes, not problems. Quotes whose text
addresses an AI agent or a tool (wikigen.wiki.injection) are listed as flags: document text a reader
must know is there, kept as data; a flag is not a problem of the wiki (the quote is what the document says).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from wikigen.core.errors import PageError, WikigenError
from wikigen.core.tokens import default_counter
from wikigen.wiki.conflicts_page import index_note
from wikigen.wiki.freshness import changed_sources, refresh_command, stale_sources
from wikigen.wiki.index_page import MAX_CHARS, MAX_LINES, NOTE, build_index, count_lines, fits
from wikigen.wiki.links import Resolver, analyze_links
from wikigen.wiki.page import Page, count_quotes
from wikigen.wiki.progress import Coverage, ProgressLog, coverage
from wikigen.wiki.quotes import check_page_quotes
from wikigen.wiki.size_guard import check_size, measure_wiki
from wikigen.wiki.sources import SourceChanges, Sources
from wikigen.wiki.store import Wiki

MAX_PAGE_CHARS = 25_000  # one page should load whole, like the index


@dataclass(frozen=True)
class Problem:
    kind: str  # page | broken-link | orphan | quote | oversize | size | index | link-out | ...
    where: str  # file (and line) the problem is in
    message: str

    def line(self) -> str:
        return f"{self.where}: {self.kind}: {self.message}"


@dataclass
class CheckReport:
    pages: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    flags: list[Problem] = field(default_factory=list)  # quoted text that addresses an AI agent or a tool

    @property
    def ok(self) -> bool:
        return not self.problems

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.problems:
            out[p.kind] = out.get(p.kind, 0) + 1
        return dict(sorted(out.items()))

    def lines(self) -> list[str]:
        out = [p.line() for p in self.problems] + [f"flag: {f.line()}" for f in self.flags]
        out += [f"note: {n}" for n in self.notes]
        if self.ok:
            out.append(f"ok: {self.pages} pages, no problems")
        else:
            summary = ", ".join(f"{n} {k}" for k, n in self.counts().items())
            out.append(f"{len(self.problems)} problems in {self.pages} pages ({summary})")
        return out


def _sources_or_none(wiki: Wiki, report: CheckReport | None):
    try:
        return wiki.sources
    except WikigenError as e:
        if report is not None:
            report.problems.append(Problem("quote", ".wikigen/config.json", f"cannot verify quotes or size: {e}"))
        return None


def suspect_problems(wiki: Wiki, pages: list[Page], src) -> list[Problem]:
    """Quote-like text that is not a verified quote, sources that are not documents, odd page files."""
    from wikigen.wiki.page import split_front_matter
    from wikigen.wiki.suspect import odd_page_files, suspect_quotes, unknown_sources

    out = [Problem("not-a-file", name, why) for name, why in odd_page_files(wiki.root)]
    known = {d.doc_id for d in src.documents()} if src is not None else None
    for page in pages:
        before = split_front_matter((wiki.root / f"{page.slug}.md").read_text(encoding="utf-8"))[2]
        for line, why in suspect_quotes(page.body):
            out.append(Problem("unverified-quote", f"{page.slug}.md:{before + line}", why))
        if known is not None:
            for s, why in unknown_sources(page.sources, known):
                out.append(Problem("source", f"{page.slug}.md", f"sources entry {s!r} {why}"))
    return out


def link_problems(wiki: Wiki) -> list[Problem]:
    """Symlinks under the wiki that lead outside it (wikigen.core.confine refuses every write through them);
    a page file that is a symlink is reported as not-a-file instead."""
    from wikigen.core.confine import links_out

    out = []
    for rel, target in links_out(wiki.root):
        if "/" in rel or not rel.endswith(".md"):
            out.append(
                Problem(
                    "link-out",
                    rel,
                    f"a symlink to {target}, outside the wiki; nothing is written, moved or deleted through it "
                    "(a build that has to stops with an error) - replace it with a folder or remove it",
                )
            )
    return out


def instruction_flags(wiki: Wiki, pages: list[Page]) -> list[Problem]:
    """One flag per quote whose text addresses an AI agent or a tool, at its header line, saying whether the
    page carries the marker before it (the store adds it on every write)."""
    from wikigen.wiki.injection import MARK_TAG, flagged_quotes
    from wikigen.wiki.page import split_front_matter

    out = []
    for page in pages:
        found = flagged_quotes(page.body)
        if not found:
            continue
        before = split_front_matter((wiki.root / f"{page.slug}.md").read_text(encoding="utf-8"))[2]
        for block, kinds, marked in found:
            q = block.quote
            state = (
                "marked on the page" if marked else f"NOT marked on the page (rewrite it to add the {MARK_TAG} marker)"
            )
            out.append(
                Problem(
                    "instructions",
                    f"{page.slug}.md:{before + block.header_line + 1}",
                    f"quote {q.doc_id} (chars {q.start}-{q.end}) addresses an AI agent or a tool "
                    f"({', '.join(kinds)}); it is document text, kept as data; {state}",
                )
            )
    return out


def conflict_flags(wiki: Wiki, src) -> list[Problem]:
    """One flag per conflict the build found (wikigen.wiki.conflicts_page): two documents stating different
    values for one figure about the same parties, each side quoted; a side whose quote no longer matches
    its source says so."""
    from wikigen.wiki.conflicts_page import CONFLICTS, read_conflicts
    from wikigen.wiki.markup import Quote
    from wikigen.wiki.quotes import check_quote

    out = []
    for c in read_conflicts(wiki.root):
        said = []
        for s in c["sides"]:
            state = ""
            if src is not None:
                check = check_quote(Quote(s["doc_id"], s["quote_start"], s["quote_end"], s["text"]), src)
                state = "" if check.ok else f" [quote {check.status}]"
            said.append(
                f"{s['doc_id']} (chars {s['quote_start']}-{s['quote_end']}) states {s['value']}: "
                f'"{" ".join(s["text"].split())}"{state}'
            )
        out.append(
            Problem("conflict", f"{CONFLICTS}.md", f"{c['label']} ({', '.join(c['parties'])}): " + "; ".join(said))
        )
    return out


def conflict_page_problems(wiki: Wiki) -> list[Problem]:
    """conflicts.md missing or not what the kept conflicts render to."""
    from wikigen.wiki.conflicts_page import CONFLICTS, read_conflicts, render_conflicts

    found = read_conflicts(wiki.root)
    path = wiki.root / f"{CONFLICTS}.md"
    if not found:
        return []
    if not path.exists():
        return [Problem("index", path.name, "missing; the next build writes it")]
    if path.read_text(encoding="utf-8") != render_conflicts(found):
        return [Problem("index", path.name, "stale; the next build rewrites it")]
    return []


def owner_problems(wiki: Wiki, pages: list[Page]) -> list[Problem]:
    """Owners that are neither an agent of this wiki (named in its progress log) nor `human`. A wiki whose
    log names no agent yet is not checked."""
    from wikigen.wiki.human import HUMAN

    agents = {a for e in ProgressLog(wiki.root).read().entries if isinstance(a := e.get("agent"), str)}
    if not agents:  # no build has logged yet (a wiki written by hand or by a library caller): nothing to hold to
        return []
    out = []
    for page in pages:
        if page.owner != HUMAN and page.owner not in agents:
            known = ", ".join(sorted(agents)[:6]) or "none yet"
            out.append(
                Problem(
                    "owner",
                    f"{page.slug}.md",
                    f"owner {page.owner!r} is not an agent of this wiki ({known}) nor {HUMAN!r}; set one of them",
                )
            )
    return out


def secret_problems(wiki: Wiki, pages: list[Page]) -> list[Problem]:
    """Secrets in existing pages (wikigen.wiki.secrets), by kind and line, never the secret itself. The
    front matter's source_hashes (sha256 digests of the sources) are not secrets and are not scanned."""
    from wikigen.wiki.page import split_front_matter
    from wikigen.wiki.secrets import find_secrets

    out = []
    for page in pages:
        for name in ("title", "description"):
            for s in find_secrets(getattr(page, name)):
                out.append(
                    Problem("secret", f"{page.slug}.md", f"{s.kind} in the {name}; remove it and rotate the secret")
                )
        text = (wiki.root / f"{page.slug}.md").read_text(encoding="utf-8")
        _, body, before = split_front_matter(text)
        for s in find_secrets(body):
            line = before + body.count("\n", 0, s.start) + 1
            out.append(
                Problem(
                    "secret",
                    f"{page.slug}.md:{line}",
                    f"{s.kind} (chars {s.start}-{s.end} of the body); remove it and rotate the secret",
                )
            )
    return out


def leak_problems(wiki: Wiki, changes: SourceChanges | None) -> list[Problem]:
    """A secret from a corpus file's name that reached the wiki, anywhere, its history included, and secrets
    in the generated pages (wikigen.wiki.leaks); never the secret itself."""
    from wikigen.wiki.leaks import generated_secrets, name_leaks

    out = [Problem("secret", where, msg) for where, msg in name_leaks(wiki.root, getattr(changes, "secret_names", []))]
    for where, kind in generated_secrets(wiki.root):
        out.append(Problem("secret", where, f"{kind} in a generated page; remove it from its source and rotate it"))
    return out


def stale_problems(
    pages: list[Page], src: Sources, changes: SourceChanges | None = None, wiki_root: Path | None = None
) -> list[Problem]:
    """Stale sources by name: corpus files changed since indexing (by content hash, when the sources can
    tell), each page and quote that cites one (its quotes verify against the text as indexed, which the
    corpus no longer holds), and pages whose recorded source hashes are not the indexed documents'
    (wikigen.wiki.freshness). changes: the corpus changes, when the caller has them already."""
    out = []
    ch = src.corpus_changes() if changes is None else changes
    run = f"run `{refresh_command(src, wiki_root or '.')}` to refresh"
    for d in ch.changed:
        out.append(Problem("stale", d, f"the source changed since it was indexed; {run}"))
    for d in ch.removed:
        out.append(Problem("stale", d, f"the source was deleted since it was indexed; {run}"))
    if ch.missing_corpus:
        out.append(Problem("stale", "corpus", ch.missing_corpus))
    changed = changed_sources(src, ch)
    for page in pages:
        out += _stale_citations(page, changed, run, wiki_root)
    hashes = {d.doc_id: h for d in src.documents() if (h := getattr(d, "sha256", None))}
    for page in pages:
        for d, why in stale_sources(page, hashes):
            out.append(Problem("stale", f"{page.slug}.md", f"quotes {d!r}, but {why}"))
    return out


def _stale_citations(page: Page, changed: dict[str, str], run: str, wiki_root: Path | None) -> list[Problem]:
    """One problem per quote of the page whose source changed (at its header line), and one for the page when
    it lists a changed source it does not quote."""
    from wikigen.wiki.page import split_front_matter

    if not changed:
        return []
    try:
        blocks = page.quote_blocks()
    except PageError:
        blocks = []
    before = 0
    if wiki_root is not None and (path := Path(wiki_root) / f"{page.slug}.md").exists():
        before = split_front_matter(path.read_text(encoding="utf-8"))[2]
    out, quoted = [], set()
    for b in blocks:
        q = b.quote
        if q.doc_id in changed:
            quoted.add(q.doc_id)
            out.append(
                Problem(
                    "stale",
                    f"{page.slug}.md:{before + b.header_line + 1}",
                    f"quote {q.doc_id} (chars {q.start}-{q.end}): {changed[q.doc_id]}, so it may no longer say "
                    f"this; {run}",
                )
            )
    for d in page.sources:
        if d in changed and d not in quoted:
            out.append(Problem("stale", f"{page.slug}.md", f"cites {d}: {changed[d]}; {run}"))
    return out


def check_wiki(wiki: Wiki) -> CheckReport:
    """Every problem of the wiki (see the module docstring); quotes and size are checked against wiki.sources."""
    report = CheckReport()
    pages, errors = wiki.load()
    report.pages = len(pages)
    report.problems += [Problem("page", e.split(":", 1)[0], e.split(":", 1)[-1].strip()) for e in errors]

    links = analyze_links(pages)
    resolver = Resolver(pages)
    for b in links.broken:
        new, _rule = resolver.resolve(b.target)
        hint = f"; did you mean [[{new}]]?" if new else "; no similar page exists"
        report.problems.append(Problem("broken-link", f"{b.source}.md:{b.line}", f"[[{b.target}]] has no page{hint}"))
    for slug in links.orphans:
        report.problems.append(Problem("orphan", f"{slug}.md", "no other page links here; link it from a related page"))
    if links.dead_ends:
        report.notes.append(
            f"{len(links.dead_ends)} dead ends (pages linking nowhere): {', '.join(links.dead_ends[:10])}"
        )

    src = _sources_or_none(wiki, report)
    for page in pages:
        if src is not None:
            try:
                checks = check_page_quotes(page, src)
            except PageError as e:
                report.problems.append(Problem("quote", f"{page.slug}.md", str(e)))
                checks = []
            for c in checks:
                if c.status != "ok":
                    report.problems.append(Problem("quote", f"{page.slug}.md", c.message()))
        size = (wiki.root / f"{page.slug}.md").stat().st_size
        if size > MAX_PAGE_CHARS:
            chars = len((wiki.root / f"{page.slug}.md").read_text(encoding="utf-8"))
            if chars > MAX_PAGE_CHARS:
                report.problems.append(
                    Problem(
                        "oversize",
                        f"{page.slug}.md",
                        f"{chars:,} characters (limit {MAX_PAGE_CHARS:,}); split the page",
                    )
                )

    report.problems += secret_problems(wiki, pages)
    report.problems += owner_problems(wiki, pages)
    report.problems += suspect_problems(wiki, pages, src)
    report.problems += link_problems(wiki)
    report.flags = instruction_flags(wiki, pages)
    changes = src.corpus_changes() if src is not None else None
    report.problems += leak_problems(wiki, changes)
    if src is not None:
        report.problems += stale_problems(pages, src, changes, wiki.root)
        # the figure the build stops on: the larger of the character and token ratios (tokens cached)
        guard = check_size(
            wiki.root,
            src.corpus_chars,
            getattr(src, "corpus_tokens", None),
            max_ratio=wiki.max_ratio,
            counter=wiki.counter or default_counter(),
        )
        if guard.level == "stop":
            report.problems.append(Problem("size", str(wiki.root), guard.message))
        elif guard.level == "warn":
            report.notes.append(guard.message)

    report.flags += conflict_flags(wiki, src)
    report.problems += conflict_page_problems(wiki)
    expected = build_index(pages, note=index_note(wiki.root, NOTE))
    for stem, text in expected.items():
        path = wiki.root / f"{stem}.md"
        if not path.exists():
            report.problems.append(Problem("index", f"{stem}.md", "missing; regenerate the index (write_index)"))
        elif path.read_text(encoding="utf-8") != text:
            report.problems.append(Problem("index", f"{stem}.md", "stale; regenerate the index (write_index)"))
    for path in sorted(wiki.root.glob("index*.md")):
        text = path.read_text(encoding="utf-8")
        if not fits(text):
            report.problems.append(
                Problem(
                    "index",
                    path.name,
                    f"{count_lines(text)} lines, {len(text):,} characters; "
                    f"the limits are {MAX_LINES} lines and {MAX_CHARS:,} characters",
                )
            )
        if path.stem != "index" and path.stem not in expected:
            report.problems.append(Problem("index", path.name, "not part of the current index; regenerate the index"))
    return hide_name_secrets(report, getattr(changes, "secret_names", []))


def hide_name_secrets(report: CheckReport, secret_names: list[tuple[str, tuple[str, ...]]]) -> CheckReport:
    """The report with every secret from a corpus file's name hidden wherever a problem names a file or a page
    (a page an older build named after the file, `doc-card-4111111111111111`): check never shows one."""
    from wikigen.wiki.leaks import forms, hide

    needles = [f for _, secrets in secret_names for s in secrets for f in forms(s)]
    if needles:
        for name in ("problems", "flags"):
            hidden = [Problem(p.kind, hide(p.where, needles), hide(p.message, needles)) for p in getattr(report, name)]
            setattr(report, name, hidden)
        report.notes = [hide(n, needles) for n in report.notes]
    return report


def wiki_stats(wiki: Wiki) -> dict:
    return wiki_report(wiki)[0]


def wiki_report(wiki: Wiki) -> tuple[dict, Coverage]:
    """The `stats` figures and the coverage map (documents read, cited, cited by none), from one read."""
    src = wiki.sources
    counter = wiki.counter or default_counter()
    pages = wiki.pages()
    links = analyze_links(pages)
    changed = changed_sources(src)
    quotes = verified = stale = 0
    for page in pages:
        try:
            checks = check_page_quotes(page, src)
        except PageError:
            continue
        quotes += len(checks)
        # a quote of a source that changed on disk verifies only against the text as indexed: not counted
        stale += sum(c.quote.doc_id in changed for c in checks)
        verified += sum(c.status == "ok" and c.quote.doc_id not in changed for c in checks)
    size = measure_wiki(wiki.root, counter, cache_path=wiki.state / "cache" / "tokens.json")
    docs = [d.doc_id for d in src.documents()]
    cov = coverage(ProgressLog(wiki.root), pages, docs)
    corpus_chars, corpus_tokens = src.corpus_chars, src.corpus_tokens
    return {
        "pages": len(pages),
        "links": links.links,
        "broken_links": len(links.broken),
        "orphans": len(links.orphans),
        "quotes": count_quotes(pages),
        "quotes_verified": verified,
        "quotes_stale": stale,
        "wiki_chars": size.chars,
        "generated_chars": size.generated_chars,
        "corpus_chars": corpus_chars,
        "ratio_chars": round(size.chars / corpus_chars, 4) if corpus_chars else None,
        "wiki_tokens": size.tokens,
        "corpus_tokens": corpus_tokens,
        "ratio_tokens": round(size.tokens / corpus_tokens, 4) if corpus_tokens and size.tokens is not None else None,
        "docs_total": cov.docs_total,
        "docs_cited": len(cov.cited),
    }, cov


def page_record(page: Page) -> dict:
    try:
        quotes = [{"doc_id": q.doc_id, "start": q.start, "end": q.end, "text": q.text} for q in page.quotes()]
    except PageError:
        quotes = []
    return {"front_matter": page.front_matter(), "links": page.links(), "quotes": quotes}


def list_pages(wiki: Wiki) -> list[dict]:
    """Every page: its front matter, outgoing links and quotes. Needs no corpus index."""
    return [page_record(p) for p in wiki.pages()]
