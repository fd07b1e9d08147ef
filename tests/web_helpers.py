"""A tiny built wiki for the web view's tests: an offline build (2 agents, 2 sessions) of a corpus that holds
a hostile document (a <script> as text), a CRLF document with an emoji before its quoted span, and a
Korean one; then one hand-written page that quotes all three and carries raw HTML in its body."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wikigen.agents.orchestrate import BuildConfig, build
from wikigen.search.sources import open_wiki

from wikigen.core.text import normalize_newlines
from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import Page

MAX_RATIO = 3.0  # a corpus this small is smaller than any useful wiki of it
HOSTILE = "<script>window.__pwned=1</script>"
NOTE_CALLOUT = "> [!note] A reader's note on [[doc-notes-hostile]]\n> It spans two lines, with *emphasis*."
WARNING_CALLOUT = "> [!warning] Check the notice period\n> before relying on it."
CLAUSES = {
    "Term": "This Agreement starts on the Effective Date and renews automatically for successive one-year terms "
    "unless either party gives ninety (90) days' written notice of non-renewal before the end of a term.",
    "Governing Law": "This Agreement is governed by the laws of England and Wales, and the courts of London have "
    "exclusive jurisdiction over any dispute arising out of it.",
    "Confidentiality": "Each party keeps the other party's Confidential Information secret for five (5) years after "
    "this Agreement ends and uses it only to perform this Agreement.",
    "Limitation of Liability": "Neither party is liable for indirect or consequential loss, and each party's total "
    "liability in any contract year is capped at the fees paid in that year.",
    "Termination": "Either party may terminate this Agreement by written notice if the other commits a material "
    "breach that is not remedied within thirty (30) days after notice of the breach.",
    "Payment": "The Customer pays each undisputed invoice within forty-five (45) days of receipt, by bank transfer "
    "to the account named on the invoice.",
}
FIRMS = [
    ("Acme", "SUPPLY"),
    ("Globex", "SERVICES"),
    ("Initech", "SUPPLY"),
    ("Umbrella", "SERVICES"),
    ("Hooli", "SUPPLY"),
    ("Vandelay", "SERVICES"),
]


@dataclass
class WebWiki:
    root: Path
    corpus: Path
    quotes: list[Quote]  # the hand-written page's quotes, in page order
    lines: list  # the build's SessionLines
    page_slug: str = "web-test-quotes"
    sessions: int = 2


def make_corpus(root: Path) -> Path:
    corpus = root / "corpus"
    (corpus / "contracts").mkdir(parents=True)
    (corpus / "notes").mkdir()
    (corpus / "ko").mkdir()
    for n, (firm, kind) in enumerate(FIRMS):
        lines = [
            f"{kind} AGREEMENT",
            "",
            f"This {kind.title()} Agreement is made on March {n + 1}, 2024 between "
            f'Kestrel Instruments Ltd (the "Customer") and {firm} Holdings Inc (the "Supplier").',
            "",
        ]
        for i, (head, clause) in enumerate(CLAUSES.items(), 1):
            lines += [f"{i}. {head}. {clause}", ""]
        text = "\n".join(lines)
        (corpus / "contracts" / f"{kind.lower()}-{firm.lower()}.txt").write_text(text, encoding="utf-8")
    (corpus / "notes" / "hostile.txt").write_text(
        "SECURITY NOTE\n\nA pasted snippet follows.\n" + HOSTILE + " must be shown as text, never run.\n"
        "The Supplier gives written notice of any incident within 24 hours.\n",
        encoding="utf-8",
    )
    crlf = (
        "CRLF NOTICE\r\n\r\nSmile \U0001f600 before the clause.\r\n"
        "4. Notices. Any notice must be in writing\r\nand sent by registered post.\r\nEnd.\r\n"
    )
    (corpus / "notes" / "crlf.txt").write_bytes(crlf.encode("utf-8"))
    (corpus / "ko" / "계약.txt").write_text(
        "공급 계약\n\n제1조 (목적) 이 계약은 갑과 을 사이의 물품 공급에 관한 사항을 정한다.\n"
        "제2조 (해지) 어느 당사자든 30일 전에 서면으로 통지하여 해지할 수 있다.\n",
        encoding="utf-8",
    )
    return corpus


def _quote(index, doc_id: str, needle: str) -> Quote:
    raw = index.texts.text(doc_id)
    i = raw.find(needle)
    assert i >= 0, (doc_id, needle)
    return Quote(doc_id, i, i + len(needle), normalize_newlines(needle))


def build_web_wiki(root: Path) -> WebWiki:
    corpus = make_corpus(root)
    wiki_root = root / "wiki"
    report = build(BuildConfig(corpus, wiki_root, agents=2, sessions=2, max_ratio=MAX_RATIO, quiet=True))
    assert report.ok and len(report.sessions) == 2, report
    wiki = open_wiki(wiki_root)
    index = wiki.sources
    quotes = [
        _quote(index, "notes/hostile", HOSTILE + " must be shown as text"),
        _quote(index, "notes/crlf", "4. Notices. Any notice must be in writing\r\nand sent by registered post."),
        _quote(index, "ko/계약", "제2조 (해지) 어느 당사자든 30일 전에 서면으로 통지하여 해지할 수 있다."),
    ]
    body = (
        "Raw HTML in a page is text: <script>window.__pwned2=1</script> and "
        '<img src="x" onerror="window.__pwned3=1">.\n\nSee [[doc-notes-hostile]] and [[no-such-page]].\n\n'
        + "\n\n".join(format_quote(q) for q in quotes)
        + "\n\n<!-- wikigen:test-notes -->\n"
        + NOTE_CALLOUT
        + "\n\n"
        + WARNING_CALLOUT
        + "\n<!-- /wikigen:test-notes -->\n"
    )
    page = Page(
        slug="web-test-quotes",
        title="Quotes <b>for</b> the web test",
        owner="tester",
        description="Quotes of a hostile, a CRLF and a Korean document",
        type="topic",
        sources=[q.doc_id for q in quotes],
        created_session=2,
        updated_session=2,
        body=body,
    )
    wiki.write(page, agent="tester", session=2)
    return WebWiki(wiki_root, corpus, quotes, report.sessions)


def add_many_pages(wiki_root: Path, n: int) -> list[str]:
    """n more topic pages written straight into the wiki folder (a large graph for the graph view's tests):
    page k links three document pages and the two topic pages before it; every tenth is a figure page.
    Returns their slugs."""
    from wikigen.wiki.page import render_page

    docs = sorted(p.stem for p in wiki_root.glob("doc-*.md"))
    slugs = [f"topic-generated-{k:04d}" for k in range(n)]
    for k, slug in enumerate(slugs):
        links = [docs[(k + j) % len(docs)] for j in range(3)] + [slugs[k - j] for j in (1, 2) if k - j >= 0]
        page = Page(
            slug=slug,
            title=f"Generated topic {k:04d}",
            owner="tester",
            description=f"A generated page, number {k}",
            type="figure" if k % 10 == 0 else "topic",
            body="Links: " + ", ".join(f"[[{t}]]" for t in links) + ".\n",
        )
        (wiki_root / f"{slug}.md").write_text(render_page(page), encoding="utf-8")
    return slugs


SYNTHETIC_KINDS = ["supply", "services", "nda", "licence", "lease", "amendment", "policy", "공급계약"]
SYNTHETIC_TOPICS = [
    "Term and renewal",
    "Termination",
    "Limitation of liability",
    "Indemnity",
    "Intellectual property",
    "Confidentiality",
    "Non-compete",
    "Assignment",
    "Payment terms",
    "Governing law",
    "Venue",
    "Insurance",
    "Audit rights",
    "Data protection",
    "Service levels",
    "Warranties",
    "Force majeure",
    "Notices",
    "Change of control",
    "Exclusivity",
    "Most favoured nation",
    "Acceptance testing",
    "Delivery",
    "Pricing",
    "Subcontracting",
    "Records",
    "Security incidents",
    "Business continuity",
    "Escrow",
    "Publicity",
    "Dispute resolution",
    "Anti-bribery",
    "Export control",
    "Sanctions",
    "Personnel",
    "Training",
    "해지",
    "비밀유지",
    "손해배상",
    "대금 지급",
]


def add_documents(wiki_root: Path, n: int, *, seed: int = 7) -> list[str]:
    """n more document pages written straight into the wiki folder, each in one of eight kinds (the contract
    kinds also in a "Generated contracts" kind, as a built wiki's kind-contract) and linking two or three of
    forty topics (some far more common than others), with the kind and topic pages that list them: a wiki's
    structure at a size no test builds (the graph view's tests). Some titles are Korean. Returns every slug
    written."""
    import random

    from wikigen.wiki.page import render_page

    rng = random.Random(seed)
    kinds: dict[str, list[str]] = {k: [] for k in SYNTHETIC_KINDS}
    umbrella: list[str] = []
    topics: dict[str, list[str]] = {t: [] for t in SYNTHETIC_TOPICS}
    weights = [1.0 / (1 + i) ** 0.8 for i in range(len(SYNTHETIC_TOPICS))]
    firms = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Tyrell", "Soylent"]
    written = []
    for k in range(n):
        kind = rng.choices(SYNTHETIC_KINDS, weights=[8, 7, 6, 4, 3, 4, 3, 2])[0]
        slug = f"doc-generated-{k:04d}"
        firm = rng.choice(firms)
        title = (
            f"{kind} 계약서 제{k}호 ({firm})"
            if kind == "공급계약"
            else f"{kind.upper()} AGREEMENT {k:04d} BETWEEN KESTREL AND {firm.upper()} HOLDINGS"
        )
        mine = sorted(set(rng.choices(SYNTHETIC_TOPICS, weights=weights, k=rng.choice([2, 3]))))
        kinds[kind].append(slug)
        links = [f"kind-generated-{SYNTHETIC_KINDS.index(kind)}"]
        if kind not in ("policy",):
            umbrella.append(slug)
            links.append("kind-generated-contract")
        for t in mine:
            topics[t].append(slug)
            links.append(f"topic-generated-{SYNTHETIC_TOPICS.index(t):02d}")
        body = "In " + ", ".join(f"[[{s}]]" for s in links) + ".\n"
        page = Page(
            slug=slug, title=title, owner="tester", description=f"Generated document {k}", type="document", body=body
        )
        (wiki_root / f"{slug}.md").write_text(render_page(page), encoding="utf-8")
        written.append(slug)
    gathers = [(f"kind-generated-{i}", f"{k.title()} documents", "collection", kinds[k]) for i, k in enumerate(kinds)]
    gathers.append(("kind-generated-contract", "Generated contracts", "collection", umbrella))
    gathers += [(f"topic-generated-{i:02d}", t, "topic", topics[t]) for i, t in enumerate(SYNTHETIC_TOPICS)]
    for slug, title, kind, members in gathers:
        if not members:
            continue
        body = "".join(f"- [[{m}]]\n" for m in members)
        page = Page(
            slug=slug, title=title, owner="tester", description=f"{len(members)} documents", type=kind, body=body
        )
        (wiki_root / f"{slug}.md").write_text(render_page(page), encoding="utf-8")
        written.append(slug)
    return written
