"""Plain questions of the sample corpus that name their contract the way people do (corpora/plain/acme.jsonl asks
them; bench/eval_bench.py scores the whole set): a party's name with an acronym ("the Brightline MSA"), a Korean
party with the kind of contract ("한빛전자 공급계약"), and a Korean question whose words are the domain's own
("자동으로 갱신됩니까": they name no document)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from shared_builds import sample_wiki

from wikigen.ask.retrieval import Answerer


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    return Answerer.open(sample_wiki(tmp_path_factory, tmp_path_factory.mktemp("names") / "wiki", sessions=2))


def test_a_name_and_an_acronym_name_the_documents_they_share(answerer):
    """ "Brightline" names four documents and "MSA" three (the file names say it); together, Brightline's master
    services agreement and its amendment, whose governing-law clause answers."""
    r = answerer.ask("which law governs the Brightline MSA?")
    assert r.scope["kind"] == "document", r.scope
    docs = set(answerer.read("which law governs the Brightline MSA?").scope.doc_ids)
    assert "contracts/msa-brightline-logistics" in docs and docs <= {
        "contracts/msa-brightline-logistics",
        "amendments/brightline-msa-amendment-1",
    }, docs
    cited = {sp["doc_id"] for sp in r.answer_spans}
    assert cited == {"contracts/msa-brightline-logistics"}, r.answer
    assert "England and Wales" in r.answer


def test_a_korean_party_and_kind_name_the_supply_contract_and_its_governing_law(answerer):
    """한빛전자 has three documents; "공급계약" (supply contract) is said by two titles, not by the NDA's. The answer
    quotes the supply contract's article 15, not the NDA's governing-law clause, nor a title or a signature."""
    q = "한빛전자 공급계약의 준거법은 무엇입니까?"
    assert "ko/hanbit-nda" not in answerer.read(q).scope.doc_ids
    r = answerer.ask(q)
    texts = answerer.index.texts
    quoted = [texts.text(sp["doc_id"])[sp["start"] : sp["end"]] for sp in r.answer_spans]
    assert r.answer_spans and r.answer_spans[0]["doc_id"] == "ko/hanbit-supply-contract", r.answer
    assert "준거법" in quoted[0] and "대한민국 법률" in quoted[0], quoted[0]


def test_a_korean_question_in_the_domains_words_names_no_document(answerer):
    """ "갱신됩니까" is 갱신 (renewal, a schema's word) with an ending, and "자동으로" one word, not two names: the
    question asks of the contracts, not of the runbook that mentions automatic renewal of certificates."""
    r = answerer.read("어떤 계약이 자동으로 갱신됩니까?")
    assert not any(d.startswith("runbooks/") or "runbook" in d for d in r.scope.doc_ids), r.scope
    assert r.table is not None and r.table.field.name == "renewal_term"


def test_korean_search_looks_past_a_particle(answerer):
    """ "준거법은" (governing law + topic particle) finds the passages that write 준거법."""
    hits = answerer.index.search("준거법은", k=5)
    assert hits and all("준거법" in h.text for h in hits), [h.text[:40] for h in hits]


def test_a_name_outside_the_kind_its_word_names_wins_over_a_member_named_by_a_common_word(answerer):
    """ "our Hanbit supply contract": "contract" names the English contracts' kind, of which one is a supply
    agreement (Orrin's), while "Hanbit" names three Korean documents outside it. The name decides, and of its three
    documents the one whose file name also says "supply contract" (hanbit-supply-contract, not its amendment or the
    NDA)."""
    r = answerer.read("What's the warranty period in our Hanbit supply contract (the Korean PCBA one)?")
    assert r.scope.doc_ids == ["ko/hanbit-supply-contract"], r.scope


def test_a_word_one_edit_from_a_kinds_word_is_no_misspelt_name(answerer):
    """ "Please list them": "please" is one edit from "lease", a word the lease's file name holds, but a kind's
    word, not a name, so it names no document and the question ranges over the contracts (Cumulo's two are Irish)."""
    q = "any of our agreements governed by Irish law? Please list them."
    r = answerer.read(q)
    assert r.scope.kind != "document", r.scope
    cited = {sp["doc_id"] for sp in answerer.ask(q).answer_spans}
    assert cited == {"contracts/dpa-cumulo-cloud", "contracts/hosting-agreement-cumulo-cloud"}, cited


def test_a_scope_named_by_catalogue_words_is_the_same_in_every_process(answerer):
    """The documents a name links are found through sets of pages; the scope lists them in one order whatever the
    process's string hashing (PYTHONHASHSEED), so the offline answer is the same run after run."""
    code = (
        "import sys; from wikigen.ask.retrieval import Answerer; "
        "print(Answerer.open(sys.argv[1]).read(sys.argv[2]).scope.doc_ids)"
    )
    question = "How much do we pay Orrin per housing?"
    seen = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", code, str(answerer.wiki_root), question], env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        seen.add(run.stdout.strip())
    assert len(seen) == 1, seen
    assert "orrin" in next(iter(seen)), seen
