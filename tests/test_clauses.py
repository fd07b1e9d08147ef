"""The clause model (search/values/clauses.py): shipped, named, and judging what a sentence does, not which word
it holds."""

from __future__ import annotations

import gzip
import json

import pytest
from wikigen.search.values.clauses import MODEL_PATH, ClauseModel, section_headings, sentence_features
from wikigen.search.values.extract import NOT_STATED, POSSIBLE, STATED, Cell, extract_values
from wikigen.search.values.schema import load_schemas

SCHEMAS = load_schemas()
CONTRACT = SCHEMAS["contract"]
MODEL = ClauseModel.shipped()

HEAD = (
    'SERVICES AGREEMENT\n\nThis Services Agreement is made as of March 1, 2021 between Alpha Ltd. ("Alpha") and '
    'Beta Inc. ("Beta").\n\n1. Services. Beta shall provide the consulting services described in Exhibit A to '
    "Alpha in a professional manner.\n\n2. Fees. Alpha shall pay Beta the fees set out in Exhibit B within thirty "
    "days of each invoice.\n\n"
)
HEADINGS_ONLY = HEAD + (
    "3. Headings. The headings in this Agreement are for convenience of reference only and shall not affect its "
    "interpretation, and notice of any change shall be given in writing.\n"
)
TERMINABLE = HEAD + (
    "3. Termination. Either party may terminate this Agreement at any time, for any reason or for no reason, upon "
    "thirty (30) days' prior written notice to the other party.\n"
)


def test_the_shipped_model_names_its_data_licence_and_trainer_and_fits_the_contract_schema():
    assert MODEL is not None, f"no clause model at {MODEL_PATH}"
    with gzip.open(MODEL_PATH, "rt", encoding="utf-8") as fh:
        raw = json.load(fh)
    assert "CC BY 4.0" in raw["meta"]["data"] and "Atticus" in raw["meta"]["data"]
    assert raw["meta"]["trained_by"] == "bench/train_clauses.py"
    names = {f.name for f in CONTRACT.fields}
    assert MODEL.fields, "the model knows no field"
    for key, spec in MODEL.fields.items():
        kind, name = key.split("/")
        assert kind == "contract" and name in names, key
        assert 0.0 <= spec["possible"] <= spec["stated"] <= 1.01, key
        assert all(0 <= r < len(MODEL.vocab) for r in spec["weights"]), key
    assert MODEL_PATH.stat().st_size < 1_000_000  # small and shipped


def test_a_heading_for_convenience_is_no_termination_for_convenience_but_a_right_to_terminate_is():
    rules = extract_values(HEADINGS_ONLY, CONTRACT, model=None)["termination_for_convenience"]
    judged = extract_values(HEADINGS_ONLY, CONTRACT)["termination_for_convenience"]
    assert rules.status == STATED  # the signal words alone say "Yes"
    assert judged.status != STATED
    yes = extract_values(TERMINABLE, CONTRACT)["termination_for_convenience"]
    assert yes.status == STATED and yes.score is not None and yes.quote is not None
    assert "may terminate this Agreement at any time" in TERMINABLE[yes.quote[0] : yes.quote[1]]


def test_a_possible_cell_quotes_its_clause_claims_no_value_and_round_trips():
    model = ClauseModel.shipped()
    assert model is not None
    key = "contract/termination_for_convenience"
    # thresholds above the clause's score and below it: the same clause is then "possible"
    score = extract_values(TERMINABLE, CONTRACT)["termination_for_convenience"].score
    assert score is not None
    spec = {**model.fields[key], "stated": min(1.0, score + 0.001), "possible": score / 2}
    unsure = ClauseModel(model.vocab, {**model.fields, key: spec}, model.meta)
    cell = extract_values(TERMINABLE, CONTRACT, model=unsure)["termination_for_convenience"]
    assert cell.status == POSSIBLE and cell.display == "" and cell.quote is not None
    d = cell.to_dict()
    assert d["status"] == POSSIBLE and d["quote"] == list(cell.quote) and "norm" not in d
    assert Cell.from_dict(d).status == POSSIBLE and Cell.from_dict(d).score == pytest.approx(cell.score, abs=1e-3)
    # and above its score for "possible" too: not stated
    spec = {**spec, "possible": min(1.0, score + 0.001)}
    none = ClauseModel(model.vocab, {**model.fields, key: spec}, model.meta)
    assert extract_values(TERMINABLE, CONTRACT, model=none)["termination_for_convenience"].status == NOT_STATED


def test_text_the_model_cannot_read_is_left_to_the_schemas_rule():
    korean = (
        "용역 계약서\n\n제1조 (목적) 본 계약은 갑과 을 사이의 용역 제공에 관한 사항을 정한다.\n\n"
        "제2조 (해지) 각 당사자는 30일 전에 서면으로 통지하여 언제든지 본 계약을 해지할 수 있다.\n"
    )
    rules = extract_values(korean, CONTRACT, model=None)["termination_for_convenience"]
    judged = extract_values(korean, CONTRACT)["termination_for_convenience"]
    assert rules.status == STATED
    assert judged.status == rules.status and judged.quote == rules.quote and judged.score is None


def test_the_governing_law_is_the_most_specific_jurisdiction_the_clause_names():
    text = HEAD + (
        "3. Governing Law. This Agreement shall be governed by the laws of the United States and the State of Florida, "
        "without regard to its conflict of laws provisions.\n"
    )
    cell = extract_values(text, CONTRACT)["governing_law"]
    assert cell.status == STATED and cell.display == "Florida" and cell.parts["code"] == "US-FL"


def test_features_are_words_pairs_and_the_section_heading():
    text = "7. Governing Law.\nThis Agreement is governed by Delaware law. It binds the parties."
    sents = [(0, 61), (62, len(text))]
    heads = section_headings(text, sents)
    assert heads == ["7. Governing Law.", "7. Governing Law."]
    feats = sentence_features(text[62:], heads[1])
    assert {"binds", "it|binds", "h:governing", "h:law"} <= set(feats) and "7" not in feats
