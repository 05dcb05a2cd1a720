"""What a node must have to start a season's command bots (brandeln.cluster.bot_files)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from brandeln.cluster.bot_files import absolute_paths, missing


def test_a_sample_bot_command_needs_nothing_more_here() -> None:
    assert missing(("python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "1")) == []


def test_a_missing_program_module_or_file_is_named(tmp_path: Path) -> None:
    assert missing(("no-such-program-anywhere",)) == [
        "program 'no-such-program-anywhere' is not on the PATH"
    ]
    assert missing(("python", "-m", "no_such_module_x")) == [
        "Python module 'no_such_module_x' is not installed"
    ]
    script = tmp_path / "bot.py"
    assert missing((sys.executable, str(script), "--server", "{server}")) == [
        f"file {str(script)!r} is missing"
    ]
    script.write_text("")
    assert missing((sys.executable, str(script), "--server", "{server}")) == []


def test_options_placeholders_and_urls_are_not_files() -> None:
    command = ("python", "-m", "brandeln.cli", "--ca=/x/ca.pem", "{server}", "http://a/b")
    assert missing(command) == []


def test_relative_files_of_the_season_become_absolute(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text("")
    command = ("python", f"bots{os.sep}mine.py", f"bots{os.sep}absent.py", "--tables", "2")
    assert absolute_paths(command, tmp_path) == (
        "python",
        str((tmp_path / "bots" / "mine.py").resolve()),
        f"bots{os.sep}absent.py",
        "--tables",
        "2",
    )
