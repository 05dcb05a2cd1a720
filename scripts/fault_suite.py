"""The fault suite at scale: the hostile fleet plays match after match against a referee
process, which is killed (SIGKILL) and restarted on the way; then every match and every
message is checked, and a table is printed.

    .venv/bin/python scripts/fault_suite.py [--matches 1000] [--min-per-behaviour 20]
                                            [--restarts 2] [--work DIR]

Every behaviour of the fleet (tests/faults/hostile_bot.py) sits at a table of its own with
three honest bots, match after match, all tables at once, beside a control table of four
honest bots. Each row of the table:

- matches: matches that finished (a match cut short by a referee kill is counted apart);
- faults injected: the faults the behaviour's bot processes injected (their records);
- results lost: finished matches whose result is not recorded as streamed, or whose log does
  not replay, at the end or after a restart;
- cards leaked: messages that showed a seat a card outside its own hand before the deal ended,
  on every message every process of the row's matches received;
- unexpected: matches whose handling differs from tests/faults/fleet.py's EXPECTED, plus
  injected faults that did not get their status;
- excused by load: handlings that differ but that the referee's own records explain by load
  (tests/faults/fleet.py's handling_problems and status_problems): a timeout whose answer it
  read late after waiting the full move time, a seat that forfeited for not coming back in
  time which the referee saw away longer than reconnect_ms (a loaded referee accepts new calls
  late, and a resume is a new call), and a call gRPC cancelled after holding it 30 s for a
  referee too busy to take it;
- restarts: referee restarts the row's table played on through.

Exit status 0 when nothing was lost, leaked or unexpected and enough matches were played,
whatever the machine's speed: run it beside a CPU hog and the verdict is the same (only the
excused column and the wall time grow).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the harness lives in the test suite

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from brandeln.arena.logreader import read_log  # noqa: E402
from tests.faults.fleet import (  # noqa: E402
    CONTROL,
    DEALS,
    DEALS_FOR,
    FLEET,
    SESSION_CAP,
    UNVERIFIABLE,
    Admin,
    DealBook,
    Fleet,
    MatchRun,
    RefereeProcess,
    SeatEvidence,
    SeatWatch,
    check_match,
    handling_problems,
    leaks_by_match,
    read_records,
    run_match,
    session_times,
    status_problems,
)

console = Console(width=170)  # the table's nine columns, even when piped
PAUSE_S = 0.25
# Excused handlings printed one by one (the rest are counted).
SHOW_EXCUSED = 5


@dataclass
class Row:
    matches: int = 0
    cut_short: int = 0
    faults: int = 0
    lost: int = 0
    leaked: int = 0
    unexpected: int = 0
    excused: int = 0
    restarts: int = 0


@dataclass
class Suite:
    """The state of one run of the suite."""

    referee: RefereeProcess
    admin: Admin
    fleet: Fleet
    target: int
    minimum: int
    restarts: int
    behaviours: tuple[str, ...]
    runs: list[MatchRun] = field(default_factory=list)
    cut: list[MatchRun] = field(default_factory=list)  # cut short by a referee kill
    up: asyncio.Event = field(default_factory=asyncio.Event)
    epoch: int = 0
    lost: list[str] = field(default_factory=list)
    rss_kb: list[tuple[int, int]] = field(default_factory=list)  # (referee life, rss)
    kills: list[tuple[float, float]] = field(default_factory=list)  # wall time: sent, done
    excused: list[str] = field(default_factory=list)
    # Every seat session's (opened_at, closed_at) as the referee recorded it (watch_referee).
    sessions: dict[str, tuple[int, int | None]] = field(default_factory=dict)

    def finished(self, behaviour: str | None = None) -> int:
        return sum(1 for r in self.runs if r.finished and behaviour in (None, r.behaviour))

    def done(self) -> bool:
        return self.finished() >= self.target and all(
            self.finished(b) >= self.minimum for b in (CONTROL, *self.behaviours)
        )


async def behaviour_loop(suite: Suite, behaviour: str, index: int) -> None:
    """Matches of one behaviour, one after the other, until the suite has enough."""
    rotation = 0
    while not suite.done():
        await suite.up.wait()
        seats, hostile = suite.fleet.seats_for(behaviour, rotation)
        run = MatchRun(
            behaviour,
            seats,
            hostile,
            seed=100_000 * index + rotation,
            deals=DEALS_FOR.get(behaviour, DEALS),
            epoch=suite.epoch,
        )
        rotation += 1

        def started(run: MatchRun) -> None:
            if run.behaviour == "slow-reader":
                # A long match: the foreign-resume bot tries to take a seat in it.
                suite.fleet.note_foreign(run.match_id)

        await run_match(suite.admin, run, suite.fleet.bot_ids, on_started=started)
        # A referee kill during the match (or while it waited for its seats) cut it short.
        cut = bool(run.error) and (not suite.up.is_set() or suite.epoch != run.epoch)
        (suite.cut if cut else suite.runs).append(run)
        if behaviour == "slow-reader":
            suite.fleet.release_slow_reader()
        # A breath between matches: the suite tests the referee's handling of each fault,
        # not how it copes with a CPU it cannot keep up with.
        await asyncio.sleep(PAUSE_S)


async def kill_and_restart(suite: Suite) -> None:
    """SIGKILL the referee at even steps of the target, restart it, check nothing was lost."""
    for n in range(1, suite.restarts + 1):
        mark = suite.target * n // (suite.restarts + 1)
        while suite.finished() < mark:  # noqa: ASYNC110 - the loops append as they go
            await asyncio.sleep(0.2)
        finished = {r.match_id: r for r in suite.runs if r.finished}
        suite.up.clear()
        sent = time.time()
        suite.referee.kill()
        suite.kills.append((sent, time.time()))
        console.print(f"[bold]SIGKILL[/bold] the referee after {len(finished)} finished matches")
        await asyncio.sleep(0.5)
        await suite.referee.start()
        await suite.admin.wait_until_up()
        suite.epoch += 1
        suite.lost += lost_results(suite.referee.db_path, finished.values())
        suite.fleet.release_slow_reader()  # its stream died with the referee: come back
        suite.up.set()  # the bots reconnect by themselves; RunMatch waits for their seats
        console.print(f"restarted; {len(suite.lost)} results lost so far")


def lost_results(db_path: Path, finished: Any) -> list[str]:
    """Finished matches whose index row is missing or differs after a restart."""
    lost = []
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
        for run in finished:
            row = db.execute(
                "SELECT status, balances FROM matches WHERE match_id=?", (run.match_id,)
            ).fetchone()
            assert run.summary is not None
            balances = None if row is None else json.loads(row[1])
            if row is None or row[0] != "finished" or balances != list(run.summary.balances):
                lost.append(f"{run.behaviour} {run.match_id}: {row}")
    return lost


async def watch_referee(suite: Suite) -> None:
    """Every second: the referee's memory, and its session rows. The referee keeps only each
    bot's newest closed sessions (ProtocolLimits.closed_sessions_kept_per_bot), so the times
    that excuse a late resume are collected while they are still there."""
    while True:
        if suite.referee.alive():
            with contextlib.suppress(OSError, RuntimeError):  # it may die as we look
                suite.rss_kb.append((suite.referee.starts, suite.referee.rss_kb()))
        with contextlib.suppress(sqlite3.Error):  # not there yet, or busy: the next look
            suite.sessions.update(await asyncio.to_thread(session_times, suite.referee.db_path))
        await asyncio.sleep(1.0)


async def play(suite: Suite) -> None:
    suite.up.set()
    loops = [
        asyncio.ensure_future(behaviour_loop(suite, behaviour, n))
        for n, behaviour in enumerate((CONTROL, *suite.behaviours))
    ]
    killer = asyncio.ensure_future(kill_and_restart(suite))
    memory = asyncio.ensure_future(watch_referee(suite))
    last = 0
    try:
        while not all(loop.done() for loop in loops):
            await asyncio.sleep(5)
            if suite.finished() - last >= 100:
                last = suite.finished()
                console.print(f"{last} matches finished", highlight=False)
        for loop in loops:
            loop.result()
        await killer
    finally:
        for task in (*loops, killer, memory):
            task.cancel()
        await asyncio.gather(*loops, killer, memory, return_exceptions=True)


def deal_books(suite: Suite) -> dict[str, DealBook]:
    """The deals of every match the referee recorded (those of a RunMatch cut short before it
    said the match's id too), from the match seed, checked against its deal records.

    A log tells its match seed only in its footer (the header on disk from the start must
    not: every deal follows from it), so a match killed mid-way is known by the seed the suite
    asked for; one cut short before its id was said has no seed to check against."""
    seeds = {r.match_id: (r.seed, r.deals) for r in (*suite.runs, *suite.cut) if r.match_id}
    books = {}
    with sqlite3.connect(f"file:{suite.referee.db_path}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT match_id, log_path FROM matches").fetchall()
    for match_id, log_path in rows:
        text = Path(log_path).read_text(encoding="utf-8") if Path(log_path).exists() else ""
        log = read_log(text, str(log_path)) if text else None
        footer = log.footer if log is not None else None
        seed = footer.seed if footer is not None else None
        if seed is None and match_id in seeds:
            seed = seeds[match_id][0]
        if log is not None and seed is not None:
            books[match_id] = DealBook.build(seed, log.header.deals, text)
        elif match_id in seeds:
            books[match_id] = DealBook.build(*seeds[match_id], None)
    return books


async def judge(suite: Suite, rows: dict[str, Row]) -> Counter[str]:
    """Check every match and every message; fill in the rows; count the messages checked."""
    behaviour_of = {r.match_id: r.behaviour for r in (*suite.runs, *suite.cut) if r.match_id}
    books = deal_books(suite)
    sessions = {**suite.sessions, **session_times(suite.referee.db_path)}
    evidence = SeatEvidence()
    counted: Counter[str] = Counter()
    for bot in suite.fleet.processes:
        kept: list[dict[str, Any]] = []
        watch = SeatWatch()
        records = _split(read_records(bot.out), kept, counted, watch)
        for match_id, text in leaks_by_match(records, books, bot.out.stem):
            if text.startswith(UNVERIFIABLE):
                counted["unverifiable"] += 1
                continue
            rows[behaviour_of.get(match_id, CONTROL)].leaked += 1
            console.print(f"[red]leak: {match_id} {text}[/red]")
        evidence.update(watch.evidence(sessions))
        if bot.behaviour == "honest":
            continue
        row = rows[bot.behaviour]
        row.faults += sum(1 for r in kept if r["kind"] == "fault")
        for burst in (r for r in kept if r["kind"] == "burst"):
            if burst["welcomed"] >= SESSION_CAP:  # its seat session holds one place
                row.unexpected += 1
                console.print(f"[red]a burst got {burst['welcomed']} sessions[/red]")
        excused: list[str] = []
        for problem in status_problems(_outside_kills(kept, suite), bot.out.stem, excused):
            row.unexpected += 1
            console.print(f"[red]{problem}[/red]")
        row.excused += len(excused)
        suite.excused += excused
    for run in suite.cut:
        rows[run.behaviour].cut_short += 1
        if run.match_id:
            await _judge_cut(suite, run, rows[run.behaviour])
    for run in suite.runs:
        await _judge_run(suite, run, rows[run.behaviour], evidence)
    for problem in suite.lost:
        rows[problem.split()[0]].lost += 1
        console.print(f"[red]lost: {problem}[/red]")
    return counted


async def _judge_cut(suite: Suite, run: MatchRun, row: Row) -> None:
    """A match a referee kill cut short: the restarted referee recorded it as aborted, or as
    finished when the kill came between its end and the result reaching RunMatch (then its
    record must hold up like any other)."""
    recorded = await suite.admin.get_match(run.match_id)
    status = recorded.summary.status
    if status == "finished":
        run.summary = recorded.summary
        problems = check_match(run, recorded)
        row.lost += bool(problems)
        for problem in problems[:3]:
            console.print(f"[red]{problem}[/red]")
    elif status != "aborted":
        row.unexpected += 1
        console.print(f"[red]{run.match_id} {status}[/red]")


async def _judge_run(suite: Suite, run: MatchRun, row: Row, evidence: SeatEvidence) -> None:
    if not run.finished:
        row.unexpected += 1  # no kill to blame
        console.print(f"[red]{run.behaviour} {run.match_id}: {run.error}[/red]")
        return
    recorded = await suite.admin.get_match(run.match_id)
    row.matches += 1
    row.restarts = max(row.restarts, run.epoch)
    problems = check_match(run, recorded)
    row.lost += bool(problems)
    excused: list[str] = []
    handling = handling_problems(run, recorded.log_jsonl, evidence, excused)
    row.unexpected += bool(handling)
    row.excused += len(excused)
    suite.excused += excused
    for problem in (*problems, *handling)[:3]:
        console.print(f"[red]{problem}[/red]")


def _split(
    records: Iterator[dict[str, Any]],
    kept: list[dict[str, Any]],
    counted: Counter[str],
    watch: SeatWatch,
) -> Iterator[dict[str, Any]]:
    """The records, keeping aside every one that is not a message, showing every one to the
    seat watch, counting messages."""
    for record in records:
        watch.add(record)
        if record["kind"] == "msg":
            counted["messages"] += 1
        else:
            kept.append(record)
        yield record


def _outside_kills(records: list[dict[str, Any]], suite: Suite) -> list[dict[str, Any]]:
    """The records, less the faults of streams a referee kill ended: opened before a kill
    was done and still open when it was sent (their end, if any, says nothing of the
    referee's handling, however late the bot learned of it)."""
    opened = {r["stream"]: r["t"] for r in records if r["kind"] == "open"}
    ended = {r["stream"]: r["t"] for r in records if r["kind"] == "end"}
    cut = {
        stream
        for stream, at in opened.items()
        if any(at <= done and ended.get(stream, sent) >= sent for sent, done in suite.kills)
    }
    return [r for r in records if not (r["kind"] == "fault" and r["stream"] in cut)]


def print_table(rows: dict[str, Row], suite: Suite, checked: Counter[str], seconds: float) -> None:
    table = Table(title="brandeln fault suite")
    columns = (
        "behaviour",
        "matches",
        "cut short by a kill",
        "faults injected",
        "results lost",
        "cards leaked",
        "unexpected",
        "excused by load",
        "referee restarts survived",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "behaviour" else "right")
    total = Row()
    for behaviour, row in rows.items():
        table.add_row(
            behaviour,
            *(
                str(v)
                for v in (
                    row.matches,
                    row.cut_short,
                    row.faults,
                    row.lost,
                    row.leaked,
                    row.unexpected,
                    row.excused,
                    row.restarts,
                )
            ),
        )
        for name in ("matches", "cut_short", "faults", "lost", "leaked", "unexpected", "excused"):
            setattr(total, name, getattr(total, name) + getattr(row, name))
    table.add_row(
        "[bold]all[/bold]",
        *(
            str(v)
            for v in (
                total.matches,
                total.cut_short,
                total.faults,
                total.lost,
                total.leaked,
                total.unexpected,
                total.excused,
                suite.epoch,
            )
        ),
    )
    for line in suite.excused[:SHOW_EXCUSED]:
        console.print(f"[yellow]excused by load: {line}[/yellow]", highlight=False)
    if len(suite.excused) > SHOW_EXCUSED:
        console.print(f"[yellow]... and {len(suite.excused) - SHOW_EXCUSED} more[/yellow]")
    console.print(table)
    by_life: dict[int, list[int]] = defaultdict(list)
    for life, rss in suite.rss_kb:
        by_life[life].append(rss)
    memory = "; ".join(
        f"run {life}: {values[0] // 1024}-{max(values) // 1024} MiB"
        for life, values in sorted(by_life.items())
    )
    console.print(
        f"{checked['messages']} messages checked for leaks ({checked['unverifiable']} of "
        f"matches a kill cut short before their log said their seed); referee RSS (first "
        f"sample-peak) {memory}; {seconds:.0f} s",
        highlight=False,
    )


async def main(args: argparse.Namespace) -> int:
    started = time.monotonic()
    work = Path(args.work or tempfile.mkdtemp(prefix="brandeln-faults-"))
    work.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - once, before anything runs
    console.print(f"fault suite in {work}", highlight=False)
    referee = RefereeProcess(work / "referee", admin_token="fault-suite-admin-token")
    await referee.start()
    admin = Admin(referee.address, referee.admin_token)
    fleet = Fleet(referee, work, tables=len(FLEET) + 4)
    behaviours = tuple(args.only.split(",")) if args.only else FLEET
    unknown = set(behaviours) - set(FLEET)
    if unknown:
        raise SystemExit(f"unknown behaviours {sorted(unknown)}; the fleet: {', '.join(FLEET)}")
    suite = Suite(
        referee, admin, fleet, args.matches, args.min_per_behaviour, args.restarts, behaviours
    )
    try:
        await admin.wait_until_up()
        await fleet.register(admin, behaviours)
        fleet.revoke("revoked-identity")
        fleet.start(behaviours, seed=args.seed)
        await fleet.wait_ready()
        await play(suite)
        await fleet.settle()  # the last idle streams reach the hello timeout, and so on
        alive = referee.alive()
        exited = fleet.exited()  # a bot process that died on its own
        fleet.stop()
        rows = {behaviour: Row() for behaviour in (CONTROL, *behaviours)}
        checked = await judge(suite, rows)
    finally:
        fleet.stop()
        await admin.close()
        referee.stop()
    print_table(rows, suite, checked, time.monotonic() - started)
    bad = sum(r.lost + r.leaked + r.unexpected for r in rows.values())
    if not alive or exited or bad or suite.finished() < args.matches:
        console.print(f"[red]FAILED[/red] alive={alive} exited={exited} problems={bad}")
        return 1
    console.print("[green]OK[/green]: the referee survived the whole fleet")
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000, help="finished matches to play")
    parser.add_argument(
        "--min-per-behaviour", type=int, default=20, help="finished matches of each behaviour"
    )
    parser.add_argument("--restarts", type=int, default=2, help="referee kills and restarts")
    parser.add_argument("--work", help="where the referee data and bot records go")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--only", help="comma-separated behaviours to play (default: the whole fleet)"
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args(sys.argv[1:]))))
