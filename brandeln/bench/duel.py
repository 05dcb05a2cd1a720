"""An in-process duplicate duel of two sample bots: ``python -m brandeln.bench.duel --a A --b B``.

Every deal is played twice on the same cards: once with B in seats 0 and 2 and A in 1 and 3,
once with the seats swapped, so each bot holds every hand once and the luck of the cards
cancels out of the difference (the season's duplicate idea, without a referee: decisions go
engine state -> ``DecisionRequest`` -> bot -> ``Choice`` as in ``tests/bots/botkit_table.py``).
The figure is B - A in chips per deal, per seat: what one B seat wins on average minus what
one A seat wins, with a 95% interval over the deals (the two tables of a deal are one sample:
they are not independent). A breakdown says where the chips came from: as soloist and as
defender, per contract (how often each bot played it, how often it made it, its chips), the
pass-outs, and how long the bots took per decision.

Search bots are measured with fixed sample counts (``--samples`` for montecarlo, ``--level``
for expert, both stopped by the cap and not by the clock), so a figure does not depend on the
machine's load and a seed reproduces it; the clock stays a guard against a hang
(two minutes a decision: a season's guard, the move's time and half the bank, cut the expert's
level 4 short on this machine, and with it the reproducibility). They can be played on the
clock instead, as a season
does, to see what the time share really affords: ``--clock cpu`` reads each bot's share of
the move on its process's CPU time, so a busy machine does not starve it, ``--clock wall`` on
the wall clock.

A bot is a registry name (``montecarlo``, ``expert``, ``heuristic``, ``random``), or
``BIDDER/PLAYER``: the auction and trump naming of one bot and the card play of another (e.g.
``montecarlo/expert`` isolates the expert's card play); each name optionally followed by
``:attribute=value,...`` to set tunables on that bot (``expert:bid_margin=0.3``,
``montecarlo/expert:card_prior=0``).

``oracle`` (brandeln.bench.oracle) is the expert handed every hand: not a player but a ceiling, what
seeing every card is worth against A (``--a montecarlo --b oracle``), and with a hybrid where
that worth lies (``--a expert --b expert/oracle``: the same bids, the card play that sees all).
``seer`` (brandeln.bench.oracle) is the expert shown only the soloist's hand, when it defends
(``--b expert/seer``): how much of the oracle's card play is reading the soloist.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from brandeln.arena import codec
from brandeln.arena.latency import percentile
from brandeln.bench.oracle import ORACLE, SEER, OracleBot, SoloistSeer
from brandeln.engine.dealing import deal_cards
from brandeln.engine.outcome import DealOutcome
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import Ruleset, find_ruleset
from brandeln.engine.seats import forehand_of
from brandeln.engine.state import DealState
from brandeln.ladder.ratings.stats import mean_ci95
from brandeln.sample_bots.montecarlo import MonteCarloBot
from brandeln.sample_bots.registry import make_bot
from brandeln.sdk import Bot, resolve_answer
from brandeln.v1 import bot_pb2, cards_pb2

__all__ = [
    "DuelConfig",
    "TableResult",
    "build_bot",
    "drive",
    "main",
    "play_duel",
    "seat_bots",
    "summarize",
]

SIDES: Final = ("A", "B")
BANK_MS: Final = 2000
# What ends a search bot's searches: its sample caps alone (reproducible), or its time share
# of the move read on the process's CPU time (as on an idle machine, whatever the load) or on
# the wall clock (as in a season on this machine, now).
CLOCKS: Final = {"samples": None, "cpu": time.process_time, "wall": time.monotonic}
# On sample caps, a search bot's clock only guards against a hang.
SAMPLES_GUARD_MS: Final = 120_000


@dataclass(frozen=True, slots=True)
class DuelConfig:
    a: str
    b: str
    deals: int = 20
    seed: int = 1
    samples: int = 64  # the montecarlo bot's cap per searched option
    level: int = 4  # the expert bot's
    move_ms: int = 2000
    clock: str = "samples"  # or "cpu", "wall": see CLOCKS
    ruleset: str = "standard"
    early_stop: str = "when_decided"  # as the seasons play


@dataclass(slots=True)
class TableResult:
    """One deal at one table: who sat where and how it ended."""

    deal: int
    sides: tuple[str, ...]  # "A" or "B" per seat
    outcome: DealOutcome
    bids: list[tuple[int, str]]  # (seat, contract or "pass") in auction order
    # side: (phase, CPU ms) of each decision with a choice
    times: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    estimate: float | None = None  # the soloist's expected chips when it bid the contract

    @property
    def soloist(self) -> int | None:
        return self.outcome.soloist

    @property
    def contract(self) -> str | None:
        return self.outcome.contract

    @property
    def payments(self) -> tuple[int, ...]:
        return self.outcome.payments


class Hybrid(Bot):
    """The auction and trump naming of one bot, the card play of another."""

    def __init__(self, bidder: Bot, player: Bot) -> None:
        super().__init__()
        self.bidder, self.player = bidder, player
        self.name = f"{bidder.name}/{player.name}"

    def decide(self, request: bot_pb2.DecisionRequest) -> Any:
        bot = self.player if request.phase == cards_pb2.PHASE_CARD else self.bidder
        return bot.decide(request)

    def on_deal_start(self, deal: bot_pb2.DealStarted) -> None:
        super().on_deal_start(deal)
        for bot in (self.bidder, self.player):
            bot.match = self.match
            bot.on_deal_start(deal)


def build_bot(spec: str, seed: int, config: DuelConfig) -> Bot:
    """A bot from a spec (see the module docstring), seeded, on fixed sample counts unless
    the duel is timed."""
    if "/" in spec:  # each part its own settings: "montecarlo/expert:card_prior=0"
        bidder, player = spec.split("/", 1)
        return Hybrid(build_bot(bidder, seed, config), build_bot(player, seed, config))
    name, _, settings = spec.partition(":")
    bot: Bot
    if name == ORACLE:  # a bench's own, never the registry's: it is shown every hand
        bot = OracleBot(seed=seed, level=config.level)
    elif name == SEER:
        bot = SoloistSeer(seed=seed, level=config.level)
    else:
        bot = make_bot(name, seed=seed, level=config.level, samples=config.samples)
    clock = CLOCKS[config.clock]
    if isinstance(bot, MonteCarloBot):
        bot.exact_samples = clock is None
        if clock is None:
            # The caps, not the clock, must end every search, or a run is not reproducible:
            # the expert's level 4 takes 2-3 s a decision here, past the move's time and half
            # the bank that a season's guard would allow.
            bot.guard_ms = SAMPLES_GUARD_MS
        else:
            bot.clock = clock
            if name == "montecarlo":
                bot.max_samples = 0  # the clock alone ends its searches, as in a season
    for setting in filter(None, settings.split(",")):
        key, _, value = setting.partition("=")
        if not hasattr(bot, key):
            raise ValueError(f"{name} has no tunable {key!r}")
        kind = type(getattr(bot, key))
        setattr(bot, key, value in ("1", "true", "True") if kind is bool else kind(value))
    return bot


def _show_deal(bot: Bot, hands: tuple[int, ...]) -> None:
    """Hand the true deal to an oracle, or to the oracle part of a hybrid."""
    if isinstance(bot, Hybrid):
        _show_deal(bot.bidder, hands)
        _show_deal(bot.player, hands)
    elif isinstance(bot, OracleBot | SoloistSeer):
        bot.true_hands = hands


def _estimates(bot: Bot) -> dict[str, float]:
    """What a search bot expected of each contract at its last bid (see MonteCarloBot)."""
    if isinstance(bot, Hybrid):
        bot = bot.bidder
    return bot.estimates if isinstance(bot, MonteCarloBot) else {}


def _deal_seed(seed: int, deal: int) -> int:
    digest = hashlib.sha256(f"brandeln-duel:{seed}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _seating(table: int) -> tuple[str, ...]:
    return ("B", "A", "B", "A") if table == 0 else ("A", "B", "A", "B")


def seat_bots(
    config: DuelConfig,
    ruleset: Ruleset,
    deal: int,
    bots: Sequence[Bot],
    names: Sequence[str],
) -> DealState:
    """Deal ``deal`` (its cards set by the duel's seed) to ``bots``, one a seat, each told the
    match and its hand as a referee would (an oracle shown every hand); the deal's start."""
    dealer = deal % ruleset.players
    dealt = deal_cards(ruleset, dealer=dealer, seed=_deal_seed(config.seed, deal))
    forehand = forehand_of(dealer, ruleset.players)
    for bot in bots:
        _show_deal(bot, tuple(hand.mask for hand in dealt.hands))
    control = cards_pb2.TimeControl(move_ms=config.move_ms, bank_ms=BANK_MS, max_strikes=3)
    for seat, bot in enumerate(bots):
        bot.match = bot_pb2.MatchStarted(
            match_id="duel",
            seat=seat,
            players=[cards_pb2.Player(seat=s, bot_name=names[s]) for s in range(len(names))],
            ruleset=codec.ruleset_to_pb(ruleset),
            deals=1,
            time_control=control,
        )
        bot.on_deal_start(
            bot_pb2.DealStarted(
                deal_number=deal + 1,
                dealer=dealer,
                forehand=forehand,
                hand=codec.cards_to_pb(dealt.hands[seat]),
            )
        )
    return DealState.new(ruleset, dealt)


@dataclass(slots=True)
class _Record:
    """What a table's decisions showed, for its :class:`TableResult`."""

    times: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    bids: list[tuple[int, str]] = field(default_factory=list)
    estimates: dict[int, float | None] = field(default_factory=dict)


def drive(
    config: DuelConfig,
    state: DealState,
    bots: Sequence[Bot],
    sides: Sequence[str],
    record: _Record | None = None,
    *,
    auction_only: bool = False,
) -> DealState:
    """Ask each seat's bot for its decisions through the protocol's messages until the deal
    ends (or, ``auction_only``, until the card play begins); the state then."""
    record = record or _Record()
    request_id = 0
    while not state.is_over() and not (auction_only and state.phase is Phase.PLAY):
        seat = state.to_act
        assert seat is not None
        request_id += 1
        request = codec.decision_request(
            request_id,
            state.phase,
            state.legal_actions(),
            state.view(seat),
            config.move_ms,
            BANK_MS,
            0,
            0,
        ).request
        start = time.process_time()
        choice = resolve_answer(request, bots[seat].decide(request))
        if len(request.legal) > 1:
            phase = cards_pb2.Phase.Name(request.phase).removeprefix("PHASE_").lower()
            elapsed = (time.process_time() - start) * 1000
            record.times.setdefault(sides[seat], []).append((phase, elapsed))
        if request.phase == cards_pb2.PHASE_BID:
            record.bids.append((seat, choice.bid.contract or "pass"))
            if choice.bid.contract:
                record.estimates[seat] = _estimates(bots[seat]).get(choice.bid.contract)
        state = state.apply(codec.choice_to_action(choice, state.phase))
    return state


def play_table(config: DuelConfig, ruleset: Ruleset, deal: int, table: int) -> TableResult:
    """Deal ``deal`` at one of its two tables, each seat's bot deciding through the protocol."""
    sides = _seating(table)
    specs = {"A": config.a, "B": config.b}
    bots = [build_bot(specs[side], 1000 * seat + 1, config) for seat, side in enumerate(sides)]
    state = seat_bots(config, ruleset, deal, bots, sides)
    record = _Record(times={"A": [], "B": []})
    state = drive(config, state, bots, sides, record)
    outcome = state.outcome()
    assert outcome is not None
    soloist = outcome.soloist
    estimate = None if soloist is None else record.estimates.get(soloist)
    return TableResult(deal, sides, outcome, record.bids, record.times, estimate)


def _play_deal(job: tuple[DuelConfig, int]) -> list[TableResult]:
    config, deal = job
    ruleset = find_ruleset(config.ruleset, {"early_stop": config.early_stop})
    return [play_table(config, ruleset, deal, table) for table in (0, 1)]


def play_duel(config: DuelConfig, workers: int = 2) -> Iterator[list[TableResult]]:
    """The deals' two tables each, in deal order (``workers`` processes play them)."""
    jobs = [(config, deal) for deal in range(config.deals)]
    if workers <= 1:
        yield from map(_play_deal, jobs)
        return
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        yield from pool.map(_play_deal, jobs)
    finally:  # stopped early: drop the deals not begun
        pool.shutdown(wait=False, cancel_futures=True)


# --- the report --------------------------------------------------------------------------
def _side_chips(table: TableResult, side: str) -> float:
    """What one seat of ``side`` won at this table, on average over its seats."""
    seats = [s for s, who in enumerate(table.sides) if who == side]
    return sum(table.payments[s] for s in seats) / len(seats)


def deal_difference(tables: Sequence[TableResult]) -> float:
    """B - A per seat, one deal's sample: both tables together."""
    return sum(_side_chips(t, "B") - _side_chips(t, "A") for t in tables) / len(tables)


def interval(samples: Sequence[float]) -> tuple[float, float]:
    """Mean and 95% half width (0 for one sample), as the ladder's leaderboard computes it."""
    found = mean_ci95(samples)
    return found.mean, found.half_width or 0.0


def summarize(results: Sequence[Sequence[TableResult]], config: DuelConfig) -> str:
    """The report: B - A with its interval, then the breakdown (see the module docstring)."""
    deals = len(results)
    mean, half = interval([deal_difference(tables) for tables in results])
    lines = [
        f"duel: B={config.b} vs A={config.a}, {deals} deals x 2 tables, seed {config.seed}, "
        f"samples {config.samples}, level {config.level}, clock {config.clock}",
        f"B - A: {mean:+.2f} +- {half:.2f} chips per deal per seat (95%)",
    ]
    tables = [t for pair in results for t in pair]
    # Chips per side: as soloist and as defender, per deal (of each side's 2 seats a table).
    role: dict[tuple[str, str], float] = defaultdict(float)
    contracts: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for table in tables:
        for seat, side in enumerate(table.sides):
            if table.soloist is None:
                role[side, "free play"] += table.payments[seat]
                continue
            is_soloist = seat == table.soloist
            role[side, "soloist" if is_soloist else "defender"] += table.payments[seat]
            if is_soloist:
                key = "pass-out" if table.outcome.passed_out else (table.contract or "?")
                row = contracts[side, key]
                row[0] += 1
                row[1] += bool(table.outcome.made)
                row[2] += table.payments[seat]
                if table.estimate is not None:
                    row[3] += table.estimate
                    row[4] += 1
    lines.append("chips per deal per seat (2 tables a deal):")
    for kind in ("soloist", "defender", "free play"):
        a, b = role["A", kind] / (4 * deals), role["B", kind] / (4 * deals)
        if a or b:
            lines.append(f"  as {kind:<9} A {a:+6.2f}  B {b:+6.2f}  B-A {b - a:+6.2f}")
    lines.append(
        "as soloist, per contract: played, made %, chips per deal per seat, "
        "chips per contract expected at the bid / got"
    )
    keys = sorted({k for _, k in contracts}, key=_contract_order)
    for key in keys:
        cells = []
        for side in SIDES:
            n, made, chips, expected, estimated = contracts[side, key]
            share = f"{100 * made / n:3.0f}%" if n else "   -"
            hoped = f"{expected / estimated:+5.1f}" if estimated else "    -"
            got = f"{chips / n:+5.1f}" if n else "    -"
            cells.append(f"{side} {n:4.0f} {share} {chips / (4 * deals):+6.2f} {hoped}/{got}")
        lines.append(f"  {key:<10} " + "   ".join(cells))
    lines.extend(_auction_lines(results))
    lines.extend(_time_lines(tables))
    return "\n".join(lines)


def _contract_order(key: str) -> int:
    order = ("brandle", "brand", "bettel", "mord", "herrenmord", "pass-out")
    return order.index(key) if key in order else len(order)


def _auction_lines(results: Sequence[Sequence[TableResult]]) -> list[str]:
    """How the two tables of a deal differed: the same soloist hand and contract, or not,
    and what the differing deals were worth to B."""
    same: list[float] = []
    differ: dict[str, list[float]] = defaultdict(list)
    for tables in results:
        first, second = tables
        diff = deal_difference(tables)
        if first.soloist == second.soloist and first.contract == second.contract:
            same.append(diff)
            continue
        # Which side took the contract where the other did not (by the hand's seat).
        played = []
        for table in tables:
            if table.soloist is None:
                played.append("none")
            else:
                side = table.sides[table.soloist]
                played.append(f"{side}:{'passout' if table.outcome.passed_out else table.contract}")
        differ[" ".join(sorted(played))].append(diff)
    lines = [f"auctions: same soloist hand and contract at both tables {len(same)} deals, B-A "]
    lines[-1] += f"{sum(same) / max(1, len(results)):+.2f} of the total per deal"
    for key, values in sorted(differ.items(), key=lambda kv: -abs(sum(kv[1]))):
        lines.append(
            f"  {key:<34} {len(values):4d} deals, B-A {sum(values) / len(results):+.2f} per deal"
        )
    return lines


def _time_lines(tables: Sequence[TableResult]) -> list[str]:
    lines = ["decision CPU ms (with a choice): p50 / p95 / max"]
    for side in SIDES:
        by_phase: dict[str, list[float]] = defaultdict(list)
        for table in tables:
            for phase, ms in table.times[side]:
                by_phase[phase].append(ms)
        cells = [
            f"{phase} {percentile(sorted(v), 50):.0f}/{percentile(sorted(v), 95):.0f}/{max(v):.0f}"
            for phase, v in sorted(by_phase.items())
        ]
        lines.append(f"  {side}: " + "  ".join(cells))
    return lines


def _pool(paths: Sequence[str]) -> int:
    """Print B - A over the deals of several ``--save`` files (runs on different seeds are
    different deals, so their samples pool)."""
    samples: list[float] = []
    for path in paths:
        try:
            values = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"error: cannot read {path}: {error}", file=sys.stderr)
            return 1
        if not isinstance(values, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values
        ):
            print(f"error: {path} is not a --save file (a JSON list of numbers)", file=sys.stderr)
            return 1
        samples += [float(v) for v in values]
    if not samples:
        print("error: the files hold no deals", file=sys.stderr)
        return 1
    mean, half = interval(samples)
    print(
        f"pooled {len(samples)} deals from {len(paths)} file(s): B - A {mean:+.2f} +- {half:.2f}"
        " chips per deal per seat (95%)"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m brandeln.bench.duel", description=__doc__)
    parser.add_argument("--a", help="the baseline bot")
    parser.add_argument("--b", help="the candidate bot")
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--samples", type=int, default=64, help="montecarlo's cap per option")
    parser.add_argument("--level", type=int, default=4, help="expert's level (1-5)")
    parser.add_argument("--move-ms", type=int, default=2000)
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="samples")
    parser.add_argument("--workers", type=int, default=2, choices=(1, 2))
    parser.add_argument("--progress", type=int, default=0, help="report every N deals")
    parser.add_argument("--save", help="write each deal's B - A to this file (JSON), to pair runs")
    parser.add_argument(
        "--pool",
        nargs="+",
        metavar="FILE",
        help="no duel: B - A over the deals of these --save files together",
    )
    args = parser.parse_args(argv)
    if args.pool:
        return _pool(args.pool)
    if not args.a or not args.b:
        parser.error("--a and --b are required (or --pool FILE ...)")
    config = DuelConfig(
        a=args.a,
        b=args.b,
        deals=args.deals,
        seed=args.seed,
        samples=args.samples,
        level=args.level,
        move_ms=args.move_ms,
        clock=args.clock,
    )
    started = time.monotonic()
    results: list[list[TableResult]] = []
    # A long duel stopped early (Ctrl-C, or kill: SIGTERM) still reports the deals played.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        for tables in play_duel(config, workers=args.workers):
            results.append(tables)
            if args.progress and len(results) % args.progress == 0:
                mean, half = interval([deal_difference(pair) for pair in results])
                print(f"{len(results)} deals: B - A {mean:+.2f} +- {half:.2f}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"stopped after {len(results)} deals", file=sys.stderr)
    if not results:
        return 1
    print(summarize(results, config))
    if args.save:
        Path(args.save).write_text(json.dumps([deal_difference(pair) for pair in results]))
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
