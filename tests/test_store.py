import json

import pytest
from wiki_helpers import all_files, make_index, page, quote_body, quote_of

from wikigen.core.errors import OwnershipError, PageError, QuoteError, SizeLimitError
from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import Page, parse_page
from wikigen.wiki.store import Wiki


@pytest.fixture
def index(tmp_path):
    return make_index(tmp_path)


@pytest.fixture
def wiki(tmp_path, index):
    return Wiki.create(tmp_path / "wiki", index, max_ratio=1.0)


def test_create_layout(wiki, index):
    cfg = json.loads((wiki.root / ".wikigen" / "config.json").read_text())
    assert cfg["max_ratio"] == 1.0 and cfg["index_dir"] == str(index.root.resolve())
    assert (wiki.root / ".git").is_dir() and ".wikigen/locks/" in (wiki.root / ".gitignore").read_text()


def test_write_read(wiki, index):
    q = quote_of(
        index, "contracts/acme-msa", "Either party may terminate this Agreement\nupon ninety (90) days' written notice."
    )
    res = wiki.write(page("termination", body=quote_body(q)), agent="alice", session=2)
    assert res.created and res.path == wiki.root / "termination.md"
    p = wiki.read("termination")
    assert p.owner == "alice" and p.created_session == 2 and p.updated_session == 2 and p.quotes() == [q]
    wiki.write(p.with_(body=p.body + "More.\n"), agent="alice", session=5)
    p2 = wiki.read("termination")
    assert (p2.created_session, p2.updated_session) == (2, 5)
    assert wiki.slugs() == ["termination"] and wiki.exists("termination") and not wiki.exists("../x")
    assert [x.slug for x in wiki.pages()] == ["termination"]


def test_write_reanchors_drifted_quote(wiki, index):
    q = quote_of(index, "kr/contract", "계약 기간은 1년으로 한다.")
    drifted = Quote(q.doc_id, q.start + 4, q.end + 4, q.text)
    res = wiki.write(page("term-kr", body=quote_body(drifted)), agent="alice", session=1)
    assert [c.status for c in res.reanchored] == ["reanchored"]
    assert wiki.read("term-kr").quotes() == [q]


def test_fabricated_quote_writes_nothing(wiki, index, tmp_path):
    good = quote_of(index, "memos/budget", "The budget is approved\nfor fiscal year 2025.")
    bad = Quote("memos/budget", 0, 40, "The budget is approved for fiscal year 2026.")
    before = all_files(tmp_path)
    with pytest.raises(
        QuoteError, match=r"memos/budget \(chars 0-40\) \"The budget is approved for fiscal year 2026.\""
    ):
        wiki.write(page("budget", body=quote_body(good, bad)), agent="alice", session=1)
    assert all_files(tmp_path) == before and not wiki.exists("budget")
    # an existing page is left exactly as it was
    wiki.write(page("budget", body=quote_body(good)), agent="alice", session=1)
    text = (wiki.root / "budget.md").read_text()
    with pytest.raises(QuoteError):
        wiki.write(page("budget", body=quote_body(good, bad)), agent="alice", session=2)
    assert (wiki.root / "budget.md").read_text() == text


def test_unknown_doc_and_malformed_header(wiki):
    with pytest.raises(QuoteError, match="unknown document 'nope'"):
        wiki.write(page("x", body=format_quote(Quote("nope", 0, 3, "abc")) + "\n"), agent="alice", session=1)
    with pytest.raises(PageError, match="malformed quote header"):
        wiki.write(page("x", body="> [!quote] memos/budget chars 0-3\n> Lin\n"), agent="alice", session=1)
    assert wiki.slugs() == []


def test_ownership(wiki):
    wiki.write(page("alices", body="A.\n"), agent="alice", session=1)
    with pytest.raises(OwnershipError, match="page 'alices' is owned by 'alice'; agent 'bob' may change only its own"):
        wiki.write(page("alices", owner="bob", body="B.\n"), agent="bob", session=1)
    with pytest.raises(OwnershipError, match="as owner 'alice'"):
        wiki.write(page("alices", owner="alice", body="B.\n"), agent="bob", session=1)
    with pytest.raises(OwnershipError):
        wiki.write(page("new-one", owner="alice", body="B.\n"), agent="bob", session=1)
    assert wiki.read("alices").body == "A.\n"
    # an empty owner becomes the writing agent
    wiki.write(page("bobs", owner="", body="B.\n"), agent="bob", session=1)
    assert wiki.read("bobs").owner == "bob"


@pytest.mark.parametrize(
    "slug",
    [
        "../x",
        "/etc/passwd",
        "a/b",
        "",
        "Ünïcode",
        "u\u0308_x",
        "..",
        "index",
        "index-a",
        "log",
        "../../etc/cron.d/x",
        "A",
    ],
)
def test_bad_slug_writes_nothing_anywhere(wiki, tmp_path, slug):
    before = all_files(tmp_path)
    with pytest.raises(PageError):
        wiki.write(Page(slug=slug, title="t", owner="alice", description="d", body="x\n"), agent="alice", session=1)
    assert all_files(tmp_path) == before
    assert not (tmp_path / "x.md").exists() and not (tmp_path / "x").exists()


@pytest.mark.parametrize("agent", ["", "../evil", "a b", "x/y"])
def test_bad_agent(wiki, agent):
    with pytest.raises(PageError, match="bad agent name"):
        wiki.write(page("p", owner=agent), agent=agent, session=1)


def test_read_missing_and_reserved(wiki):
    with pytest.raises(PageError, match="no page 'missing'"):
        wiki.read("missing")
    with pytest.raises(PageError, match="reserved"):
        wiki.read("index")


def test_size_limit_refuses_write(tmp_path):
    idx = make_index(tmp_path, {"d": "x" * 2000})
    wiki = Wiki.create(tmp_path / "wiki", idx, max_ratio=1.0)
    wiki.write(page("a", body="y" * 1200 + "\n"), agent="alice", session=1)
    before = all_files(tmp_path)
    with pytest.raises(SizeLimitError) as e:
        wiki.write(page("b", owner="bob", body="z" * 900 + "\n"), agent="bob", session=1)
    assert "would make the wiki" in str(e.value) and "the limit is 1.00x" in str(e.value)
    assert "1.20x the corpus (2,000)" in str(e.value) and all_files(tmp_path) == before
    # shrinking is always allowed; then the other write fits
    wiki.write(page("a", body="y" * 100 + "\n"), agent="alice", session=2)
    wiki.write(page("b", owner="bob", body="z" * 900 + "\n"), agent="bob", session=2)


def test_open_reads_config_and_opens_index_lazily(tmp_path, index, monkeypatch):
    Wiki.create(tmp_path / "wiki", index, max_ratio=2.5)
    opened = []

    def open_sources(path):
        opened.append(path)
        return index

    w = Wiki.open(tmp_path / "wiki", open_sources=open_sources)
    assert w.max_ratio == 2.5 and opened == []
    w.write(page("p", body="x\n"), agent="alice", session=1)
    assert opened == [index.root.resolve()]


def test_open_not_a_wiki(tmp_path):
    with pytest.raises(Exception, match="is not a wiki"):
        Wiki.open(tmp_path)


def test_page_file_is_parseable_markdown(wiki):
    wiki.write(page("p", body="Hello [[q]].\n"), agent="alice", session=1)
    assert parse_page((wiki.root / "p.md").read_text()).links() == ["q"]


def test_size_check_sees_writes_by_another_wiki_object_and_files_written_behind_it(tmp_path):
    """The size check keeps the files' sizes between writes; a write through another Wiki (another
    process) bumps the shared generation, and a file written behind it is caught near the limit."""
    idx = make_index(tmp_path, {"d": "x" * 10_000})
    one = Wiki.create(tmp_path / "wiki", idx, max_ratio=1.0)
    two = Wiki.open(tmp_path / "wiki", idx)
    one.write(page("a", body="y" * 3000 + "\n"), agent="alice", session=1)
    two.write(page("b", owner="bob", body="z" * 3000 + "\n"), agent="bob", session=1)  # one's view is stale
    with pytest.raises(SizeLimitError):
        one.write(page("c", body="w" * 4000 + "\n"), agent="alice", session=1)
    (tmp_path / "wiki" / "notes.md").write_text("n" * 3000)  # not through write(): near the limit, rescanned
    with pytest.raises(SizeLimitError):
        one.write(page("c", body="w" * 700 + "\n"), agent="alice", session=1)
    one.files_changed()
    total, _ = one._size.sizes_for_write("c.md")
    assert total == one._size.total_chars()
