"""`brandeln challenge A B [C D]`: queue a block on an always-on ladder ahead of its
matchmaking (``brandeln.ladder.store.challenges``), rated or not, within the limit per bot per hour
that ``ladder serve --challenges-per-hour`` sets."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

import typer

from brandeln.cli.db_option import DbOption, open_ladder
from brandeln.cli.options import DEFAULT_LADDER, DataOption, LadderOption
from brandeln.cli.output import console, fail
from brandeln.cli.terminal_text import plain
from brandeln.engine.plurals import plural

if TYPE_CHECKING:
    from brandeln.ladder.store.database import LadderStore


def challenge(
    bots: Annotated[
        list[str],
        typer.Argument(
            metavar="BOT",
            help="The bots (their active version) or versions (BOT@VERSION) to seat.",
        ),
    ],
    deals: Annotated[
        int | None, typer.Option(min=1, help="Deals per match [default: the ladder's].")
    ] = None,
    unrated: Annotated[
        bool, typer.Option("--unrated", help="Play it without moving any rating.")
    ] = False,
    name: LadderOption = DEFAULT_LADDER,
    data: DataOption = None,
    db: DbOption = None,
) -> None:
    """Queue a block ahead of matchmaking: the bots named (each a bot's active version, or a
    version), the other seats filled by the ladder; played as soon as they are connected."""
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415
    from brandeln.ladder.living.challenge_names import resolve_versions  # noqa: PLC0415

    try:
        # No ladder there: one line naming where it looked, and how to point at the running one.
        with open_ladder(db, data, name) as store:
            info = store.seasons.season(name)
            seated = resolve_versions(store.ladders.versions(name), bots, name)
            if len(seated) > info.players:
                raise fail(f"ladder {name!r} seats {info.players}; {len(seated)} bots named")
            per_match = deals or _ladder_deals(store, name)
            number = store.challenges.queue_challenge(
                name,
                seated,
                deals=per_match,
                rated=not unrated,
                requested_by=os.environ.get("USER", ""),
                per_hour=_per_hour(store, name),
            )
    except LadderError as error:
        raise fail(str(error)) from None
    kind = "unrated" if unrated else "rated"
    console.print(
        plain(
            f"challenge #{number} queued ({kind}, {plural(per_match, 'deal')} a match): "
            f"{', '.join(seated)}"
        )
    )


def _ladder_deals(store: LadderStore, ladder: str) -> int:
    return int(store.ladders.ladder_settings(ladder)["deals_per_match"])


def _per_hour(store: LadderStore, ladder: str) -> int:
    return int(store.ladders.ladder_settings(ladder).get("run", {}).get("challenges_per_hour", 6))
