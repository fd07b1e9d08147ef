"""Plain questions a user would type, and what each wording rule of `ask` answers for them.

One document or many (wikigen.ask.wording.asks_many: retrieval, the extractive answer and the provisions table all
ask it), a figure across documents or over time (wikigen.ask.figures.asks_across, wikigen.ask.periods), with and
without a document the wiki resolved, in English and Korean. The questions were written for this file from how
people ask about their own contracts and reports, not taken from any evaluation set.
"""

from __future__ import annotations

import pytest
from wikigen.search.values.schema import load_schemas

from wikigen.ask.context import ContextItem
from wikigen.ask.figures import asks_across
from wikigen.ask.generate import ExtractiveAnswer
from wikigen.ask.periods import names_several_periods
from wikigen.ask.scope import Scope
from wikigen.ask.values import parse_query
from wikigen.ask.wording import ask_clause, asks_many, points_at_one, range_words

ABOUT_MANY = [
    "Which contracts renew automatically?",
    "List the contracts that renew automatically.",
    "List all agreements with a non-compete clause.",
    "How many leases allow subletting?",
    "Do any of the agreements require the supplier to carry insurance?",
    "Do any contracts have a most favoured nation clause?",
    "What agreements are governed by Delaware law?",
    "Show me every contract that can be terminated for convenience.",
    "Across our supply agreements, who pays for shipping?",
    "Does each contract cap liability?",
    "Which of these contracts give us audit rights?",
    "what leases end in 2026",
    "어떤 계약이 자동으로 갱신되나요?",
    "모든 계약서의 준거법을 알려 주세요.",
    "경업금지 조항이 있는 계약을 나열해 주세요.",
    "몇 개의 계약이 뉴욕 법을 따르나요?",
    "How many contracts last longer than two years?",
    "How many agreements give 30 days' notice?",
    "각 계약의 해지 통지 기간은 얼마인가요?",
]

ABOUT_ONE = [
    "Is there any cap on liability?",
    "Is there a cap on liability?",
    "What is the governing law?",
    "What happens if the buyer pays late?",
    "What applies to confidential information after termination?",
    "Who are the parties to the Acme supply agreement?",
    "When does the Harbour Street lease expire?",
    "Can this agreement be assigned without consent?",
    "Which party may terminate this agreement?",
    "Under that contract, who owns the software?",
    "Does that agreement allow subcontracting?",
    "Is there a clause that limits the supplier's liability?",
    "Does the lease say that the tenant pays for repairs?",
    "Does the lease cap the landlord's liability at all?",
    "What notice must the tenant give before moving out?",
    "I read all the quarterly reports last night. What was Acme's revenue in the second quarter of 2023?",
    "이 계약의 준거법은 무엇인가요?",
    "본 계약은 자동으로 갱신되나요?",
    "계약이 자동으로 갱신되나요?",
    "임대료는 얼마인가요?",
    "해당 계약서에 책임 한도가 있나요?",
    # "how many" before a unit of time asks a length a document states, not a count of documents
    "How many days can I work from abroad?",
    "How many business days do we have to pay an invoice?",
    "What is the number of months of the warranty?",
    "개인정보가 유출되면 몇 시간 안에 알려야 하나요?",
    "하자보증기간은 몇 개월인가요?",
]


@pytest.mark.parametrize("question", ABOUT_MANY)
def test_a_question_about_many_documents_reads_as_many(question):
    assert asks_many(question), question
    assert asks_many(question, Scope(""))  # no scope the wiki resolved: the words decide


@pytest.mark.parametrize("question", ABOUT_ONE)
def test_a_question_about_one_document_reads_as_one(question):
    assert not asks_many(question), question


@pytest.mark.parametrize(
    "question",
    [
        "Which contracts renew automatically?",
        "What is the notice period?",
        "List the parties.",
        "어떤 조항이 있나요?",
    ],
)
def test_the_document_the_wiki_resolved_decides_before_the_words(question):
    named = Scope("document", doc_ids=["contracts/acme-supply"])
    assert not asks_many(question, named)


def test_a_collection_the_wiki_resolved_asks_about_its_members_unless_one_is_pointed_at():
    kind = Scope("collection", doc_ids=["leases/a", "leases/b", "leases/c"])
    assert asks_many("What is the notice period?", kind)
    assert asks_many("임대료는 얼마인가요?", kind)
    assert not asks_many("What is the notice period in this lease?", kind)
    assert not asks_many("이 임대차 계약의 임대료는 얼마인가요?", kind)


def test_a_singular_demonstrative_points_at_one_document_and_a_relative_that_does_not():
    assert points_at_one("What does this contract say about refunds?")
    assert points_at_one("Under that agreement, who pays?")
    assert points_at_one("That lease: when does it end?")
    assert points_at_one("이 계약서는 언제 끝나나요?")
    assert not points_at_one("List the contracts that renew automatically.")
    assert not points_at_one("Is there a clause that limits liability?")
    assert not points_at_one("Does the lease say that the tenant pays?")
    assert not points_at_one("계약이 자동 갱신되나요?")  # 이 as a particle, not a word of its own


def test_the_asking_clause_is_the_last_sentence():
    q = "Consider the Harbour Street lease between Acme and Beta. Which party pays the insurance?"
    assert ask_clause(q) == "Which party pays the insurance?"
    assert ask_clause("Which contracts renew automatically?") == "Which contracts renew automatically?"


@pytest.mark.parametrize(
    ("question", "ranged"),
    [
        ("How many leases allow subletting?", ["many", "leases"]),
        ("Across all 40 supply agreements, who pays for shipping?", ["40", "agreements"]),
        ("Which contracts renew automatically?", ["contracts"]),
        ("Do any of the agreements require insurance?", ["agreements"]),
        ("How many of our leases end in 2026?", ["many", "leases"]),
        ("Which law governs the Acme agreement?", []),  # a singular after "which" is what is asked
        ("Which party pays the insurance?", []),
        ("What happens if the buyer pays late?", []),
        ("Is there any cap on liability?", []),
    ],
)
def test_the_words_that_say_which_documents_a_question_ranges_over(question, ranged):
    """What the dreamer leaves out of a question's subject (wikigen.agents.subjects): "how many leases allow
    subletting" and "does this lease allow subletting" ask one thing."""
    assert range_words(question) == ranged


OVER_TIME = [
    "How did revenue change over the last four quarters?",
    "Compare operating income in Q1 2023 and Q1 2022.",
    "What was net income in 2022 and in 2023?",
    "Show revenue by quarter.",
    "Has the gross margin increased since last year?",
    "What is the trend in operating expenses?",
    "Did cash on hand grow or decline?",
    "How does this quarter's revenue differ from the prior quarter?",
    "Which quarter had the highest revenue?",
    "What was revenue in each quarter of 2023?",
    "분기별 매출 추이를 보여 주세요.",
    "2022년과 2023년의 영업이익을 비교해 주세요.",
    "전년 대비 순이익은 어떻게 변했나요?",
]

ONE_POINT_IN_TIME = [
    "What was revenue in Q2 2023?",
    "What was Acme's revenue in the second quarter of 2023?",
    "What is the governing law of the Harbour Street lease?",
    "Who are the parties to the supply agreement?",
    "How much cash did Acme hold at the end of fiscal 2023?",
    "2023년 2분기 매출은 얼마인가요?",
]


@pytest.mark.parametrize("question", OVER_TIME)
def test_a_figure_asked_over_time_or_across_documents_reads_so(question):
    assert asks_across(question), question


@pytest.mark.parametrize("question", ONE_POINT_IN_TIME)
def test_a_figure_at_one_point_in_time_does_not(question):
    assert not asks_across(question), question


def test_several_periods_are_named_by_two_periods_or_a_plural_relative_or_per_period_word():
    assert names_several_periods("revenue in Q1 2023 and Q2 2023")
    assert names_several_periods("net income from 2021 to 2023")
    assert names_several_periods("sales over the past three years")
    assert names_several_periods("revenue by quarter")
    assert names_several_periods("분기별 매출")
    assert not names_several_periods("revenue in Q2 2023")
    assert not names_several_periods("revenue in Q2 fiscal 2023")  # one quarter, its year said again
    assert not names_several_periods("revenue of $2,019 million in 2023")  # an amount is no year


SCHEMAS = load_schemas()


def _query(question: str, **kw):
    return parse_query(question, SCHEMAS, ["contract"], **kw)


def test_the_provisions_table_lists_for_many_gives_a_value_for_one_and_leaves_the_rest():
    listed = _query("List the contracts that renew automatically.")
    assert listed is not None and listed.want == "list" and listed.field.name == "renewal_term"
    korean = _query("어떤 계약이 자동으로 갱신되나요?")
    assert korean is not None and korean.want == "list" and korean.field.name == "renewal_term"
    counted = _query("How many contracts have a non-compete clause?")
    assert counted is not None and counted.want == "count" and counted.field.name == "non_compete"
    # about one document the wiki did not find: not the table's to answer
    assert _query("Is there any cap on liability?") is None
    assert _query("Is this contract governed by Delaware law?") is None
    # the same question once the wiki resolved its document: that document's value
    one = _query("Is there any cap on liability?", one_document=True)
    assert one is not None and one.want == "value" and one.field.name == "liability_cap"


def test_words_that_share_a_beginning_but_not_a_stem_name_no_field():
    # "transportation" and "transfer" (of "transfer the agreement", a way to ask about assignment) part after "trans"
    capped = _query("Which transportation agreements cap liability?", many=True)
    assert capped is not None and capped.field.name == "liability_cap"
    listed = _query("List the transport agreements with a non-compete clause.", many=True)
    assert listed is None or listed.field.name != "assignment"
    # the same stem, or a beginning that holds a whole stem, still matches
    for question, name in [
        ("Which contracts restrict assignment?", "assignment"),
        ("List the contracts that are terminable for convenience.", "termination_for_convenience"),
        ("Which contracts grant auditing rights?", "audit_rights"),
        ("Which agreements are governed by Delaware law?", "governing_law"),
    ]:
        q = _query(question, many=True)
        assert q is not None and q.field.name == name, question


def test_a_hyphenated_word_is_matched_by_all_its_parts():
    """'non-transferable' shares only its 'non' with 'non-compete': no non-compete question; 'non-compete' still is.
    The words that named the contract are not what is asked (`named`), so the clause is about the licences."""
    named = frozenset({"bioeq", "licens", "agreement"})
    q = _query("Are the licenses under the Bioeq license agreement non-transferable?", one_document=True, named=named)
    assert q is None or q.field.name != "non_compete"
    q = _query("Does this contract have a non-compete?", one_document=True)
    assert q is not None and q.field.name == "non_compete"


RENEWS = "This Agreement renews automatically for successive one-year terms unless either party gives notice."
CAPPED = "The Supplier's total liability is capped at the fees paid in the prior twelve months."


def _passage(doc_id: str, text: str) -> ContextItem:
    return ContextItem(
        "passage", f"{doc_id} (chars 0-{len(text)})", text, [{"doc_id": doc_id, "start": 0, "end": len(text)}]
    )


def test_the_extractive_answer_gives_one_line_per_document_only_when_many_are_asked_about():
    items = [_passage("contracts/a", RENEWS + " " + CAPPED), _passage("contracts/b", RENEWS)]
    many = ExtractiveAnswer().answer("List the contracts that renew automatically.", items, Scope(""))
    assert many.text.startswith("Found in 2 documents:")
    assert sorted({sp["doc_id"] for sp in many.spans}) == ["contracts/a", "contracts/b"]
    one = ExtractiveAnswer().answer("Is there any cap on liability?", items, Scope(""))
    assert one.text.startswith('1. "') and "capped at the fees" in one.text


@pytest.mark.parametrize(
    "question",
    [
        "Which contracts are governed by New York law?",
        "Which contracts are governed by NY law? Please list them.",  # an abbreviation, a trailing sentence
        "which contracts are under new york law? thanks!",  # lower case; "under" names the law, not a bound
        "Are any of our agreements governed by N.Y. law?",  # "any of our": many documents
        "New York law governs which of our contracts?",  # the value first
        "List the agreements subject to the laws of the State of New York.",
        "show me the agreements under NY law",  # the kind's plural says many
    ],
)
def test_a_value_question_is_read_the_same_in_its_wordings(question):
    q = _query(question)
    assert q is not None, question
    assert (q.field.name, q.condition.op, q.condition.value.norm, q.want) == ("governing_law", "eq", "New York", "list")


def test_a_bound_still_compares_where_the_value_is_ordered():
    q = _query("Which contracts can be terminated for convenience on less than 30 days' notice? List them.")
    assert q is not None and q.condition is not None and q.condition.op == "lt"
    assert q.condition.value is not None and q.condition.value.type == "duration"
    cal = _query("Which agreements are under Cal. law?")
    assert cal is not None and (cal.condition.op, cal.condition.value.norm) == ("eq", "California")


def test_a_clause_that_only_names_the_document_asks_nothing_when_a_question_follows():
    """'Consider the X between A ("Party") and B (the "Parties"). What licenses are granted under this contract?'
    asks about licenses, not the parties: the naming sentence has no question mark, the asking one has."""
    q = 'Consider the Endorsement Agreement between Geno Auriemma; Berkshire Bank (the "Parties"). What licenses are granted under this contract?'
    assert _query(q, one_document=True) is None or _query(q, one_document=True).field.name != "parties"
    named = _query(
        "Consider the Endorsement Agreement between A; B. Who are the parties to this contract?", one_document=True
    )
    assert named is not None and named.field.name == "parties"  # when the question asks it, it is read
    follows = _query("Which contracts have a non-compete? Please list them.")
    assert follows is not None and follows.field.name == "non_compete"


def test_this_contract_is_one_document_though_it_names_licenses():
    assert _query("Are the licenses granted under this contract non-transferable?") is None


@pytest.mark.parametrize(
    ("question", "state"),
    [
        ("show me the agreements under DE law", "Delaware"),  # a postal code
        ("Which contracts are governed by Ill. law?", "Illinois"),  # the traditional abbreviation
        ("Which contracts are subject to Penn. law?", "Pennsylvania"),
        ("Which agreements are under MA law? List them.", "Massachusetts"),
        ("Are any of our contracts under Ont. law?", "Ontario"),  # a Canadian province
    ],
)
def test_a_state_is_read_by_its_short_forms_before_law(question, state):
    q = _query(question)
    assert q is not None and q.condition is not None, question
    assert (q.field.name, q.condition.value.norm) == ("governing_law", state)


def test_a_short_form_in_a_contract_needs_its_period():
    """In a document's text, "OR LAW" in a heading in capitals is no Oregon; "Del. law" is Delaware."""
    from wikigen.search.values.jurisdictions import find_jurisdiction_values

    assert find_jurisdiction_values("REMEDIES AT LAW OR IN EQUITY, BY STATUTE OR LAW.") == []
    assert [v.display for v in find_jurisdiction_values("This Agreement is governed by Del. law.")] == ["Delaware"]
