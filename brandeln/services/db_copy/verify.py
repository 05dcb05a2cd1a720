"""A side's copy checked: every row and every log of the destination against the source's."""

from __future__ import annotations

import sqlalchemy

from brandeln.services.db_copy.logs import LOG_TABLE, MatchLogs
from brandeln.services.db_copy.rows import Rewrite, rows
from brandeln.services.db_copy.sides import CopyError, Side, Tally


def verify(
    side: Side,
    src: sqlalchemy.Engine,
    dst: sqlalchemy.Engine,
    rewrite: Rewrite,
    logs_src: MatchLogs | None,
    logs_dst: MatchLogs | None,
    tally: Tally,
) -> None:
    """Every row and every log of the destination against the source's."""
    for table in side.metadata.sorted_tables:
        if side.has_logs and table.name == LOG_TABLE:
            continue
        theirs = rows(dst, table)
        for number, mine in enumerate(rows(src, table), start=1):
            copied = next(theirs, None)
            if copied != rewrite(table.name, mine):
                raise CopyError(
                    f"verification failed: {side.name}.{table.name} row {number} differs in "
                    "the destination"
                )
        if next(theirs, None) is not None:
            raise CopyError(f"verification failed: {side.name}.{table.name} has extra rows")
    if logs_src is None or logs_dst is None:
        return
    checked = 0
    for row in rows(src, side.metadata.tables["matches"]):
        match_id = str(row["match_id"])
        if match_id in tally.missing_logs:
            continue
        if logs_dst.read(logs_dst.path_for(match_id)) != logs_src.read(str(row["log_path"])):
            raise CopyError(f"verification failed: the log of match {match_id} differs")
        checked += 1
    if checked != tally.logs:
        raise CopyError(f"verification failed: {checked} logs compared, {tally.logs} copied")
