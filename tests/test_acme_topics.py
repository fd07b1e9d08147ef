"""Golden tests on the shipped sample corpus (corpora/acme): an offline build has one governing-law page
gathering the documents' wordings (aliases listed), a renewal page and an insurance page, and no page
named by boilerplate. The product code has no acme vocabulary; these names are only here."""

from __future__ import annotations

import json
import re

import pytest
from shared_builds import SAMPLE, sample_wiki
from wikigen.agents.catalog import catalog_from_data
from wikigen.agents.params import OfflineParams

from wikigen.wiki.store import Wiki

CONNECTIVES = (
    "subject to",
    "set forth",
    "forth in",
    "days prior",
    "notwithstanding",
    "including without",
    "in accordance",
    "with respect",
    "provided that",
)


@pytest.fixture(scope="module")
def acme_wiki(tmp_path_factory):
    return sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("acme-topics") / "wiki", sessions=2)


@pytest.fixture(scope="module")
def topics(acme_wiki):
    return [p for p in Wiki.open(acme_wiki).pages() if p.type == "topic"]


@pytest.fixture(scope="module")
def documents(acme_wiki):
    return [p for p in Wiki.open(acme_wiki).pages() if p.type == "document"]


def _cited(page, documents):
    """The documents a topic page quotes or links ("Also in ..."), and those whose pages link it."""
    return set(page.sources) | {d.sources[0] for d in documents if page.slug in d.links() or d.slug in page.links()}


@pytest.fixture(scope="module")
def catalog(acme_wiki):
    cached = sorted((acme_wiki / ".wikigen" / "cache").glob("catalog-*.json"))
    assert len(cached) == 1
    return catalog_from_data(json.loads(cached[0].read_text(encoding="utf-8"))["catalog"])


def _named(topics, word):
    return [p for p in topics if word in p.title.lower() or any(word in a.lower() for a in p.aliases)]


def test_one_governing_law_page_with_its_wordings(topics, documents):
    law = _named(topics, "governing law")
    assert len(law) == 1, [p.title for p in law]
    page = law[0]
    assert page.title == "Governing Law"
    names = {a.lower() for a in page.aliases}
    assert "applicable law" in names  # contracts/nda-orrin-metals: "6. Applicable law"
    cited = _cited(page, documents)
    assert {"contracts/nda-orrin-metals", "contracts/nda-meridian-rail", "contracts/msa-brightline-logistics"} <= cited
    assert len(cited) >= 8 and len(page.sources) >= 2
    others = [p.title for p in topics if p is not page and "applicable law" in p.title.lower()]
    assert others == []


def test_insurance_and_renewal(topics, documents, catalog):
    assert _named(topics, "renewal")  # a page on the term, "Term and Renewal" among its names
    insurance = [t for t in catalog.topics if "insurance" in t.title.lower()]
    assert insurance and len(insurance[0].spans) >= 3
    assert {"contracts/msa-brightline-logistics", "contracts/msa-fenwick-water"} <= set(insurance[0].spans)
    # the default size budget drops the catalog's last topics: a subject quoted alike in its documents
    # ranks before structural headings that head something different in each, so insurance has its page
    page = [p for p in topics if p.title == insurance[0].title]
    assert page, [p.title for p in topics]
    cited = _cited(page[0], documents)
    assert cited == set(insurance[0].spans) and len(page[0].sources) >= 2
    rank = {t.title: n for n, t in enumerate(catalog.topics)}
    assert all(rank["Insurance"] < rank[h] for h in ("Purpose", "Scope", "Background") if h in rank)


def test_no_topic_named_by_boilerplate(topics):
    bad = [p.title for p in topics if any(c in p.title.lower() for c in CONNECTIVES)]
    assert bad == []


def test_topic_slugs_read_as_their_titles(topics):
    from wikigen.core.slugs import slugify

    for p in topics:
        assert p.slug.startswith("topic-")
        assert slugify(p.title)[:20].strip("-") in p.slug, (p.slug, p.title)


def test_a_topic_page_under_the_size_budget_lists_a_few_of_the_documents_it_does_not_quote(topics, documents, catalog):
    """The acme build is under size pressure (it drops topics), so a topic page links at most max_listed of the
    documents that have its subject but no quote on it and counts the rest; their pages link the topic once
    their agent knows the page (a revision in a later session)."""
    cap = OfflineParams().max_listed
    by_slug = {t.slug: t for t in catalog.topics}
    have_page = {d.sources[0]: d.slug for d in documents}
    seen = 0
    for page in topics:
        t = by_slug[page.slug]
        unquoted = [d for d in t.doc_ids if d in have_page and d not in page.sources]
        listed = {d for d in unquoted if have_page[d] in page.links()}
        m = re.search(r"and (\d+) other documents?\.", page.body)
        assert len(listed) == min(cap, len(unquoted)), page.slug
        assert (int(m.group(1)) if m else 0) == len(unquoted) - len(listed), page.slug
        linking = {d.sources[0] for d in documents if page.slug in d.links()}
        assert linking - set(page.sources) <= set(unquoted)
        seen += len(unquoted)
    assert seen > 0


def test_no_quote_ends_mid_sentence(acme_wiki):
    """Every quote of the build ends where its source's sentence or clause ends, or where a source line ends
    (a heading, a list item, a table row): a quote never stops at a comma or mid-phrase (issue 12, item 6)."""
    from wikigen.search.sources import open_wiki

    wiki = open_wiki(acme_wiki)
    cut = []
    for page in wiki.pages():
        for q in page.quotes():
            text = wiki.sources.texts.text(q.doc_id)
            after = text[q.end : q.end + 1]
            if q.text.rstrip()[-1] not in ".;:!?)\"'\u201d\u2019" and after not in ("", "\n"):
                cut.append(f"{page.slug}: ...{q.text[-50:]!r} then {text[q.end : q.end + 30]!r}")
    assert not cut, "\n".join(cut)


def test_eval_bench_build_set_reaches_the_build(acme_wiki, tmp_path):
    """`eval_bench --build-set` builds the wiki with the knob changed: with OfflineParams.related=0 no topic page
    lists related topics, where the default build's do; the wiki's folder is named after the override."""
    import subprocess
    import sys

    bench = SAMPLE.parent.parent / "bench" / "eval_bench.py"
    data = tmp_path / "data" / "acme"
    data.mkdir(parents=True)
    (data / "docs").symlink_to(SAMPLE)
    (data / "questions.jsonl").write_text("", encoding="utf-8")
    args = ["--data-root", str(data.parent), "--work", str(tmp_path / "work"), "--corpora", "acme"]
    args += ["--agents", "2", "--sessions", "2", "--no-dense", "--build-only", "--build-set", "OfflineParams.related=0"]
    proc = subprocess.run([sys.executable, str(bench), *args], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "build overrides: OfflineParams.related=0" in proc.stdout

    def related_lines(wiki):
        return sum(len(re.findall(r"^Related: ", p.body, re.M)) for p in Wiki.open(wiki).pages() if p.type == "topic")

    assert related_lines(acme_wiki) > 0
    built = tmp_path / "work" / "acme-wiki@OfflineParams.related=0"
    assert any(p.type == "topic" for p in Wiki.open(built).pages())
    assert related_lines(built) == 0
