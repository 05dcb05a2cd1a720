"""`brandeln season run --cluster` on a real Ray cluster of three hosts on this machine: each
host a network namespace of the test bed (brandeln.bench.testbed), PostgreSQL listening in the
head's, the driver run there too. A season played there equals the same season played on one
machine (results, ratings and logs, up to timing and drawn ids); a worker node killed
mid-season costs only its block; a driver killed and started again resumes from the
database, and its bots do not outlive it. `brandeln ladder serve --cluster` plays, stops and
resumes there too (tests/cluster/cluster_ladder.py).

One sandbox serves the module (a cluster start costs ~10 s on 2 cores): the tests run in file
order, and the node-killing test comes last.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brandeln.bench.season_record import season_record
from tests.cluster.cluster_bed import Bed, bot_processes, cluster_bed, in_sandbox
from tests.cluster.cluster_ladder import ladder_plays_stops_and_resumes

pytestmark = [pytest.mark.timeout(400), pytest.mark.early]

ROOT = Path(__file__).resolve().parents[2]
SEASON_SECONDS = 240
BOTS = (
    ("random", ["python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "1"]),
    ("heuristic", ["python", "-m", "brandeln.cli", "bot", "run", "heuristic"]),
    # A sample cap under a generous clock: reproducible at any speed.
    (
        "mc",
        [
            "python",
            "-m",
            "brandeln.cli",
            "bot",
            "run",
            "montecarlo",
            "--seed",
            "1",
            "--samples",
            "4",
        ],
    ),
    ("random-2", ["python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "2"]),
)


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    with cluster_bed(hosts=3) as made:
        yield made


def season_file(
    folder: Path, name: str, blocks: int, bots: tuple[tuple[str, list[str]], ...] = BOTS
) -> Path:
    text = f'name = "{name}"\nruleset = "standard"\nseed = 11\nblocks = {blocks}\n'
    text += "deals_per_match = 4\nconcurrency = 4\n"
    for bot, command in bots:
        text += f"[[bots]]\nname = {json.dumps(bot)}\ncommand = {json.dumps(command)}\n"
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


# Two rounds of the three slots: enough to spread the blocks over every node, and to kill a
# driver or a node after two of them with most of the season still to play.
BLOCKS = 6


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The season played on this machine alone (the embedded referee, SQLite): the record
    every cluster run of it, under any name, must equal."""
    folder = tmp_path_factory.mktemp("local")
    return local_record(folder, season_file(folder, "reference", BLOCKS), "reference")


def local_record(tmp_path: Path, season: Path, name: str) -> dict[str, Any]:
    data = tmp_path / "local"
    result = subprocess.run(
        [sys.executable, "-m", "brandeln.cli", "season", "run", str(season), "--data", str(data)],
        check=False,
        capture_output=True,
        text=True,
        timeout=SEASON_SECONDS,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return season_record(
        f"sqlite:///{data / 'ladder.db'}", str(data / "embedded" / "referee.db"), name
    )


def start_cluster_season(
    bed: Bed, tmp_path: Path, season: Path, slots: int = 3
) -> subprocess.Popen[str]:
    return bed.driver_host.python(
        [
            "-m",
            "brandeln.cli",
            "season",
            "run",
            str(season),
            "--data",
            str(tmp_path / "driver"),
            "--db",
            bed.db,
            "--cluster",
            bed.head.address,
            "--slots",
            str(slots),
            "--worker-data",
            str(tmp_path / "workers"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )


def finish(process: subprocess.Popen[str]) -> str:
    try:
        output, _ = process.communicate(timeout=SEASON_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        pytest.fail(f"the cluster season did not end in {SEASON_SECONDS} s:\n{output}")
    assert process.returncode == 0, output
    return output


def cluster_record(bed: Bed, name: str) -> dict[str, Any]:
    out = in_sandbox(bed, "-m", "brandeln.bench.season_record", bed.db, bed.db, name)
    record: dict[str, Any] = json.loads(out)
    return record


def blocks_recorded(bed: Bed, name: str) -> int:
    out = in_sandbox(bed, "-m", "brandeln.cli", "season", "list", "--db", bed.db, "--json")
    for season in json.loads(out):
        if season["name"] == name:
            return int(season["blocks_finished"])
    return 0


def wait_for_blocks(bed: Bed, name: str, count: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + SEASON_SECONDS
    while blocks_recorded(bed, name) < count:
        assert process.poll() is None, "the season ended before the fault was injected"
        assert time.monotonic() < deadline, f"{count} blocks not recorded in time"
        time.sleep(0.5)


def test_a_season_on_three_hosts_equals_the_one_machine_run(
    bed: Bed, tmp_path: Path, expected: dict[str, Any]
) -> None:
    season = season_file(tmp_path, "same", BLOCKS)
    output = finish(start_cluster_season(bed, tmp_path, season))
    assert "3 worker slots on 3 nodes" in output
    assert "actors busy" in output  # the progress bar's cluster column
    assert f"{BLOCKS} blocks played now ({BLOCKS} of {BLOCKS} in all)" in output
    got = cluster_record(bed, "same")
    assert got["results"] == expected["results"]
    assert got["history"] == expected["history"]
    assert got["ratings"] == expected["ratings"]
    assert got["logs"] == expected["logs"]
    assert len(got["logs"]) == BLOCKS * 4
    # Run again: everything is recorded, nothing is played or counted twice.
    again = finish(start_cluster_season(bed, tmp_path, season))
    assert "nothing to play" in again
    assert cluster_record(bed, "same") == got


def test_a_node_lacking_a_bot_file_is_named_before_the_season_starts(
    bed: Bed, tmp_path: Path
) -> None:
    missing = "/nonexistent/brandeln/bot.py"
    bots = (*BOTS[:3], ("mine", ["python", missing]))
    season = season_file(tmp_path, "lacking", blocks=1, bots=bots)
    process = start_cluster_season(bed, tmp_path, season)
    output, _ = process.communicate(timeout=SEASON_SECONDS)
    assert process.returncode == 1
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    assert "cannot run the season's bots: bot 'mine': file" in errors[0]
    assert missing in errors[0]
    assert "node " in errors[0]


def test_the_driver_killed_mid_season_resumes_from_the_database(
    bed: Bed, tmp_path: Path, expected: dict[str, Any]
) -> None:
    season = season_file(tmp_path, "resumed", BLOCKS)
    process = start_cluster_season(bed, tmp_path, season)
    wait_for_blocks(bed, "resumed", 2, process)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)
    # The driver's actors go with its job, and their bots with them.
    workers = [node.host for node in bed.workers] + [bed.driver_host]
    deadline = time.monotonic() + 60
    while bot_processes(workers):
        assert time.monotonic() < deadline, f"bots outlived their actors: {bot_processes(workers)}"
        time.sleep(0.5)
    output = finish(start_cluster_season(bed, tmp_path, season))
    assert f"of {BLOCKS} in all" in output
    assert cluster_record(bed, "resumed") == expected


@pytest.mark.timeout(900)  # two runs of the ladder, each with generous hang guards
def test_a_ladder_on_the_cluster_plays_stops_and_resumes(bed: Bed, tmp_path: Path) -> None:
    ladder_plays_stops_and_resumes(bed, tmp_path)


def test_a_worker_node_killed_mid_season_costs_only_its_block(
    bed: Bed, tmp_path: Path, expected: dict[str, Any]
) -> None:
    season = season_file(tmp_path, "node-lost", BLOCKS)
    process = start_cluster_season(bed, tmp_path, season)
    wait_for_blocks(bed, "node-lost", 2, process)
    lost = bed.workers[-1]
    lost.kill_raylet()
    finish(process)
    assert cluster_record(bed, "node-lost") == expected
    # The lost node's bots did not outlive it.
    deadline = time.monotonic() + 60
    while bot_processes([lost.host]):
        assert time.monotonic() < deadline, "bots outlived their node"
        time.sleep(0.5)
