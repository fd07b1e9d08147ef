"""The words a new user reads first: the README's two commands, and every command documented."""

from pathlib import Path

import pytest

from wikigen import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_demo_and_the_tests():
    block = README.split("```", 2)[1]
    commands = [line.split("#")[0].strip() for line in block.splitlines()[1:] if line.strip()]
    assert commands == ["make demo", "make test"]


def test_every_command_is_in_the_readme_tour():
    commands = cli.build_parser()._subparsers._group_actions[0].choices
    assert {"ask", "build", "check", "eval", "export", "index", "mcp", "pages", "rollback", "search", "serve", "site",
            "stats"} <= set(commands)
    for name in commands:
        assert f"wikigen {name} " in README, name


def test_help_shows_the_first_two_commands(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert "wikigen build corpora/acme --wiki my-wiki" in out
    assert 'wikigen ask "Which contracts renew automatically?" --wiki my-wiki' in out
