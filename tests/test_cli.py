"""A CLI that explains itself: --version, help for every option, --json whose keys are docs/reference.md
documented schema, and progress bars on a terminal only."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest
from shared_builds import sample_wiki

from wikigen import cli

ROOT = Path(__file__).resolve().parent.parent
ACME = ROOT / "corpora" / "acme"
QUESTIONS = ROOT / "corpora" / "acme-questions.jsonl"
REFERENCE = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")  # the command and JSON reference


def _subcommands():
    return cli.build_parser()._subparsers._group_actions[0].choices


def _run(capsys, argv: list[str], code: int = 0) -> str:
    assert cli.main(argv) == code
    return capsys.readouterr().out


def test_version_comes_from_the_package_metadata(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out == f"wikigen {version('wikigen-memory')}\n"


def test_every_option_and_positional_has_help():
    missing = []
    for name, sub in _subcommands().items():
        for action in sub._actions:
            if action.dest != "help" and not (action.help or "").strip():
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, missing


def test_modes_are_explained(capsys):
    with pytest.raises(SystemExit):
        cli.main(["ask", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for mode in ("wiki+search:", "search:", "wiki:"):
        assert mode in out


# --- JSON: the keys are docs/reference.md -------------------------------------------------------------


def _top_keys(spec: str) -> list[str]:
    """Top-level keys of a reference schema like `{a, b: [{c}], d?}` (or `[{...}]`)."""
    spec = spec.strip()
    if spec.startswith("["):
        spec = spec[1:-1].strip()
    spec = spec[1:-1]
    keys, depth, part = [], 0, ""
    for ch in spec + ",":
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            keys.append(part.split(":")[0].strip().rstrip("?"))
            part = ""
        else:
            part += ch
    return [k for k in keys if k]


def _documented(command: str) -> list[str]:
    m = re.search(rf"^\| `{re.escape(command)}` \| `([^`]+)`", REFERENCE, flags=re.M)
    assert m, f"docs/reference.md's JSON table has no row for {command}"
    return _top_keys(m.group(1))


@pytest.fixture(scope="module")
def acme(tmp_path_factory):
    base = tmp_path_factory.mktemp("cli")
    sample_wiki(tmp_path_factory, base / "wiki", sessions=1)
    return base


def _keys(out: str) -> list[str]:
    data = json.loads(out)
    return list(data[0] if isinstance(data, list) else data)


def test_json_of_every_reporting_command_matches_the_readme(acme, capsys):
    wiki = str(acme / "wiki")
    idx = str(acme / "idx")
    runs = {
        "index": (["index", str(ACME), "--index", idx, "--json"], 0),
        "search": (["search", "termination notice", "--index", idx, "--json"], 0),
        "build": (["build", str(ACME), "--wiki", wiki, "--sessions", "1", "--json", "--quiet"], 0),
        "build --dry-run": (["build", str(ACME), "--wiki", wiki, "--backend", "claude", "--dry-run", "--json"], 0),
        "check": (["check", wiki, "--json"], None),
        "stats": (["stats", wiki, "--json"], 0),
        "pages": (["pages", wiki, "--json"], 0),
        "ask": (["ask", "Which law governs the Brightline MSA?", "--wiki", wiki, "--json"], 0),
        "asked": (["asked", wiki, "--json"], 0),  # the question just asked
        "dream": (["dream", wiki, "--json"], 0),
        "eval": (
            ["eval", str(QUESTIONS), "--wiki", wiki, "--limit", "2", "--out", str(acme / "eval"), "--json", "--quiet"],
            0,
        ),
        "export": (["export", "claude-code", wiki, str(acme / "memory"), "--json"], 0),
    }
    for command, (argv, code) in runs.items():
        got = cli.main(argv)
        cap = capsys.readouterr()
        if code is not None:
            assert got == code, (command, cap.err)
        keys = _keys(cap.out)
        documented = list(_documented(command))
        optional = (
            {"usage", "scope", "supersedes", "reading"} if command == "ask" else set()
        )  # a model's usage; the documents named; an amendment's current terms; the question's reading
        assert [k for k in documented if k not in optional] == [k for k in keys if k not in optional], command
    out = _run(
        capsys,
        [
            "ask",
            "--questions",
            str(QUESTIONS),
            "--out",
            str(acme / "answers.jsonl"),
            "--wiki",
            wiki,
            "--json",
            "--quiet",
        ],
    )
    assert json.loads(out) == {"answered": 57, "out": str(acme / "answers.jsonl")}


def test_build_json_keeps_stdout_for_the_report(acme, capsys):
    cap_code = cli.main(["build", str(ACME), "--wiki", str(acme / "wiki"), "--sessions", "1", "--json", "--quiet"])
    cap = capsys.readouterr()
    assert cap_code == 0
    report = json.loads(cap.out)  # stdout is only the JSON
    assert report["ok"] is True and report["sessions"][0]["session"] >= 2
    assert re.search(r"^session \d+: \d+ pages", cap.err, flags=re.M)


# --- progress bars -------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bars_only_on_a_terminal(tmp_path, capsys, monkeypatch):
    out = _run(capsys, ["index", str(ACME), "--index", str(tmp_path / "a"), "--json"])
    assert json.loads(out)["documents"] == 43
    assert capsys.readouterr().err == ""  # stderr is not a terminal here: no bar

    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert cli.main(["index", str(ACME), "--index", str(tmp_path / "b"), "--json"]) == 0
    assert re.search(r"indexing: +\d+%.*43/43", term.getvalue())

    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert cli.main(["index", str(ACME), "--index", str(tmp_path / "c"), "--json", "--quiet"]) == 0
    assert quiet.getvalue() == ""


def test_one_bar_at_a_time_and_lines_are_printed_above_it(monkeypatch):
    """A new stage closes the last bar (bars never stack), and a warning clears the bar before it is printed,
    then the bar is drawn again below it."""
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    with cli._Bars() as bars:
        bars("indexing", 3, 10)
        first = bars.bar
        bars("embedding", 0, 500)
        assert first.disable and bars.bar is not first  # the indexing bar was closed
        time.sleep(0.6)  # a slice of passages takes this long or longer; the bar redraws at most twice a second
        bars("embedding", 64, 500)
        bars.say("warning: something to read")
        time.sleep(0.6)
        bars("embedding", 128, 500)
    out = term.getvalue()
    before, after = out.split("warning: something to read\n", 1)
    assert before.endswith("\r") and before.rstrip("\r").split("\r")[-1].strip() == ""  # the bar line was cleared
    m = re.search(r"embedding: +\d+%.*128/500 \[[\d:]+<([\d:]+), +([\d.]+) ?passage/s\]", after)
    assert m and 50 < float(m.group(2)) < 250, after  # about 64 passages in 0.6 s: a real rate, and the time left


def test_build_shows_an_indexing_bar_on_a_terminal(tmp_path, monkeypatch):
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert cli.main(["build", str(ACME), "--wiki", str(tmp_path / "wiki"), "--sessions", "1"]) == 0
    assert re.search(r"indexing: +\d+%.*43/43", term.getvalue())
    assert re.search(r"\d+/2 \[", term.getvalue())  # the agent-session bar (2 agents x 1 session)
    # topic discovery reads each of the 43 documents twice and says it counts readings, not documents
    assert re.search(r"topic discovery: +100%.*86/86 .*reading", term.getvalue())


def test_claude_without_a_key_and_a_busy_port_are_refused_before_any_heavy_step(tmp_path, capsys):
    """No index, no discovery, no wiki folder: the build stops at once, saying how to set the key."""
    wiki = tmp_path / "wiki"
    assert cli.main(["build", str(ACME), "--wiki", str(wiki), "--backend", "claude", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: the claude backend needs an API key: set ANTHROPIC_API_KEY") and err.count("\n") == 1
    assert not wiki.exists()

    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert cli.main(["serve", str(tmp_path / "no-such-wiki"), "--port", str(port)]) == 1
    assert capsys.readouterr().err.startswith(f"Error: cannot listen on 127.0.0.1:{port}")  # before the wiki is opened


# --- rough edges ------------------------------------------------------------------------------------


def test_every_command_has_a_description(capsys):
    """`wikigen COMMAND --help` opens with a line that says what the command does, not only its usage."""
    for name, sub in _subcommands().items():
        assert (sub.description or "").strip(), name
        with pytest.raises(SystemExit):
            cli.main([name, "--help"])
        out = capsys.readouterr().out
        assert " ".join(sub.description.split()[:6]) in " ".join(out.split()), name


def test_search_reads_the_wiki_index_and_names_it_when_the_default_is_missing(acme, capsys, monkeypatch):
    wiki = acme / "wiki"
    out = _run(capsys, ["search", "governing law", "--wiki", str(wiki), "-k", "3", "--json"])
    hits = json.loads(out)["hits"]
    assert len(hits) == 3 and all(h["doc_id"] for h in hits)
    monkeypatch.chdir(acme)  # a folder holding the wiki "wiki" and no .wikigen-index
    assert cli.main(["search", "governing law"]) == 1
    err = capsys.readouterr().err
    assert "no search index in .wikigen-index" in err and "WIKI/.wikigen/index" in err
    assert "`wikigen search QUERY --wiki wiki`" in err
    with pytest.raises(SystemExit):  # one index or the other
        cli.main(["search", "law", "--wiki", str(wiki), "--index", "x"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_build_refuses_zero_sessions_with_a_reason(tmp_path, capsys):
    assert cli.main(["build", str(ACME), "--wiki", str(tmp_path / "wiki"), "--sessions", "0"]) == 2
    err = capsys.readouterr().err
    assert "--sessions must be 1 or more (got 0)" in err and "wikigen index CORPUS" in err
    assert not (tmp_path / "wiki").exists()


def test_dry_run_checks_what_the_real_run_checks(acme, tmp_path, capsys):
    """An offline dry run on a wiki of another corpus stops as the real run would; nothing is written."""
    other = tmp_path / "other-corpus"
    other.mkdir()
    (other / "note.txt").write_text("A short note about nothing in particular.\n", encoding="utf-8")
    wiki = acme / "wiki"
    before = sorted(p.name for p in wiki.rglob("*"))
    dry = cli.main(["build", str(other), "--wiki", str(wiki), "--dry-run"])
    dry_err = capsys.readouterr().err
    real = cli.main(["build", str(other), "--wiki", str(wiki), "--quiet"])
    real_err = capsys.readouterr().err
    assert dry == real != 0 and "was built from another corpus" in dry_err
    assert dry_err == real_err
    assert sorted(p.name for p in wiki.rglob("*")) == before
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli.main(["build", str(empty), "--wiki", str(tmp_path / "w2"), "--dry-run"]) == 1
    assert "no readable documents" in capsys.readouterr().err and not (tmp_path / "w2").exists()
    page = next(wiki.glob("doc-*.md"))
    page.write_text(page.read_text(encoding="utf-8") + "\nA reviewer's note.\n", encoding="utf-8")
    try:
        assert cli.main(["build", str(ACME), "--wiki", str(wiki), "--dry-run"]) == 0
        err = capsys.readouterr().err
        assert f"warning: 1 pages were edited since the last commit ({page.name})" in err
        assert "human edits" in err
    finally:
        subprocess.run(["git", "-C", str(wiki), "checkout", "--", page.name], check=True, capture_output=True)
