"""What a season leaves at rest: no live token anywhere in the data folder, every file and folder
private to the user. The real CLI, the embedded referee and real bot processes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from typer.testing import CliRunner

from brandeln.cli.main import app

RECORDING_BOT = str(Path(__file__).resolve().parent / "recording_bot.py")
runner = CliRunner()


def _season(name: str, blocks: int, tokens_file: Path) -> str:
    bots = "".join(
        f'[[bots]]\nname = "random-{n}"\n'
        f'command = ["python", "{RECORDING_BOT}", "{tokens_file}", "--seed", "{n}"]\n'
        for n in range(1, 5)
    )
    return (
        f'name = "{name}"\nseed = 5\nblocks = {blocks}\ndeals_per_match = 4\n'
        "concurrency = 4\nconnect_timeout_ms = 30000\n"
        "[time_control]\nmove_ms = 2000\nbank_ms = 20000\n" + bots
    )


def test_a_season_leaves_no_token_at_rest_and_only_private_files(tmp_path: Path) -> None:
    data = tmp_path / "data"
    tokens_file = tmp_path / "tokens.txt"  # outside the data folder
    file = tmp_path / "season.toml"
    old_umask = os.umask(0o022)
    try:
        # A first run registers the bots; the second (one more block) resumes the season.
        for blocks in (1, 2):
            file.write_text(_season("secrets", blocks, tokens_file))
            result = runner.invoke(app, ["season", "run", str(file), "--data", str(data)])
            assert result.exit_code == 0, result.output
    finally:
        os.umask(old_umask)

    tokens = tokens_file.read_text().split()
    assert len(tokens) == 8  # 4 bots, 2 runs
    files = [path for path in data.rglob("*") if path.is_file()]
    names = {str(path.relative_to(data)) for path in files}
    # The embedded referee keeps its own database (the WALs are folded in at close).
    assert {"ladder.db", "embedded/referee.db"} <= names
    assert any(name.startswith("embedded/logs/") for name in names)
    assert any(name.startswith("seasons/secrets/bots/") for name in names)
    found = {
        str(path.relative_to(data))
        for path in files
        if any(token.encode() in path.read_bytes() for token in tokens)
    }
    assert found == set()
    # The resumed run gave every bot a fresh token (the referee refuses the old ones).
    assert len(set(tokens)) == 8

    wrong = {
        str(path.relative_to(tmp_path)): oct(stat.S_IMODE(path.stat().st_mode))
        for path in [data, *data.rglob("*")]
        if stat.S_IMODE(path.stat().st_mode) != (0o700 if path.is_dir() else 0o600)
    }
    assert wrong == {}
