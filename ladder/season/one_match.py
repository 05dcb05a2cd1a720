"""One match between any bots on a referee (``brandeln match run``), through Admin only.

The bots are described as in a season file (``CommandBot``, ``ExternalBot``), and the match is
played with the season runner's own pieces: its bots are launched and stopped by
:func:`brandeln.ladder.season.runner.launched_bots`, a bot process that dies fails the match
(:func:`brandeln.ladder.season.runner.while_bots_run`), and the match itself is
:meth:`brandeln.ladder.referee.admin_client.AdminClient.run_match`.

**Identities.** A command bot plays as ``<bot>@match`` at the referee. On a referee of its own
(``reuse_identities``: the embedded one, which nobody else uses meanwhile) an earlier run's
identity of that name is reused with a fresh token (``RotateBotToken``), so repeated runs do
not pile up registrations. On a shared referee every run registers new identities
(``<bot>@match-<6 hex>``): rotating a name another run is playing under would cut its bot off.
A bot given by ``bot_id`` must be registered there and connects by itself.

>>> async def example(admin, address):                          # doctest: +SKIP
...     result = await play_one_match(admin, address, OneMatch(bots=specs), Path("logs"))
...     print(result.match_id, result.outcome.balances)
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from brandeln.engine.errors import EngineError
from brandeln.engine.rulesets import find_ruleset
from brandeln.ladder.errors import BotStartError, RefereeBotNameTakenError, SeasonConfigError
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.season.config import (
    DEFAULT_CONNECT_TIMEOUT_MS,
    BotSpec,
    CommandBot,
    ExternalBot,
    SeasonConfig,
    TimeControl,
)
from brandeln.ladder.season.duplicate import IDENTITY, MatchOutcome, MatchPlan
from brandeln.ladder.season.runner import MAX_NAME_SUFFIX, launched_bots, while_bots_run

__all__ = ["MATCH_SUFFIX", "OneMatch", "OneMatchResult", "match_config", "play_one_match"]

MATCH_SUFFIX: Final = "match"  # command bots play as <bot>@match at the referee
# Names a match's config: never stored (a single match is not a season).
_CONFIG_NAME: Final = "match"


@dataclass(frozen=True, slots=True)
class OneMatch:
    """What defines one match: the bots by seat and how they play."""

    bots: tuple[BotSpec, ...]
    ruleset: str = "standard"
    deals: int | None = None  # None: the ruleset's default
    seed: int = 0
    options: Mapping[str, str] = field(default_factory=dict)
    time_control: TimeControl = field(default_factory=TimeControl)
    connect_timeout_ms: int = DEFAULT_CONNECT_TIMEOUT_MS


@dataclass(frozen=True, slots=True)
class OneMatchResult:
    """A finished match: its id, its outcome (balances, forfeits, counts and latency by
    seat) and the bot ids that played it, by seat."""

    match_id: str
    outcome: MatchOutcome
    bot_ids: tuple[str, ...]


def match_config(match: OneMatch) -> SeasonConfig:
    """The match as the one-block season config the runner's pieces take.

    Raises :class:`SeasonConfigError` for an unknown ruleset or option, a wrong number of
    bots, or a number of deals the ruleset does not allow.
    """
    try:
        ruleset = find_ruleset(match.ruleset).with_options(**match.options)
    except EngineError as error:
        raise SeasonConfigError(str(error)) from None
    if len(match.bots) != ruleset.players:
        raise SeasonConfigError(
            f"ruleset {match.ruleset!r} seats {ruleset.players} bots; {len(match.bots)} given"
        )
    deals = ruleset.default_deals if match.deals is None else match.deals
    if deals < 1:
        raise SeasonConfigError(f"a match needs at least one deal, not {deals}")
    if ruleset.max_deals is not None and deals > ruleset.max_deals:
        raise SeasonConfigError(f"{match.ruleset!r} allows at most {ruleset.max_deals} deals")
    return SeasonConfig(
        name=_CONFIG_NAME,
        seed=match.seed,
        blocks=1,
        bots=match.bots,
        players=ruleset.players,
        deals_per_match=deals,
        ruleset=match.ruleset,
        options=dict(match.options),
        time_control=match.time_control,
        concurrency=1,
        connect_timeout_ms=match.connect_timeout_ms,
    )


async def play_one_match(
    admin: AdminClient,
    referee_address: str,
    match: OneMatch,
    logs_dir: Path,
    *,
    reuse_identities: bool = False,
    on_started: Callable[[str], None] | None = None,
    on_deal: Callable[[], None] | None = None,
    die_with_parent: bool = False,
) -> OneMatchResult:
    """Launch the bots, play the match, stop the bots; ``on_started(match_id)`` as it starts.

    ``logs_dir`` receives each command bot's output (``<bot>.log``); ``die_with_parent``: the
    bots die with this process however it dies (a long-lived server's). Raises a
    :class:`~brandeln.ladder.errors.LadderError` subclass when a bot cannot start or connect, exits,
    or the match does not finish.
    """
    config = match_config(match)
    bot_ids, tokens = await _identities(admin, config.bots, reuse_identities)
    names = tuple(bot.name for bot in config.bots)
    plan = MatchPlan(block=0, rotation=0, seed=match.seed, bots=names, suit_permutation=IDENTITY)
    async with launched_bots(
        admin, config, referee_address, bot_ids, tokens, logs_dir, die_with_parent=die_with_parent
    ) as processes:
        outcome = await while_bots_run(
            admin.run_match(
                config,
                plan,
                bot_ids,
                on_deal=on_deal,
                on_started=on_started,
                where=", ".join(names),
            ),
            processes,
            "the match",
        )
    return OneMatchResult(outcome.match_id, outcome, tuple(bot_ids[name] for name in names))


async def _identities(
    admin: AdminClient, bots: Sequence[BotSpec], reuse: bool
) -> tuple[dict[str, str], dict[str, str]]:
    """(bot ids, command bots' tokens) by bot name; see the module docstring."""
    known = await admin.known_bot_ids()  # None: the referee cannot list its bots
    by_name: dict[str, str] = {}
    if reuse:
        by_name = {info.name: info.bot_id for info in await admin.list_bots() if not info.revoked}
    bot_ids: dict[str, str] = {}
    tokens: dict[str, str] = {}
    for bot in bots:
        if isinstance(bot, ExternalBot):
            if known is not None and bot.bot_id not in known:
                raise BotStartError(
                    f"bot_id {bot.bot_id!r} is not registered at the referee (or is revoked); "
                    "see `brandeln bots list`"
                )
            bot_ids[bot.name] = bot.bot_id
            continue
        assert isinstance(bot, CommandBot)
        base = f"{bot.name}@{MATCH_SUFFIX}"
        if reuse and base in by_name:
            token = await admin.rotate_bot_token(by_name[base])
            if token is not None:
                bot_ids[bot.name], tokens[bot.name] = by_name[base], token
                continue
        if not reuse:
            base = f"{base}-{secrets.token_hex(3)}"
        for attempt in range(1, MAX_NAME_SUFFIX + 1):
            name = base if attempt == 1 else f"{base}-{attempt}"
            try:
                bot_ids[bot.name], tokens[bot.name] = await admin.register_bot(name)
            except RefereeBotNameTakenError:
                continue
            break
        else:
            raise BotStartError(f"bot {bot.name!r}: every name {base}[-N] is taken at the referee")
    return bot_ids, tokens
