"""Topic discovery on small hand-written texts: headings, defined terms, names, phrases, Korean."""

from wikigen.agents.params import DiscoveryParams
from wikigen.agents.topics import discover, norm_key

from wikigen.core.slugs import doc_slug, kind_slug, topic_slug

EN_A = """SUPPLY AGREEMENT

This Supply Agreement (the "Agreement") is made on January 5, 2024 between Acme Widgets Ltd (the "Supplier") and Brightline Logistics Inc (the "Buyer").

1. Definitions.
"Confidential Information" means any information disclosed by one party to the other that is marked confidential.

2. Term and Renewal.
This Agreement starts on the Effective Date and lasts for two years. It renews automatically for one-year periods unless either party gives notice.

3. Governing Law.
This Agreement is governed by the laws of the State of Delaware.

4. Pallet Rotation.
Pallets are rotated weekly by the Supplier. Pallet rotation logs are kept for a year.
"""

EN_B = """SERVICES AGREEMENT 1. Term and Renewal. The term is three years from the Effective Date, without automatic renewal. 2. Governing Law. This Agreement shall be governed by the laws of England and Wales. 3. Confidentiality. "Confidential Information" shall mean non-public information of a party. 4. Pallet Rotation. Pallet rotation happens every month under the pallet rotation schedule.
"""

EN_C = """# Information Security Policy

## Purpose

This policy protects company data and the systems of Acme Widgets Ltd.

## GOVERNING LAW

This policy follows the laws of the State of Delaware.
"""

KO_A = """물품공급계약서

제1조(목적) 이 계약은 "갑"과 "을" 사이의 물품 공급에 관한 사항을 정함을 목적으로 한다.

제2조(계약기간) 계약기간은 2024년 1월 1일부터 2년으로 한다.

제3조(비밀유지) "비밀정보"란 계약 이행 중 알게 된 상대방의 영업상 정보를 말한다. 을은 비밀정보를 제3자에게 누설하지 아니한다.
"""

KO_B = """용역계약서

제1조(목적) 이 계약은 용역의 제공에 관한 사항을 정한다.

제2조(계약기간) 계약기간은 계약 체결일부터 1년으로 한다.

제3조(비밀유지) "비밀정보"란 용역 수행 중 취득한 고객의 정보를 말한다. 비밀정보는 계약 종료 후에도 보호된다.
"""


def _catalog():
    return discover({"a": EN_A, "b": EN_B, "c": EN_C, "ko/a": KO_A, "ko/b": KO_B})


def test_headings_across_documents_are_found_with_numbering_and_case_normalised():
    cat = _catalog()
    gov = cat.topic("governing law")
    assert gov is not None and gov.kind == "heading"
    assert set(gov.doc_ids) == {"a", "b", "c"}  # "3. Governing Law.", inline "2. Governing Law.", "## GOVERNING LAW"
    term = cat.topic("term and renewal")
    assert term is not None and set(term.doc_ids) == {"a", "b"}


def test_quote_spans_are_exact_trimmed_sections():
    texts = {"a": EN_A, "b": EN_B, "c": EN_C, "ko/a": KO_A, "ko/b": KO_B}
    cat = discover(texts)
    for t in cat.topics:
        for d, (s, e) in t.spans.items():
            q = texts[d][s:e]
            assert q and q == q.strip(), (t.key, d, q)
            assert e - s <= 1000  # a ~700 cap, plus the rest of a sentence that ends soon after
    gov = cat.topic("governing law")
    s, e = gov.spans["b"]
    assert EN_B[s:e] == "2. Governing Law. This Agreement shall be governed by the laws of England and Wales."
    s, e = gov.spans["a"]
    assert EN_A[s:e].startswith("3. Governing Law.") and "Delaware" in EN_A[s:e] and "Pallet" not in EN_A[s:e]


def test_defined_terms_are_found_with_their_defining_sentence():
    texts = {"a": EN_A, "b": EN_B, "c": EN_C, "ko/a": KO_A, "ko/b": KO_B}
    cat = discover(texts)
    ci = cat.topic("confidential information")
    assert ci is not None and {"a", "b"} <= set(ci.doc_ids)
    s, e = ci.spans["a"]
    assert EN_A[s:e] == (
        '"Confidential Information" means any information disclosed by one party to the other '
        "that is marked confidential."
    )


def test_korean_headings_and_terms():
    texts = {"a": EN_A, "b": EN_B, "c": EN_C, "ko/a": KO_A, "ko/b": KO_B}
    cat = discover(texts)
    keys = {t.key for t in cat.topics}
    assert {"목적", "계약기간", "비밀유지"} <= keys
    secret = cat.topic("비밀유지")
    s, e = secret.spans["ko/a"]
    assert KO_A[s:e].startswith("제3조(비밀유지)")
    term = cat.topic("비밀정보")
    assert term is not None and set(term.doc_ids) == {"ko/a", "ko/b"}
    assert topic_slug("비밀유지").startswith("topic-") and len(topic_slug("비밀유지")) <= 80


def test_salient_phrase_and_names_recur_across_documents():
    cat = _catalog()
    assert cat.topic("pallet rotation") is not None  # heading and phrase, in a and b
    names = cat.topic(norm_key("Acme Widgets Ltd"))
    assert names is not None and set(names.doc_ids) == {"a", "c"}


def test_nothing_is_found_from_a_single_document():
    cat = discover({"a": EN_A})
    assert cat.topics == []
    assert cat.collections == []
    assert cat.outlines["a"].opening is not None


def test_collections_from_recurring_title_words():
    texts = {
        "contracts/supply-acme": EN_A,
        "contracts/supply-globex": EN_B,
        "policies/security-policy": EN_C,
        "policies/privacy-policy": EN_C.replace("Information Security", "Privacy"),
    }
    cat = discover(texts, dict.fromkeys(texts, ""))
    kinds = {c.key: c.members for c in cat.collections}
    assert kinds.get("supply") == ["contracts/supply-acme", "contracts/supply-globex"]
    assert kinds.get("policy") == ["policies/privacy-policy", "policies/security-policy"]


def test_deterministic():
    texts = {"a": EN_A, "b": EN_B, "c": EN_C, "ko/a": KO_A, "ko/b": KO_B}
    one, two = discover(texts), discover(dict(reversed(list(texts.items()))))
    assert [(t.key, t.kind, t.title, t.spans) for t in one.topics] == [
        (t.key, t.kind, t.title, t.spans) for t in two.topics
    ]


def test_norm_key_and_slugs():
    assert norm_key("12. Governing Law.") == "governing law"
    assert norm_key("ARTICLE 5 - CONFIDENTIALITY") == "confidentiality"
    assert norm_key("## Notices") == "notice"
    assert norm_key("제5조(비밀유지)") == norm_key("비밀유지")
    assert doc_slug("contracts/acme-msa") == "doc-contracts-acme-msa"
    assert doc_slug("Contracts/Acme MSA") != doc_slug("contracts/acme-msa")
    assert kind_slug("supply") == "kind-supply"
    for s in (doc_slug("x" * 300), topic_slug("y " * 100), doc_slug("한글/문서")):
        assert len(s) <= 80


def test_a_minority_script_keeps_a_share_of_the_topics():
    texts = {f"en/{i}": EN_A.replace("Acme", f"Acme{i}") for i in range(6)}
    texts.update({f"en/b{i}": EN_B for i in range(4)})
    texts.update({"ko/a": KO_A, "ko/b": KO_B})
    cat = discover(texts, params=DiscoveryParams(max_topics=6))
    assert len(cat.topics) == 6
    assert any(any("\uac00" <= c <= "\ud7a3" for c in t.key) for t in cat.topics)


# --- collections from names, titles and folders ------------------------------------------------

from wikigen.agents.doc_collections import collections as _collections  # noqa: E402


def _kinds(titles: dict[str, str]) -> dict[str, list[str]]:
    return {c.key: c.members for c in _collections(titles, len(titles))}


def test_head_noun_is_not_a_kind_the_word_before_it_is():
    names = [
        "acme-2019-ex-10-1-supply-agreement",
        "globex-supply-agreement",
        "initech-services-agreement",
        "hooli-services-agreement-2",
        "stark-franchise-agreement",
        "wayne-franchise-agreement",
        "umbrella-hosting-agreement",
        "vandelay-hosting-agreement",
    ]
    colls = {c.key: c for c in _collections(dict.fromkeys(names, ""), len(names))}
    assert "agreement" not in colls and "ex" not in colls
    assert set(colls) == {"supply", "service", "franchise", "hosting"}
    assert colls["supply"].title == "Supply agreements"
    assert colls["service"].title == "Services agreements"
    assert {"supply", "supply agreement"} <= set(colls["supply"].aliases)
    assert {"service", "service agreement", "service agreements"} <= set(colls["service"].aliases)


def test_word_pairs_are_kept_whole_and_lists_give_several_kinds():
    titles = {
        "a-joint-venture-agreement": "",
        "b-joint-venture-agreement": "",
        "c-intellectual-property-agreement": "",
        "d-intellectual-property-agreement": "",
        "e-manufacturing-and-supply-agreement": "",
        "f-supply-agreement": "",
        "g-manufacturing-agreement": "",
        "h-consulting-agreement": "",
        "i-consulting-agreement": "",
        "j-license-agreement": "",
        "k-license-agreement": "",
    }
    kinds = _kinds(titles)
    assert kinds["joint venture"] == ["a-joint-venture-agreement", "b-joint-venture-agreement"]
    assert kinds["intellectual property"] == ["c-intellectual-property-agreement", "d-intellectual-property-agreement"]
    assert "joint" not in kinds and "intellectual" not in kinds
    assert kinds["supply"] == ["e-manufacturing-and-supply-agreement", "f-supply-agreement"]
    assert kinds["manufacturing"] == ["e-manufacturing-and-supply-agreement", "g-manufacturing-agreement"]


def test_titles_count_only_through_a_head_and_cut_names_still_end_in_it():
    titles = {
        "x1-distributor-agree": "THIS AGREEMENT is made and entered into by Acme Inc, dated",
        "x2-distributor-agreement": "CONFIDENTIAL TREATMENT REQUESTED by Globex Inc",
        "x3-reseller-agreement": "Reseller Agreement",
        "x4-misc": "RESELLER AGREEMENT",
        "x5-agency-agreement": "made and entered by Initech Inc",
        "x6-agency-agreement": "CONFIDENTIAL",
    }
    kinds = _kinds(titles)
    assert kinds["distributor"] == ["x1-distributor-agree", "x2-distributor-agreement"]
    assert kinds["reseller"] == ["x3-reseller-agreement", "x4-misc"]
    assert not {"made", "entered", "inc", "confidential", "dated", "certain"} & set(kinds)


def test_folders_are_collections_and_a_document_joins_several():
    titles = {
        "policies/travel-policy": "Travel Policy",
        "policies/security-policy": "Information Security Policy",
        "policies/expense-policy": "",
        "runbooks/deploy": "",
        "runbooks/security-incident": "",
        "runbooks/backup": "",
        "contracts/nda-acme": "",
        "contracts/nda-globex": "",
        "contracts/lease-acme": "",
        "contracts/supply-initech": "",
    }
    cat = discover(dict.fromkeys(titles, "Some text about the matter."), titles)
    by_key = {c.key: c for c in cat.collections}
    assert by_key["policy"].members == ["policies/expense-policy", "policies/security-policy", "policies/travel-policy"]
    assert by_key["policy"].folder == "policies" and by_key["policy"].title == "Policies"
    assert by_key["runbook"].members == ["runbooks/backup", "runbooks/deploy", "runbooks/security-incident"]
    assert by_key["nda"].members == ["contracts/nda-acme", "contracts/nda-globex"]
    assert by_key["security"].members == ["policies/security-policy", "runbooks/security-incident"]
    assert {c.key for c in cat.collections_of("policies/security-policy")} == {"security", "policy"}
    assert cat.collection_of("policies/security-policy").key == "security"  # a name kind before a folder


def test_no_kind_in_most_documents_and_none_from_one_document():
    names = [f"{w}-agreement-{i}" for i, w in enumerate(["master"] * 7 + ["supply", "supply", "lease"])]
    kinds = _kinds(dict.fromkeys(names, ""))
    assert "master" not in kinds and "lease" not in kinds
    assert kinds["supply"] == ["supply-agreement-7", "supply-agreement-8"]
    assert _kinds({"a/x-policy": "", "a/y-policy": "", "a/z-policy": ""}) == {}  # one folder: all documents


def test_collections_are_deterministic():
    titles = {
        f"{f}/{k}-{p}-agreement": f"{k.upper()} AGREEMENT"
        for f in ("a", "b")
        for k in ("supply", "hosting", "co-branding")
        for p in ("acme", "globex")
    }
    one = [(c.key, c.title, c.members, c.aliases) for c in _collections(titles, len(titles))]
    two = [
        (c.key, c.title, c.members, c.aliases) for c in _collections(dict(reversed(list(titles.items()))), len(titles))
    ]
    assert one == two and ("co branding", "Co branding agreements") in [(k, t) for k, t, _, _ in one]


def test_worker_processes_find_the_same_catalog(monkeypatch):
    """Documents read in two forked worker processes give exactly the catalog read in this process."""
    import multiprocessing

    import pytest
    from wikigen.agents.catalog import catalog_to_data

    import wikigen.core.workers as workers_mod

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("worker processes need fork on this platform; discovery then runs in one process")
    texts = {f"en/{i}": EN_A.replace("Acme", f"Acme{i}") for i in range(6)}
    texts.update({f"en/b{i}": EN_B for i in range(4)})
    texts.update({"ko/a": KO_A, "ko/b": KO_B})
    one = catalog_to_data(discover(texts, workers=1))
    monkeypatch.setattr(workers_mod, "PARALLEL_MIN_CHARS", 0)
    assert workers_mod.Workers(2, 1).n == 2
    assert catalog_to_data(discover(texts, workers=2)) == one


def test_discovery_reports_progress_per_document():
    texts = {"a": EN_A, "b": EN_B, "c": EN_C}
    seen = []
    discover(texts, progress=lambda done, total: seen.append((done, total)))
    # each document is read twice (evidence, then where the picked phrases occur): total is 6
    assert seen[:3] == [(1, 6), (2, 6), (3, 6)] and seen[-1] == (6, 6)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_phrase_first_match_is_the_regex_search():
    """_first_match finds exactly what phrase_regex(key).search finds, where _aligned allows it; texts
    where lowercasing moves offsets or a non-ASCII letter folds to an ASCII one keep the regex scan."""
    import re

    from wikigen.agents.evidence import phrase_regex
    from wikigen.agents.topics import _aligned, _first_match

    text = (
        "Determination of the TERMINATION fees. Termination-Fees apply; termination fee's due. "
        "Policies: the Company policy and companies' policies. "
    ) * 3 + "Governing law: Delaware."
    lower = text.lower()
    assert _aligned(text, lower)
    for key in ["termination fee", "company policy", "policy", "governing law", "fee due", "absent phrase"]:
        for start in (0, 5, 40, 120, len(text) - 10):
            want = phrase_regex(key).search(text, start)
            got = _first_match(text, lower, key, start)
            assert (got and (got.start(), got.end())) == (want and (want.start(), want.end())), (key, start)
    kelvin = "The \u212aey term applies."  # KELVIN SIGN matches "k" when case is ignored
    assert re.search("key", kelvin, re.IGNORECASE) and not _aligned(kelvin, kelvin.lower())
    dotted = "\u0130stanbul law applies."  # lowercasing makes it longer: offsets move
    assert not _aligned(dotted, dotted.lower())
    assert _aligned("계약 해지 조항. Termination fee.", "계약 해지 조항. termination fee.")
