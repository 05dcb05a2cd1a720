"""`brandeln watch` and `match run --watch`: a match in the terminal, public information only."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path
from typing import Any

from rich.console import Console
from typer.testing import CliRunner

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.logreader import read_log
from brandeln.cli.main import app
from brandeln.cli.watch_cmd import follow
from brandeln.cli.watch_view import WatchPrinter
from brandeln.ladder.referee.admin_client import AdminClient as LadderAdmin
from brandeln.protocol.decode import LiveEvent, LivePenalty, event_from_pb
from brandeln.protocol.statuses import MatchStatus
from brandeln.v1 import admin_pb2, cards_pb2
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses

WIDTH = 80
CARD = re.compile(r"(?<![A-Za-z0-9])[CSHD][789TJQKA](?![A-Za-z0-9])")
runner = CliRunner(env={"COLUMNS": str(WIDTH)})


class RecordingPrinter(WatchPrinter):
    """A printer into a string that calls ``hook`` after each event it printed."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()
        super().__init__(Console(file=self.buffer, width=WIDTH, color_system=None), [])
        self.hook: Any = None

    def event(self, event: LiveEvent) -> None:
        super().event(event)
        if self.hook is not None:
            self.hook(event)


async def test_a_live_match_is_followed_while_it_plays_and_shows_no_hidden_card(
    tmp_path: Path,
) -> None:
    release = tmp_path / "release"
    bots = BotProcesses(tmp_path)
    try:
        async with EmbeddedReferee(tmp_path / "referee") as referee:
            raw = AdminClient(referee.address, referee.admin_token)
            ids = []
            # Seat 1 "blabber" stops at its first request of deal 2 until `release` exists.
            for seat, behaviour in enumerate(("first", "blabber", "last", "first")):
                reply = await raw.register(f"{behaviour}-{seat}")
                bots.start(
                    [MINIMAL_BOT, referee.address, reply.token, behaviour],
                    name=behaviour,
                    env={"MINIMAL_BOT_RELEASE": str(release)},
                )
                ids.append(reply.bot_id)
            await raw.wait_for_sessions(ids, timeout=90)
            request = admin_pb2.RunMatchRequest(
                bot_ids=ids,
                deals=4,
                seed=9,
                time_control=cards_pb2.TimeControl(move_ms=60_000, bank_ms=60_000),
            )
            call = raw.stub.RunMatch(request, metadata=raw.metadata)
            started = await call.read()
            assert isinstance(started, admin_pb2.MatchUpdate)
            match_id = started.started.match_id

            async def rest() -> admin_pb2.MatchSummary:
                while isinstance(update := await call.read(), admin_pb2.MatchUpdate):
                    if update.WhichOneof("kind") == "result":
                        return update.result
                raise AssertionError("RunMatch ended without a result")

            playing = asyncio.ensure_future(rest())
            printer = RecordingPrinter()
            seen: dict[str, Any] = {"live": [], "at_stop": None}

            def hook(event: LiveEvent) -> None:
                assert referee.referee is not None
                seen["live"].append(match_id in referee.referee.tables)
                if isinstance(event, LivePenalty) and event.penalty.deal == 2:
                    # The blabber's illegal bid: deal 2 is live and waits for its release.
                    seen["at_stop"] = printer.buffer.getvalue()
                    release.touch()

            printer.hook = hook
            async with LadderAdmin(referee.address, referee.admin_token) as admin:
                summary = await follow(admin, match_id, printer)
            result = await playing
            await raw.close()
            log = read_log(Path(referee.config.logs_dir / f"{match_id}.jsonl").read_text())
    finally:
        bots.stop()
    assert summary.status is MatchStatus.FINISHED
    # Events arrived while the match was being played, not replayed after it.
    assert seen["live"]
    assert all(seen["live"][:10])
    at_stop = seen["at_stop"]
    assert at_stop is not None
    deal_2 = at_stop.split("\ndeal 2\n", 1)[1]
    assert "bid" in deal_2
    assert "penalty  1 blabber-1: illegal" in deal_2
    assert not CARD.findall(deal_2), deal_2  # no card of the live deal: nothing played yet
    # Once a deal has ended its hands are shown, from its DealEnded.
    hands = [deal.record.hands for deal in log.deals()]
    output = printer.buffer.getvalue()
    deal_1 = output.split("\ndeal 2\n", 1)[0]
    for seat, cards in enumerate(hands[0]):
        assert f"hand seat {seat} {cards}" in deal_1
    assert output.count("settled") == 4
    assert f"match {match_id} finished" in output
    assert all(len(line) <= WIDTH for line in output.splitlines())
    # The referee's result says how long each seat took to decide, by seat.
    assert [seat.decisions > 0 for seat in result.latency] == [True] * 4
    assert all(seat.p50_ms <= seat.p95_ms <= seat.max_ms for seat in result.latency)


def test_match_run_watch_follows_the_match_it_starts_then_watch_replays_it(
    tmp_path: Path,
) -> None:
    data = str(tmp_path)
    result = runner.invoke(
        app,
        ["match", "run", "random", "heuristic", "random", "heuristic",
         "--deals", "2", "--seed", "6", "--watch", "--data", data],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    live = result.output
    match_id = re.search(r"match (m_[0-9a-f]+) finished", live)
    assert match_id, live
    assert live.count("settled") == 2
    assert "  bid      1 heuristic@match: " in live
    assert re.search(r"  trick  1 \d:[CSHD]", live)
    assert "status: finished" in live  # the result table follows the live view
    replay = runner.invoke(app, ["watch", match_id.group(1), "--data", data])
    assert replay.exit_code == 0, replay.output
    # A finished match replays the same public events from its log, and the command ends.
    start = live.index(f"match {match_id.group(1)} (standard")
    end = live.index(f"match {match_id.group(1)} finished")
    assert replay.output.strip().startswith(live[start:end].strip())


def test_watch_of_an_unknown_match_is_a_one_line_error(tmp_path: Path) -> None:
    runner.invoke(app, ["bots", "add", "x", "--data", str(tmp_path)])
    result = runner.invoke(app, ["watch", "m_nope", "--data", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: no match with id 'm_nope'")


def test_bot_supplied_text_in_a_watched_event_reaches_the_terminal_inert() -> None:
    buffer = io.StringIO()
    printer = WatchPrinter(
        Console(file=buffer, width=WIDTH, color_system=None), ["evil\x1b]0;x\x07"]
    )
    penalty = cards_pb2.GameEvent(
        seq=3,
        deal_number=1,
        seat_penalized=cards_pb2.SeatPenalized(
            seat=0, code="illegal", reason="[bold]\x1b[2J", strikes=1
        ),
    )
    event = event_from_pb(penalty)
    assert isinstance(event, LivePenalty)
    printer.event(event)
    text = buffer.getvalue()
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "evil\\x1b]0;x\\x07" in text
    assert "[bold]\\x1b[2J" in text  # shown, not taken as markup
