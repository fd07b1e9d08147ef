"""The one questions-file reader, shared by `wikigen ask --questions` and `wikigen eval`."""

import json

import pytest

from wikigen.ask.evaluate import run_eval
from wikigen.ask.questions import read_questions
from wikigen.core.errors import WikigenError


def write(tmp_path, text, name="q.jsonl"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_objects_strings_and_plain_lines_are_all_questions(tmp_path):
    p = write(
        tmp_path,
        "\n".join(
            [
                json.dumps({"id": "a", "question": "Which law governs?", "kind": "aggregate", "answer_list": ["d1"]}),
                "",
                json.dumps("비밀번호는 몇 자 이상이어야 하나요?", ensure_ascii=False),
                "What is the liability cap?",
                '"Force majeure" clauses: which contracts have one?',
                "2024",
            ]
        )
        + "\n",
    )
    qs = read_questions(p)
    assert [q["id"] for q in qs] == ["a", "q3", "q4", "q5", "q6"]
    assert [q["kind"] for q in qs] == ["aggregate", "single", "single", "single", "single"]
    assert qs[0]["answer_list"] == ["d1"]
    assert [q["question"] for q in qs[1:]] == [
        "비밀번호는 몇 자 이상이어야 하나요?",
        "What is the liability cap?",
        '"Force majeure" clauses: which contracts have one?',
        "2024",
    ]


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"question": "unfinished"', r"q\.jsonl:2: not JSON \(Expecting ',' delimiter\)"),
        ('{"id": "x"}', r"q\.jsonl:2: a question needs a non-empty 'question' field"),
        ('{"question": "   "}', r"q\.jsonl:2: a question needs a non-empty 'question' field"),
        ('{"question": 5}', r"q\.jsonl:2: a question needs a non-empty 'question' field"),
        ('["a list"]', r"q\.jsonl:2: a question needs a non-empty 'question' field"),
    ],
)
def test_a_bad_line_is_an_error_naming_the_file_and_line(tmp_path, line, message):
    p = write(tmp_path, '{"question": "fine"}\n' + line + "\n")
    with pytest.raises(WikigenError, match=message):
        read_questions(p)


def test_missing_and_non_utf8_files_are_clear_errors(tmp_path):
    with pytest.raises(WikigenError, match="no questions file at"):
        read_questions(tmp_path / "nope.jsonl")
    p = tmp_path / "latin1.txt"
    p.write_bytes("Quelle loi régit le contrat ?\n".encode("latin-1"))
    with pytest.raises(WikigenError, match=r"latin1\.txt: not UTF-8 text \(byte 12\)"):
        read_questions(p)


class _Answerer:
    def __init__(self):
        self.asked = []

    def ask(self, question, mode, budget):
        self.asked.append(question)
        return type("R", (), {"context": [], "tokens": 0, "scope": None, "answer": "", "answer_spans": []})()


def test_eval_reads_the_same_files_as_ask(tmp_path):
    p = write(tmp_path, "What is the liability cap?\n" + json.dumps({"question": "Which law governs?"}) + "\n")
    answerer = _Answerer()
    report = run_eval(p, wiki=tmp_path, modes=["search"], out_dir=None, answerer=answerer)
    assert answerer.asked == ["What is the liability cap?", "Which law governs?"]
    assert [r["id"] for r in report.rows] == ["q1", "q2"] and report.questions == 2
