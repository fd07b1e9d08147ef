"""The command part of docs/reference.md, written from the CLI's own help so the two cannot drift.

`python -m wikigen.cli_reference` rewrites the generated regions of docs/reference.md (each between
`<!-- cli:NAME -->` and `<!-- /cli:NAME -->`); `--check` only says whether they are current (exit 1 when
not). tests/test_docs.py keeps the committed file equal to what this writes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from wikigen.cli import SECTIONS, cli

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "reference.md"
WIDTH = 100  # the help text's width in the reference, whatever the terminal that writes it


def _contexts() -> tuple[click.Context, dict[str, click.Context]]:
    settings = {**cli.context_settings, "terminal_width": WIDTH, "max_content_width": WIDTH}
    root = click.Context(cli, info_name="wikigen", **settings)
    return root, {name: click.Context(cli.commands[name], info_name=name, parent=root) for name in cli.commands}


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|")


def help_pages() -> str:
    """`wikigen --help`, then each command's --help, under its section."""
    root, contexts = _contexts()
    out = ["```text", cli.get_help(root), "```"]
    for title, names in SECTIONS.items():
        out += ["", f"### {title}"]
        for name in names:
            out += ["", f"#### `wikigen {name}`", "", "```text", contexts[name].command.get_help(contexts[name]), "```"]
    return "\n".join(out)


def commands_table() -> str:
    """One row a command, under a row for its section: its arguments, what it does, its options."""
    _, contexts = _contexts()
    rows = ["| command | what it does | options |", "|---|---|---|"]
    for title, names in SECTIONS.items():
        rows.append(f"| **{title}** | | |")
        for name in names:
            ctx = contexts[name]
            cmd = ctx.command
            args = [p.get_usage_pieces(ctx)[0] for p in cmd.params if isinstance(p, click.Argument)]
            opts = [rec[0] for p in cmd.params if isinstance(p, click.Option) and (rec := p.get_help_record(ctx))]
            usage = " ".join([name, *args])
            options = ", ".join(f"`{_escape(o)}`" for o in opts)
            rows.append(f"| `{_escape(usage)}` | {_escape(cmd.short_help or '')} | {options} |")
    return "\n".join(rows)


REGIONS = {"commands": commands_table, "help": help_pages}


def render(text: str) -> str:
    """text (docs/reference.md) with each generated region written anew from the CLI."""
    for name, make in REGIONS.items():
        pattern = re.compile(rf"(<!-- cli:{name} -->\n)(?:.*?\n)?(<!-- /cli:{name} -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"it has no region `<!-- cli:{name} -->` ... `<!-- /cli:{name} -->`")
        text = pattern.sub(lambda m: f"{m.group(1)}{make()}\n{m.group(2)}", text)  # noqa: B023
    return text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    paths = [a for a in args if a != "--check"]
    path = Path(paths[0]) if paths else REFERENCE
    try:
        old = path.read_text(encoding="utf-8")
        new = render(old)
    except (OSError, ValueError) as e:
        print(f"Error: {path}: {e}", file=sys.stderr)
        return 1
    if new == old:
        print(f"{path}: current")
        return 0
    if check:
        print(f"{path}: out of date; `python -m wikigen.cli_reference` rewrites it", file=sys.stderr)
        return 1
    path.write_text(new, encoding="utf-8")
    print(f"{path}: rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
