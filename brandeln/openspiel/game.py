"""Brandeln as an OpenSpiel game, driven by the engine (one rules core): a state holds the
engine's immutable ``DealState`` and asks it for every rule.

A game is one deal. Its parameters are the ruleset (``standard`` by default), every switch the
engine lets a ruleset vary (``head_rule``, ``undertrump``, ``early_stop``), the ``dealer``
(seat, default 0) and the Haferl ``pool`` the deal starts with (``haferl`` only, default 0).
Players are seats. The cards are dealt by chance nodes one at a time
(:mod:`brandeln.openspiel.chance_deal`); then the auction, naming trump and the play, each
action an index of the encoding's action space (:mod:`brandeln.sdk.encoding`). Returns are
each seat's chips as the engine settles the deal (R10, section 6), so a ruleset whose every
deal is zero-sum is a zero-sum game and the others (haferl's pool, russian scoring) are
general-sum.

>>> import pyspiel
>>> import brandeln.openspiel
>>> game = pyspiel.load_game("brandeln(ruleset=russian)")
>>> game.num_players(), game.num_distinct_actions(), game.get_type().utility.name
(4, 49, 'GENERAL_SUM')
>>> state = game.new_initial_state()
>>> while state.is_chance_node():
...     state.apply_action(state.legal_actions()[0])
>>> [state.action_to_string(a) for a in state.legal_actions()]
['pass', 'three', 'four', 'five', 'six', 'null', 'all', 'all-no-trump']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, Final

import pyspiel

from brandeln.engine.actions import NAME_TRUMPS, PASS, PLAY_CARDS, Action, Bid, PlayCard
from brandeln.engine.cards import CardSet, format_cards
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import DEFAULT_SWITCHES, SWITCHES, Ruleset, find_ruleset
from brandeln.engine.state import DealState
from brandeln.engine_encoding import observation_of_state
from brandeln.openspiel.chance_deal import BLIND, DealPlan, pack_card, unpack_cards
from brandeln.openspiel.hidden_hands import sample_hidden_hands
from brandeln.openspiel.limits import GameLimits, game_limits
from brandeln.openspiel.observer import BrandelnObserver
from brandeln.sdk.encoding import (
    CARD_COUNT,
    CARD_OFFSET,
    CONTRACT_IDS,
    NUM_ACTIONS,
    TRUMP_OFFSET,
    Observation,
    action_index,
    card_text,
)

__all__ = ["GAME_NAME", "GAME_TYPE", "PARAMETERS", "BrandelnGame", "BrandelnState"]

GAME_NAME: Final = "brandeln"
PARAMETERS: Final[Mapping[str, str | int]] = {
    "ruleset": "standard",
    **{name: str(value) for name, value in DEFAULT_SWITCHES.items()},
    "dealer": 0,
    "pool": 0,
}
"""The game's parameters and their defaults."""

_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)
_PLAY: Final = Phase.PLAY
_AUCTION: Final = Phase.AUCTION
_TRUMP: Final = Phase.TRUMP
_MOST_PLAYERS: Final = 4
_FEWEST_PLAYERS: Final = 3  # three-player
_BYTE: Final = 8
_BYTE_VALUES: Final = 1 << _BYTE

# Every action index as the engine's action. A contract another ruleset has is a Bid the
# engine refuses with its reason, like any illegal action.
_ENGINE_ACTIONS: Final[tuple[Action, ...]] = (
    PASS,
    *(Bid(contract) for contract in CONTRACT_IDS),
    *NAME_TRUMPS,
    *PLAY_CARDS,
)
_INDEX_OF_BID: Final = {contract: action_index(contract) for contract in ("pass", *CONTRACT_IDS)}
_TRUMP_ACTIONS: Final = tuple(range(TRUMP_OFFSET, CARD_OFFSET))


class _MaskLists:
    """The set bits of a card mask (32 bits) as ``item(card)`` for each, ascending: four
    lookups of tuples made once, one per byte, where a loop over the bits would take a step
    per card."""

    __slots__ = ("clubs", "diamonds", "hearts", "spades")

    def __init__(self, item: Callable[[int], object]) -> None:
        self.clubs, self.spades, self.hearts, self.diamonds = (
            tuple(
                tuple(item(_BYTE * part + bit) for bit in range(_BYTE) if bits >> bit & 1)
                for bits in range(_BYTE_VALUES)
            )
            for part in range(CARD_COUNT // _BYTE)
        )

    def of(self, mask: int) -> tuple[Any, ...]:
        return (
            self.clubs[mask & 0xFF]
            + self.spades[mask >> _BYTE & 0xFF]
            + self.hearts[mask >> 2 * _BYTE & 0xFF]
            + self.diamonds[mask >> 3 * _BYTE]
        )


_CARD_ACTIONS: Final = _MaskLists(lambda card: CARD_OFFSET + card)
_CARDS: Final = _MaskLists(lambda card: card)


@cache
def _chance_outcomes(left: int) -> _MaskLists:
    """The chance outcomes while ``left`` cards are still to deal: ``(card, 1 / left)``."""
    chance = 1.0 / left
    return _MaskLists(lambda card: (card, chance))


def _game_type(zero_sum: bool) -> Any:
    utility = pyspiel.GameType.Utility
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Brandeln",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility.ZERO_SUM if zero_sum else utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=_MOST_PLAYERS,
        min_num_players=_FEWEST_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(PARAMETERS),
    )


GAME_TYPE: Final = _game_type(zero_sum=True)
"""The registered type: the standard ruleset's. Each game reports its own (its ruleset's
utility), so ``load_game("brandeln(ruleset=russian)").get_type()`` says general-sum."""


class _Table:
    """What stays fixed through a game: the ruleset, the dealer, the pool, the plan of the
    deal, the limits, and the state before the first card (shared by every new state)."""

    def __init__(self, key: tuple[str, tuple[tuple[str, str], ...], int, int]) -> None:
        ruleset_id, switches, dealer, pool = key
        self.key = key
        self.ruleset = ruleset = find_ruleset(ruleset_id, dict(switches))
        if not 0 <= dealer < ruleset.players:
            raise ValueError(f"dealer {dealer} is not a seat of {ruleset_id!r}")
        self.dealer = dealer
        self.pool = pool
        self.plan = DealPlan.of(ruleset, dealer)
        self.limits: GameLimits = game_limits(ruleset, pool)
        self.deck_size = len(self.plan.deck)
        self.start = _Now(self, 0, 0, ruleset.deck().mask, None)
        if pool:  # DealState.new refuses a pool outside haferl: refuse it here, up front
            DealState.new(ruleset, self.plan.deal_of(self.plan.rows_of(self.plan.deck)), pool)


@cache
def _table(key: tuple[str, tuple[tuple[str, str], ...], int, int]) -> _Table:
    return _Table(key)


def _table_of(settings: Mapping[str, Any]) -> _Table:
    switches = tuple(sorted((name, str(settings[name])) for name in SWITCHES))
    return _table(
        (str(settings["ruleset"]), switches, int(settings["dealer"]), int(settings["pool"]))
    )


class _Now:
    """Where a state stands, as an immutable value: the cards dealt so far (how many, and
    packed in order, :func:`~brandeln.openspiel.chance_deal.pack_card`), the mask of those
    still to deal, and the engine's state once the deal is complete. A pyspiel state holds
    one and replaces it at every action, so cloning it (``copy.deepcopy``, which OpenSpiel's
    ``Clone`` runs on a Python state's attributes) shares it, and pickling it (OpenSpiel's
    serialization) keeps only the actions, replayed when read back."""

    __slots__ = ("deal", "dealt", "legal", "packed", "table", "undealt")

    def __init__(
        self, table: _Table, dealt: int, packed: int, undealt: int, deal: DealState | None
    ) -> None:
        self.table = table
        self.dealt = dealt
        self.packed = packed
        self.undealt = undealt
        self.deal = deal
        self.legal: tuple[int, ...] | None = None  # legal actions, once first asked for

    def __copy__(self) -> _Now:
        return self

    def __deepcopy__(self, memo: object) -> _Now:
        return self

    def __reduce__(self) -> tuple[Callable[..., _Now], tuple[object, ...]]:
        return (_restore, (self.table.key, self.dealt_cards(), self.player_actions()))

    def dealt_cards(self) -> list[int]:
        """The cards dealt so far, in order."""
        return unpack_cards(self.packed, self.dealt)

    def rows(self) -> tuple[int, ...]:
        """The mask of the cards dealt so far to each row."""
        return self.table.plan.rows_of_packed(self.packed, self.dealt)

    def player_actions(self) -> tuple[int, ...]:
        """The players' actions so far, as indices."""
        if self.deal is None:
            return ()
        return tuple(action_index(str(action)) for action in self.deal.actions)

    def after_card(self, card: int) -> _Now:
        undealt = self.undealt
        if not (0 <= card < CARD_COUNT and undealt >> card & 1):
            raise ValueError(f"{card} is not a card still to deal: {list(_CARDS.of(undealt))}")
        table = self.table
        dealt = self.dealt + 1
        packed = pack_card(self.packed, card)
        left = undealt ^ 1 << card
        if left:
            return _Now(table, dealt, packed, left, None)
        rows = table.plan.rows_of_packed(packed, dealt)
        return _Now(
            table,
            dealt,
            packed,
            0,
            DealState.new(table.ruleset, table.plan.deal_of(rows), table.pool),
        )

    def after(self, action: int) -> _Now:
        deal = self.deal
        if deal is None:
            return self.after_card(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is outside 0..{NUM_ACTIONS - 1}")
        return _Now(self.table, self.dealt, self.packed, 0, deal.apply(_ENGINE_ACTIONS[action]))

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions (chance: the cards still to deal), ascending."""
        legal = self.legal
        if legal is not None:
            return legal
        deal = self.deal
        if deal is None:
            legal = _CARDS.of(self.undealt)
        else:
            phase = deal.phase
            if phase is _PLAY:
                legal = _CARD_ACTIONS.of(deal.legal_card_mask())
            elif phase is _AUCTION:  # each ladder ascends in the action space: already sorted
                legal = tuple(
                    _INDEX_OF_BID[action.contract]  # type: ignore[union-attr]
                    for action in deal.legal_actions()
                )
            elif phase is _TRUMP:
                legal = _TRUMP_ACTIONS
            else:
                legal = ()
        self.legal = legal
        return legal


def _restore(
    key: tuple[str, tuple[tuple[str, str], ...], int, int],
    cards: Sequence[int],
    actions: Sequence[int],
) -> _Now:
    now = _table(key).start
    for action in (*cards, *actions):
        now = now.after(action)
    return now


class BrandelnState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type information
    """One moment of a deal. Python callers reach ``legal_actions``, ``is_chance_node``,
    ``current_player`` and ``is_terminal`` here directly; OpenSpiel's C++ reaches the same
    answers through ``_legal_actions`` and ``current_player``."""

    def __init__(self, game: BrandelnGame) -> None:
        super().__init__(game)
        self._now: _Now = game.table.start

    # ------------------------------------------------------------------ reading the state

    def current_player(self) -> int:
        deal = self._now.deal
        if deal is None:
            return _CHANCE
        seat = deal.to_act
        return _TERMINAL if seat is None else seat

    def is_chance_node(self) -> bool:
        return self._now.deal is None

    def is_terminal(self) -> bool:
        deal = self._now.deal
        return deal is not None and deal.to_act is None

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of ``player`` (default: the one to act), ascending."""
        now = self._now
        deal = now.deal
        if player is not None and deal is not None and player != deal.to_act:
            if player < 0:
                raise ValueError(f"no legal actions for pseudo-player {player}")
            return []
        return list(now.legal_actions())

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._now.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        now = self._now
        return list(_chance_outcomes(now.table.deck_size - now.dealt).of(now.undealt))

    def returns(self) -> list[float]:
        deal = self._now.deal
        outcome = deal.outcome() if deal is not None else None
        if outcome is None:
            return [0.0] * self._now.table.ruleset.players
        return [float(chips) for chips in outcome.payments]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            return f"deal {card_text(action)}"
        return str(_ENGINE_ACTIONS[action])

    def __str__(self) -> str:
        now = self._now
        table = now.table
        deal = now.deal
        head = f"{table.ruleset.id}, dealer {table.dealer}"
        if deal is None:
            seats = table.plan.seat_of_row
            dealt = "; ".join(
                f"{'blind' if seat == BLIND else seat}: {CardSet.from_mask(mask)}"
                for seat, mask in zip(seats, now.rows(), strict=True)
            )
            return f"{head}, dealing: {dealt}"
        lines = [f"{head}, {deal.phase.value}"]
        lines += [f"seat {seat}: {hand}" for seat, hand in enumerate(deal.hands)]
        lines.append("auction: " + " ".join(f"{b.seat}:{b.bid}" for b in deal.auction))
        if deal.contract is not None:
            trump = deal.trump.letter if deal.trump is not None else "-"
            lines.append(f"contract {deal.contract.id} by {deal.soloist}, trump {trump}")
        lines += [str(trick) for trick in deal.tricks]
        if deal.current_trick:
            played = format_cards(card for _, card in deal.current_trick)
            lines.append(f"current trick led by {deal.leader}: {played}")
        outcome = deal.outcome()
        if outcome is not None:
            lines.append(f"payments {list(outcome.payments)}")
        return "\n".join(lines)

    # ------------------------------------------------------------------------- moving on

    def _apply_action(self, action: int) -> None:
        now = self._now
        self._now = now.after_card(action) if now.deal is None else now.after(action)

    # ---------------------------------------------------------------------------- seeing

    def observation_facts(self, player: int) -> Observation:
        """What seat ``player`` knows now, as the encoding's facts."""
        now = self._now
        table = now.table
        if now.deal is not None:
            return observation_of_state(now.deal, player)
        plan = table.plan
        row = plan.row_of_seat(player)
        players = table.ruleset.players
        return Observation(
            ruleset=table.ruleset.id,
            players=players,
            phase="deal",
            position=row,  # a seat's row is its distance from forehand
            hand=tuple(card.index for card in CardSet.from_mask(now.rows()[row])),
            auction=(),
            tricks_won=(0,) * players,
        )

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state ``player_id`` cannot tell from this one, the cards it has not seen dealt
        again uniformly among the deals that fit everything it saw (its cards, every card
        played and by whom, and what the play shows about the others' hands:
        :mod:`brandeln.openspiel.hidden_hands`), then the same actions replayed.

        ``probability_sampler`` returns numbers uniform in [0, 1) (OpenSpiel's
        ``UniformProbabilitySampler``, or ``random.random``)."""
        now = self._now
        plan = now.table.plan
        if player_id not in plan.seat_of_row:
            raise ValueError(f"player {player_id} is not a seat of {now.table.ruleset.id!r}")
        mine = plan.row_of_seat(player_id)
        dealt = now.dealt
        cards = list(self.history()[:dealt])  # as dealt: the player's row keeps its order
        if now.deal is None:  # still dealing: the others' cards so far are any unseen ones
            unseen = [c for c in plan.deck if c not in _row_cards(plan, cards, mine)]
            for position in range(len(cards)):
                if plan.row_of(position) != mine:
                    pick = min(int(probability_sampler() * len(unseen)), len(unseen) - 1)
                    cards[position] = unseen.pop(pick)
        else:
            cards = _redealt(now.deal, plan, cards, player_id, mine, probability_sampler)
        state = self.get_game().new_initial_state()
        for action in (*cards, *self.history()[dealt:]):
            state.apply_action(action)
        return state


def _row_cards(plan: DealPlan, cards: Sequence[int], row: int) -> list[int]:
    return [card for position, card in enumerate(cards) if plan.row_of(position) == row]


def _redealt(
    deal: DealState,
    plan: DealPlan,
    cards: Sequence[int],
    observer: int,
    mine: int,
    uniform: Callable[[], float],
) -> list[int]:
    """The order of a deal in which the observer's row is dealt as before and the other rows
    hold the cards they have played and a sample of the unseen ones."""
    hands = sample_hidden_hands(deal, observer, uniform)
    for seat, action in deal.history:  # the public record: who played which card
        if seat != observer and isinstance(action, PlayCard):
            hands[seat] |= action.card.bit
    rows: list[list[int]] = []
    for row, seat in enumerate(plan.seat_of_row):
        if row == mine:
            rows.append(_row_cards(plan, cards, mine))
        else:
            mask = hands[seat if seat != BLIND else len(hands) - 1]
            rows.append([card for card in range(CARD_COUNT) if mask >> card & 1])
    return plan.order_of(rows)


class BrandelnGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type information
    """The ``brandeln`` game; ``pyspiel.load_game("brandeln(ruleset=russian)")`` makes one."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        settings = {**PARAMETERS, **(params or {})}
        self.table = table = _table_of(settings)
        ruleset: Ruleset = table.ruleset
        limits = table.limits
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=CARD_COUNT,  # a card's index is the outcome dealing it
            num_players=ruleset.players,
            min_utility=float(limits.min_utility),
            max_utility=float(limits.max_utility),
            utility_sum=0.0 if limits.zero_sum else None,
            max_game_length=limits.max_game_length,
        )
        super().__init__(_game_type(limits.zero_sum), info, settings)

    def new_initial_state(self) -> BrandelnState:
        """The state before the first card is dealt."""
        return BrandelnState(self)

    def max_chance_nodes_in_history(self) -> int:
        """One chance node per card of the deck."""
        return len(self.table.plan.deck)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> BrandelnObserver:
        """The observer of OpenSpiel's convention (see :mod:`brandeln.openspiel.observer`)."""
        return BrandelnObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )
