"""Seat arithmetic (docs/RULES.md R1): the one place that knows how seats go round the table.

Seats are numbered 0..N-1 clockwise; the seat to the left of ``s`` is ``(s + 1) mod N`` (R1.1).

>>> left_of(3, 4), forehand_of(3, 4), seniority(0, dealer=3, players=4)
(0, 0, 0)
>>> seat_at_distance(dealer=3, distance=3, players=4)  # r3 of R3.2 is the dealer
3
"""

from __future__ import annotations

from functools import cache

__all__ = [
    "forehand_of",
    "left_of",
    "left_of_each",
    "seat_after",
    "seat_at_distance",
    "seats_from",
    "seniority",
    "steps_from",
]


def left_of(seat: int, players: int) -> int:
    """The next seat clockwise (R1.1)."""
    return (seat + 1) % players


@cache
def left_of_each(players: int) -> tuple[int, ...]:
    """:func:`left_of` of every seat, as a table: ``left_of_each(n)[s] == left_of(s, n)`` (a
    lookup costs less than a call in the play loops).

    >>> left_of_each(4)
    (1, 2, 3, 0)
    """
    return tuple(left_of(seat, players) for seat in range(players))


def forehand_of(dealer: int, players: int) -> int:
    """Forehand, the seat left of the dealer (R1.3)."""
    return (dealer + 1) % players


def seniority(seat: int, dealer: int, players: int) -> int:
    """The distance ``r`` of ``seat`` from forehand: 0 is most senior, the dealer N-1 (R1.3)."""
    return (seat - dealer - 1) % players


def seat_at_distance(dealer: int, distance: int, players: int) -> int:
    """The seat ``distance`` places clockwise from forehand (row ``r`` of R3.2)."""
    return (dealer + 1 + distance) % players


def seat_after(first: int, steps: int, players: int) -> int:
    """The seat ``steps`` places clockwise from ``first`` (who plays the n-th card of a trick).

    >>> seat_after(3, 2, 4)
    1
    """
    return (first + steps) % players


def steps_from(first: int, seat: int, players: int) -> int:
    """How many places clockwise ``seat`` sits from ``first`` (the inverse of :func:`seat_after`:
    the position in a trick led by ``first`` of the card ``seat`` plays).

    >>> steps_from(3, 1, 4)
    2
    """
    return (seat - first) % players


def seats_from(first: int, players: int) -> tuple[int, ...]:
    """Every seat once, clockwise, starting at ``first``.

    >>> seats_from(2, 4)
    (2, 3, 0, 1)
    """
    return tuple((first + step) % players for step in range(players))
