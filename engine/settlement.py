"""Settlement and the end of a deal (docs/RULES.md R9, R10, section 6), shared by the public
state and the fast playouts: :func:`deal_ends` says when the play stops, :func:`deal_outcome`
builds the :class:`~brandeln.engine.outcome.DealOutcome` from the deal's end state.

>>> from brandeln.engine.rulesets import find_ruleset
>>> standard = find_ruleset("standard")
>>> contract_payments(standard, standard.contract("brand"), 1, (1, 5, 1, 0), pool=0)
(True, (-4, 12, -4, -4), 0)
>>> free_play_payments((2, 2, 3, 0), tricks=7), free_play_payments((7, 0, 0, 0), tricks=7)
((0, 0, 1, 0), (-3, 0, 0, 0))
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement
from typing import Final

from brandeln.engine.cards import CardSet, Suit
from brandeln.engine.dealing import Deal, trusted_card_set
from brandeln.engine.outcome import DealOutcome
from brandeln.engine.per_ruleset import PerRuleset
from brandeln.engine.rulesets import Contract, EarlyStop, Goal, PassOut, Ruleset, Scoring

__all__ = [
    "FREE_PLAY_BEST",
    "FREE_PLAY_SWEEP",
    "HAFERL_STAKE",
    "contract_payments",
    "deal_ends",
    "deal_ends_after",
    "deal_outcome",
    "ends_early",
    "free_play_payments",
    "pass_out_payments",
]

HAFERL_STAKE: Final = 1  # section 6, haferl: each player pays 1 chip into the pool
FREE_PLAY_BEST: Final = 1  # russian free play: the player(s) with most tricks score +1 ...
FREE_PLAY_SWEEP: Final = -3  # ... but one who takes every trick scores -3, nobody else scores

# The enum members the per-trick and per-deal tests compare with, bound once: compiled
# (setup.py), this module reads a Final as a C static, where ``EarlyStop.NEVER`` is a dict and
# an attribute lookup at every trick.
_NEVER: Final = EarlyStop.NEVER
_RULES: Final = EarlyStop.RULES
_ZERO: Final = Goal.ZERO
_ALL: Final = Goal.ALL
_ZERO_SUM: Final = Scoring.ZERO_SUM


def contract_payments(
    ruleset: Ruleset, contract: Contract, soloist: int, tricks_won: tuple[int, ...], pool: int
) -> tuple[bool, tuple[int, ...], int]:
    """``(made, payments, pool_delta)`` for a soloist contract (R10, section 6).

    Zero-sum: each defender pays V to the soloist, or is paid V (R10.2). Russian: the soloist
    alone scores +-V. Haferl: a soloist who makes the contract also takes the ``pool``.
    """
    made = contract.made_with(tricks_won[soloist])
    sign = 1 if made else -1
    players = len(tricks_won)
    payments = [0] * players
    if ruleset.scoring is _ZERO_SUM:
        for seat in range(players):
            payments[seat] = -sign * contract.value
        payments[soloist] = sign * contract.value * (players - 1)
    else:
        payments[soloist] = sign * contract.value
    pool_delta = 0
    if made and pool:
        payments[soloist] += pool
        pool_delta = -pool
    return made, tuple(payments), pool_delta


def pass_out_payments(ruleset: Ruleset) -> tuple[tuple[int, ...], int]:
    """``(payments, pool_delta)`` of a pass-out without play (Haferl, thrown in)."""
    if ruleset.pass_out is PassOut.HAFERL:
        return (-HAFERL_STAKE,) * ruleset.players, HAFERL_STAKE * ruleset.players
    return (0,) * ruleset.players, 0


def free_play_payments(tricks_won: tuple[int, ...], tricks: int) -> tuple[int, ...]:
    """Scores of the russian free play after a pass-out (section 6)."""
    best = max(tricks_won)
    if best == tricks:
        return tuple(FREE_PLAY_SWEEP if won == tricks else 0 for won in tricks_won)
    return tuple(FREE_PLAY_BEST if won == best else 0 for won in tricks_won)


def deal_ends(
    ruleset: Ruleset, contract: Contract | None, soloist: int | None, tricks_won: tuple[int, ...]
) -> bool:
    """Whether the deal is over after a trick: its last trick, or an early stop (R9.2, R9.3,
    switch ``early_stop``).

    ``rules``: sudden death of a zero or all contract. ``when_decided``: stop when no way of
    sharing out the remaining tricks changes the result. ``contract`` and ``soloist`` are
    ``None`` in the russian free play.

    >>> from brandeln.engine.rulesets import find_ruleset
    >>> standard = find_ruleset("standard")
    >>> deal_ends(standard, standard.contract("bettel"), 1, (0, 1, 0, 0))  # R9.2
    True
    >>> deal_ends(standard, standard.contract("brand"), 1, (0, 4, 0, 0))  # R9.3
    False
    """
    played = 0
    for won in tricks_won:  # a native loop where the builtin sum is a call
        played += won
    return deal_ends_after(
        played, ruleset.tricks, ruleset.early_stop, contract, soloist, tricks_won
    )


def deal_ends_after(
    played: int,
    tricks: int,
    early_stop: EarlyStop,
    contract: Contract | None,
    soloist: int | None,
    tricks_won: Sequence[int],
) -> bool:
    """:func:`deal_ends` for the play loops, which count the tricks ``played`` and hold the
    ruleset's ``tricks`` and ``early_stop``: no sum and no attribute lookups on the ruleset
    per trick, and ``tricks_won`` may be the loop's own list.

    >>> from brandeln.engine.rulesets import EarlyStop, find_ruleset
    >>> bettel = find_ruleset("standard").contract("bettel")
    >>> deal_ends_after(1, 7, EarlyStop.RULES, bettel, 1, [0, 1, 0, 0])  # R9.2
    True
    >>> deal_ends_after(1, 7, EarlyStop.NEVER, bettel, 1, [0, 1, 0, 0])
    False
    """
    if played >= tricks:
        return True
    if early_stop is _NEVER:
        return False
    if early_stop is _RULES:
        if contract is None or soloist is None:
            return False
        goal = contract.goal
        if goal is _ZERO:
            return tricks_won[soloist] > 0  # R9.2: bettel lost with the first trick
        if goal is _ALL:
            return tricks_won[soloist] < played  # R9.2: mord lost with a defender's trick
        return False  # R9.3
    left = tricks - played
    if contract is None or soloist is None:
        return _free_play_decided(tricks_won, left, tricks)
    taken = tricks_won[soloist]
    first = contract.made_with(taken)
    return all(contract.made_with(taken + more) == first for more in range(1, left + 1))


def ends_early(
    ruleset: Ruleset, contract: Contract | None, soloist: int | None, tricks_won: tuple[int, ...]
) -> bool:
    """Whether the deal stops now, before its last trick (:func:`deal_ends` short of it)."""
    return sum(tricks_won) < ruleset.tricks and deal_ends(ruleset, contract, soloist, tricks_won)


def deal_outcome(
    ruleset: Ruleset,
    deal: Deal,
    pool: int,
    *,
    soloist: int | None,
    contract: Contract | None,
    trump: Suit | None,
    passed_out: bool,
    tricks_won: tuple[int, ...],
    hands: Sequence[int],
) -> DealOutcome:
    """The outcome of a deal that has ended, from its end state: the auction's result, the
    tricks won per seat and the masks of the cards left in ``hands``.

    With a soloist the contract is settled (R10, section 6; ``pool`` is the Haferl pool the
    soloist takes by making it); without one the deal was passed out (R6): the russian free
    play scores the tricks, every other policy ends the deal unplayed.
    """
    made: bool | None = None
    pool_delta = 0
    if contract is not None and soloist is not None:
        # The settlement table of this ruleset (see _Settlement): two lookups where
        # contract_payments runs Contract.made_with, an interpreted frame, and builds a list.
        table = _SETTLEMENTS.of(ruleset)
        level = table.levels.get(id(contract), -1)
        taken = tricks_won[soloist]
        if (
            level >= 0
            and table.contracts[level] is contract
            and not pool
            and len(tricks_won) == table.players
            and 0 <= soloist < table.players
            and 0 <= taken <= table.tricks
        ):
            made = table.made[level][taken]
            payments = table.payments[level][soloist][1 if made else 0]
        else:
            made, payments, pool_delta = contract_payments(
                ruleset, contract, soloist, tricks_won, pool
            )
    elif ruleset.pass_out is PassOut.FREE_PLAY:
        payments = free_play_payments(tricks_won, ruleset.tricks)
    else:
        payments, pool_delta = pass_out_payments(ruleset)
    # Every hand is empty after a deal played to its last trick: one shared value then.
    unplayed = _NO_CARDS_LEFT.get(len(hands)) if not any(hands) else None
    if unplayed is None:
        unplayed = tuple(trusted_card_set(mask) for mask in hands)
    # DealOutcome's own __init__, field for field (a test holds the two together): that one is
    # an interpreted frame setting each of the twelve fields through object.__setattr__ (the
    # frozen dataclass refuses its own), near a tenth of a fast playout; compiled here, each
    # field is one C call.
    outcome = _new_outcome(DealOutcome)
    object.__setattr__(outcome, "dealer", deal.dealer)
    object.__setattr__(outcome, "soloist", soloist)
    object.__setattr__(outcome, "contract", contract.id if contract is not None else None)
    object.__setattr__(outcome, "trump", trump)
    object.__setattr__(outcome, "passed_out", passed_out)
    object.__setattr__(outcome, "tricks_won", tricks_won)
    object.__setattr__(outcome, "made", made)
    object.__setattr__(outcome, "payments", payments)
    object.__setattr__(outcome, "pool_delta", pool_delta)
    object.__setattr__(outcome, "unplayed", unplayed)
    object.__setattr__(outcome, "hands", deal.hands)
    object.__setattr__(outcome, "blind", deal.blind)
    return outcome


# DealOutcome.__new__ (object's) bound once: compiled, ``object.__new__(DealOutcome)`` looks up
# ``object`` in the builtins module and ``__new__`` on it at every deal.
_new_outcome: Final = DealOutcome.__new__
_NO_CARDS_LEFT: Final = {players: (CardSet(),) * players for players in range(1, 9)}


class _Settlement:
    """One ruleset's contract settlements without a pool, tabled from
    :func:`contract_payments` itself, so the two cannot disagree: ``made[level][tricks]``
    whether the soloist's tricks make the contract of that level, and
    ``payments[level][soloist][made]`` the chips that then move (a test holds them to it)."""

    __slots__ = ("contracts", "levels", "made", "payments", "players", "ruleset", "tricks")

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.players = players = ruleset.players
        self.tricks = tricks = ruleset.tricks
        self.contracts = contracts = ruleset.contracts
        self.levels = {id(contract): level for level, contract in enumerate(contracts)}
        made: list[tuple[bool, ...]] = []
        payments: list[tuple[tuple[tuple[int, ...], ...], ...]] = []
        for contract in contracts:
            made.append(tuple(contract.made_with(taken) for taken in range(tricks + 1)))
            by_seat: list[tuple[tuple[int, ...], ...]] = []
            for soloist in range(players):
                by_result: list[tuple[int, ...]] = []
                # A trick count that fails the contract, then one that makes it (if any).
                for wanted in (False, True):
                    taken = next(
                        (t for t in range(tricks + 1) if contract.made_with(t) is wanted), None
                    )
                    if taken is None:
                        by_result.append(())  # never reached: made[level] has no such count
                        continue
                    won = [0] * players
                    won[soloist] = taken
                    by_result.append(
                        contract_payments(ruleset, contract, soloist, tuple(won), 0)[1]
                    )
                by_seat.append(tuple(by_result))
            payments.append(tuple(by_seat))
        self.made = tuple(made)
        self.payments = tuple(payments)


# Each entry holds its ruleset (brandeln.engine.per_ruleset), and so its contracts: ``levels`` is
# keyed by their ids, which are not reused while it is here.
_SETTLEMENTS: Final[PerRuleset[_Settlement]] = PerRuleset(_Settlement)


def _free_play_decided(tricks_won: Sequence[int], left: int, tricks: int) -> bool:
    """True when every way of giving the ``left`` tricks to the players scores the same."""
    results = set()
    for winners in combinations_with_replacement(range(len(tricks_won)), left):
        final = list(tricks_won)
        for seat in winners:
            final[seat] += 1
        results.add(free_play_payments(tuple(final), tricks))
        if len(results) > 1:
            return False
    return True
