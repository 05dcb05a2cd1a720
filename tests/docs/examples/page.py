"""A documentation page read as the steps a reader follows (the examples convention of the
docs: console blocks of `$ ` commands and their output, titled blocks saved as files, untitled
Python blocks run as scripts, `<!-- example: skip REASON -->` opting a block out).

Fences are found line by line rather than by a Markdown parser: MkDocs Material's tabs and
admonitions indent their blocks by four spaces, which CommonMark reads as an indented code
block, so a parser would hide exactly the examples inside them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

FENCE: Final = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
TITLE: Final = re.compile(r"""\btitle=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>\S+))""")
COMMENT: Final = re.compile(r"^\s*<!--\s*example:(?P<body>.*?)-->\s*$")
SKIP: Final = re.compile(r"^\s*skip\s+(?P<reason>\S.*?)\s*$")
PROMPT: Final = "$ "
CONSOLE: Final = frozenset({"console"})
PYTHON: Final = frozenset({"python", "py", "python3"})
# Untitled shell blocks would silently not run: the convention writes commands as console
# blocks, so one of these on a page is a mistake the test names.
SHELL: Final = frozenset({"sh", "bash", "shell", "zsh"})
NODE_WORD: Final = re.compile(r"(?<![\w./-])(?:node|npm|npx)(?![\w.-])")


class PageError(ValueError):
    """A page that breaks the examples convention, with the page and line in its message."""


@dataclass(frozen=True)
class Command:
    """A `$ ` command; ``expected`` is None when no output follows it (not compared).
    ``block`` is the line of its block's first line (the runner counts blocks)."""

    line: int
    block: int
    text: str
    expected: tuple[str, ...] | None
    background: bool


@dataclass(frozen=True)
class SaveFile:
    """A titled block: the file the reader saves, relative to the shell's folder."""

    line: int
    path: str
    content: str


@dataclass(frozen=True)
class PythonScript:
    """An untitled Python block, run as ``python -`` in the shell's folder."""

    line: int
    source: str


@dataclass(frozen=True)
class Skipped:
    """A block opted out by its comment."""

    line: int
    reason: str


Step = Command | SaveFile | PythonScript | Skipped


@dataclass(frozen=True)
class Block:
    """One fenced block as found: its first content line, language, title and text."""

    line: int
    language: str
    title: str | None
    lines: tuple[str, ...]
    skip: str | None


@dataclass(frozen=True)
class Page:
    """A page's name (for messages) and its steps in reading order."""

    name: str
    steps: tuple[Step, ...]

    @property
    def commands(self) -> tuple[Command, ...]:
        return tuple(step for step in self.steps if isinstance(step, Command))

    @property
    def needs_node(self) -> bool:
        """Whether a command runs node, npm or npx (the page skips where node is missing)."""
        return any(NODE_WORD.search(command.text) for command in self.commands)


def _info(info: str) -> tuple[str, str | None]:
    words = info.strip().lstrip("{").split()
    language = words[0].lstrip(".").lower() if words else ""
    found = TITLE.search(info)
    title = None if found is None else found.group("dq") or found.group("sq") or found.group("bare")
    return language, title


def _skip_reason(name: str, number: int, line: str) -> str | None:
    """The reason of an ``example:`` comment on this line; None for any other line."""
    comment = COMMENT.match(line)
    if comment is None:
        return None
    skip = SKIP.match(comment.group("body"))
    if skip is None:
        raise PageError(
            f"{name}:{number}: write the comment as <!-- example: skip REASON -->, "
            f"not {line.strip()!r}"
        )
    return skip.group("reason")


def find_blocks(name: str, text: str) -> list[Block]:
    """Every fenced block of ``text``, with the skip comment on the line before it."""
    lines = text.splitlines()
    blocks: list[Block] = []
    pending: tuple[int, str] | None = None  # a skip comment waiting for its block
    index = 0
    while index < len(lines):
        line = lines[index]
        opening = FENCE.match(line)
        if opening is None or ("`" in opening.group("info") and opening["fence"][0] == "`"):
            reason = _skip_reason(name, index + 1, line)
            if reason is not None:
                pending = (index + 1, reason)
            elif line.strip() and pending is not None:
                raise PageError(f"{name}:{pending[0]}: the skip comment is not followed by a block")
            index += 1
            continue
        fence, indent = opening.group("fence"), len(opening.group("indent"))
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            raw = lines[end]
            strip = min(indent, len(raw) - len(raw.lstrip(" ")))
            body.append(raw[strip:])
            end += 1
        if end == len(lines):
            raise PageError(f"{name}:{index + 1}: the block opened here is never closed")
        language, title = _info(opening.group("info"))
        skip = pending[1] if pending is not None else None
        blocks.append(Block(index + 2, language, title, tuple(body), skip))
        pending = None
        index = end + 1
    if pending is not None:
        raise PageError(f"{name}:{pending[0]}: the skip comment is not followed by a block")
    return blocks


def console_commands(name: str, block: Block) -> list[Command]:
    """The block's commands, each with the output lines after it."""
    commands: list[Command] = []
    lines = list(block.lines)
    index = 0
    while index < len(lines):
        number, line = block.line + index, lines[index]
        if not line.startswith(PROMPT):
            if line.strip():
                raise PageError(f"{name}:{number}: output before any `$ ` command")
            index += 1
            continue
        text = [line[len(PROMPT) :]]
        while text[-1].endswith("\\") and index + 1 < len(lines):
            index += 1
            text.append(lines[index])
        command = "\n".join(text).strip()
        index += 1
        output: list[str] = []
        while index < len(lines) and not lines[index].startswith(PROMPT):
            output.append(lines[index].rstrip())
            index += 1
        while output and not output[-1]:
            output.pop()
        background = command.endswith(" &")
        if not command or command == "&":
            raise PageError(f"{name}:{number}: an empty command")
        if background and output:
            raise PageError(
                f"{name}:{number}: a background command's output cannot be compared "
                "(it goes on while the page does): leave no lines after it"
            )
        commands.append(
            Command(
                line=number,
                block=block.line,
                text=command.removesuffix("&").rstrip() if background else command,
                expected=tuple(output) if output else None,
                background=background,
            )
        )
    return commands


def _steps(name: str, block: Block) -> list[Step]:
    if block.skip is not None:
        return [Skipped(block.line, block.skip)]
    if block.title is not None:
        content = "\n".join(block.lines) + "\n" if block.lines else ""
        return [SaveFile(block.line, block.title, content)]
    if block.language in CONSOLE:
        return list(console_commands(name, block))
    if block.language in PYTHON:
        return [PythonScript(block.line, "\n".join(block.lines) + "\n")]
    if block.language in SHELL:
        raise PageError(
            f"{name}:{block.line}: a ```{block.language} block is not run: write its commands "
            "in a ```console block with `$ ` prompts, or skip it with <!-- example: skip REASON -->"
        )
    return []  # text, toml, json, proto...: read, not run


def parse_page(name: str, text: str) -> Page:
    """The steps of the page ``text``, named ``name`` in messages."""
    steps: list[Step] = []
    for block in find_blocks(name, text):
        steps.extend(_steps(name, block))
    return Page(name, tuple(steps))


def read_page(path: Path, name: str | None = None) -> Page:
    return parse_page(name or str(path), path.read_text(encoding="utf-8"))
