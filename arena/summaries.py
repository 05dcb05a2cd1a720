"""A match's result both ways: the index row (``MatchRecord``) and the wire ``MatchSummary``.

The referee indexes a running table from its summary and serves index rows as summaries: one
pair of conversions serves both.
"""

from __future__ import annotations

from brandeln.arena.store.database import MatchRecord
from brandeln.protocol.statuses import match_status_from_pb, match_status_to_pb
from brandeln.v1 import admin_pb2

__all__ = ["record_of", "summary_of"]


def summary_of(record: MatchRecord) -> admin_pb2.MatchSummary:
    return admin_pb2.MatchSummary(
        match_id=record.match_id,
        ruleset=record.ruleset,
        bot_ids=record.bot_ids,
        balances=record.balances,
        ranks=record.ranks,
        forfeited=record.forfeited,
        status=record.status.value,  # the word, for clients before the enum
        match_status=match_status_to_pb(record.status),
        deals_played=record.deals_played,
        started_at=record.started_at,
        ended_at=record.ended_at,
        bot_names=record.bot_names,
        strikes=record.strikes,
    )


def record_of(summary: admin_pb2.MatchSummary, log_path: str = "") -> MatchRecord:
    """The index row of a summary; ``log_path`` is empty for a match read from afar."""
    return MatchRecord(
        match_id=summary.match_id,
        ruleset=summary.ruleset,
        bot_ids=tuple(summary.bot_ids),
        bot_names=tuple(summary.bot_names),
        balances=tuple(summary.balances),
        ranks=tuple(summary.ranks),
        forfeited=tuple(summary.forfeited),
        strikes=tuple(summary.strikes),
        status=match_status_from_pb(summary.match_status, summary.status),
        deals_played=summary.deals_played,
        started_at=summary.started_at,
        ended_at=summary.ended_at,
        log_path=log_path,
    )
