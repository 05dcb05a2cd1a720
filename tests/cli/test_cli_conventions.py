"""The CLI's conventions: --version, shell completion, --json, environment variables, and
hints that name the program the way it can be started."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.bench.cli import bench_app
from brandeln.cli import hints
from brandeln.cli.leaderboard_view import leaderboard_table
from brandeln.cli.main import app
from brandeln.ladder.ratings.leaderboard import LeaderboardRow
from brandeln.ladder.ratings.stats import MeanInterval
from brandeln.ladder.store.database import LadderStore

runner = CliRunner()
SCRIPT = Path(sys.executable).parent / "brandeln"  # the console script of this environment


def test_version_prints_the_installed_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"brandeln-arena {version('brandeln-arena')}"


def test_help_stays_plain_and_offers_shell_completion() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "--install-completion" in result.output
    assert "--version" in result.output
    assert "╭" not in result.output  # Typer's rich help panels (slow to import) stay off


def test_help_imports_no_event_loop_network_or_database_library() -> None:
    # `brandeln --help` has a 150 ms budget (brandeln.bench.report's targets): asyncio alone is 15
    # ms of it, gRPC, SQLAlchemy and protobuf far more. The commands import them when they run.
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from brandeln.cli.main import app\n"
        "CliRunner().invoke(app, ['--help'])\n"
        "heavy = ('asyncio', 'grpc', 'sqlalchemy', 'google.protobuf', 'ray', 'starlette')\n"
        "print(' '.join(m for m in heavy if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "", result.stdout


def test_help_lists_bench_with_its_own_help_without_importing_the_benchmarks() -> None:
    # `brandeln bench` is mounted by name (brandeln.cli.lazy_groups): its line in the list is
    # main.BENCH_HELP, which must read as brandeln.bench.cli's own help, and listing it imports
    # nothing of bench.
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from brandeln.cli.main import app\n"
        "output = CliRunner().invoke(app, ['--help'], terminal_width=200).output\n"
        "print([line.split(None, 1)[1] for line in output.splitlines()\n"
        "       if line.strip().startswith('bench ')])\n"
        "print(sorted(m for m in sys.modules if m == 'bench' or m.startswith('bench.')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    listed, imported = result.stdout.splitlines()
    assert listed == repr([bench_app.info.help])
    assert imported == "[]"


def test_bench_runs_as_mounted_its_help_and_errors_unchanged() -> None:
    shown = runner.invoke(app, ["bench", "--help"], terminal_width=80)
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith("Usage: brandeln bench [OPTIONS] COMMAND [ARGS]...")
    assert "storage-referee" in shown.output
    wrong = runner.invoke(app, ["bench", "referee", "--tables", "x"])
    assert wrong.exit_code == 2
    assert "expected numbers like 1,16,64, got 'x'" in wrong.output
    # Completion resolves the group too, through the console script.
    env = {**os.environ, "_BRANDELN_COMPLETE": "complete_bash", "COMP_CWORD": "2"}
    completed = subprocess.run(
        [str(SCRIPT)],
        env={**env, "COMP_WORDS": "brandeln bench sto"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.stdout.split() == ["storage", "storage-referee"], completed.stderr


def test_shell_completion_completes_commands_through_the_console_script() -> None:
    env = {**os.environ, "_BRANDELN_COMPLETE": "complete_bash", "COMP_CWORD": "2"}
    completed = subprocess.run(
        [str(SCRIPT)],
        env={**env, "COMP_WORDS": "brandeln matches sh"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # The exit code with what the script printed, should it fail.
    assert (completed.returncode, completed.stdout.split()) == (0, ["show"]), completed.stderr
    # --show-completion takes no value: it prints the script of the shell it runs under, found
    # among its parents, so it runs under bash here whoever started the suite (`make`'s sh
    # is refused). The "; exit" keeps bash from exec-ing the script in its own place.
    script = subprocess.run(
        ["bash", "-c", f'"{SCRIPT}" --show-completion; exit $?'],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert script.returncode == 0, script.stderr
    assert "_brandeln_completion" in script.stdout


def test_bots_add_json_gives_the_id_and_the_token(tmp_path: Path) -> None:
    added = runner.invoke(app, ["bots", "add", "alice", "--data", str(tmp_path), "--json"])
    assert added.exit_code == 0, added.output
    document = json.loads(added.output)
    assert document["name"] == "alice"
    assert document["bot_id"].startswith("bot_")
    assert len(document["token"]) >= 32
    listed = json.loads(
        runner.invoke(app, ["bots", "list", "--data", str(tmp_path), "--json"]).output
    )
    assert [b["bot_id"] for b in listed] == [document["bot_id"]]


def test_the_host_and_the_port_of_serve_come_from_the_environment(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BRANDELN_ADMIN_TOKEN"}
    env |= {"BRANDELN_HOST": "127.0.0.1", "BRANDELN_PORT": "0", "BRANDELN_DATA": str(tmp_path)}
    serve = subprocess.Popen(
        [sys.executable, "-m", "brandeln.cli", "serve"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert serve.stderr is not None
        line = serve.stderr.readline()
        assert line.startswith("referee listening on 127.0.0.1:"), line
        port = int(line.split(":")[1].split()[0])
        assert port not in (0, 50051)  # a free port, as BRANDELN_PORT=0 asked
    finally:
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=10) == 0
    shown = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    for name in ("BRANDELN_HOST", "BRANDELN_PORT"):
        assert name in shown.output
    for command in (["matches", "show"], ["season", "run"]):
        helped = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
        assert "BRANDELN_REFEREE" in helped.output


# --- hints -----------------------------------------------------------------------------------


@pytest.fixture
def venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake virtual environment in the working directory: .venv/bin/{brandeln,python}."""
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("brandeln", "python"):
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "elsewhere"))
    return bin_dir


def test_a_hint_names_the_script_by_its_path_when_path_does_not_find_it(
    venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", [str(venv / "brandeln"), "matches", "list"])
    assert hints.program() == ".venv/bin/brandeln"
    other = venv.parent / "elsewhere"
    other.mkdir()
    (other / "brandeln").write_text("#!/bin/sh\n")
    (other / "brandeln").chmod(0o755)
    assert hints.program() == ".venv/bin/brandeln"  # PATH finds another install: not that one
    monkeypatch.setenv("PATH", str(venv))
    assert hints.program() == "brandeln"  # the environment is activated


def test_a_hint_after_python_m_names_the_interpreter(
    venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", [str(venv.parent / "brandeln" / "cli" / "__main__.py")])
    monkeypatch.setattr(sys, "executable", str(venv / "python"))
    assert hints.program() == ".venv/bin/python -m brandeln.cli"
    monkeypatch.setenv("PATH", str(venv))
    assert hints.program() == "brandeln"


def test_a_hint_keeps_the_options_that_chose_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["pytest"])
    assert hints.command("ratings", data=Path("my data")) == "brandeln ratings --data 'my data'"
    remote = hints.command(
        "matches", "show", "m_1", data=Path("d"), referee="10.0.0.5:50051", ca=Path("ca.pem")
    )
    assert remote == "brandeln matches show m_1 --referee 10.0.0.5:50051 --ca ca.pem"


def test_the_console_script_run_without_the_venv_on_path_prints_its_own_path(
    tmp_path: Path,
) -> None:
    LadderStore.open(tmp_path / "ladder.db").close()
    env = {**os.environ, "PATH": "/usr/bin:/bin", "COLUMNS": "200"}
    listed = subprocess.run(
        [str(SCRIPT), "season", "list", "--data", "."],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert f"run `{SCRIPT} season run FILE --data .`" in listed.stdout


# --- the leaderboard at its widest ------------------------------------------------------------


def test_the_leaderboard_at_80_columns_keeps_every_figure_of_its_widest_rows() -> None:
    from rich.console import Console  # noqa: PLC0415

    rows = [
        LeaderboardRow(
            10, "x" * 64, -12.34, 29.05, 8.33, 100, 800, 3,
            MeanInterval(-25.4, 13.68, 5), 210, 140, 100, 100, 2,
        ),
        LeaderboardRow(
            1, "heuristic-2@demo-node", 20.94, 29.05, 2.7, 5, 40, 3,
            MeanInterval(8.43, 1.19, 5), 21, 14, 0, 0, 1,
        ),
    ]  # fmt: skip
    console = Console(width=80, record=True)
    console.print(leaderboard_table(rows, "season s (standard): 5 of 5 blocks"), soft_wrap=False)
    text = console.export_text()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    first = next(line for line in text.splitlines() if line.startswith("10 "))
    assert first.split()[2:] == [
        "-12.34", "29.05", "8.33", "100", "-25.40±13.68", "140/210", "67%", "100", "100",
    ]  # fmt: skip
    assert "".join(line[4:13].strip() for line in text.splitlines()).count("x") == 64
