"""A season's role figures, bot by bot (``brandeln ratings --roles``, the bot pages): each of
its matches judged once from its log (:mod:`brandeln.services.roles.figures`), kept in the ladder
store (:mod:`brandeln.ladder.store.roles`), and summed per season bot (a match's ``bots`` name each
seat's).

**Why kept, and where.** The double-dummy judge takes about 5 ms a deal with the compiled
engine and 23 ms in pure Python (the demo season's 160 deals: 0.9 s and 3.7 s), so a season of
100 blocks of four 8-deal matches (3200 deals) takes some 17 s, or over a minute. A finished
log never changes, so each match is judged once and its figures kept in the ladder store, keyed
by season and match: it is the store both readers open already, it holds a PostgreSQL season's
figures as well as an SQLite one's (a log held in PostgreSQL has no folder to keep a file
beside), and ``db copy`` carries it along. A kept match of an older format is judged again.

A log that cannot be read is named in ``unread`` and left out, never an error for the rest;
nothing is kept for it, so a later run tries it again. Figures that cannot be kept (a store
opened read-only) are still counted, and ``not_kept`` says why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from brandeln.arena.logreader import MatchLog
from brandeln.ladder.errors import LadderError
from brandeln.ladder.store.database import KeptFigures, LadderStore, RecordedMatch
from brandeln.services.roles.figures import FIGURES_VERSION, MatchRoles, RoleFigures, judge_roles

__all__ = ["KEEP_EVERY", "ReadLog", "SeasonRoles", "UnreadableLogError", "season_roles"]

KEEP_EVERY: Final = 16  # matches judged between two writes: an interrupted run keeps the most


class UnreadableLogError(Exception):
    """A match's log that cannot be read (the message says why)."""


# A match's log by its id; raises UnreadableLogError.
ReadLog = Callable[[str], MatchLog]
# Called with (matches judged so far, matches to judge) before the first and after each.
Progress = Callable[[int, int], None]


@dataclass
class SeasonRoles:
    """A season's role figures by bot, and what they cover."""

    bots: dict[str, RoleFigures]
    matches: int  # the season's matches asked about
    judged: int = 0  # those counted
    judged_now: int = 0  # of these, judged from their logs now (the others were kept)
    read_now: int = 0  # logs read now: those judged now and those that could not be read
    deals: int = 0  # the deals judged, over the matches counted
    left: int = 0  # matches not judged yet: over the budget
    unread: list[str] = field(default_factory=list)  # "m_...: why" (a match or a deal)
    not_kept: str = ""  # why the figures judged now could not be kept


def season_roles(
    store: LadderStore,
    season: str,
    read: ReadLog,
    *,
    bots: Sequence[str] = (),
    bot: str | None = None,
    budget: int | None = None,
    progress: Progress = lambda done, total: None,
) -> SeasonRoles:
    """The role figures of ``season``'s matches (those ``bot`` played in, if given), by bot:
    ``bots`` first in their order, then the others by name. At most ``budget`` matches not yet
    kept are judged from their logs (None: all); each is kept as it is judged, in batches."""
    matches = [match for match in store.reads.matches(season) if bot is None or bot in match.bots]
    kept = store.roles.role_figures(season, {match.match_id for match in matches})
    found: list[tuple[RecordedMatch, MatchRoles]] = []
    waiting = []
    for match in matches:
        roles = _kept_roles(kept.get(match.match_id))
        if roles is None:
            waiting.append(match)
        else:
            found.append((match, roles))
    roles_of = SeasonRoles({name: RoleFigures() for name in bots}, len(matches))
    to_judge = waiting if budget is None else waiting[:budget]
    roles_of.left = len(waiting) - len(to_judge)
    found += _judge(store, season, to_judge, read, roles_of, progress)
    for match, roles in found:
        roles_of.judged += 1
        roles_of.deals += roles.deals
        roles_of.unread += [f"{match.match_id} {problem}" for problem in roles.problems]
        for seat, figures in enumerate(roles.seats):
            if seat < len(match.bots):
                roles_of.bots.setdefault(match.bots[seat], RoleFigures()).add(figures)
    named = set(bots)
    rest = sorted(name for name in roles_of.bots if name not in named)
    roles_of.bots = {name: roles_of.bots[name] for name in (*bots, *rest)}
    return roles_of


def _kept_roles(kept: KeptFigures | None) -> MatchRoles | None:
    """Kept figures of this code's format; None (judge it again) otherwise."""
    if kept is None or kept.version != FIGURES_VERSION:
        return None
    try:
        return MatchRoles.from_json_text(kept.figures_json)
    except (ValueError, TypeError, KeyError):
        return None  # a damaged row: the log says it again


def _judge(
    store: LadderStore,
    season: str,
    matches: Sequence[RecordedMatch],
    read: ReadLog,
    roles_of: SeasonRoles,
    progress: Progress,
) -> Iterable[tuple[RecordedMatch, MatchRoles]]:
    """Judge ``matches`` from their logs, keeping each finished one's figures."""
    judged = []
    to_keep: dict[str, KeptFigures] = {}
    progress(0, len(matches))
    for done, match in enumerate(matches, start=1):
        roles_of.read_now += 1
        try:
            log = read(match.match_id)
        except UnreadableLogError as error:
            roles_of.unread.append(f"{match.match_id}: {error}")
        else:
            roles = judge_roles(log)
            judged.append((match, roles))
            roles_of.judged_now += 1
            if log.footer is not None:  # ended: its figures are final
                to_keep[match.match_id] = KeptFigures(FIGURES_VERSION, roles.to_json_text())
        if len(to_keep) >= KEEP_EVERY or done == len(matches):
            _keep(store, season, to_keep, roles_of)
        progress(done, len(matches))
    return judged


def _keep(
    store: LadderStore, season: str, to_keep: dict[str, KeptFigures], roles_of: SeasonRoles
) -> None:
    if to_keep and not roles_of.not_kept:
        try:
            store.roles.keep_role_figures(season, to_keep)
        except LadderError as error:
            roles_of.not_kept = str(error)
    to_keep.clear()
