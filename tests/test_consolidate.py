"""Consolidation sessions: merging two pages (archived, redirected, links repaired), the tail a revision
keeps, and the offline build's consolidation actions on the sample corpus, each logged with its reason."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from test_tools import ACME, GLOBEX, TERMINATION, make_world, quote_of
from wikigen.agents.consolidate import ACTIONS, REASONS, RELATED, carry_tail, split_tail

from wikigen import cli
from wikigen.core.errors import OwnershipError
from wikigen.wiki.links import analyze_links, repair_links
from wikigen.wiki.lint import check_wiki
from wikigen.wiki.merge import MERGED_HEADING, merge_pages, read_redirects
from wikigen.wiki.page import parse_page

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "acme"
WARRANTY = "Globex warrants the goods for twelve (12) months."


@pytest.fixture
def two_pages(tmp_path):
    world = make_world(tmp_path, max_ratio=10.0)
    a1, a2 = world.toolbox("agent-1"), world.toolbox("agent-2")
    term = quote_of(ACME, "contracts/acme-msa", TERMINATION)
    warr = quote_of(GLOBEX, "contracts/globex-supply", WARRANTY)
    a1.write_page(
        slug="topic-ending",
        title="Ending the agreement",
        description="How agreements end",
        body=f"Ending.\n\n{term}\n",
        aliases=["Exit"],
    )
    a1.write_page(
        slug="topic-termination",
        title="Termination",
        description="Termination rights",
        body=f"Termination, see [[topic-ending]].\n\n{term}\n\n{warr}\n",
    )
    a2.write_page(slug="topic-notes", title="Notes", description="Links", body="See [[topic-ending|ending]].\n")
    return world


def test_merge_archives_the_page_redirects_and_repairs_links(two_pages):
    world = two_pages
    report = merge_pages(world.wiki, "topic-termination", "topic-ending", agent="agent-1", session=3)
    assert (report.quotes_moved, report.quotes_shared, report.links_repaired) == (0, 1, ["topic-notes"])
    assert not world.wiki.exists("topic-ending")
    archived = parse_page((world.wiki.root / "archive" / "topic-ending.md").read_text(encoding="utf-8"))
    assert archived.status == "deprecated" and archived.body.startswith(
        "Merged into [[topic-termination]] in session 3."
    )
    kept = world.wiki.read("topic-termination")
    assert kept.aliases == ["Ending the agreement", "Exit"]
    assert "[[topic-ending]]" not in kept.body and "see [[topic-termination]]" in kept.body
    assert world.wiki.read("topic-notes").body == "See [[topic-termination|ending]].\n"
    assert world.wiki.read("topic-notes").owner == "agent-2"
    assert read_redirects(world.wiki.root) == {"topic-ending": "topic-termination"}
    assert analyze_links(world.wiki.pages()).broken == []
    # a link written later to the merged page is repaired to the page it went into
    world.toolbox("agent-2").write_page(slug="topic-more", title="More", description="m", body="[[topic-ending]]\n")
    repaired = repair_links(world.wiki, session=4)
    assert [(e.old_target, e.new_target, e.rule) for e in repaired.entries] == [
        ("topic-ending", "topic-termination", "redirect")
    ]


def test_merge_moves_the_quotes_the_kept_page_lacks(two_pages):
    world = two_pages
    report = merge_pages(world.wiki, "topic-ending", "topic-termination", agent="agent-1", session=3)
    assert (report.quotes_moved, report.quotes_shared) == (1, 1)
    body = world.wiki.read("topic-ending").body
    assert f"{MERGED_HEADING}Termination (topic-termination)" in body
    assert WARRANTY in body and body.count(TERMINATION) == 1
    assert world.wiki.read("topic-ending").sources == ["contracts/acme-msa", "contracts/globex-supply"]
    assert check_wiki(world.wiki).counts().get("quote") is None


def test_merge_holds_ownership_and_changes_nothing_when_refused(two_pages):
    world = two_pages
    before = {p.name: p.read_text(encoding="utf-8") for p in world.wiki.root.glob("*.md")}
    with pytest.raises(OwnershipError, match="owned by 'agent-2'"):
        merge_pages(world.wiki, "topic-termination", "topic-notes", agent="agent-1", session=3)
    with pytest.raises(OwnershipError, match="owned by 'agent-1'"):
        merge_pages(world.wiki, "topic-termination", "topic-ending", agent="agent-2", session=3)
    assert {p.name: p.read_text(encoding="utf-8") for p in world.wiki.root.glob("*.md")} == before
    assert not (world.wiki.root / "archive").exists() and read_redirects(world.wiki.root) == {}


def test_two_agents_merging_at_once_both_keep_their_redirect(two_pages, monkeypatch):
    """Two merges at once, each by its own agent: each read of the redirects table waits until the other merge
    has read it too (or half a second has passed), so without the wiki's lock both would read the empty table
    and the second write would drop the first one's redirect."""
    import contextlib
    import threading

    from wikigen.wiki import merge

    world = two_pages
    a2 = world.toolbox("agent-2")
    a2.write_page(slug="topic-a", title="A", description="a", body="A.\n")
    a2.write_page(slug="topic-b", title="B", description="b", body="B, see [[topic-a]].\n")
    both_read = threading.Barrier(2, timeout=0.5)
    real_read = merge.read_redirects

    def read_then_wait(root):
        table = real_read(root)
        with contextlib.suppress(threading.BrokenBarrierError):  # the other merge is held off by the lock: go on
            both_read.wait()
        return table

    monkeypatch.setattr(merge, "read_redirects", read_then_wait)
    errors: list[BaseException] = []

    def run(keep: str, gone: str, agent: str) -> None:
        try:
            merge_pages(world.wiki, keep, gone, agent=agent, session=3)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [
        threading.Thread(target=run, args=("topic-termination", "topic-ending", "agent-1")),
        threading.Thread(target=run, args=("topic-b", "topic-a", "agent-2")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert errors == []
    assert real_read(world.wiki.root) == {"topic-ending": "topic-termination", "topic-a": "topic-b"}


def test_a_revision_keeps_what_consolidation_added():
    old = f"Intro.\n\n> [!quote] d (chars 0-3)\n> abc\n\n{RELATED}[[a]], [[b]]\n\n{MERGED_HEADING}X (x)\n\n> [!quote] d (chars 5-8)\n> fgh\n"
    head, tail = split_tail(old)
    assert head == "Intro.\n\n> [!quote] d (chars 0-3)\n> abc" and tail.startswith(RELATED)
    rebuilt = "Intro, rebuilt.\n\n> [!quote] d (chars 0-3)\n> abc\n"
    assert carry_tail(old, rebuilt) == "Intro, rebuilt.\n\n> [!quote] d (chars 0-3)\n> abc\n\n" + tail + "\n"
    assert carry_tail(rebuilt, old) == old  # a body with its own tail keeps it
    assert carry_tail("plain\n", rebuilt) == rebuilt


@pytest.fixture(scope="module")
def consolidated(tmp_path_factory):
    wiki = tmp_path_factory.mktemp("consolidate") / "wiki"
    assert (
        cli.main(
            [
                "build",
                str(SAMPLE),
                "--wiki",
                str(wiki),
                "--agents",
                "2",
                "--sessions",
                "6",
                "--quiet",
                "--max-ratio",
                "1.5",
            ]
        )
        == 0
    )  # room to grow: the fact sheets fill acme to 0.6 of a 1.0 limit
    return wiki


def _entries(wiki: Path) -> list[dict]:
    lines = (wiki / ".wikigen" / "progress.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_sessions_with_nothing_new_consolidate_and_log_each_action_with_its_reason(consolidated):
    entries = _entries(consolidated)
    acts = [e for e in entries if isinstance(e.get("consolidation"), str)]
    assert acts, "no consolidation was logged"
    for e in acts:
        assert e["action"] == f"consolidation: {e['consolidation']}" and e["reason"] == REASONS[e["consolidation"]]
        assert e["agent"].startswith("agent-")
    first = min(e["session"] for e in acts)
    # a consolidation happens only once the agent wrote nothing new in the session
    for e in acts:
        same = [x for x in entries if x["session"] == e["session"] and x["agent"] == e["agent"]]
        assert not any(x["action"] in ("wrote topic pages", "wrote document pages", "revised pages") for x in same)
    kinds = {e["consolidation"] for e in acts}
    assert {"relate", "extend"} <= kinds
    # "describe" fills empty descriptions; document pages now get theirs from the fact sheet when written,
    # so it acts only where a page still has none. Either way no page is left without one.
    from wikigen.search.sources import open_wiki

    assert all(p.description.strip() for p in open_wiki(consolidated).pages() if p.status != "deprecated")
    assert not any(e["consolidation"] == "reverify" for e in acts)  # logged alone only when a quote failed
    finished = [e for e in entries if e["action"] == "session finished" and e.get("consolidation")]
    assert finished and all(set(e["consolidation"]) <= set(ACTIONS) for e in finished)
    assert any(e["consolidation"].get("reverify", 0) > 0 for e in finished)  # quotes re-read
    assert first >= 2


def test_consolidation_densifies_links_and_never_deletes(consolidated):
    from wikigen.search.sources import open_wiki

    summaries = [e for e in _entries(consolidated) if e["action"] == "session summary"]
    pages = [e["n_pages"] for e in summaries]
    quotes = [e["quotes"] for e in summaries]
    assert quotes == sorted(quotes) and quotes[-1] > quotes[1]  # extended, and no revision took quotes back
    assert all(e["wiki_chars"] <= e["max_ratio"] * e["corpus_chars"] for e in summaries)
    archived = (
        {p.stem for p in (consolidated / "archive").glob("*.md")} if (consolidated / "archive").exists() else set()
    )
    assert all(b >= a - len(archived) for a, b in itertools.pairwise(pages))
    wiki = open_wiki(consolidated)
    assert check_wiki(wiki).ok
    related = [p for p in wiki.pages() if RELATED in p.body]
    assert related, "no page gained related links"
    links_now = analyze_links(wiki.pages()).links
    import subprocess

    from wikigen.wiki.history import rollback_to_session  # noqa: F401  (the history is in git: compare with it)
    from wikigen.wiki.page import is_reserved

    first = min(
        e["session"]
        for e in _entries(consolidated)
        if e.get("consolidation") == "relate" and isinstance(e.get("consolidation"), str)
    )
    out = subprocess.run(
        ["git", "-C", str(consolidated), "log", "--format=%H %s"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    before = next(h for h, s in (line.split(" ", 1) for line in out) if s.startswith(f"session {first - 1}:"))
    files = subprocess.run(
        ["git", "-C", str(consolidated), "ls-tree", "--name-only", before], capture_output=True, text=True, check=True
    ).stdout.split()
    old_pages = []
    for name in files:
        if name.endswith(".md") and not is_reserved(name[:-3]):  # generated files are no pages
            text = subprocess.run(
                ["git", "-C", str(consolidated), "show", f"{before}:{name}"], capture_output=True, text=True, check=True
            ).stdout
            old_pages.append(parse_page(text))
    assert links_now > analyze_links(old_pages).links  # the graph densified
    for p in wiki.pages():
        if p.type == "document":
            assert p.description, f"{p.slug}: description still empty"


def test_prune_drops_only_unreached_quotes_and_only_when_the_budget_is_tight(tmp_path):
    from wikigen.agents.consolidate import Consolidator, dropped_spans

    world = make_world(tmp_path, max_ratio=10.0)
    tools = world.toolbox("agent-1", 3)
    term = quote_of(ACME, "contracts/acme-msa", TERMINATION)
    warr = quote_of(GLOBEX, "contracts/globex-supply", WARRANTY)
    tools.write_page(slug="topic-termination", title="Termination", description="d", body=f"T.\n\n{term}\n\n{warr}\n")
    before = world.wiki.read("topic-termination").body
    assert Consolidator(tools, "agent-1", 3).run().get("prune", 0) == 0  # not tight: nothing dropped
    assert world.wiki.read("topic-termination").body.count("[!quote]") == 2
    chars, _ = world.wiki.size_now()
    world.wiki.max_ratio = chars / world.index.corpus_chars / 0.95  # the wiki is at 95% of its limit
    counts = Consolidator(tools, "agent-1", 3).run()
    assert counts.get("prune") == 1
    body = world.wiki.read("topic-termination").body
    assert TERMINATION in body and WARRANTY not in body and body != before
    [entry] = [e for e in world.log.read().entries if e.get("consolidation") == "prune"]
    assert entry["reason"] == REASONS["prune"] and entry["pages"] == ["topic-termination"]
    start = GLOBEX.index(WARRANTY)
    assert dropped_spans(tools) == {("contracts/globex-supply", start, start + len(WARRANTY))}


def test_move_takes_a_quote_to_the_page_whose_subject_it_says_and_logs_it(tmp_path):
    from wikigen.agents.consolidate import FURTHER, Consolidator

    world = make_world(tmp_path, max_ratio=10.0)
    tools = world.toolbox("agent-1", 3)
    term = quote_of(ACME, "contracts/acme-msa", TERMINATION)
    said = "Warranty. Globex warrants the goods for twelve (12) months."
    warr = quote_of(GLOBEX, "contracts/globex-supply", said)
    fees = quote_of(ACME, "contracts/acme-msa", "Acme shall pay the fees within thirty (30) days of invoice.")
    tools.write_page(
        slug="doc-contracts-globex-supply",
        title="Globex supply",
        description="d",
        type="document",
        body=f"Supply.\n\n{warr}\n",
        sources=["contracts/globex-supply"],
    )
    # the quote sits in the tail of the termination page (consolidation placed it) and says "Warranty"
    tools.write_page(
        slug="topic-termination",
        title="Termination",
        description="d",
        body=f"T.\n\n{term}\n\n{FURTHER}\n\n## [[doc-contracts-globex-supply]]\n\n{warr}\n",
    )
    tools.write_page(slug="topic-warranty", title="Warranty", description="d", body=f"W.\n\n{fees}\n")
    # another agent's page is never a target, and a quote in a page's head never moves
    world.toolbox("agent-2", 3).write_page(
        slug="topic-warranties", title="Globex warrants the goods", description="d", body=f"X.\n\n{fees}\n"
    )
    c = Consolidator(tools, "agent-1", 3)
    c.load()
    c.move()
    assert c.counts["move"] == 1
    left, got = world.wiki.read("topic-termination"), world.wiki.read("topic-warranty")
    assert said not in left.body and TERMINATION in left.body and "doc-contracts-globex-supply" not in left.body
    assert said in got.body and "## [[doc-contracts-globex-supply]]" in got.body
    assert "contracts/globex-supply" in got.sources and "contracts/globex-supply" not in left.sources
    assert said not in world.wiki.read("topic-warranties").body
    [entry] = [e for e in world.log.read().entries if e.get("consolidation") == "move"]
    start = GLOBEX.index(said)
    assert entry["reason"] == REASONS["move"] and entry["quotes_moved"] == 1
    assert entry["moved"] == [f"contracts/globex-supply|{start}|{start + len(said)}|topic-termination|topic-warranty"]
    assert c._moved_from() == {"topic-termination": {"contracts/globex-supply"}}  # extend never brings it back
    assert check_wiki(world.wiki).counts().get("quote") is None
    # nothing more to move: a second pass changes nothing
    again = Consolidator(tools, "agent-1", 4)
    again.load()
    again.move()
    assert again.counts["move"] == 0 and world.wiki.read("topic-warranty").body == got.body


def test_extend_finds_the_documents_that_say_the_pages_subject(tmp_path):
    from wikigen.agents.consolidate import Consolidator

    world = make_world(tmp_path, max_ratio=10.0)
    tools = world.toolbox("agent-1", 3)
    term = quote_of(ACME, "contracts/acme-msa", TERMINATION)
    tools.write_page(slug="topic-termination", title="Termination", description="d", body=f"T.\n\n{term}\n")
    c = Consolidator(tools, "agent-1", 3)
    c.load()
    page = c.pages["topic-termination"]
    found = c._said(page, {"contracts/acme-msa"}, 8)
    assert [d for d, _, _ in found] == ["contracts/globex-supply"]  # the quoted document is not offered again
    _, start, end = found[0]
    said = GLOBEX[start:end]
    assert said.startswith("Termination.") and "terminate this supply agreement" in said and "Warranty" not in said
    assert c._said(page, {"contracts/acme-msa", "contracts/globex-supply"}, 8) == []
    # a page whose subject no other document says finds nothing
    tools.write_page(slug="topic-fees", title="Fees", description="d", body=f"F.\n\n{term}\n")
    c.load()
    assert c._said(c.pages["topic-fees"], {"contracts/acme-msa"}, 8) == []
