"""`brandeln ladder serve --cluster` on the cluster test bed (tests/cluster/cluster_bed.py;
PostgreSQL listening in the head's namespace, the ladder run there too), run by
tests/cluster/test_cluster_season.py on its sandbox (a cluster start costs more than the
ladder's check): four command versions of sample bots play blocks unattended on the
worker slots; a version that connects by itself is skipped and said once; SIGTERM stops the
ladder cleanly, with no bot left on any host; a restart resumes with nothing counted twice.

Every wait is for a state polled in the database, with a hang guard far above a healthy run.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.cluster_bed import ROOT, Bed, bot_processes, in_sandbox

WAIT_S = 300.0  # a hang guard: the machine runs other suites beside this one
LADDER = "ladder"
VERSIONS = ("random", "heuristic", "random-2", "heuristic-2")
SELF_CONNECTING = "self@1"


def _command(kind: str) -> str:
    bot = kind.removesuffix("-2")
    return f"python -m brandeln.cli bot run {bot} --server {{server}} --token {{token}}"


READ = """
import json, sys
from brandeln.ladder.store.database import LadderStore
with LadderStore.open(sys.argv[1], create=False) as store:
    matches = [[m.block_index, m.rotation] for m in store.reads.matches(sys.argv[2])]
    versions = {v.name: v.blocks for v in store.ladders.versions(sys.argv[2])}
    errors = {name: row.last_error for name, row in store.presence.presence(sys.argv[2]).items()}
    finished = sorted(store.blocks.finished_blocks(sys.argv[2]))
print(json.dumps({"matches": matches, "blocks": versions, "errors": errors,
                  "finished": finished}))
"""


def ladder_state(bed: Bed) -> dict[str, Any]:
    state: dict[str, Any] = json.loads(in_sandbox(bed, "-c", READ, bed.db, LADDER))
    return state


def serve(bed: Bed, tmp_path: Path, log: Path) -> subprocess.Popen[str]:
    return bed.driver_host.python(
        [
            "-m",
            "brandeln.cli",
            "ladder",
            "serve",
            "--data",
            str(tmp_path / "driver"),
            "--db",
            bed.db,
            "--cluster",
            bed.head.address,
            "--slots",
            "2",
            "--worker-data",
            str(tmp_path / "workers"),
            "--deals",
            "2",
            "--interval",
            "0.5",
            "--move-ms",
            "20000",
            "--log-level",
            "info",
        ],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )


def wait_for(what: str, probe: Any, process: subprocess.Popen[str], log: Path) -> Any:
    deadline = time.monotonic() + WAIT_S
    while True:
        found = probe()
        if found:
            return found
        assert process.poll() is None, f"the ladder ended first:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"waited {WAIT_S:g} s for {what}:\n{log.read_text()}"
        time.sleep(1.0)


def stop(process: subprocess.Popen[str], log: Path) -> str:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        pytest.fail(f"the ladder did not stop in {WAIT_S:g} s:\n{log.read_text()}")
    output = log.read_text()
    assert process.returncode == 0, output
    # Ray's own SIGTERM handler is off in the CLI (brandeln/cluster/__init__.py): with it, a stop
    # printed a native stack dump, and one slower than 3 s ended by SIGABRT (-6).
    assert "SIGTERM received" not in output, output
    return output


def no_bots_left(bed: Bed) -> None:
    hosts = [bed.driver_host, *(node.host for node in bed.workers)]
    deadline = time.monotonic() + WAIT_S
    while bot_processes(hosts):
        assert time.monotonic() < deadline, f"bots outlived the ladder: {bot_processes(hosts)}"
        time.sleep(0.5)


def each_block_once(state: dict[str, Any]) -> None:
    """Every recorded block has its four rotations exactly once, and the ratings counted each
    block once per seat."""
    seen = [tuple(match) for match in state["matches"]]
    assert len(seen) == len(set(seen)), seen
    by_block: dict[int, list[int]] = {}
    for block, rotation in seen:
        by_block.setdefault(block, []).append(rotation)
    assert sorted(by_block) == state["finished"]
    assert all(sorted(rotations) == [0, 1, 2, 3] for rotations in by_block.values()), by_block
    assert sum(state["blocks"].values()) == 4 * len(state["finished"])


def ladder_plays_stops_and_resumes(bed: Bed, tmp_path: Path) -> None:
    """The ladder's check (see the module's docstring) on ``bed``."""
    first_log = tmp_path / "first.log"
    process = serve(bed, tmp_path, first_log)
    # The ladder exists once it serves; the versions are published to it then.
    wait_for(
        "the ladder serving", lambda: "is serving" in first_log.read_text(), process, first_log
    )
    where = ["--db", bed.db, "--data", str(tmp_path / "driver")]
    for kind in VERSIONS:
        in_sandbox(
            bed,
            "-m",
            "brandeln.cli",
            "bots",
            "version",
            "add",
            kind,
            "1",
            *where,
            "--command",
            _command(kind),
        )
    in_sandbox(bed, "-m", "brandeln.cli", "bots", "version", "add", "self", "1", *where)
    wait_for(
        "3 blocks recorded", lambda: len(ladder_state(bed)["finished"]) >= 3, process, first_log
    )
    output = stop(process, first_log)
    assert f"worker slots on {1 + len(bed.workers)} nodes" in output
    assert "stopped after" in output
    no_bots_left(bed)
    state = ladder_state(bed)
    each_block_once(state)
    assert SELF_CONNECTING not in state["blocks"] or state["blocks"][SELF_CONNECTING] == 0
    assert "connects by itself" in state["errors"][SELF_CONNECTING]
    skipped = [line for line in output.splitlines() if "self@1 skipped" in line]
    assert len(skipped) == 1, output  # said once
    # Started again: it resumes, and nothing is counted twice.
    before = len(state["finished"])
    second_log = tmp_path / "second.log"
    process = serve(bed, tmp_path, second_log)
    wait_for(
        "2 more blocks recorded",
        lambda: len(ladder_state(bed)["finished"]) >= before + 2,
        process,
        second_log,
    )
    stop(process, second_log)
    no_bots_left(bed)
    each_block_once(ladder_state(bed))
