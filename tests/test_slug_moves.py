"""A wiki built when topic slugs came from topic keys ("topic-definition" for "Definitions"), rebuilt now:
each agent's old topic page is merged into its subject's new page (archived as deprecated, redirect,
links follow), and the merge is logged."""

import json
import re
import subprocess
from dataclasses import replace
from pathlib import Path

from wikigen.agents.catalog import Catalog, Topic
from wikigen.agents.offline import OfflineBackend
from wikigen.agents.orchestrate import BuildConfig, build
from wikigen.agents.params import OfflineParams
from wikigen.agents.slug_moves import old_topic_slugs

from wikigen.core.slugs import topic_slug
from wikigen.wiki.merge import read_redirects
from wikigen.wiki.page import parse_page, render_page

REPO = Path(__file__).resolve().parent.parent
ACME = REPO / "corpora" / "acme"


def test_old_slugs_of_a_catalog():
    cat = Catalog(
        topics=[
            Topic(key="definition", kind="heading", title="Definitions", aliases=["Definition"]),
            Topic(
                key="governing law",
                kind="heading",
                title="Governing Law",
                aliases=["Applicable law"],
                variants=["applicable law"],
            ),
            Topic(key="law", kind="heading", title="Law"),
        ],
        outlines={},
        collections=[],
    )
    assert old_topic_slugs(cat) == {
        "topic-definition": "topic-definitions",
        "topic-applicable-law": "topic-governing-law",
    }
    # a slug that is another topic's page now is no old slug
    assert "topic-law" not in old_topic_slugs(cat)


def _as_an_old_version_had_it(wiki: Path, renames: dict[str, str]) -> None:
    """Rename topic pages to their old slugs, with every link to them, and commit it as a build would."""
    for new, old in renames.items():
        page = parse_page((wiki / f"{new}.md").read_text(encoding="utf-8"))
        (wiki / f"{old}.md").write_text(render_page(page.with_(slug=old)), encoding="utf-8")
        (wiki / f"{new}.md").unlink()
    for path in wiki.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        for new, old in renames.items():
            text = re.sub(rf"\[\[{re.escape(new)}(?=[\]|#])", f"[[{old}", text)
        path.write_text(text, encoding="utf-8")
    subprocess.run(["git", "-C", str(wiki), "add", "-A"], check=True, capture_output=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(wiki),
            "-c",
            "user.name=wikigen",
            "-c",
            "user.email=wikigen@localhost",
            "commit",
            "-q",
            "-m",
            "an older build",
        ],
        check=True,
        capture_output=True,
    )


def roomy_backend():
    """The offline agent with room for every acme topic (the default budget keeps only the best ones,
    and the pages this test needs, such as "Definitions", are structural headings it may leave out)."""
    return OfflineBackend(params=replace(OfflineParams(), target_ratio=0.9), agents=2, sessions=3)


def test_a_rebuilt_wiki_merges_old_topic_pages_into_their_new_slugs(tmp_path):
    wiki = tmp_path / "wiki"
    assert build(BuildConfig(corpus=ACME, wiki=wiki, agents=2, sessions=3, quiet=True), backend=roomy_backend()).ok
    topics = {}
    for path in sorted(wiki.glob("topic-*.md")):
        page = parse_page(path.read_text(encoding="utf-8"))
        topics[page.slug] = page
    # the pages whose old, key-made slug differs from the title-made one ("topic-definition")
    from wikigen.agents.words import norm_key

    renames = {s: topic_slug(norm_key(p.title)) for s, p in topics.items() if topic_slug(norm_key(p.title)) != s}
    assert renames, "acme has topics whose key-made slug differs from the title-made one"
    _as_an_old_version_had_it(wiki, renames)
    assert all((wiki / f"{old}.md").exists() for old in renames.values())

    assert build(BuildConfig(corpus=ACME, wiki=wiki, agents=2, sessions=3, quiet=True), backend=roomy_backend()).ok
    redirects = read_redirects(wiki)
    for new, old in renames.items():
        assert (wiki / f"{new}.md").exists(), new  # the subject's page under its new slug
        assert not (wiki / f"{old}.md").exists(), old  # the old page is gone from the wiki ...
        archived = parse_page((wiki / "archive" / f"{old}.md").read_text(encoding="utf-8"))
        assert archived.status == "deprecated" and f"Merged into [[{new}]]" in archived.body  # ... archived
        assert redirects[old] == new
        kept = parse_page((wiki / f"{new}.md").read_text(encoding="utf-8"))
        assert topics[new].title == kept.title
    for path in wiki.glob("*.md"):  # no page links to an old slug
        text = path.read_text(encoding="utf-8")
        assert not any(f"[[{old}]" in text or f"[[{old}|" in text for old in renames.values()), path.name
    log = [json.loads(x) for x in (wiki / ".wikigen" / "progress.jsonl").read_text().splitlines() if x.strip()]
    moved = [e for e in log if e.get("action") == "merged topic pages under old slugs"]
    assert moved and {p for e in moved for p in e["pages"]} == set(renames)
