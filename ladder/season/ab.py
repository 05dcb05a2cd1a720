"""`brandeln ab`: is bot B better than bot A? Seat substitution on the same deals, and an SPRT.

Every deal is played twice against the same opponents: once with A in a seat, once with B in
that seat, on the same cards. The deals come in duplicate blocks (brandeln.ladder.season.duplicate):
in rotation ``r`` the candidate's seat moves round the table and the suits are relabelled by the
block's permutation for that rotation, exactly as a season plays them, so both versions see
every seat's cards. Each deal gives one paired difference, B's chips minus A's in that seat,
fed to the sequential test (brandeln.ladder.ratings.sprt) until it decides or ``max_deals`` is
reached; a fixed-length run (``sequential=False``) plays all ``max_deals`` and only reports the
interval.

Like the season runner it reaches the referee only through Admin
(brandeln.ladder.referee.admin_client), and starts command bots with brandeln.ladder.bots.processes.

>>> candidate_seat(("O1", "X", "O2", "O3"))
1
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from brandeln.ladder.bots.processes import BotProcess, start_bot, stop_bots
from brandeln.ladder.ratings.sprt import Sprt, Verdict
from brandeln.ladder.referee.admin_client import AdminClient, run_match_request
from brandeln.ladder.season.config import BotSpec, CommandBot, ExternalBot, TimeControl
from brandeln.ladder.season.duplicate import MatchPlan, plan_block
from brandeln.ladder.season.runner import wait_for_sessions
from brandeln.protocol.decode import LiveEvent
from brandeln.protocol.events import DealEndedRecord, EventRecord

__all__ = ["AbConfig", "AbProgress", "AbResult", "candidate_seat", "run_ab"]

CANDIDATE: Final = "X"  # the seat label A and B take turns in
SESSION_POLL_S: Final = 0.1


@dataclass(frozen=True, slots=True)
class AbConfig:
    """What to compare and how. ``against`` has one bot per other seat (players - 1)."""

    a: BotSpec
    b: BotSpec
    against: tuple[BotSpec, ...]
    ruleset: str = "standard"
    players: int = 4
    deals_per_match: int = 8
    max_deals: int = 2000
    # False: play exactly max_deals deals whatever the test says (fishtest's fixed-games test,
    # cutechess-cli's -games): B - A and its interval, the test only along for the figures.
    sequential: bool = True
    seed: int = 1
    pairs_at_once: int = 2  # rotations played at once (each is two matches)
    time_control: TimeControl = field(default_factory=TimeControl)
    connect_timeout_s: float = 60.0

    @property
    def bots(self) -> tuple[BotSpec, ...]:
        return (self.a, self.b, *self.against)


@dataclass(frozen=True, slots=True)
class AbProgress:
    deals: int
    llr: float
    bounds: tuple[float, float]
    mean: float  # chips per deal, B - A


@dataclass(frozen=True, slots=True)
class AbResult:
    verdict: Verdict
    deals: int
    llr: float
    bounds: tuple[float, float]
    mean: float
    low: float
    high: float
    matches: int
    seconds: float


def candidate_seat(bots: Sequence[str]) -> int:
    """The seat of the candidate (A or B) in a rotation's seating."""
    return list(bots).index(CANDIDATE)


async def run_ab(
    config: AbConfig,
    sprt: Sprt,
    referee_address: str,
    admin_token: str,
    logs_dir: Path,
    *,
    progress: Callable[[AbProgress], None] | None = None,
    root_certificates: bytes | None = None,
) -> AbResult:
    """Play paired deals until ``sprt`` decides (when ``config.sequential``) or
    ``config.max_deals`` deals were compared."""
    started = time.monotonic()
    async with AdminClient(
        referee_address, admin_token, root_certificates=root_certificates
    ) as admin:
        # A and B sit in one match of each pair, the opponents in both.
        tables = {bot.name: config.pairs_at_once for bot in (config.a, config.b)}
        tables.update({bot.name: 2 * config.pairs_at_once for bot in config.against})
        bot_ids: dict[str, str] = {}
        processes: list[BotProcess] = []
        run_tag = secrets.token_hex(3)  # referee names stay unique on a shared referee
        try:
            for bot in config.bots:
                if isinstance(bot, ExternalBot):
                    bot_ids[bot.name] = bot.bot_id
                    continue
                bot_id, token = await admin.register_bot(f"{bot.name}@ab-{run_tag}")
                bot_ids[bot.name] = bot_id
                processes.append(
                    await start_bot(
                        bot.name,
                        bot.command,
                        server=referee_address,
                        token=token,
                        tables=tables[bot.name],
                        log_path=logs_dir / f"{bot.name}.log",
                    )
                )
            needed = {
                bot.name: tables[bot.name] if isinstance(bot, CommandBot) else 1
                for bot in config.bots
            }
            await wait_for_sessions(
                admin, needed, bot_ids, processes, round(config.connect_timeout_s * 1000)
            )
            matches = await _play(admin, config, sprt, bot_ids, progress)
        finally:
            await stop_bots(processes)
    mean, low, high = sprt.chips_interval()
    return AbResult(
        verdict=sprt.verdict,
        deals=sprt.n,
        llr=sprt.llr,
        bounds=sprt.bounds,
        mean=mean,
        low=low,
        high=high,
        matches=matches,
        seconds=time.monotonic() - started,
    )


async def _play(
    admin: AdminClient,
    config: AbConfig,
    sprt: Sprt,
    bot_ids: dict[str, str],
    progress: Callable[[AbProgress], None] | None,
) -> int:
    labels = (CANDIDATE, *(f"O{seat}" for seat in range(1, config.players)))
    names = dict(zip(labels[1:], (bot.name for bot in config.against), strict=True))
    plans = (
        plan for block in range(2**31) for plan in plan_block(config.seed, block, labels).matches
    )
    matches = 0
    while _wants_more(config, sprt):
        batch = [next(plans) for _ in range(config.pairs_at_once)]
        pairs = await asyncio.gather(
            *(_pair(admin, config, plan, names, bot_ids) for plan in batch)
        )
        # Fed in a fixed order (the plans'), so a seed gives the same test whatever finished
        # first; the test stops at the first deal that decides it.
        for differences in pairs:
            matches += 2
            for difference in differences:
                if not _wants_more(config, sprt):
                    break
                sprt.add(difference)
            if progress is not None:
                mean, _, _ = sprt.chips_interval()
                progress(AbProgress(sprt.n, sprt.llr, sprt.bounds, mean))
    return matches


def _wants_more(config: AbConfig, sprt: Sprt) -> bool:
    """Whether another deal is to be compared: under ``max_deals``, and the test undecided
    unless the run is of a fixed length."""
    if sprt.n >= config.max_deals:
        return False
    return not config.sequential or sprt.verdict is Verdict.UNDECIDED


async def _pair(
    admin: AdminClient,
    config: AbConfig,
    plan: MatchPlan,
    names: dict[str, str],
    bot_ids: dict[str, str],
) -> list[float]:
    """One rotation played with A and with B in the candidate's seat: B - A, deal by deal."""
    seat = candidate_seat(plan.bots)
    with_a, with_b = await asyncio.gather(
        _deal_payments(admin, config, plan, {**names, CANDIDATE: config.a.name}, bot_ids),
        _deal_payments(admin, config, plan, {**names, CANDIDATE: config.b.name}, bot_ids),
    )
    deals = sorted(set(with_a) & set(with_b))  # a match may end early (a target reached)
    return [float(with_b[deal][seat] - with_a[deal][seat]) for deal in deals]


async def _deal_payments(
    admin: AdminClient,
    config: AbConfig,
    plan: MatchPlan,
    names: dict[str, str],
    bot_ids: dict[str, str],
) -> dict[int, tuple[int, ...]]:
    """Each deal's payments by seat in the match ``plan`` with the bots ``names`` by label."""
    request = run_match_request(
        [bot_ids[names[label]] for label in plan.bots],
        ruleset=config.ruleset,
        deals=config.deals_per_match,
        seed=plan.seed,
        time_control=config.time_control,
        suit_permutation=plan.suit_permutation,
        summary_updates=True,  # deal ends are all this needs
    )
    payments: dict[int, tuple[int, ...]] = {}

    def on_event(event: LiveEvent) -> None:
        if isinstance(event, EventRecord) and isinstance(event.body, DealEndedRecord):
            payments[event.deal] = event.body.payments

    await admin.play(request, on_event)
    return payments
