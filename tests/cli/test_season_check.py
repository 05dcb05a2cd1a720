"""`check = true` on a season's bot: `season run` runs `bot check` on it first."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "bots" / "broken"


def season(tmp_path: Path, checked_command: str) -> subprocess.CompletedProcess[str]:
    bots = "".join(
        f'[[bots]]\nname = "r{n}"\ncommand = ["brandeln", "bot", "run", "random"]\ntables = 1\n'
        for n in range(3)
    )
    text = (
        'name = "checked"\nseed = 1\nblocks = 1\ndeals_per_match = 4\nconcurrency = 1\n'
        f'{bots}[[bots]]\nname = "mine"\ncommand = {checked_command}\ntables = 1\n'
        "check = true\n"
    )
    path = tmp_path / "season.toml"
    path.write_text(text)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "brandeln.cli",
            "season",
            "run",
            str(path),
            "--data",
            str(tmp_path / "data"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        # A failed check keeps its folder for the user to read: here, under tmp_path.
        env={**os.environ, "GRPC_VERBOSITY": "ERROR", "COLUMNS": "200", "TMPDIR": str(tmp_path)},
        check=False,
    )


def test_a_bot_failing_the_check_stops_the_season_with_the_failed_checks(tmp_path: Path) -> None:
    completed = season(tmp_path, f'["python", "{BROKEN / "ignores_rejection.py"}"]')
    assert completed.returncode == 1
    err = " ".join(completed.stderr.split())
    assert "season not started: bot 'mine' failed `bot check`" in err
    assert "rejected, then legal: no second answer to request" in err
    assert "blocks played" not in completed.stdout


def test_a_bot_passing_the_check_plays_its_season(tmp_path: Path) -> None:
    completed = season(tmp_path, '["brandeln", "bot", "run", "heuristic"]')
    assert completed.returncode == 0, completed.stderr
    assert "checking bot mine first" in completed.stdout
    assert "1 block played now" in completed.stdout
