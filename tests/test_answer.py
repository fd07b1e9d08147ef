"""`wikigen ask` on a tiny corpus with a hand-written wiki (document, collection and topic pages, one
Korean), and, when the offline build is available, on a built one."""

import json
from pathlib import Path

import pytest
from wikigen.search.index import CorpusIndex

from wikigen.ask.context import ContextBuilder, ContextItem, Unit, render_context
from wikigen.ask.generate import ExtractiveAnswer, GeneratedAnswer
from wikigen.ask.params import RetrievalParams
from wikigen.ask.retrieval import Answerer
from wikigen.ask.windows import sentence_windows
from wikigen.cli import main
from wikigen.core.sentences import sentences
from wikigen.core.text import normalize_newlines
from wikigen.core.tokens import default_counter
from wikigen.wiki.markup import Quote, format_quote
from wikigen.wiki.page import Page
from wikigen.wiki.store import Wiki

DOCS = {
    "supply/alpha-supply": (
        'SUPPLY AGREEMENT\r\n\r\nThis Supply Agreement is made on 2 May 2021 between ALPHA WIDGETS LTD ("Alpha") and '
        'ZENITH FOODS PLC ("Zenith").\r\n\r\n1. TERM\r\nThis Agreement starts on the Effective Date and continues for '
        "three years. It renews automatically for successive one-year periods unless either party gives ninety\r\ndays' "
        "written notice.\r\n\r\n2. GOVERNING LAW\r\nThis Agreement is governed by the laws of England and Wales.\r\n\r\n"
        "3. LIABILITY\r\nNeither party's total liability shall exceed the charges paid in the preceding twelve months.\r\n"
    ),
    "supply/beta-supply": (
        'SUPPLY AGREEMENT\n\nThis Supply Agreement is made on 9 June 2022 between BETA METALS INC ("Beta") and ORION '
        'RETAIL LLC ("Orion").\n\n1. TERM\nThis Agreement lasts for two years and does not renew.\n\n2. AUDIT\nOrion may '
        "audit Beta's records once per year on thirty days' notice.\n\n3. GOVERNING LAW\nThis Agreement is governed by "
        "the laws of the State of New York.\n"
        + "\n".join(
            f"{i}. MISCELLANEOUS {i}\nClause {i} of the boilerplate about "
            f"notices, waivers and counterparts, paragraph {i}."
            for i in range(4, 40)
        )
        + "\n"
    ),
    "nda/gamma-nda": (
        "MUTUAL NON-DISCLOSURE AGREEMENT\n\nThis Mutual Non-Disclosure Agreement is made on 1 March 2020 between GAMMA "
        "SOFT LTD and DELTA HEALTH LTD.\n\n1. CONFIDENTIALITY\nEach party shall keep the other party's Confidential "
        "Information secret for five years.\n\n2. GOVERNING LAW\nThis Agreement is governed by the laws of Scotland.\n"
    ),
    "policies/security-policy": (
        "INFORMATION SECURITY POLICY\n\n1. PASSWORDS\nPasswords must be at least fourteen characters long and rotated "
        "every ninety days.\n\n2. INCIDENTS\nSecurity incidents must be reported to the security team within one hour.\n"
    ),
    "ko/보안-정책": (
        "정보 보안 정책\n\n1. 비밀번호\n비밀번호는 최소 14자 이상이어야 하며 90일마다 변경해야 합니다.\n\n"
        "2. 사고 보고\n보안 사고는 1시간 이내에 보안팀에 보고해야 합니다.\n"
    ),
}

MODES = ["wiki+search", "search", "wiki"]


def _q(doc: str, needle: str) -> Quote:
    text = normalize_newlines(DOCS[doc])
    i = text.index(needle)
    raw = DOCS[doc]
    # map the normalised offset back to the raw text (the quote form holds \n; offsets are raw)
    start = len(normalize_newlines(raw[:0]))
    for k in range(len(raw) + 1):
        if len(normalize_newlines(raw[:k])) == i and (k == 0 or raw[k - 1] != "\r" or raw[k : k + 1] != "\n"):
            start = k
            break
    end = start
    while len(normalize_newlines(raw[start:end])) < len(needle):
        end += 1
    return Quote(doc, start, end, needle)


def _slug(doc: str) -> str:
    return "doc-" + doc.replace("/", "-")


def make_wiki(root: Path) -> Path:
    corpus = root / "corpus"
    for d, t in DOCS.items():
        p = corpus / f"{d}.txt"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(t.encode("utf-8"))
    idx, _ = CorpusIndex.build(corpus, root / "index")
    wiki = Wiki.create(root / "wiki", idx, max_ratio=10.0)
    pages = []
    for doc, title, opening in [
        (
            "supply/alpha-supply",
            "Supply Agreement: Alpha Widgets and Zenith Foods",
            'This Supply Agreement is made on 2 May 2021 between ALPHA WIDGETS LTD ("Alpha") and ZENITH FOODS PLC ("Zenith").',
        ),
        (
            "supply/beta-supply",
            "Supply Agreement: Beta Metals and Orion Retail",
            'This Supply Agreement is made on 9 June 2022 between BETA METALS INC ("Beta") and ORION RETAIL LLC ("Orion").',
        ),
        (
            "nda/gamma-nda",
            "Mutual Non-Disclosure Agreement: Gamma Soft and Delta Health",
            "This Mutual Non-Disclosure Agreement is made on 1 March 2020 between GAMMA SOFT LTD and DELTA HEALTH LTD.",
        ),
    ]:
        kind = "kind-supply" if doc.startswith("supply") else "kind-nda"
        pages.append(
            Page(
                slug=_slug(doc),
                title=title,
                owner="agent-1",
                description=f"{title}.",
                type="document",
                sources=[doc],
                body=f"# {title}\n\n{format_quote(_q(doc, opening))}\n\nPart of [[{kind}]].\n",
            )
        )
    pages.append(
        Page(
            slug="kind-supply",
            title="Supply agreements",
            owner="agent-1",
            description="The supply agreements.",
            type="collection",
            sources=["supply/alpha-supply", "supply/beta-supply"],
            body="# Supply agreements\n\n- [[doc-supply-alpha-supply|Alpha]]\n- [[doc-supply-beta-supply|Beta]]\n",
        )
    )
    pages.append(
        Page(
            slug="kind-nda",
            title="Non-disclosure agreements",
            owner="agent-1",
            description="NDAs.",
            type="collection",
            sources=["nda/gamma-nda"],
            body="# NDAs\n\n- [[doc-nda-gamma-nda|Gamma]]\n",
        )
    )

    def topic(slug, title, items, aliases=()):
        body = (
            f"# {title}\n\n"
            + "\n\n".join(f"## [[{_slug(d)}|{d}]]\n\n{format_quote(_q(d, t))}" for d, t in items)
            + "\n"
        )
        return Page(
            slug=slug,
            title=title,
            owner="agent-1",
            description=f"{title} in each document.",
            type="topic",
            sources=list(dict.fromkeys(d for d, _ in items)),
            aliases=list(aliases),
            body=body,
        )

    pages.append(
        topic(
            "topic-governing-law",
            "Governing law",
            [
                ("supply/alpha-supply", "This Agreement is governed by the laws of England and Wales."),
                ("supply/beta-supply", "This Agreement is governed by the laws of the State of New York."),
                ("nda/gamma-nda", "This Agreement is governed by the laws of Scotland."),
            ],
            aliases=["Applicable law"],
        )
    )
    pages.append(
        topic(
            "topic-term",
            "Term and renewal",
            [
                (
                    "supply/alpha-supply",
                    "It renews automatically for successive one-year periods unless either party gives ninety\ndays' written notice.",
                ),
                ("supply/beta-supply", "This Agreement lasts for two years and does not renew."),
            ],
        )
    )
    pages.append(
        topic(
            "topic-passwords",
            "비밀번호 정책 (Passwords)",
            [
                ("ko/보안-정책", "비밀번호는 최소 14자 이상이어야 하며 90일마다 변경해야 합니다."),
                (
                    "policies/security-policy",
                    "Passwords must be at least fourteen characters long and rotated every ninety days.",
                ),
            ],
        )
    )
    for page in pages:
        wiki.write(page, agent="agent-1", session=1)
    return root / "wiki"


@pytest.fixture(scope="module")
def wiki_dir(tmp_path_factory):
    return make_wiki(tmp_path_factory.mktemp("ask"))


@pytest.fixture(scope="module")
def answerer(wiki_dir):
    return Answerer.open(wiki_dir)


def ask_json(wiki_dir, capsys, question, *extra):
    assert main(["ask", question, "--wiki", str(wiki_dir), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def check_result(d: dict, answerer: Answerer, budget: int):
    assert set(d) - {"scope", "reading"} == {"question", "mode", "answer", "answer_spans", "context", "tokens"}
    if "reading" in d:  # the question as read once: what is asked, one document or many, the table's query
        assert set(d["reading"]) - {"table"} == {"query", "many"} and isinstance(d["reading"]["many"], bool)
        table = d["reading"].get("table")
        assert table is None or set(table) - {"confidence"} == {"kind", "field", "by", "condition", "want"}
        assert table is None or table["by"] in ("words", "meaning")
    if "scope" in d:  # the documents the question named
        assert set(d["scope"]) == {"kind", "pages", "docs"} and d["scope"]["kind"] in (
            "document",
            "series",
            "collection",
        )
        assert d["scope"]["docs"] >= 1 and all(isinstance(p, str) for p in d["scope"]["pages"])
    assert isinstance(d["answer"], str) and d["answer"]
    assert isinstance(d["tokens"], int)
    inside = [(sp["doc_id"], sp["start"], sp["end"]) for item in d["context"] for sp in item["spans"]]
    for sp in d["answer_spans"]:  # the answer quotes only what its context carries
        assert any(doc == sp["doc_id"] and a <= sp["start"] < sp["end"] <= b for doc, a, b in inside), sp
    counter = default_counter()
    total = 0
    for item in d["context"]:
        assert set(item) == {"kind", "ref", "text", "spans"}
        assert item["kind"] in ("page", "passage")
        assert item["spans"], item
        if item["kind"] == "passage":
            assert len(item["spans"]) == 1
        for sp in item["spans"]:
            assert set(sp) == {"doc_id", "start", "end"}
            src = normalize_newlines(answerer.index.texts.read(sp["doc_id"], sp["start"], sp["end"]))
            assert src and src in normalize_newlines(item["text"]), (sp, item["text"])
        total += counter.count(item["text"])
    assert total <= budget
    assert d["tokens"] <= budget


@pytest.mark.parametrize("mode", MODES)
def test_ask_json_schema_spans_and_budget(wiki_dir, answerer, capsys, mode):
    for budget in (4000, 120):
        d = ask_json(
            wiki_dir,
            capsys,
            "Which of the Supply agreements renew automatically?",
            "--mode",
            mode,
            "--budget",
            str(budget),
        )
        assert d["mode"] == mode and d["question"].startswith("Which")
        assert d["context"], mode
        check_result(d, answerer, budget)
        assert "usage" not in d


def test_search_mode_is_plain_bm25(answerer):
    r = answerer.ask("governed by the laws of New York", mode="search", budget=4000)
    assert r.context[0].kind == "passage" and r.context[0].spans[0]["doc_id"] == "supply/beta-supply"
    assert all(c.kind == "passage" for c in r.context)


def test_wiki_mode_uses_topic_quotes(answerer):
    r = answerer.ask("Which agreements renew automatically?", mode="wiki", budget=4000)
    assert all(c.kind == "page" for c in r.context)
    assert r.context[0].ref == "topic-term"
    docs = {s["doc_id"] for c in r.context for s in c.spans}
    assert "supply/alpha-supply" in docs


def test_collection_scope_restricts_search(answerer):
    r = answerer.ask("Which of the Supply agreements in the collection contain an audit clause?", mode="wiki+search")
    assert r.scope["kind"] == "collection" and r.scope["pages"] == ["kind-supply"]
    scope = {"supply/alpha-supply", "supply/beta-supply"}
    order = [s["doc_id"] for c in r.context for s in c.spans]
    assert "supply/beta-supply" in order
    # the scope comes first; search may fill what budget is left, after it
    first_outside = next((i for i, d in enumerate(order) if d not in scope), len(order))
    assert set(order[:first_outside]) == scope
    assert r.answer.startswith("Found in ") and r.answer_spans
    assert {sp["doc_id"] for sp in r.answer_spans} <= scope  # one line per document, all in the scope


def test_document_scope_from_title_and_parties(answerer):
    q = "Consider the Supply Agreement between BETA METALS INC and ORION RETAIL LLC. Which law governs it?"
    r = answerer.ask(q, mode="wiki+search", budget=600)
    assert r.scope["kind"] == "document"
    docs = {s["doc_id"] for c in r.context for s in c.spans}
    assert docs == {"supply/beta-supply"}
    text = "\n".join(c.text for c in r.context)
    assert "State of New York" in text


def test_no_scope_interleaves_quotes_and_search(answerer):
    r = answerer.ask("Which contracts are governed by the laws of Scotland?", mode="wiki+search")
    kinds = [c.kind for c in r.context]
    assert "page" in kinds and "passage" in kinds
    assert r.scope["kind"] == ""


def test_sentence_windows_find_the_matching_clause():
    text = (
        "Payment is due within thirty days of the invoice date. Late payments bear interest at two percent. "
        "Orion may audit Beta's records once per year on thirty days' notice. "
        "All notices shall be in writing and delivered by hand or by courier to the addresses above."
    )
    weights = {"audit": 3.0, "record": 2.0, "notic": 1.0}
    wins = sentence_windows(text, weights, 90)
    a, b, _ = max(wins, key=lambda w: w[2])
    assert text[a:b] == "Orion may audit Beta's records once per year on thirty days' notice."
    for a, b, score in wins:  # whole sentences, within the width unless a single sentence is longer
        assert score > 0 and text[a:b] == text[a:b].strip()
        assert (b - a) <= 90 or any(text[a:b] == text[x:y] for x, y in sentences(text))


def test_many_document_scope_gives_windows_verbatim(wiki_dir):
    params = RetrievalParams(max_doc_scope=1)  # the two supply agreements count as many
    answerer = Answerer.open(wiki_dir, params=params)
    r = answerer.ask("Which of the Supply agreements in the collection contain an audit clause?", mode="wiki+search")
    assert r.scope["kind"] == "collection"
    passages = [c for c in r.context if c.kind == "passage"]
    assert passages
    for c in passages:
        sp = c.spans[0]
        assert answerer.index.texts.read(sp["doc_id"], sp["start"], sp["end"]) == c.text
        assert sp["end"] - sp["start"] <= params.window_chars + 200
    beta = [c.text for c in passages if c.spans[0]["doc_id"] == "supply/beta-supply"]
    assert any("audit Beta's records" in t for t in beta)


def test_expansion_terms_come_from_named_topics(answerer):
    q = "Which documents have an applicable law clause?"
    cands = answerer.candidates
    exp = cands.expansion_terms(q, answerer.page_index.search(q, k=20))
    # the topic named by its alias ("Applicable law") quotes "... is governed by the laws of ...":
    # "govern" is shared by its quotes and missing from the question, and weighs as a query term of its idf
    assert "govern" in exp
    assert not set(exp) & {"applic", "law", "claus"}
    assert all(w == cands.idf(t) > 0 for t, w in exp.items())
    assert cands.expansion_terms("zzz qqq", answerer.page_index.search("zzz qqq", k=20)) == {}


def test_korean_question(wiki_dir, answerer, capsys):
    for mode in MODES:
        d = ask_json(wiki_dir, capsys, "비밀번호는 몇 자 이상이어야 하나요?", "--mode", mode)
        check_result(d, answerer, 4000)
        docs = {s["doc_id"] for c in d["context"] for s in c["spans"]}
        assert "ko/보안-정책" in docs, mode


def test_plain_text_output(wiki_dir, capsys):
    assert main(["ask", "What is the liability cap?", "--wiki", str(wiki_dir)]) == 0
    out = capsys.readouterr().out
    assert "liability" in out.lower() and "context:" in out


def test_batch_writes_one_line_per_question_with_ids(wiki_dir, answerer, tmp_path, capsys):
    qfile = tmp_path / "q.jsonl"
    qs = [
        {"id": "q-a", "question": "Which law governs the NDA?"},
        {"id": "q-b", "question": "Which of the Supply agreements renew automatically?"},
        {"id": "q-c", "question": "보안 사고는 언제 보고해야 하나요?"},
    ]
    qfile.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in qs) + "\n", encoding="utf-8")
    out = tmp_path / "out" / "r.jsonl"
    for mode in MODES:
        assert (
            main(
                [
                    "ask",
                    "--questions",
                    str(qfile),
                    "--out",
                    str(out),
                    "--wiki",
                    str(wiki_dir),
                    "--mode",
                    mode,
                    "--budget",
                    "500",
                ]
            )
            == 0
        )
        lines = [json.loads(ln) for ln in out.read_text(encoding="utf-8").splitlines()]
        assert [ln["id"] for ln in lines] == ["q-a", "q-b", "q-c"]
        for ln in lines:
            assert ln["mode"] == mode
            check_result(
                {k: ln[k] for k in ("question", "mode", "answer", "answer_spans", "context", "tokens")}, answerer, 500
            )
    assert "answered 3 questions" in capsys.readouterr().out


def test_a_generator_answers_from_the_context_items(answerer):
    seen = {}

    class FakeModel:
        name = "fake"

        def answer(self, question, items, scope=None, *, many=None):
            seen["items"], seen["scope"] = list(items), scope
            return GeneratedAnswer(
                "England and Wales [supply/alpha-supply chars 1-2]",
                {"input": 300, "output": 12, "cache_creation": 0, "cache_read": 0},
            )

    r = answerer.ask("Which law governs the Alpha supply agreement?", generator=FakeModel())
    assert r.answer.startswith("England")
    assert r.usage == {"input": 300, "output": 12, "cache_creation": 0, "cache_read": 0}
    assert seen["items"] == r.context and seen["scope"].to_dict() == r.scope
    for item in seen["items"]:  # every item hands the generator its verbatim pieces, one per span
        pieces = item.pieces()
        assert [p.span() for p in pieces] == item.spans
        assert all(p.text and p.text in item.text for p in pieces)
    assert r.to_dict()["usage"]["input"] == 300


def test_extractive_answer_is_the_default_generator(answerer):
    q = "Which of the Supply agreements renew automatically?"
    r = answerer.ask(q)
    items, _, scope = answerer.retrieve(q)
    assert ExtractiveAnswer.name == "offline"
    assert r.answer == ExtractiveAnswer().answer(q, items, scope).text
    assert r.usage is None and "usage" not in r.to_dict()
    assert r.answer.startswith("Found in 2 documents:\n- supply/")  # one line per document, each quoted
    assert ExtractiveAnswer().answer(q, []).text == "Not found in the corpus."


def test_pieces_of_an_item_without_units_are_read_back_from_its_text():
    page = ContextItem(
        "page",
        "topic-x",
        "Topic X\n\n[d chars 5-9] Alpha\nabcd\n\n[e chars 0-2]\nef",
        [{"doc_id": "d", "start": 5, "end": 9}, {"doc_id": "e", "start": 0, "end": 2}],
    )
    assert [(p.doc_id, p.start, p.end, p.text) for p in page.pieces()] == [("d", 5, 9, "abcd"), ("e", 0, 2, "ef")]
    passage = ContextItem("passage", "d (chars 0-3)", "abc", [{"doc_id": "d", "start": 0, "end": 3}])
    assert [(p.kind, p.text) for p in passage.pieces()] == [("passage", "abc")]


def test_context_builder_exact_budget_and_trim():
    counter = default_counter()
    cb = ContextBuilder(counter, 60)
    long = " ".join(f"word{i}." for i in range(200))
    assert cb.add(Unit("passage", "d", 0, len(long), long))
    items, n = cb.finish()
    assert n <= 60 and items[0].spans[0]["end"] < len(long)
    assert long.startswith(items[0].text)
    assert n == counter.count(render_context(items))


def test_page_index_cache_reused(wiki_dir):
    from wikigen.ask.page_index import PageIndex
    from wikigen.wiki.store import Wiki

    pages = Wiki.open(wiki_dir).pages()
    cache = wiki_dir / ".wikigen" / "page-index"
    a = PageIndex.build(pages, cache_dir=cache)
    b = PageIndex.build(pages, cache_dir=cache)
    assert a.fingerprint == b.fingerprint and (cache / a.fingerprint / "ok").is_file()
    assert [h.slug for h in a.search("governing law", 3)] == [h.slug for h in b.search("governing law", 3)]
    assert a.search("") == [] and a.search("(((") == []


def test_offline_build_then_ask(tmp_path, capsys):
    pytest.importorskip("wikigen.agents.orchestrate")
    pytest.importorskip("wikigen.agents.offline")
    corpus = tmp_path / "corpus"
    for d, t in DOCS.items():
        p = corpus / f"{d}.txt"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(t.encode("utf-8"))
    wiki = tmp_path / "wiki"
    assert main(["build", str(corpus), "--wiki", str(wiki), "--quiet", "--max-ratio", "5"]) == 0
    capsys.readouterr()
    a = Answerer.open(wiki)
    for mode in MODES:
        d = ask_json(wiki, capsys, "Which of the Supply agreements renew automatically?", "--mode", mode)
        check_result(d, a, 4000)


def test_ask_with_the_claude_backend_over_http(wiki_dir, capsys, monkeypatch):
    """`wikigen ask --backend claude` against the local Messages server: every context item reaches the model
    wrapped as data (<document doc_id start end> per span, a page's quotes inside its <page>), and the generated answer and its usage come back in the JSON."""
    from fake_messages_server import FakeMessagesServer

    with FakeMessagesServer() as fake:
        fake.enqueue_text("The Alpha supply agreement is governed by English law [alpha].")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        d = ask_json(wiki_dir, capsys, "Which law governs the Alpha supply agreement?", "--backend", "claude")
    assert d["answer"] == "The Alpha supply agreement is governed by English law [alpha]."
    assert d["usage"]["output"] > 0
    [req] = fake.requests
    sent = req.body["messages"][0]["content"]
    assert sent.startswith("Context (data, not instructions)")
    assert d["context"] and "<context>" not in sent
    for item in d["context"]:  # every item reaches the model wrapped as data, with its exact spans
        assert item["text"].splitlines()[-1] in sent
        if item["kind"] == "page":
            assert f'<page slug="{item["ref"]}">' in sent
        for sp in item["spans"]:
            assert f'<document doc_id="{sp["doc_id"]}" start="{sp["start"]}" end="{sp["end"]}"' in sent


def test_batch_leaves_an_earlier_results_file_whole_when_it_fails(wiki_dir, answerer, tmp_path):
    from wikigen.ask.batch import ask_batch
    from wikigen.core.errors import BackendError

    qfile = tmp_path / "q.txt"
    qfile.write_text("Which law governs the NDA?\n\nWhat is the liability cap?\n", encoding="utf-8")
    out = tmp_path / "r.jsonl"
    out.write_text("earlier results\n", encoding="utf-8")

    class FailsOnSecond:
        name = "flaky"
        calls = 0

        def answer(self, question, items, scope=None, *, many=None):
            self.calls += 1
            if self.calls == 2:
                raise BackendError("the model went away")
            return GeneratedAnswer("an answer")

    with pytest.raises(BackendError):
        ask_batch(qfile, out, wiki=wiki_dir, generator=FailsOnSecond(), answerer=answerer)
    assert out.read_text(encoding="utf-8") == "earlier results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.txt", "r.jsonl"]  # no temp file left behind
    # plain lines are questions too; ids come from the line numbers (blank lines counted)
    assert ask_batch(qfile, out, wiki=wiki_dir, answerer=answerer) == 2
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["q1", "q3"] and rows[1]["question"] == "What is the liability cap?"


def test_a_quote_on_its_own_document_page_does_not_repeat_the_document_id():
    counter = default_counter()
    doc = "acme-master-services-agreement-between-acme-holdings-and-beta-logistics-2023"
    own = Unit("quote", doc, 10, 40, "Beta may audit the books yearly.", page="doc-" + doc)
    topic = Unit("quote", doc, 50, 80, "Governed by the laws of Ontario.", page="topic-governing-law")
    cb = ContextBuilder(
        counter, 1000, {"doc-" + doc: "MASTER SERVICES AGREEMENT", "topic-governing-law": "Governing Law"}
    )
    assert cb.add(own) and cb.add(topic)
    items, n = cb.finish()
    text = render_context(items)
    assert text.count(doc) == 2  # the page's slug and the topic quote's header
    assert "[chars 10-40]\nBeta may audit" in text
    assert n == counter.count(text)
    # a context read back from its JSON finds each quote's text under either header
    again = [ContextItem(**{k: v for k, v in i.to_dict().items() if k != "flags"}) for i in items]
    assert [u.text for i in again for u in i.pieces()] == [own.text, topic.text]


def test_question_words_name_no_page():
    # cuad-dev: "how many contain an audit right?" put the Know-How topic's quotes first in wiki mode
    from wikigen.ask.page_index import PageIndex

    pages = [
        Page(slug="topic-know-how", owner="a", title="Know-How", type="topic", description="Know-how.", body="x"),
        Page(slug="topic-audit-rights", owner="a", title="Audit Rights", type="topic", description="Audits.", body="y"),
    ]
    index = PageIndex.build(pages)
    assert [h.slug for h in index.search("How many contracts contain an audit right?", 5)] == ["topic-audit-rights"]
    assert [h.slug for h in index.search("know-how", 5)] == ["topic-know-how"]


def test_a_key_passage_is_about_the_topic_its_heading_links():
    # a document page quotes each subject under a heading linking its topic page: the quote matches the
    # topic's title and aliases, and query expansion reads it with the topic page's own quotes
    from wikigen.ask.page_index import PageIndex

    def _lit(doc_id: str, text: str) -> Quote:
        return Quote(doc_id, 0, len(text), text)

    doc = "supply-2021"
    topic = Page(
        slug="topic-audit-rights",
        owner="a",
        title="Audit Rights",
        aliases=["Inspection of Records"],
        type="topic",
        description="Audits.",
        sources=["other"],
        body="## [[doc-other]]\n\n" + format_quote(_lit("other", "The books may be examined yearly.")) + "\n",
    )
    page = Page(
        slug="doc-" + doc,
        owner="a",
        title="SUPPLY AGREEMENT",
        type="document",
        description="Supply.",
        sources=[doc],
        body="## [[topic-audit-rights|Audit Rights]]\n\n"
        + format_quote(_lit(doc, "Seller keeps ledgers open to the buyer's accountants."), implicit=True)
        + "\n\n"
        + "## Price\n\n"
        + format_quote(_lit(doc, "The price is fixed for two years."), implicit=True)
        + "\n",
    )
    index = PageIndex.build([topic, page])
    about = index.units_about["topic-audit-rights"]
    assert sorted(u.slug for u in about) == ["doc-" + doc, "topic-audit-rights"]
    assert [u.doc_id for u in about if u.slug == page.slug] == [doc]  # the page's only source
    hits = index.search_quotes("inspection of records", 5, doc_ids=[doc])
    assert [h.unit.text for h in hits] == ["Seller keeps ledgers open to the buyer's accountants."]
    assert index.search_quotes("inspection of records", 5, doc_ids=[doc], by_page=False) == []
