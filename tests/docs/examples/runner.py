"""Run a documentation page's examples as a reader would, top to bottom in one terminal: in a
fresh folder, in a network namespace of its own, with the project's venv first on PATH.

A failure names the page and the line, and shows what the command printed (against what the
page shows, for compared output) and what the page's background commands printed.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Final

from tests.docs.examples.netns import NamespaceRefusedError, namespace, unavailable
from tests.docs.examples.output_match import difference, output_matches
from tests.docs.examples.page import Command, Page, PythonScript, SaveFile, Skipped
from tests.docs.examples.shell import Failure, Shell, StepFailedError

ROOT: Final = Path(__file__).resolve().parents[3]
COMMAND_TIMEOUT_S: Final = 60.0
READY_TIMEOUT_S: Final = 30.0
NO_NODE: Final = "node is not installed: this page's commands run node, npm or npx"
# The reader's terminal, the same on every machine: its width decides how the CLI wraps text.
TERMINAL: Final = {
    "COLUMNS": "80",
    "LINES": "24",
    "TERM": "dumb",
    "NO_COLOR": "1",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    # Python's stdout, block-buffered into a pipe, would print after its stderr; a terminal
    # shows them in the order written.
    "PYTHONUNBUFFERED": "1",
}


@dataclass
class Tally:
    """What a run did, summed over pages for the closing count."""

    pages: int = 0
    blocks_run: int = 0
    commands: int = 0
    outputs_compared: int = 0
    files_saved: int = 0
    skipped: int = 0
    seconds: float = 0.0
    skips: list[str] = field(default_factory=list)  # "page:line: reason"

    def add(self, other: Tally) -> None:
        self.pages += other.pages
        self.blocks_run += other.blocks_run
        self.commands += other.commands
        self.outputs_compared += other.outputs_compared
        self.files_saved += other.files_saved
        self.skipped += other.skipped
        self.seconds += other.seconds
        self.skips.extend(other.skips)

    def summary(self) -> str:
        return (
            f"{self.pages} pages, {self.blocks_run} blocks run, "
            f"{self.commands} commands, {self.outputs_compared} outputs compared, "
            f"{self.files_saved} files saved, {self.skipped} skipped ({self.seconds:.1f} s)"
        )

    def as_dict(self) -> dict[str, object]:
        return dict(vars(self))

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Tally:
        tally = cls()
        for key, value in data.items():
            setattr(tally, key, value)
        return tally


class ExampleFailedError(AssertionError):
    """A step of a page failed; the message names the page and line and shows why."""

    def __init__(self, reason: Failure | None, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Outcome:
    tally: Tally
    skipped: str | None  # why the whole page did not run


def page_env(home: Path, tmp: Path) -> dict[str, str]:
    """What a reader has after ``make install``: the venv's bin first on PATH (so ``brandeln``
    and ``python`` are the project's), and this checkout's code (the venv may be another
    checkout's editable install)."""
    return {
        **TERMINAL,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', os.defpath)}",
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "PYTHONPATH": f"{ROOT}:{ROOT / 'sdk' / 'python'}",
    }


def node_installed(path: str) -> bool:
    return shutil.which("node", path=path) is not None


def _why_not(page: Page, env: dict[str, str]) -> str | None:
    if page.needs_node and not node_installed(env["PATH"]):
        return NO_NODE
    missing = unavailable()
    return None if missing is None else missing.value


def _skipped(page: Page, reason: str, tally: Tally) -> Outcome:
    tally.skipped += len(page.steps)
    tally.skips.append(f"{page.name}: {reason}")
    return Outcome(tally, reason)


def _save(shell: Shell, page: Page, step: SaveFile) -> None:
    relative = PurePosixPath(step.path)
    if relative.is_absolute() or ".." in relative.parts:
        raise ExampleFailedError(
            None, f"{page.name}:{step.line}: title={step.path!r} must be a path inside the folder"
        )
    target = shell.cwd() / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(step.content, encoding="utf-8")


def _command(shell: Shell, page: Page, step: Command, tally: Tally) -> None:
    tally.commands += 1
    if step.background:
        shell.start(step.line, step.text)
        return
    output = shell.run(step.text)
    if step.expected is None:
        return
    tally.outputs_compared += 1
    actual = output.splitlines()
    if not output_matches(step.expected, actual):
        raise StepFailedError(
            Failure.OUTPUT,
            f"`{step.text}` {Failure.OUTPUT.value}:\n{difference(step.expected, actual)}",
        )


def _script(shell: Shell, step: PythonScript) -> None:
    source = shell.private / f"python-{step.line}.py"
    source.write_text(step.source, encoding="utf-8")
    # `python -` as the page says: the script's folder on sys.path is the shell's.
    shell.run(f"python - < '{source}'", label="the Python block")


def _steps(shell: Shell, page: Page, tally: Tally) -> None:
    blocks: set[int] = set()
    for step in page.steps:
        try:
            if isinstance(step, Skipped):
                tally.skipped += 1
                tally.skips.append(f"{page.name}:{step.line}: {step.reason}")
            elif isinstance(step, SaveFile):
                _save(shell, page, step)
                tally.files_saved += 1
            elif isinstance(step, PythonScript):
                _script(shell, step)
                tally.blocks_run += 1
            else:
                if step.block not in blocks:
                    blocks.add(step.block)
                    tally.blocks_run += 1
                _command(shell, page, step, tally)
        except StepFailedError as failed:
            background = shell.background_output()
            raise ExampleFailedError(
                failed.reason,
                f"{page.name}:{step.line}: {failed}" + (f"\n{background}" if background else ""),
            ) from None


def run_page(
    page: Page,
    *,
    timeout_s: float = COMMAND_TIMEOUT_S,
    ready_timeout_s: float = READY_TIMEOUT_S,
) -> Outcome:
    """Run every step of ``page``; raise ExampleFailedError at the first that fails."""
    tally = Tally(pages=1)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="brandeln-docs-") as temporary:
        base = Path(temporary)
        folders = {name: base / name for name in ("page", "runner", "home", "tmp")}
        for folder in folders.values():
            folder.mkdir()
        env = page_env(folders["home"], folders["tmp"])
        if (reason := _why_not(page, env)) is not None:
            return _skipped(page, reason, tally)
        try:
            with namespace() as space:
                shell = Shell(
                    folder=folders["page"],
                    private=folders["runner"],
                    namespace=space,
                    env=env,
                    timeout_s=timeout_s,
                    ready_timeout_s=ready_timeout_s,
                )
                try:
                    _steps(shell, page, tally)
                finally:
                    shell.stop()
        except NamespaceRefusedError as refused:
            return _skipped(page, str(refused), tally)
    tally.seconds = time.monotonic() - started
    return Outcome(tally, None)
