"""The command-line reference page, reference/cli.md, written at every build from the CLI itself.

Every `brandeln` command and subcommand, to any depth, gets a section: a heading naming its
command path (anchor ``brandeln-match-run`` for `brandeln match run`, the same at every build)
and its ``--help`` exactly as the CLI prints it. The hook walks the command tree the CLI
builds (``typer.main.get_command``), resolving each subcommand the way a command line does, so
a group loaded only when named (``brandeln bench``: brandeln.cli.lazy_groups) is walked whole
and a new command appears with no edit here.

A hook rather than mkdocs-gen-files: it is twenty lines of mkdocs's own API (a generated
``File``), no dependency more, and the page never exists on disk to go stale.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

import typer.main
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from typer.testing import CliRunner

PAGE: Final = "reference/cli.md"
PROGRAM: Final = "brandeln"
# The width the CLI wraps its help at in any terminal of 80 columns or more (click's default:
# 80 less a margin of 2), so the page shows the lines a user sees.
HELP_WIDTH: Final = 78
# Plain text: no colour, whatever the environment that builds the site says.
HELP_ENV: Final = {"NO_COLOR": "1", "TERM": "dumb"}


@dataclass(frozen=True)
class CommandHelp:
    """One command path (``("match", "run")``; ``()`` is `brandeln` itself) and its help."""

    path: tuple[str, ...]
    help: str

    @property
    def title(self) -> str:
        return " ".join((PROGRAM, *self.path))

    @property
    def anchor(self) -> str:
        return "-".join((PROGRAM, *self.path))


def command_paths() -> Iterator[tuple[str, ...]]:
    """Every command path of the CLI, in the order its helps list them, groups before their
    commands; hidden commands (none today) are left out as their group's help leaves them."""
    from brandeln.cli.main import app  # noqa: PLC0415 - the CLI as this build's checkout has it

    def walk(command: Any, ctx: Any, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        yield path
        if not hasattr(command, "list_commands"):
            return
        for name in command.list_commands(ctx):
            # resolve_command, as a command line does: a lazy group is loaded here.
            _, sub, _ = command.resolve_command(ctx, [name])
            if sub is None or sub.hidden:
                continue
            sub_ctx = sub.context_class(sub, info_name=name, parent=ctx)
            yield from walk(sub, sub_ctx, (*path, name))

    root = typer.main.get_command(app)
    yield from walk(root, root.context_class(root, info_name=PROGRAM), ())


def command_helps() -> list[CommandHelp]:
    """Each command path with its ``--help`` as the CLI prints it; a help that fails stops
    the build (a command whose help cannot print is a bug the manual must not hide)."""
    from brandeln.cli.main import app  # noqa: PLC0415

    runner = CliRunner()
    helps = []
    for path in command_paths():
        result = runner.invoke(
            app, [*path, "--help"], prog_name=PROGRAM, env=HELP_ENV, terminal_width=HELP_WIDTH
        )
        if result.exit_code != 0:
            raise RuntimeError(
                f"`{' '.join((PROGRAM, *path))} --help` exited {result.exit_code}: "
                f"{result.output.strip()}"
            )
        helps.append(CommandHelp(path, result.output.rstrip() + "\n"))
    return helps


def page_markdown(helps: list[CommandHelp]) -> str:
    """The page: an introduction, then one section per command (nested by depth in the
    table of contents)."""
    lines = [
        "# Command line reference",
        "",
        f"Every `{PROGRAM}` command and subcommand with its `--help`, written from the CLI",
        "itself at every build of this manual (so it always matches the checkout's code).",
        f"`{PROGRAM} COMMAND --help` prints the same text in a terminal.",
        "",
    ]
    for command in helps:
        level = "#" * min(2 + max(len(command.path) - 1, 0), 6)
        lines += [
            f"{level} `{command.title}` {{#{command.anchor}}}",
            "",
            "```text",
            command.help.rstrip("\n"),
            "```",
            "",
        ]
    return "\n".join(lines)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated page (a page of that name in docs/ would be replaced)."""
    existing = files.get_file_from_path(PAGE)
    if existing is not None:
        files.remove(existing)
    files.append(File.generated(config, PAGE, content=page_markdown(command_helps())))
    return files
