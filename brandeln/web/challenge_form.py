"""The challenge form of a ladder's page (``POST /ladders/NAME/challenges``): the one thing the
web front writes, and only when ``brandeln web --challenges`` turned it on.

What a post must pass, in order, each refusal one line with its status:

1. challenges on (else 403, naming the command that queues one from a terminal);
2. sent by a page of this very site: its ``Origin`` is the request's own origin (else 403), so
   a page elsewhere cannot queue challenges with a visitor's browser;
3. a form body (``application/x-www-form-urlencoded``, else 415) of at most
   :data:`MAX_FORM_BYTES` (else 413);
4. its fields (400): 1 to a table's seats of ``bot`` (a version ``BOT@VERSION``, or a bot
   standing for its active version, as ``brandeln challenge``), ``deals`` from 1 to
   :data:`MAX_DEALS` (empty: the ladder's), ``rated`` ticked or not;
5. bots that are active versions of the ladder (400), within the ladder's limit on challenges
   per bot per hour, which the store enforces (429, with its line).

>>> read_fields(b"bot=a%401&bot=&bot=b&deals=4&rated=on", seats=4, default_deals=8)
ChallengeFields(bots=('a@1', 'b'), deals=4, rated=True)
>>> read_fields(b"bot=a&deals=0", seats=4, default_deals=8)
Traceback (most recent call last):
...
brandeln.web.challenge_form.ChallengeRefusedError: deals takes a whole number from 1 to 1000
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Final

from starlette.datastructures import QueryParams
from starlette.requests import Request

from brandeln.arena.config import RefereeConfig
from brandeln.ladder.errors import LadderError
from brandeln.ladder.living.challenge_names import resolve_versions
from brandeln.ladder.living.config import LadderConfig
from brandeln.ladder.store.database import ChallengeLimitError, LadderStore
from brandeln.web.data import BadRequestError, StorageLocation
from brandeln.web.form_posts import own_origin, parse_fields, read_form
from brandeln.web.inputs import shown, single

__all__ = [
    "MAX_FORM_BYTES",
    "ChallengeFields",
    "ChallengeRefusedError",
    "cli_command",
    "queue_challenge",
    "queued_number",
    "read_body",
    "read_fields",
    "refuse_unless_allowed",
]

# Four version names and two small fields, percent-encoded, with room to spare: a form, not an
# upload.
MAX_FORM_BYTES: Final = 4096
MAX_FIELDS: Final = 16
# The referee's own cap on a match's deals (it refuses more): the form asks no more of it.
MAX_DEALS: Final = RefereeConfig.max_deals
REQUESTED_BY: Final = "web"
MAX_NUMBER_DIGITS: Final = 18  # a challenge's number: a 64-bit key
DEFAULT_PER_HOUR: Final = LadderConfig().challenges_per_hour  # a ladder that stored none


class ChallengeRefusedError(Exception):
    """A challenge not queued: ``status`` and a one-line reason for the page."""

    def __init__(self, status: HTTPStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ChallengeFields:
    """The form's fields, checked for form (not yet against the ladder)."""

    bots: tuple[str, ...]
    deals: int
    rated: bool


def cli_command(
    ladder: str,
    bots: Sequence[str] = ("A", "B"),
    deals: int | None = None,
    location: StorageLocation | None = None,
) -> str:
    """The terminal's way to queue the same challenge (the page shows it when the form is off),
    pointed at the ``location`` this server reads: its data folder as an absolute path, so it
    runs from any folder; a database as ``--db URL`` to fill in (the page is public: it names
    no database server).

    >>> cli_command("ladder", deals=8)
    'brandeln challenge A B --deals 8'
    >>> cli_command("my ladder")
    "brandeln challenge A B --ladder 'my ladder'"
    >>> from pathlib import Path
    >>> cli_command("ladder", location=StorageLocation(data=Path("/srv/brandeln data")))
    "brandeln challenge A B --data '/srv/brandeln data'"
    """
    words = ["brandeln", "challenge", *(shlex.quote(bot) for bot in bots)]
    if deals is not None:
        words += ["--deals", str(deals)]
    if ladder != "ladder":  # brandeln.cli.options.DEFAULT_LADDER
        words += ["--ladder", shlex.quote(ladder)]
    if location is not None and location.db_url:
        words += ["--db", "URL"]
    elif location is not None and location.data is not None:
        words += ["--data", shlex.quote(str(location.data.absolute()))]
    return " ".join(words)


def queued_number(params: QueryParams) -> int | None:
    """``?queued=N``: the challenge the form just queued (the page says so), or None.

    >>> queued_number(QueryParams("queued=12")), queued_number(QueryParams(""))
    (12, None)
    """
    text = single(params, "queued")
    if text is None:
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= MAX_NUMBER_DIGITS):
        raise BadRequestError("?queued= takes a challenge's number")
    return int(text)


def refuse_unless_allowed(
    request: Request, *, allowed: bool, ladder: str, location: StorageLocation | None = None
) -> None:
    """Steps 1 and 2: challenges on, the post from a page of this site (``location``: where
    the server reads the ladder, for the command the refusal names)."""
    if not allowed:
        raise ChallengeRefusedError(
            HTTPStatus.FORBIDDEN,
            "this web server takes no challenges (start it with brandeln web --challenges); "
            f"from a terminal: {cli_command(ladder, location=location)}",
        )
    if not own_origin(request):  # brandeln.web.form_posts says why
        raise ChallengeRefusedError(
            HTTPStatus.FORBIDDEN, "a challenge is queued from this site's own ladder page only"
        )


async def read_body(request: Request) -> bytes:
    """Step 3: the form's body, read no further than :data:`MAX_FORM_BYTES`."""
    return await read_form(
        request, max_bytes=MAX_FORM_BYTES, what="the challenge form", refused=ChallengeRefusedError
    )


def read_fields(body: bytes, *, seats: int, default_deals: int) -> ChallengeFields:
    """Step 4: the fields of ``body`` (ChallengeRefusedError, 400, saying what is wrong)."""

    def bad(reason: str) -> ChallengeRefusedError:
        return ChallengeRefusedError(HTTPStatus.BAD_REQUEST, reason)

    fields = parse_fields(body, max_fields=MAX_FIELDS, refused=ChallengeRefusedError)
    bots = tuple(name.strip() for name in fields.get("bot", []) if name.strip())
    if not bots:
        raise bad("name at least one bot to challenge")
    if len(bots) > seats:
        raise bad(f"a block seats {seats}: {len(bots)} bots named")
    deals_given = fields.get("deals", [""])
    if len(deals_given) != 1:
        raise bad("deals is given more than once")
    text = deals_given[0].strip()
    if not text:
        deals = default_deals
    elif text.isascii() and text.isdigit() and len(text) <= len(str(MAX_DEALS)):
        deals = int(text)
    else:
        deals = 0
    if not 1 <= deals <= MAX_DEALS:
        raise bad(f"deals takes a whole number from 1 to {MAX_DEALS}")
    return ChallengeFields(bots, deals, rated="rated" in fields)


def queue_challenge(store: LadderStore, ladder: str, fields: ChallengeFields) -> int:
    """Step 5: the challenge queued (its number), on behalf of "web"."""
    versions = store.ladders.versions(ladder)
    try:
        seated = resolve_versions(versions, fields.bots, ladder)
    except LadderError as error:
        raise ChallengeRefusedError(HTTPStatus.BAD_REQUEST, str(error)) from None
    active = {version.name for version in versions if version.active}
    for name in seated:
        if name not in active:
            raise ChallengeRefusedError(
                HTTPStatus.BAD_REQUEST, f"{shown(name)} is retired from ladder {shown(ladder)}"
            )
    per_hour = store.ladders.ladder_settings(ladder).get("run", {}).get("challenges_per_hour")
    try:
        return store.challenges.queue_challenge(
            ladder,
            seated,
            deals=fields.deals,
            rated=fields.rated,
            requested_by=REQUESTED_BY,
            per_hour=int(per_hour or DEFAULT_PER_HOUR),
        )
    except ChallengeLimitError as error:
        # The versions were active a moment ago: what the store refuses now is the limit (or
        # a version retired since, which waiting will not cure either).
        raise ChallengeRefusedError(HTTPStatus.TOO_MANY_REQUESTS, str(error)) from None
