"""Sample bots playing the other seats in-process, asked exactly as the referee asks them.

Every decision goes engine state -> ``DecisionRequest`` (the arena's codec: the very message a
referee sends) -> the bot's ``decide`` -> ``Choice`` -> engine action (the codec again). A bot is
told the match (``MatchStarted``) and each deal (``DealStarted``) before it is asked, as at a
table. Bots are the registry's (:mod:`brandeln.sample_bots.registry`) by name, or any ``Bot``
object.

>>> import numpy as np
>>> from brandeln.pettingzoo.episode import Episode, EpisodeKind
>>> from brandeln.engine.rulesets import find_ruleset
>>> episode = Episode.start(find_ruleset("standard"), EpisodeKind.DEAL, np.random.default_rng(1))
>>> table = SeatedBots({1: "random", 2: "heuristic", 3: "random"}, seed=5)
>>> table.follow(episode)
>>> seat = episode.state.to_act
>>> action = table.decide(episode) if seat in table.seats else None
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from brandeln.arena import codec
from brandeln.arena.timecontrol import TimeControlSettings
from brandeln.engine.actions import Action
from brandeln.pettingzoo.episode import Episode
from brandeln.sample_bots.montecarlo import MonteCarloBot
from brandeln.sample_bots.registry import make_bot
from brandeln.sdk import Bot, resolve_answer

__all__ = ["DEFAULT_SAMPLES", "MATCH_ID", "SeatedBots", "bot_for"]

DEFAULT_SAMPLES: Final = 32
"""The montecarlo bot's samples per searched option here: few, so a step stays quick, and a
cap, so its choices follow from the seed and not from the machine's speed."""
MATCH_ID: Final = "gymnasium"
# Seeds of the bots of one episode: the episode's seed, apart by seat.
_SEAT_SEED_STRIDE: Final = 1000


def bot_for(
    name_or_bot: str | Bot, seed: int, *, samples: int = DEFAULT_SAMPLES, level: int | None = None
) -> Bot:
    """A bot object: ``name_or_bot`` itself, or a fresh registry bot, seeded; a searching bot
    (montecarlo, expert) stops at its sample cap, not its clock, so it is reproducible."""
    if isinstance(name_or_bot, Bot):
        return name_or_bot
    bot = make_bot(name_or_bot, seed=seed, level=level, samples=samples)
    if isinstance(bot, MonteCarloBot) and bot.max_samples:
        bot.exact_samples = True
    return bot


class SeatedBots:
    """The bots of some seats of one episode; :meth:`follow` tells them what a table would tell
    them, :meth:`decide` asks the seat to act."""

    def __init__(
        self,
        bots: Mapping[int, str | Bot],
        seed: int,
        *,
        samples: int = DEFAULT_SAMPLES,
        level: int | None = None,
        time_control: TimeControlSettings | None = None,
    ) -> None:
        self.bots = {
            seat: bot_for(bot, seed + _SEAT_SEED_STRIDE * seat, samples=samples, level=level)
            for seat, bot in bots.items()
        }
        self.time_control = time_control or TimeControlSettings()
        self._told_match = False
        self._told_deal = 0
        self._request_id = 0

    @property
    def seats(self) -> frozenset[int]:
        """The seats these bots play."""
        return frozenset(self.bots)

    def follow(self, episode: Episode) -> None:
        """Tell the bots the match when it starts and each deal when it starts (once each)."""
        ruleset = episode.ruleset
        if not self._told_match:
            names = [(self._name(seat), self._name(seat)) for seat in range(ruleset.players)]
            for seat, bot in self.bots.items():
                bot.match = codec.match_started(
                    MATCH_ID, seat, names, ruleset, episode.match.deals, self.time_control
                )
                bot.on_match_start(bot.match)
            self._told_match = True
        number = episode.deal_number
        if number != self._told_deal and not episode.state.is_over():
            deal = episode.state.deal
            for seat, bot in self.bots.items():
                message = codec.deal_started(number, deal, seat, ruleset.players).deal_started
                bot.deal = message
                bot.on_deal_start(message)
            self._told_deal = number

    def decide(self, episode: Episode) -> Action:
        """The action the bot of the seat to act chooses, through the protocol's messages."""
        self.follow(episode)
        state = episode.state
        seat = state.to_act
        if seat not in self.bots:
            raise ValueError(f"seat {seat} is to act, and no bot plays it here")
        self._request_id += 1
        request = codec.decision_request(
            self._request_id,
            state.phase,
            state.legal_actions(),
            state.view(seat),
            self.time_control.move_ms,
            self.time_control.bank_ms,
            0,
            0,
            match_balances=episode.match.balances,
            deal_number=episode.deal_number,
        ).request
        choice = resolve_answer(request, self.bots[seat].decide(request))
        return codec.choice_to_action(choice, state.phase)

    def _name(self, seat: int) -> str:
        bot = self.bots.get(seat)
        return bot.name if bot is not None else "learner"
