"""The CLI on click reads what the parser before it read (options of many values, a long option by its
start, exclusive options refused), and gains shell completion and `-h` with its positional arguments explained on every
command."""

from __future__ import annotations

import click
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


def test_a_long_option_is_known_by_its_start_as_before(capsys):
    assert _params("build", ["c", "--wiki", "w", "--agent", "3", "--max-c=1.5"])["agents"] == 3
    assert _params("build", ["c", "--wiki", "w", "--max-c=1.5"])["max_cost"] == 1.5
    assert (
        _params("ask", ["--wiki", "w", "--", "--what is this"])["question"] == "--what is this"
    )  # after --, not an option
    with pytest.raises(SystemExit) as e:
        cli.main(["build", "c", "--wiki", "w", "--sess", "1"])
    assert e.value.code == 2
    assert "Error: ambiguous option: --sess could match --sessions, --session-budget, --session-turns" in (
        capsys.readouterr().err
    )


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
    command = cli.cli.commands[name]
    assert " ".join((command.help or "").split()[:6]) in " ".join(out.split())
    arguments = " ".join(out.split("Positional arguments:\n", 1)[-1].split("Options:")[0].split())
    for p in command.params:
        if isinstance(p, click.Argument):
            assert p.help and " ".join(p.help.split()) in arguments, p.name
