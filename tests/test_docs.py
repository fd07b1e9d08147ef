"""The words a new user reads first: the README's two commands, and every command documented."""

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
