"""Role figures kept in the ladder store: each recorded match's figures by role (bidding, soloist
play, defence), judged once from its log by :mod:`brandeln.services.roles.figures` and read back on
every later ``brandeln ratings --roles`` and bot page. The ladder stores them as opaque JSON with
the version of their format: what they mean is the services' (the ladder never reads a log). The
topic store ``roles`` of :class:`brandeln.ladder.store.database.LadderStore`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import sqlalchemy
from sqlalchemy import select

from brandeln.datastore.upsert import dialect_insert
from brandeln.ladder.store.base import TopicStore, now_ms
from brandeln.ladder.store.schema import ROLE_FIGURES
from brandeln.ladder.store.season_rows import season_id_of

__all__ = ["KeptFigures", "RoleFigureStore"]


@dataclass(frozen=True, slots=True)
class KeptFigures:
    """A match's figures as kept: the version of their format and the JSON text."""

    version: int
    figures_json: str


class RoleFigureStore(TopicStore):
    """The role figures' queries of the ladder database (``LadderStore.roles``)."""

    def role_figures(
        self, season: str, match_ids: Collection[str] | None = None
    ) -> dict[str, KeptFigures]:
        """The figures kept for ``season``'s matches (those of ``match_ids`` only, if given),
        by match id."""

        def read(db: sqlalchemy.Connection) -> dict[str, KeptFigures]:
            season_id = season_id_of(db, season)
            rows = db.execute(
                select(ROLE_FIGURES.c.match_id, ROLE_FIGURES.c.version, ROLE_FIGURES.c.figures_json)
                .where(ROLE_FIGURES.c.season_id == season_id)
                .order_by(ROLE_FIGURES.c.match_id)
            )
            wanted = None if match_ids is None else set(match_ids)
            return {
                row.match_id: KeptFigures(row.version, row.figures_json)
                for row in rows
                if wanted is None or row.match_id in wanted
            }

        return self._read(f"reading the role figures of season {season!r}", read)

    def keep_role_figures(self, season: str, figures: Mapping[str, KeptFigures]) -> None:
        """Keep ``figures`` (by match id) for ``season``, replacing what was kept for the same
        matches (a figure of another version is judged again and overwritten)."""
        if not figures:
            return
        now = now_ms()

        def write(db: sqlalchemy.Connection) -> None:
            season_id = season_id_of(db, season)
            statement = dialect_insert(db, ROLE_FIGURES)
            db.execute(
                statement.on_conflict_do_update(
                    index_elements=["season_id", "match_id"],
                    set_={
                        "version": statement.excluded.version,
                        "figures_json": statement.excluded.figures_json,
                        "judged_at": statement.excluded.judged_at,
                    },
                ),
                [
                    {
                        "season_id": season_id,
                        "match_id": match_id,
                        "version": kept.version,
                        "figures_json": kept.figures_json,
                        "judged_at": now,
                    }
                    for match_id, kept in sorted(figures.items())
                ],
            )

        self._write(f"keeping the role figures of season {season!r}", write)
