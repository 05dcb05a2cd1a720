"""`brandeln serve --metrics-port 0 --log-json --log-level info` as a real process: a match of
two bot processes (two seats each), then ``/metrics`` scraped over HTTP and stderr read back.

What the metrics say is checked against the match's own log (its decision records), and every
line of stderr is either one of the lines `serve` prints for its operator or a JSON object.
Nothing waits on a clock: the test waits for the referee's lines and for its events.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from brandeln.arena.logreader import read_log
from brandeln.arena.logrecords import DecisionRecord
from brandeln.v1 import admin_pb2
from tests.conftest import AdminClient, BotProcesses
from tests.faults.referee_process import ADMIN_TOKEN, RefereeUnderTest

PREFIX = "brandeln_referee"
_METRICS_URL = re.compile(r"metrics on (http://127\.0\.0\.1:\d+/metrics)")
# The lines `serve` prints for its operator (rich text, as before these options): all else on
# stderr is the log, one JSON object per line.
OPERATOR_LINES = (
    "referee listening on ",
    "metrics on http://",
    "database ",
    "open-file limit ",
    "admin token: ",
    "stopping: ",
)


def _scrape(url: str) -> dict[str, list[Sample]]:
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200
        text = response.read().decode()
    return {family.name: family.samples for family in text_string_to_metric_families(text)}


def _value(samples: list[Sample], name: str, **labels: str) -> float:
    found = [s.value for s in samples if s.name == name and s.labels == labels]
    assert len(found) == 1, (name, labels, samples)
    return found[0]


def _events(stderr: str) -> list[dict[str, object]]:
    events = []
    for line in stderr.splitlines():
        if line.startswith(OPERATOR_LINES):
            continue
        entry = json.loads(line)  # anything else must be a JSON object
        assert isinstance(entry, dict), line
        assert {"ts", "level", "event"} <= entry.keys(), line
        events.append(entry)
    return events


async def test_serve_counts_a_match_in_its_metrics_and_logs_it_as_json_lines(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    referee = RefereeUnderTest.serve(
        tmp_path / "referee", "--metrics-port", "0", "--log-json", "--log-level", "info"
    )
    admin = AdminClient(referee.address, ADMIN_TOKEN)
    try:
        found = _METRICS_URL.search(referee.wait_for_stderr("metrics on http://"))
        assert found is not None, referee.stderr
        metrics_url = found.group(1)
        bot_ids = []
        for name in ("north", "south"):
            reply = await admin.register(name)
            bot_processes.start(
                [
                    *("-m", "brandeln.sample_bots", "random", "--server", referee.address),
                    *("--token", reply.token, "--tables", "2"),
                ],
                name=name,
            )
            bot_ids.append(reply.bot_id)
        seats = [*bot_ids, *bot_ids]  # each bot process plays two seats
        await admin.wait_for_sessions(seats, timeout=90)  # bot processes start slowly on load
        _, result = await admin.run_match(
            admin_pb2.RunMatchRequest(bot_ids=seats, deals=2, seed=11)
        )
        assert result.status == "finished"
        # The result reaches RunMatch's caller as the table ends; the referee counts the end
        # as it takes the table off: its log line says it has.
        referee.wait_for_stderr('"event":"match_ended"')
        log = await admin.stub.GetMatch(
            admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
        )
        decisions = [r for r in read_log(log.log_jsonl).records if isinstance(r, DecisionRecord)]
        assert decisions

        metrics = _scrape(metrics_url)
    finally:
        await admin.close()
        try:
            exit_code = referee.terminate()
        finally:
            referee.kill()
    assert exit_code == 0

    decided = metrics[f"{PREFIX}_decisions"]
    assert sum(s.value for s in decided) == len(decisions)
    assert _value(decided, f"{PREFIX}_decisions_total", outcome="ok") == len(decisions)
    latency = metrics[f"{PREFIX}_decision_latency_seconds"]
    assert _value(latency, f"{PREFIX}_decision_latency_seconds_count") == len(decisions)
    assert _value(latency, f"{PREFIX}_decision_latency_seconds_bucket", le="+Inf") == len(decisions)
    ended = metrics[f"{PREFIX}_matches_ended"]
    assert _value(ended, f"{PREFIX}_matches_ended_total", status="finished") == 1
    assert _value(ended, f"{PREFIX}_matches_ended_total", status="aborted") == 0
    started = metrics[f"{PREFIX}_matches_started"]
    assert _value(started, f"{PREFIX}_matches_started_total") == 1
    assert _value(metrics[f"{PREFIX}_matches_running"], f"{PREFIX}_matches_running") == 0
    assert _value(metrics[f"{PREFIX}_bots_connected"], f"{PREFIX}_bots_connected") == 2
    assert _value(metrics[f"{PREFIX}_sessions_open"], f"{PREFIX}_sessions_open") == 4
    rejected = metrics[f"{PREFIX}_rejections"]
    assert sum(s.value for s in rejected) == 0
    assert "process_resident_memory_bytes" in metrics

    events = _events(referee.stderr)
    kinds = [entry["event"] for entry in events]
    (match_started,) = [e for e in events if e["event"] == "match_started"]
    assert match_started["match_id"] == result.match_id
    assert match_started["bots"] == seats
    (match_ended,) = [e for e in events if e["event"] == "match_ended"]
    assert match_ended["match_id"] == result.match_id
    assert match_ended["status"] == "finished"
    assert match_ended["bots"] == seats
    assert kinds.index("match_started") < kinds.index("match_ended")
    opened = [e for e in events if e["event"] == "session_opened"]
    assert sorted(str(e["bot_id"]) for e in opened) == sorted(seats)
    assert len({e["session_id"] for e in opened}) == 4
    # SIGTERM: the referee drains, ending every session itself.
    assert "draining" in kinds
    closed = [e for e in events if e["event"] == "session_closed"]
    assert {e["session_id"] for e in closed} == {e["session_id"] for e in opened}
    assert {e["reason"] for e in closed} == {"shutdown"}
    assert "penalty" not in kinds
