"""The referee benchmark's machinery at tiny size: it measures, and the floor is comparable.

No speed is asserted here: the figures only have to be present and positive, and the floor must
send each seat exactly as many messages as the referee did.
"""

from __future__ import annotations

import asyncio
import asyncio.events
import json
from pathlib import Path
from typing import Any, cast

import pytest
from typer.testing import CliRunner

from brandeln.bench.referee.floor import MatchScript, new_match_id
from brandeln.bench.referee.loop_profile import LOOP_ITSELF, OTHER_THREADS
from brandeln.bench.referee.referee_bench import (
    LoadGenProcess,
    RefereeBenchSettings,
    _InProcessLoopProfiler,
    _measure,
    run_referee_bench,
)
from brandeln.cli.main import app
from brandeln.v1 import bot_pb2

FIGURES = ("decisions_per_s", "p50_ms", "p99_ms", "cpu_ms_per_decision")


@pytest.mark.parametrize("snapshot_only", [False, True])
async def test_referee_and_floor_are_measured_with_the_same_messages(snapshot_only: bool) -> None:
    settings = RefereeBenchSettings(
        tables=(1,),
        repeats=1,
        deals=2,
        matches_per_table=1,
        snapshot_only=snapshot_only,
        warmup=False,
    )
    figures = await run_referee_bench(settings)

    script = figures["script"]
    assert script["decisions_per_match"] > 0
    (config,) = figures["configs"]
    assert config["tables"] == 1
    for server in ("referee", "floor"):
        summary = config[server]["summary"]
        for figure in FIGURES:
            assert summary[figure]["median"] > 0, (server, figure)
        (repeat,) = config[server]["repeats"]
        assert repeat["decisions"] == script["decisions_per_match"]
        assert repeat["latency_samples"] == script["decisions_per_match"] - 1
    per_seat = config["messages_per_seat_per_match"]
    assert per_seat["referee"] == per_seat["floor"] == per_seat["script"]
    kinds = config["referee"]["repeats"][0]["kinds"]
    assert kinds == config["floor"]["repeats"][0]["kinds"]
    if snapshot_only:
        # Only DealEnded among the events: one per deal, to each of the four seats.
        assert kinds["event"] == 4 * settings.deals
    for ratio in config["ratios"].values():
        assert ratio["median"] > 0
    # Measured at 1 table: the p50 target and the decisions/s one; not at 16 or 64.
    assert [t["ratio"] is not None for t in figures["targets"]] == [True, True, False, False]
    assert config["referee"]["loop_us_per_decision"] == {}  # not profiled unless asked


async def test_the_loop_profiles_show_each_servers_own_work_per_decision() -> None:
    settings = RefereeBenchSettings(
        tables=(1,), repeats=1, deals=1, matches_per_table=1, warmup=False, loop_profile=True
    )
    figures = await run_referee_bench(settings)
    (config,) = figures["configs"]
    referee = config["referee"]["loop_us_per_decision"]
    floor = config["floor"]["loop_us_per_decision"]
    # The referee's decisions run in its tables' tasks, the floor's in its replay; each
    # server's loop and its other threads are rows of their own.
    assert referee["Referee._run_table"] > 0
    assert floor["_FloorTable.play"] > 0
    assert "Referee._run_table" not in floor
    for rows in (referee, floor):
        assert all(value >= 0 for value in rows.values())
        assert rows[LOOP_ITSELF] > 0
        assert OTHER_THREADS in rows


def test_the_bench_command_prints_the_figures_and_writes_json(tmp_path: Path) -> None:
    path = tmp_path / "referee.json"
    result = CliRunner().invoke(
        app,
        [
            "bench",
            "referee",
            "--tables",
            "1",
            "--repeats",
            "1",
            "--matches",
            "1",
            "--deals",
            "1",
            "--json",
            str(path),
            "--loop-profile",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "referee" in result.output
    assert "floor" in result.output
    assert "what the loop ran" in result.output
    assert "Referee._run_table" in result.output
    figures = json.loads(path.read_text())
    assert figures["benchmark"] == "referee"
    assert figures["configs"][0]["referee"]["summary"]["decisions_per_s"]["median"] > 0


def test_the_floor_replays_a_script_with_a_fresh_match_id_of_the_same_length() -> None:
    started = bot_pb2.RefereeMessage()
    started.match_started.match_id = "m_0123456789abcdef"
    request = bot_pb2.RefereeMessage()
    request.request.request_id = 1
    event = bot_pb2.RefereeMessage()
    event.event.seq = 1
    sent = [(seat, started) for seat in range(4)] + [(0, request)]
    sent += [(seat, event) for seat in range(4)]
    script = MatchScript.from_sent(4, sent)

    assert script.decisions == 1
    assert script.messages_per_seat() == [3, 2, 2, 2]
    # One message object sent to several seats stays one object, as the referee built it.
    assert len({id(step.message) for step in script.steps}) == 3
    fresh = new_match_id(script.match_id)
    assert len(fresh) == len(script.match_id)
    assert fresh != script.match_id
    replayed = script.for_match(fresh)
    assert [m.match_started.match_id for _, m, _ in replayed[:4]] == [fresh] * 4
    assert script.match_id == "m_0123456789abcdef"  # the recording is left as it was
    assert [awaits for _, _, awaits in replayed] == [False] * 4 + [True] + [False] * 4


def test_a_script_travels_to_the_floor_process_as_json_with_its_shared_messages() -> None:
    request = bot_pb2.RefereeMessage()
    request.request.request_id = 7
    event = bot_pb2.RefereeMessage()
    event.event.seq = 2
    script = MatchScript.from_sent(4, [(1, request)] + [(seat, event) for seat in range(4)])

    back = MatchScript.from_json(json.loads(json.dumps(script.to_json())))

    assert back == script
    # The event sent to four seats is one object again, as the referee sends it.
    assert len({id(step.message) for step in back.steps}) == 2


async def test_a_failed_repeat_leaves_asyncio_unpatched() -> None:
    class LoadGen:
        async def command(self, payload: dict[str, Any]) -> dict[str, Any]:
            return {}

    async def play() -> None:
        raise RuntimeError("the server went away")

    original = asyncio.events.Handle._run
    with pytest.raises(RuntimeError, match="went away"):
        await _measure(cast(LoadGenProcess, LoadGen()), play, 1, loop=_InProcessLoopProfiler())
    assert asyncio.events.Handle._run is original
