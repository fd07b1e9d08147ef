"""The question is read once (wikigen.ask.reading): what follows the reading takes it and parses the question no
more; the reading says which names no document holds, and `ask` answers from it."""

from __future__ import annotations

import pytest
from ask_helpers import answerer_over, document_page, quoted

import wikigen.ask.figures as figures_mod
import wikigen.ask.generate as generate_mod
import wikigen.ask.retrieval as retrieval_mod
from wikigen.ask.absent import NOT_IN_CORPUS

LEASE = (
    "OFFICE LEASE\n\nThis Lease is made between Harbourview Properties Ltd and Quillon Analytics Inc.\n\n"
    "1. Term. The term of this Lease is five (5) years from the Commencement Date.\n\n"
    "2. Governing Law. This Lease is governed by the laws of the State of New York.\n"
)
SUPPLY = (
    "SUPPLY AGREEMENT\n\nThis Agreement is made between Ferrowick Metals Inc and Quillon Analytics Inc.\n\n"
    "1. Term. This Agreement runs for three (3) years.\n\n"
    "2. Governing Law. This Agreement is governed by the laws of the State of Delaware.\n"
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    docs = {"lease-harbourview": LEASE, "supply-ferrowick": SUPPLY}
    pages = [
        document_page(
            "lease-harbourview", "Office Lease", quoted("lease-harbourview", LEASE, "five (5) years"), "A lease"
        ),
        document_page(
            "supply-ferrowick", "Supply Agreement", quoted("supply-ferrowick", SUPPLY, "three (3) years"), "A supply"
        ),
    ]
    return answerer_over(tmp_path_factory.mktemp("reading"), docs, pages)


def test_a_name_no_document_holds_is_in_the_reading_and_said(answerer):
    q = "What is the term of the Zorblax lease?"
    reading = answerer.read(q)
    assert reading.absent == ("Zorblax",) and reading.named == 1
    r = answerer.ask(q)
    assert r.to_dict()["reading"]["absent"] == [{"name": "Zorblax", "near": None}]
    assert r.answer == NOT_IN_CORPUS.format(names="'Zorblax'") and r.answer_spans == []
    # a name the corpus holds is not absent, and the reading says nothing of absence
    held = answerer.read("What is the term of the Harbourview lease?")
    assert held.absent == () and "absent" not in held.to_dict()
    # one edit from a name a document writes: the reading keeps how it is written
    assert answerer.read("What is the term of the Harbourveiw lease?").near == {"Harbourveiw": "Harbourview"}


def test_what_follows_the_reading_does_not_read_the_question_again(answerer, monkeypatch):
    """Each of the question's readings (names absent, one document or many, the figure pages asked of, the scope)
    runs once per `ask`, in `read`; the answer takes the reading's `many` and never asks the wording itself."""
    calls: dict[str, int] = {}

    def counted(name, fn):
        def wrapper(*a, **k):
            calls[name] = calls.get(name, 0) + 1
            return fn(*a, **k)

        return wrapper

    monkeypatch.setattr(retrieval_mod, "absent_names", counted("absent", retrieval_mod.absent_names))
    monkeypatch.setattr(retrieval_mod, "asks_many", counted("many", retrieval_mod.asks_many))
    monkeypatch.setattr(figures_mod.FigurePages, "asked", counted("figures", figures_mod.FigurePages.asked))
    monkeypatch.setattr(answerer.scopes, "resolve", counted("scope", answerer.scopes.resolve))

    def never(*a, **k):
        raise AssertionError("the answer read the question's wording again")

    monkeypatch.setattr(generate_mod, "asks_many", never)
    for q in ("What is the term of the Harbourview lease?", "Which agreements are governed by Delaware law?"):
        calls.clear()
        r = answerer.ask(q)
        assert r.answer_spans, q
        assert calls == {"absent": 1, "many": 1, "figures": 1, "scope": 1}, (q, calls)
