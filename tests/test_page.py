import pytest

from wikigen.core.errors import PageError
from wikigen.wiki.markup import Quote, explicit_quotes, format_quote, scan_quotes
from wikigen.wiki.page import Page, parse_page, render_page, validate_owner, validate_slug


def sample() -> Page:
    body = (
        "Intro with [[other-page]] and [[acme|the MSA]].\n\n"
        + format_quote(Quote("contracts/acme-msa", 120, 180, "Either party may terminate\n\nupon notice."))
        + "\n\n"
        + format_quote(Quote("kr/계약 (2)", 0, 9, "제1조 (목적) 이"))
        + "\n\nTail: `[[not-a-link]]`\n"
    )
    return Page(
        slug="acme-termination",
        title="Acme: termination",
        owner="agent-1",
        description="How either party ends the Acme MSA: yes, no, 2024",
        type="clause",
        status="confirmed",
        sources=["contracts/acme-msa", "kr/계약 (2)"],
        aliases=["Termination", "해지"],
        created_session=1,
        updated_session=3,
        body=body,
    )


def test_round_trip():
    p = sample()
    text = render_page(p)
    assert text.startswith("---\ntitle: 'Acme: termination'\nslug: acme-termination\nowner: agent-1\n")
    assert "해지" in text  # allow_unicode
    assert parse_page(text) == p
    assert parse_page(render_page(parse_page(text))) == p


def test_round_trip_plain_markdown_quote_form():
    p = sample()
    text = render_page(p)
    assert "> [!quote] contracts/acme-msa (chars 120-180)\n> Either party may terminate\n>\n> upon notice.\n" in text
    assert [q.doc_id for q in p.quotes()] == ["contracts/acme-msa", "kr/계약 (2)"]
    assert p.quotes()[0].text == "Either party may terminate\n\nupon notice."
    assert p.quotes()[1] == Quote("kr/계약 (2)", 0, 9, "제1조 (목적) 이")


def test_links_skip_code_and_quotes():
    p = sample()
    p.body += "\n> [!quote] d (chars 0-5)\n> see [[in-quote]]\n\n```\n[[in-fence]]\n```\n"
    assert p.links() == ["other-page", "acme"]


def test_quote_ends_at_first_non_quote_line_and_at_next_header():
    body = "> [!quote] a (chars 0-3)\n> abc\n> [!quote] b (chars 4-7)\n> def\nplain\n> not a quote"
    assert [(b.quote.doc_id, b.quote.text) for b in scan_quotes(body)] == [("a", "abc"), ("b", "def")]


@pytest.mark.parametrize(
    "header",
    [
        "> [!quote] doc (chars 1-)",
        "> [!quote]  (chars 1-2)",
        "> [!QUOTE] doc chars 1-2",
        "> [!quote] doc (chars 9-2)",
        ">[!quote] doc (chars 1-2)",
    ],
)
def test_malformed_quote_header(header):
    with pytest.raises(PageError, match="malformed quote header"):
        scan_quotes(f"text\n\n{header}\n> abc\n")


def test_a_quote_without_doc_id_quotes_the_pages_only_source():
    q = Quote("kr/계약 (2)", 0, 9, "제1조 (목적) 이")
    body = "Intro.\n\n" + format_quote(q, implicit=True) + "\n"
    assert "> [!quote] (chars 0-9)\n> 제1조 (목적) 이" in body
    one = Page(slug="doc-kr", title="계약", owner="a", description="d", type="document", sources=[q.doc_id], body=body)
    assert one.quotes() == [q]
    assert parse_page(render_page(one)).quotes() == [q]
    with pytest.raises(PageError, match="names no document"):  # two sources: which one is not said
        one.with_(sources=[q.doc_id, "other"]).quotes()
    with pytest.raises(PageError, match="names no document"):
        scan_quotes(body)
    spelled = explicit_quotes(body, one.quote_doc)  # for text that moves to another page
    assert "> [!quote] kr/계약 (2) (chars 0-9)" in spelled and scan_quotes(spelled)[0].quote == q


def test_quote_in_code_fence_is_not_a_quote():
    assert scan_quotes("```\n> [!quote] bad header\n```\n") == []


@pytest.mark.parametrize(
    "slug",
    [
        "",
        "../x",
        "/etc/passwd",
        "a/b",
        "Abc",
        "É",
        "e\u0301",
        "a_b",
        "-a",
        "계약" * 41,
        "a" * 81,
        "index",
        "log",
        "index-topic",
        "a b",
        "a.md",
        None,
    ],
)
def test_bad_slugs(slug):
    with pytest.raises(PageError):
        validate_slug(slug)


@pytest.mark.parametrize("slug", ["topic-비밀유지", "doc-한글-문서", "topic-café", "topic-договор", "a", "x-1"])
def test_slugs_in_any_script(slug):
    assert validate_slug(slug) == slug


@pytest.mark.parametrize("owner", ["", "a/b", "../x", "name with space", "x" * 65])
def test_bad_owners(owner):
    with pytest.raises(PageError):
        validate_owner(owner)


def test_good_slugs():
    for s in ["a", "0", "acme-msa", "indexes", "a" * 80, "log-2"]:
        assert validate_slug(s) == s


@pytest.mark.parametrize(
    "change, match",
    [
        ({"description": "x" * 201}, "description"),
        ({"description": "two\nlines"}, "description"),
        ({"status": "final"}, "status"),
        ({"title": ""}, "title"),
        ({"aliases": ["a\nb"]}, "aliases"),
    ],
)
def test_bad_fields(change, match):
    with pytest.raises(PageError, match=match):
        render_page(sample().with_(**change))


def test_description_200_chars_ok():
    p = sample().with_(description="x" * 200)
    assert parse_page(render_page(p)) == p


@pytest.mark.parametrize(
    "text",
    ["no front matter", "---\ntitle: x\n", "---\n- a\n---\n", "---\ntitle: [\n---\n", "---\ntitle: t\nslug: s\n---\n"],
)
def test_parse_errors(text):
    with pytest.raises(PageError):
        parse_page(text)


def test_format_quote_rejects_multiline_doc_id():
    with pytest.raises(PageError):
        format_quote(Quote("a\nb", 0, 1, "x"))


def test_front_matter_bytes_do_not_depend_on_libyaml():
    """The C dumper escapes emoji and NEL where the Python one does not; pages keep the Python bytes."""
    import yaml

    from wikigen.wiki.page import dump_front_matter

    for title in ("Plain title", "한국어 제목", "emoji 🙂 title", "odd \x85 char", "colon: quote ' \""):
        fm = {"title": title, "aliases": [title]}
        assert dump_front_matter(fm) == yaml.safe_dump(fm, sort_keys=False, allow_unicode=True, width=10**6)


def test_sources_with_hashes_are_written_once():
    """Sources that all have a hash are written as one doc id -> hash mapping (each id spelled once)."""
    page = Page(
        slug="topic-x",
        title="X",
        owner="a",
        description="d",
        sources=["b-doc", "a-doc"],
        source_hashes={"a-doc": "0123abcd", "b-doc": "89abcdef"},
        body="text\n",
    )
    text = render_page(page)
    assert "source_hashes" not in text
    assert text.count("a-doc") == 1 and text.count("b-doc") == 1
    back = parse_page(text)
    assert back.sources == ["b-doc", "a-doc"]  # the sources' order, not the hashes' order
    assert back.source_hashes == page.source_hashes
    assert render_page(back) == text


def test_sources_partly_hashed_keep_both_fields():
    page = Page(
        slug="topic-x",
        title="X",
        owner="a",
        description="d",
        sources=["a-doc", "b-doc"],
        source_hashes={"a-doc": "0123abcd"},
        body="text\n",
    )
    text = render_page(page)
    assert "source_hashes:" in text
    back = parse_page(text)
    assert back.sources == ["a-doc", "b-doc"] and back.source_hashes == {"a-doc": "0123abcd"}


def test_older_pages_with_two_lists_still_read():
    text = (
        "---\ntitle: X\nslug: topic-x\nowner: a\ndescription: d\nsources:\n- a-doc\n"
        "source_hashes:\n  a-doc: 0123abcd\n---\nbody\n"
    )
    page = parse_page(text)
    assert page.sources == ["a-doc"] and page.source_hashes == {"a-doc": "0123abcd"}
    assert "source_hashes" not in render_page(page)


def test_a_source_written_without_its_hash_is_a_source_without_one():
    text = "---\ntitle: X\nslug: topic-x\nowner: a\ndescription: d\nsources:\n  a-doc:\n  b-doc: 0123abcd\n---\nbody\n"
    page = parse_page(text)
    assert page.sources == ["a-doc", "b-doc"] and page.source_hashes == {"b-doc": "0123abcd"}
