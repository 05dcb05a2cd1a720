"""A played deal seen double dummy: which cards gave the contract away (or let it through).

Every hand is known once a deal is over (its log keeps them), so each card of the play can be
judged the way bridge programs judge a hand record: before the card, could the player's side
still reach its goal (the soloist: make the contract; a defender: beat it) with best play by
all, every card known? And after it? A card that turns "yes" into "no" is a double-dummy
error; the cards that would have kept "yes" are named. The judge is the expert bot's exact
solver (:mod:`brandeln.engine.double_dummy`), on the same rules core as the engine.

Double dummy is a hindsight measure, not a verdict on a bot: a player who cannot see the other
hands may make a "mistake" that no honest play avoids, and a defender's error only matters if
the other side then finds the winning line. What it gives an author is where a deal turned.

The value of the position before each card is the value after the card before it, so the deal's
result is the value at the start of the play turned over once per error (a test holds this on
random deals of every ruleset). A defender who let a contract through:

>>> from brandeln.engine.cards import Card
>>> slip = CardVerdict(
...     trick=2, seat=3, card=Card.parse("CT"), for_soloist=False, could=True, kept=False,
...     better=(Card.parse("CA"),))
>>> slip.error, slip.makes_after
(True, True)

A deal with no play has nothing to judge:

>>> from brandeln.engine.actions import PASS
>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> standard = find_ruleset("standard")
>>> analyse_play(standard, deal_cards(standard, 0, 5), [PASS] * 4)
PlayAnalysis(makes_at_start=None, verdicts=())
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brandeln.engine.actions import Action, PlayCard
from brandeln.engine.cards import Card
from brandeln.engine.dealing import Deal
from brandeln.engine.double_dummy import DoubleDummy
from brandeln.engine.errors import IllegalActionError, ReplayError
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.state import DealState
from brandeln.engine.trick_rules import canonical_cards

__all__ = ["CardVerdict", "PlayAnalysis", "SeatPlay", "analyse_play"]


@dataclass(frozen=True, slots=True)
class CardVerdict:
    """One card of the play, judged double dummy for the side of the seat that played it."""

    trick: int  # 1-based
    seat: int
    card: Card
    for_soloist: bool  # the seat is the soloist (else a defender)
    could: bool  # its side could still reach its goal before the card
    kept: bool  # and still can after it
    better: tuple[Card, ...]  # the legal cards that would have kept it (when this one did not)

    @property
    def error(self) -> bool:
        """The card gave its side's goal away."""
        return self.could and not self.kept

    @property
    def makes_after(self) -> bool:
        """Whether the soloist makes the contract, double dummy, after this card."""
        return self.kept == self.for_soloist


@dataclass(frozen=True, slots=True)
class PlayAnalysis:
    """The play of one deal, card by card. ``makes_at_start`` is None (and there are no
    verdicts) when the deal had no card play to judge: passed out, or the free play with no
    soloist."""

    makes_at_start: bool | None
    verdicts: tuple[CardVerdict, ...]

    @property
    def errors(self) -> tuple[CardVerdict, ...]:
        return tuple(verdict for verdict in self.verdicts if verdict.error)


@dataclass(slots=True)
class SeatPlay:
    """One player's cards over many deals: those that mattered (its side could still reach its
    goal before the card) and those that gave the goal away, as soloist and as defender. A
    measure of card play that the cards dealt do not move: a hopeless position has no error.

    >>> tally = SeatPlay()
    >>> tally.add(CardVerdict(1, 0, Card.parse("HA"), True, True, False, ()))
    >>> tally.add(CardVerdict(1, 0, Card.parse("HK"), False, False, False, ()))
    >>> tally.soloist_mattered, tally.soloist_errors, tally.defender_mattered
    (1, 1, 0)
    """

    soloist_mattered: int = 0
    soloist_errors: int = 0
    defender_mattered: int = 0
    defender_errors: int = 0

    def add(self, verdict: CardVerdict) -> None:
        if not verdict.could:
            return
        if verdict.for_soloist:
            self.soloist_mattered += 1
            self.soloist_errors += verdict.error
        else:
            self.defender_mattered += 1
            self.defender_errors += verdict.error


def analyse_play(ruleset: Ruleset, deal: Deal, actions: Sequence[Action]) -> PlayAnalysis:
    """Replay ``actions`` on ``deal`` and judge every card played; raises
    :class:`~brandeln.engine.errors.ReplayError` at the first illegal action, as
    :func:`brandeln.engine.replay` does. Actions after the deal's end are refused the same way."""
    state = DealState.new(ruleset, deal, 0)
    solver: DoubleDummy | None = None
    makes_at_start: bool | None = None
    verdicts: list[CardVerdict] = []
    for index, action in enumerate(actions):
        seat = state.to_act
        if state.phase is Phase.PLAY and isinstance(action, PlayCard) and seat is not None:
            soloist, contract = state.soloist, state.contract
            if soloist is not None and contract is not None:
                if solver is None:
                    solver = DoubleDummy(ruleset, contract, soloist, state.trump)
                verdict = _judge(state, solver, seat, soloist, action.card)
                if makes_at_start is None:
                    makes_at_start = verdict.could == (seat == soloist)
                verdicts.append(verdict)
        try:
            state = state.apply(action)
        except IllegalActionError as error:
            raise ReplayError(index, str(error)) from error
    return PlayAnalysis(makes_at_start, tuple(verdicts))


def _judge(
    state: DealState, solver: DoubleDummy, seat: int, soloist: int, card: Card
) -> CardVerdict:
    leader = state.leader
    assert leader is not None  # in the play, a trick always has a leader
    hands = [hand.mask for hand in state.hands]
    trick = [played.index for _, played in state.current_trick]
    values = solver.card_values(hands, state.tricks_won, leader, trick)
    for_soloist = seat == soloist
    keeping = [Card.from_index(index) for index, makes in values.items() if makes == for_soloist]
    kept = card in keeping
    better = () if kept else tuple(canonical_cards(keeping, state.trump, state.ruleset.trump_order))
    return CardVerdict(
        trick=len(state.tricks) + 1,
        seat=seat,
        card=card,
        for_soloist=for_soloist,
        could=bool(keeping),
        kept=kept,
        better=better,
    )
