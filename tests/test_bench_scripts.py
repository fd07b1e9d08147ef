"""Every benchmark script imports what it uses from the tree as it is now: each answers --help, and those with a
mode that needs no dev corpus run it, for real, on the repository's own fixtures (seconds each)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_"))


def test_there_are_bench_scripts():
    assert {"eval_bench.py", "scale_bench.py", "index_bench.py"} <= {p.name for p in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_bench_script_answers_help(script):
    proc = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage" in proc.stdout.lower()


REPO = BENCH.parent
ACME = REPO / "corpora" / "acme"


def _two_wikis(tmp: Path) -> list[str]:
    for name in ("base", "other"):
        (tmp / name).mkdir()
        (tmp / name / "topic-termination.md").write_text("# Termination\n\nEither party may end it.\n", "utf-8")
    return [str(tmp / "base"), str(tmp / "other")]


def _two_summaries(tmp: Path) -> list[str]:
    rows = [{"mode": "wiki", "id": str(i), "kind": "single", "score": float(i % 2)} for i in range(6)]
    paths = [tmp / "old.json", tmp / "new.json"]
    for path in paths:
        path.write_text(json.dumps([{"corpus": "acme", "rows": rows}]), encoding="utf-8")
    return [str(p) for p in paths]


# script -> (its arguments, given a temporary folder; a line its report prints)
CHEAP = {
    "secrets_bench.py": (lambda tmp: ["--corpora", "none"], "planted secrets"),
    "ownership_bench.py": (lambda tmp: ["2", "3", "--json"], '"own_kept": 6'),
    "claude_concurrency_bench.py": (
        lambda tmp: ["--levels", "1", "--turns", "2", "--ttft", "0.01", "--out-tokens", "10"],
        "requests a minute",
    ),
    "index_bench.py": (lambda tmp: [str(ACME), "--queries", "5", "--repeat", "1"], "query latency over 5 queries"),
    "scale_corpus.py": (
        lambda tmp: ["--source", str(ACME / "contracts"), "--factor", "2", "--out", str(tmp / "scaled")],
        "documents",
    ),
    "compare_wikis.py": (_two_wikis, "same"),
    "compare_eval.py": (_two_summaries, "acme"),
}


def test_the_cheap_modes_name_real_scripts():
    assert set(CHEAP) <= {p.name for p in SCRIPTS}


@pytest.mark.parametrize("name", sorted(CHEAP))
def test_bench_script_runs_its_cheap_mode(name, tmp_path):
    """The script's quickest real run, on the repository's fixtures (no dev corpus), ends 0 with its report."""
    args, says = CHEAP[name]
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run(
        [sys.executable, str(BENCH / name), *args(work)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert says in proc.stdout, proc.stdout[-2000:]


def _script(name: str):
    """bench/NAME.py as a module; its folder on the path, as when it runs as a script (it imports _eval_data)."""
    import importlib.util

    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _eval_bench():
    return _script("eval_bench")


def test_compare_eval_calls_one_question_moved_the_same_and_prints_small_differences(tmp_path, capsys):
    """One question of 40000 moving by 1 is a mean of exactly one SE: "same", whatever the rounding; a run where
    two of four questions move up is a gain. Differences under 0.0005 print in full, not as 0.0000."""
    import json

    compare = _script("compare_eval")
    n = 40_000
    old = [{"mode": "wiki", "id": str(i), "kind": "single", "score": 0.0} for i in range(n)]
    new = [dict(r, score=1.0 if r["id"] == "7" else 0.0) for r in old]
    few_old = [{"mode": "wiki", "id": f"m{i}", "kind": "multi", "score": 0.0} for i in range(4)]
    few_new = [dict(r, score=1.0 if r["id"] in ("m1", "m2") else 0.0) for r in few_old]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps([{"corpus": "c", "rows": old + few_old}]), encoding="utf-8")
    b.write_text(json.dumps([{"corpus": "c", "rows": new + few_new}]), encoding="utf-8")
    got = compare.paired(compare._rows(a), compare._rows(b))
    n1, mean, se = got[("c", "wiki", "single", "score")]
    assert n1 == n and compare.verdict(mean, se) == "same"
    assert compare.verdict(*got[("c", "wiki", "multi", "score")][1:]) == "gain"
    assert compare.verdict(-0.5, 0.1) == "loss" and compare.verdict(0.1, None) == "-"
    assert compare.main([str(a), str(b)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if " single " in x)
    assert "+2.5e-05" in line and line.split()[-1] == "same"


def test_eval_bench_set_types_each_override_from_its_field():
    """--set NAME=VALUE overrides RetrievalParams fields, each value typed as its field is."""
    parse = _eval_bench().parse_overrides
    got = parse(["prf_terms=0", "passage_weight=0", "doc_figure_rows=Yes"])
    assert got == {"prf_terms": 0, "passage_weight": 0.0, "doc_figure_rows": True}
    assert isinstance(got["prf_terms"], int) and isinstance(got["passage_weight"], float)
    assert parse([]) == {}


@pytest.mark.parametrize(
    "pair, says",
    [
        ("no_such_knob=1", "no field 'no_such_knob'"),
        ("prf_terms=0.5", "prf_terms is int"),
        ("doc_figure_rows=2", "bool"),
    ],
)
def test_eval_bench_set_rejects_an_unknown_field_or_a_mistyped_value(pair, says):
    """A mistyped knob is a usage error (exit 2) before any corpus is read, never a silent default."""
    proc = subprocess.run(
        [sys.executable, str(BENCH / "eval_bench.py"), "--set", pair, "--data-root", "/nonexistent"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert says in proc.stderr
    assert "not found" not in proc.stderr  # stopped at the option, not at the missing corpus


def test_sessions_bench_runs_with_the_same_out_keep_each_corpus(tmp_path):
    write_report = _script("sessions_bench").write_report
    path = tmp_path / "dreaming-report.json"
    write_report(path, [{"corpus": "cuad-dev", "score": 1}])
    write_report(path, [{"corpus": "sec10q-dev", "score": 2}])  # another run, another corpus: both kept
    write_report(path, [{"corpus": "cuad-dev", "score": 3}])  # the same corpus again: its entry replaced
    assert json.loads(path.read_text()) == [{"corpus": "sec10q-dev", "score": 2}, {"corpus": "cuad-dev", "score": 3}]
    path.write_text("not json")
    write_report(path, [{"corpus": "x"}])  # an unreadable old report is replaced, not a crash
    assert json.loads(path.read_text()) == [{"corpus": "x"}]


def _mini_cuad(root: Path) -> Path:
    """Two contracts in cuad-dev's layout: one whose date its signature page states, long after the opening, and
    one amendment of it (the same filing's exhibits, numbered), with the experts' answers."""
    import json

    data = root / "mini"
    (data / "docs").mkdir(parents=True)
    base = (
        'SUPPLY AGREEMENT\n\nThis Supply Agreement is made between Orrin Metals Ltd ("Seller") and Kestrel Foods '
        'Inc ("Buyer").\n\n' + "The Seller shall supply the goods. " * 150 + "\n\nDated March 1, 2023\n"
    )
    amend = (
        "AMENDMENT NO. 1 TO THE SUPPLY AGREEMENT\n\nThis Amendment No. 1 to the Supply Agreement dated March 1, 2023 "
        'is made between Orrin Metals Ltd ("Seller") and Kestrel Foods Inc ("Buyer").\n\nThe Supply Agreement is '
        'hereby amended: "thirty (30) days" is replaced with "sixty (60) days".\n\nDated June 5, 2023\n'
    )
    docs = [("supply-agreement1", "SUPPLY AGREEMENT", base), ("supply-agreement2", "AMENDMENT NO. 1", amend)]
    with (data / "docs.jsonl").open("w", encoding="utf-8") as f:
        for doc_id, title, text in docs:
            (data / "docs" / f"{doc_id}.txt").write_text(text, encoding="utf-8")
            f.write(
                json.dumps({"doc_id": doc_id, "title": title, "parties": "Orrin Metals Ltd; Kestrel Foods Inc"}) + "\n"
            )
    gold = [("supply-agreement1", "Agreement Date", "3/1/23"), ("supply-agreement1", "Parties", "Orrin Metals Ltd")]
    with (data / "questions.jsonl").open("w", encoding="utf-8") as f:
        for doc_id, category, answer in gold:
            q = {"kind": "single", "category": category, "answer": answer, "source_doc_ids": [doc_id]}
            f.write(json.dumps(q) + "\n")
    return data


def test_facts_bench_grades_and_pairs_by_contract(tmp_path):
    """The date a signature page states is read (the whole text), the parties graded by their names, the
    amendment chained to its agreement; a run paired with itself moves nothing, and with a run that had the
    date wrong it gains exactly that contract."""
    facts = _script("facts_bench")
    s = facts.score(_mini_cuad(tmp_path))
    assert (s["table date"]["right"], s["table date"]["n"]) == (1, 1)
    assert (s["table parties"]["right"], s["table parties"]["n"]) == (1, 1)
    assert s["amendment chains"] == {"with base": 1, "found": 1, "wrong": 0}
    assert s["amendment cue"]["found"] == 1 and s["amendment cue"]["false"] == 0
    assert facts.paired(s["table date"], s["table date"]) == (0.0, 0.0)
    wrong = dict(s["table date"], right=0, docs=[])
    assert facts.paired(s["table date"], wrong) == (1.0, 0.0)


def test_eval_bench_finds_the_shipped_samples_plain_questions():
    """The sample corpus and its plain questions ship with the product, so an eval run measures them, dev corpora
    or not: eval_bench finds the sample's plain set in corpora/plain/."""
    bench = _eval_bench()
    found = bench.plain_sets(bench.SAMPLE, bench.ROOT / "corpora")
    assert bench.ROOT / "corpora" / "plain" / "acme.jsonl" in found
