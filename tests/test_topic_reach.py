"""A topic's reach (wikigen.agents.topic_reach): a document that states a topic's subject in other words
joins the topic with its sentence; one that does not state it stays out; the reached documents are
quoted on their own pages, not on the topic page (wikigen.agents.budget)."""

from __future__ import annotations

import dataclasses

from wikigen.agents.budget import quote_plan
from wikigen.agents.catalog import REACH
from wikigen.agents.params import DiscoveryParams, OfflineParams
from wikigen.agents.topics import discover

REACH_ON = dataclasses.replace(DiscoveryParams(), reach_quantile=0.25)  # off by default (docs/benchmarks.md)

FILLER = (
    "1. Services. The supplier provides the services in the statement of work. Each party appoints a "
    "manager for the project, who reports monthly on progress, staffing and open issues.\n\n"
    "2. Fees. Fees are paid within thirty days of invoice, in the currency of the invoice.\n\n"
)
AUDITS = [  # members word the clause differently, as contracts do
    "3. Audit Rights. The Customer may audit the Supplier's books and records once a year, on thirty days' "
    "notice, through an independent accountant; the Supplier bears the cost if the audit reveals an "
    "underpayment of more than five percent.",
    "3. Audit Rights. Once a year the Customer may have an independent accountant examine the books and "
    "records of the Supplier that relate to the fees.",
    "3. Audit Rights. The Customer may inspect the records once in each calendar year.",
    "3. Audit Rights. An accountant may audit the Supplier's books on reasonable notice; any underpayment is "
    "paid within ten days.",
]
# the same subject, no heading and none of the words "audit rights": books, records, accountant, underpayment
RECORDS = (
    "3. Payments. The Supplier shall keep complete books and records of the fees. An independent "
    "accountant chosen by the Customer may examine those books and records once a year; the Supplier "
    "bears the cost if the examination reveals an underpayment of more than five percent.\n\n"
)
OTHER = (
    "3. Publicity. Neither party may issue a press release about this Agreement without the other's "
    "written consent, which may not be unreasonably withheld.\n\n"
)


def _corpus() -> dict[str, str]:
    texts = {
        f"audit-{i}": f"SERVICES AGREEMENT {i}\n\n{FILLER}{a}\n\n4. Term. This Agreement runs for {i + 1} years.\n"
        for i, a in enumerate(AUDITS)
    }
    texts["records"] = f"SUPPLY AGREEMENT\n\n{FILLER}{RECORDS}4. Term. This Agreement runs for two years.\n"
    texts["publicity"] = f"SUPPLY AGREEMENT\n\n{FILLER}{OTHER}4. Term. This Agreement runs for three years.\n"
    return texts


def _audit_topic(cat):
    return next(t for t in cat.topics if t.key.startswith("audit"))


def test_a_document_saying_the_subject_in_other_words_joins_the_topic_with_its_sentence():
    texts = _corpus()
    t = _audit_topic(discover(texts, params=REACH_ON))
    assert {d for d in t.spans if t.via.get(d) != REACH} == {f"audit-{i}" for i in range(4)}
    assert t.via.get("records") == REACH and "publicity" not in t.spans
    s, e = t.spans["records"]
    quoted = texts["records"][s:e]
    assert "books and records" in quoted and "underpayment" in quoted  # the sentence that says it
    off = discover(texts)
    assert DiscoveryParams().reach_quantile is None
    assert "records" not in _audit_topic(off).spans


def test_reached_documents_are_quoted_on_their_own_pages_not_on_the_topic_page():
    cat = discover(_corpus(), params=REACH_ON)
    t = _audit_topic(cat)
    plan = quote_plan(cat, OfflineParams())
    assert "records" not in {d for (key, d) in plan if key == t.key}
    assert {d for (key, d) in plan if key == t.key} <= {f"audit-{i}" for i in range(4)}
