"""The referee's own cost per decision, without gRPC: ``python -m brandeln.bench.referee.own_cost``.

The referee benchmark measures the referee through the protocol, where gRPC's share of a
decision (sending, receiving, the poller's wake-ups) is most of it and the machine's noise moves
every figure. This one runs a real :class:`brandeln.arena.referee.Referee` (its store, logs, time
control, decision records, codec) in this process with no server: each seat's session is answered by
an in-process bot that parses the serialized request and answers its first legal choice on the
next turn of the event loop, as a stream's reader would deliver it. What a decision costs here
is the referee's own Python (plus the small fixed cost of that bot), the part a change of the
referee can shrink; profile it with ``py-spy record -- python -m brandeln.bench.referee.own_cost``.
With ``--db postgresql://...`` the referee keeps its index and logs in that (empty) database,
as a shared referee does; the wall time beside the CPU then shows the loop's waits on it.

It measures; it asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from brandeln.arena.config import AdminTokenScope, RefereeConfig
from brandeln.arena.orders import HelloRequest, MatchOrder
from brandeln.arena.referee import Referee
from brandeln.arena.session import SeatSession
from brandeln.bench.referee.loop_profile import LoopProfile
from brandeln.services import data_folder
from brandeln.v1 import bot_pb2

__all__ = ["OwnCost", "OwnCostSettings", "main", "run_own_cost"]

PLAYERS = 4
PROTOCOL_VERSION = 1
TABLE_STEP = "Referee._run_table"  # the task a table's decision loop runs in (LoopProfile's row)


@dataclass(frozen=True)
class OwnCostSettings:
    tables: int = 16
    matches: int = 4  # per table, after one warm-up match on the first table
    deals: int = 8
    seed: int = 7
    snapshot_only: bool = False
    # KiB of other memory the bots copy before each answer, as a server's gRPC work between
    # decisions touches memory of its own; with it the tables' steps are timed on their own.
    foreign_kib: int = 0
    profile_loop: bool = False  # time the tables' steps (Referee._run_table) on their own
    # A database URL (an empty PostgreSQL database: the referee's schema is made in it) in
    # place of the temporary SQLite file and log files.
    database: str | None = None


@dataclass(frozen=True)
class OwnCost:
    decisions: int
    penalties: int  # strikes and forfeits: an instant bot earns none, so any is a fault here
    cpu_us_per_decision: float
    wall_us_per_decision: float
    # The tables' steps alone (the referee's decision loop, without the bots, the copies or
    # the loop's own work), when profiled.
    table_step_us_per_decision: float | None = None


async def _answer_requests(
    referee: Referee,
    session: SeatSession,
    asked: list[int],
    touch: Callable[[], None] | None = None,
) -> None:
    """The session's bot: the first legal choice of every request, delivered on the loop's next
    turn (a stream's reader task would hand it over the same way); ``touch`` runs before each
    answer."""
    loop = asyncio.get_running_loop()
    parse = bot_pb2.RefereeMessage.FromString
    while True:
        message = await session.outbox.get()
        if message is None:
            return
        if isinstance(message, bytes):
            message = parse(message)
        if message.WhichOneof("kind") != "request":
            continue
        request = message.request
        asked[0] += 1
        if touch is not None:
            touch()
        answer = bot_pb2.BotMessage(
            action=bot_pb2.Action(request_id=request.request_id, choice=request.legal[0])
        )
        loop.call_soon(referee.on_message, session, answer)


async def run_own_cost(settings: OwnCostSettings) -> OwnCost:
    """Play ``settings.matches`` matches on each of ``settings.tables`` tables at once."""
    with tempfile.TemporaryDirectory(prefix="brandeln-own-cost-") as folder:
        data = Path(folder)
        config = RefereeConfig(
            db_path=data_folder.referee_db(data),
            logs_dir=data_folder.logs_dir(data),
            database=settings.database,
            admin_token_scope=AdminTokenScope.THIS_RUN,
        )
        referee = Referee(config)
        touch = _foreign_memory(settings.foreign_kib)
        asked = [0]
        bots: list[asyncio.Task[None]] = []
        seatings: list[list[str]] = []
        penalties = [0]
        try:
            for table in range(settings.tables):
                bot_ids = []
                for seat in range(PLAYERS):
                    record, token = referee.register_bot(f"own-{table}-{seat}")
                    hello = HelloRequest(
                        token=token,
                        protocol_version=PROTOCOL_VERSION,
                        bot_name=record.name,
                        snapshot_only=settings.snapshot_only,
                    )
                    session = await referee.open_session(hello, "in-process")
                    bots.append(
                        asyncio.create_task(_answer_requests(referee, session, asked, touch))
                    )
                    bot_ids.append(record.bot_id)
                seatings.append(bot_ids)

            async def play(bot_ids: Sequence[str], matches: int) -> None:
                for match in range(matches):
                    order = MatchOrder(
                        bot_ids=tuple(bot_ids),
                        ruleset="standard",
                        deals=settings.deals,
                        seed=settings.seed + match,
                    )
                    table = await referee.start_match(order)
                    await table.done.wait()
                    penalties[0] += len(table.penalties)

            await play(seatings[0], 1)  # warm-up: caches, the store's first writes
            asked[0] = 0
            profile = LoopProfile() if settings.profile_loop or settings.foreign_kib else None
            if profile is not None:
                profile.start()
            cpu, wall = time.process_time(), time.perf_counter()
            try:
                await asyncio.gather(*(play(bot_ids, settings.matches) for bot_ids in seatings))
            finally:
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                if profile is not None:
                    profile.stop()
        finally:
            for bot in bots:
                bot.cancel()
            await asyncio.gather(*bots, return_exceptions=True)
            referee.close()
    decisions = asked[0]
    step_us = None
    if profile is not None:
        step_us = profile.per_decision_us(decisions).get(TABLE_STEP, 0.0)
    return OwnCost(
        decisions=decisions,
        penalties=penalties[0],
        cpu_us_per_decision=cpu * 1e6 / max(1, decisions),
        wall_us_per_decision=wall * 1e6 / max(1, decisions),
        table_step_us_per_decision=step_us,
    )


def _foreign_memory(kib: int) -> Callable[[], None] | None:
    """A copy of ``kib`` KiB from one buffer to another, None for 0."""
    if kib <= 0:
        return None
    source, target = bytes(kib * 1024), bytearray(kib * 1024)

    def touch() -> None:
        target[:] = source

    return touch


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m brandeln.bench.referee.own_cost", description=__doc__
    )
    parser.add_argument("--tables", type=int, default=OwnCostSettings.tables)
    parser.add_argument("--matches", type=int, default=OwnCostSettings.matches)
    parser.add_argument("--deals", type=int, default=OwnCostSettings.deals)
    parser.add_argument("--snapshot-only", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--foreign-kib",
        type=int,
        default=0,
        help="copy this many KiB of other memory before each answer (as gRPC's work between "
        "decisions touches its own) and time the tables' steps alone",
    )
    parser.add_argument(
        "--table-steps", action="store_true", help="time the tables' steps alone (LoopProfile)"
    )
    parser.add_argument(
        "--db",
        metavar="URL",
        help="run the referee on this database (postgresql://...; its referee schema is "
        "created and filled) instead of a temporary SQLite file",
    )
    args = parser.parse_args(argv)
    if min(args.tables, args.matches, args.deals, args.repeats) < 1:
        parser.error("--tables, --matches, --deals and --repeats must be at least 1")
    if args.foreign_kib < 0:
        parser.error("--foreign-kib must be 0 or more")
    settings = OwnCostSettings(
        tables=args.tables,
        matches=args.matches,
        deals=args.deals,
        snapshot_only=args.snapshot_only,
        foreign_kib=args.foreign_kib,
        profile_loop=args.table_steps,
        database=args.db,
    )
    costs = [asyncio.run(run_own_cost(settings)) for _ in range(args.repeats)]
    if any(cost.penalties for cost in costs):
        print("error: a seat was penalized: the figures are not a clean run's")
        return 1
    cpu = sorted(cost.cpu_us_per_decision for cost in costs)
    wall = sorted(cost.wall_us_per_decision for cost in costs)
    seats = "snapshot_only seats" if args.snapshot_only else "seats sent every event"
    store = "PostgreSQL" if args.db and args.db.startswith("postgresql") else "SQLite"
    print(
        f"referee's own cost, no gRPC ({args.tables} tables, {seats}, {store}): "
        f"{costs[0].decisions} decisions a repeat, CPU {cpu[len(cpu) // 2]:.1f} us a decision "
        f"(repeats {cpu[0]:.1f}-{cpu[-1]:.1f}), wall {wall[len(wall) // 2]:.1f} "
        f"(repeats {wall[0]:.1f}-{wall[-1]:.1f})"
    )
    steps = sorted(c.table_step_us_per_decision or 0.0 for c in costs)
    if costs[0].table_step_us_per_decision is not None:
        foreign = f", {args.foreign_kib} KiB of other memory copied between them"
        print(
            f"the tables' steps alone{foreign if args.foreign_kib else ''}: "
            f"{steps[len(steps) // 2]:.1f} us a decision (repeats {steps[0]:.1f}-{steps[-1]:.1f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
