"""What the CLI gains from click beyond the old parser: options of many values read as before, exclusive
options refused as before, shell completion, and `-h` on every command."""

from __future__ import annotations

import pytest

from wikigen import cli


def _params(command: str, argv: list[str]) -> dict:
    """The values click parses for argv (nothing is run)."""
    return cli.cli.commands[command].make_context(command, argv).params


def test_modes_take_several_values_after_one_option():
    assert _params("eval", ["q.jsonl", "--wiki", "w", "--modes", "search", "wiki"])["modes"] == ("search", "wiki")
    assert _params("eval", ["--modes", "wiki", "search", "q.jsonl", "--wiki", "w"])["modes"] == ("wiki", "search")
    assert _params("eval", ["q.jsonl", "--wiki", "w", "--modes=wiki+search", "wiki"])["modes"] == (
        "wiki+search",
        "wiki",
    )
    parsed = _params("eval", ["--modes", "wiki", "questions.jsonl", "--wiki", "w"])
    assert parsed["modes"] == ("wiki",) and parsed["questions"] == "questions.jsonl"  # a file is not a mode
    assert _params("eval", ["q.jsonl", "--wiki", "w"])["modes"] == ("wiki+search", "search", "wiki")  # all


def test_exclusive_options_are_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["table", "some-wiki", "--csv", "--json"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Usage: wikigen table [OPTIONS] WIKI" in err
    assert "Error: argument --json: not allowed with argument --csv" in err


def test_a_missing_option_is_a_usage_error_with_the_usage(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["rollback", "some-wiki"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Try 'wikigen rollback --help' for help." in err and "Missing option '--session'" in err


def test_shell_completion_names_commands_and_options(capsys, monkeypatch):
    monkeypatch.setenv("_WIKIGEN_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", "wikigen s")
    monkeypatch.setenv("COMP_CWORD", "1")
    assert cli.main([]) == 0
    assert capsys.readouterr().out.split() == ["plain,stats", "plain,serve", "plain,site", "plain,search"]
    monkeypatch.setenv("COMP_WORDS", "wikigen ask --mo")
    monkeypatch.setenv("COMP_CWORD", "2")
    assert cli.main([]) == 0
    assert capsys.readouterr().out.split() == ["plain,--mode", "plain,--model"]
    monkeypatch.setenv("COMP_WORDS", "wikigen ask --mode ")
    monkeypatch.setenv("COMP_CWORD", "3")
    assert cli.main([]) == 0
    assert capsys.readouterr().out.split() == ["plain,wiki+search", "plain,search", "plain,wiki"]


@pytest.mark.parametrize("name", sorted(cli.cli.commands))
def test_every_command_has_short_and_long_help(name, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main([name, "-h"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Usage: wikigen {name} [OPTIONS]")
    assert " ".join(cli.cli.commands[name].help.split()[:6]) in " ".join(out.split())
