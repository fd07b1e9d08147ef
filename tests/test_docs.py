"""The words a new user reads first: the README's two commands, and every command documented."""

import re
import subprocess
from pathlib import Path

import pytest

from wikigen import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
REFERENCE = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_demo_and_the_tests():
    block = README.split("```", 2)[1]
    commands = [line.split("#")[0].strip() for line in block.splitlines()[1:] if line.strip()]
    assert commands == ["make demo", "make test"]


def test_every_command_is_in_the_readme_tour():
    commands = cli.build_parser()._subparsers._group_actions[0].choices
    assert {
        "ask",
        "build",
        "check",
        "eval",
        "export",
        "index",
        "mcp",
        "pages",
        "rollback",
        "search",
        "serve",
        "site",
        "stats",
    } <= set(commands)
    for name in commands:
        assert f"wikigen {name} " in README, name


def test_help_shows_the_first_two_commands(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert "wikigen build corpora/acme --wiki my-wiki" in out
    assert 'wikigen ask "Which contracts renew automatically?" --wiki my-wiki' in out


def test_every_option_is_in_the_readme_reference():
    """Each subcommand's row in the command reference (docs/reference.md) names every one of its options."""
    missing = []
    for name, sub in cli.build_parser()._subparsers._group_actions[0].choices.items():
        row = next((line for line in REFERENCE.splitlines() if line.startswith(f"| `{name} ")), None)
        if row is None:
            missing.append(f"{name}: no row in the command reference")
            continue
        for action in sub._actions:
            for opt in action.option_strings:
                if opt not in ("-h", "--help") and f"`{opt}" not in row:
                    missing.append(f"{name} {opt}")
    assert not missing, missing


def test_the_python_api_example_runs(tmp_path, monkeypatch, capsys):
    """The README's Python block runs as written (its work folder moved into tmp), in this process, so its
    build skips the passage vectors like every other test build (tests/conftest.py)."""
    block = README.split("## Python API", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    imports = [line for line in block.splitlines() if line.startswith(("import wikigen", "from wikigen"))]
    assert imports and all(line.startswith("from wikigen import ") for line in imports), imports  # the public API
    code = block.replace('Path("api-demo")', f"Path({str(tmp_path / 'api-demo')!r})")
    assert code != block
    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root)  # the block names the sample corpus by its path in the repository
    exec(compile(code, "README.md (Python API)", "exec"), {"__name__": "readme_example"})
    assert "contracts/msa-brightline-logistics" in capsys.readouterr().out
    assert not (root / "api-demo").exists()


ABSOLUTE_MACHINE_PATH = re.compile(rb"(?<![\w.~])/(?:work|tmp)/")
PEOPLE_OR_SESSIONS = re.compile(r"\b(?:leads?|helpers?|engineers?|we|session \d+)\b", re.IGNORECASE)


def _committed_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"not a git checkout: {e}")
    return [ROOT / name for name in out.decode("utf-8").split("\0") if name]


def test_no_committed_file_outside_tests_names_a_machine_path():
    """The repository speaks of the checkout, never of the machine it was built on: no committed file outside
    tests/ holds an absolute path of a work or temporary folder (a relative path, a default under the checkout's
    .cache/ or a temporary folder made at run time serves every clone)."""
    files = [p for p in _committed_files() if p.relative_to(ROOT).parts[0] != "tests" and p.is_file()]
    assert any(p.name == "eval_bench.py" for p in files)
    found = []
    for path in files:
        for number, line in enumerate(path.read_bytes().splitlines(), 1):
            if ABSOLUTE_MACHINE_PATH.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.decode('utf-8', 'replace').strip()[:120]}")
    assert not found, "absolute machine paths:\n" + "\n".join(found)


def test_machine_paths_are_told_from_relative_ones():
    assert ABSOLUTE_MACHINE_PATH.search(b"--index-cache /work/cache")
    assert ABSOLUTE_MACHINE_PATH.search(b'default="/tmp/x"')
    assert not ABSOLUTE_MACHINE_PATH.search(b"../tmp/x .cache/work/y network/ framework/")


def test_benchmarks_speak_of_the_product_only():
    """docs/benchmarks.md holds figures, commands and commits: no sentence about who ran what or in which
    working session (a build's sessions are named by their count, "the 2nd build session")."""
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    said = [
        f"{n}: {line.strip()[:120]}" for n, line in enumerate(text.splitlines(), 1) if PEOPLE_OR_SESSIONS.search(line)
    ]
    assert not said, "lines about people or sessions:\n" + "\n".join(said)
    assert PEOPLE_OR_SESSIONS.search("Session 19 (2026-12-03)") and PEOPLE_OR_SESSIONS.search("a helper's eval_bench")
    assert not PEOPLE_OR_SESSIONS.search("after the 2nd of 8 build sessions; leading passages")


def test_the_command_reference_is_written_from_the_cli():
    """docs/reference.md's command table and every command's help are what `python -m wikigen.cli_reference`
    writes from the CLI's own help, so a changed option or help text changes the reference with it."""
    from wikigen.cli_reference import render

    assert render(REFERENCE) == REFERENCE, "docs/reference.md is out of date: run `python -m wikigen.cli_reference`"
    for name in cli.SECTIONS["Build the wiki"]:
        assert f"#### `wikigen {name}`" in REFERENCE and f"Usage: wikigen {name} [OPTIONS]" in REFERENCE


def test_every_command_is_under_one_heading_of_the_help(capsys):
    listed = [name for names in cli.SECTIONS.values() for name in names]
    assert sorted(listed) == sorted(cli.cli.commands)  # each command once
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for title, names in cli.SECTIONS.items():
        block = out.split(f"\n{title}:\n", 1)[1].split("\n\n", 1)[0]
        assert [line.split()[0] for line in block.splitlines() if not line.startswith("    ")] == names, title
