"""The web app: pages over the ladder's and the referees' stores, read-only but for an always-on
ladder's challenge form (when the app is made with ``allow_challenges``).

>>> from pathlib import Path
>>> app = create_app(StorageLocation(data=Path("brandeln-data")))
>>> sorted(route.name for route in app.routes if route.name)[:3]
['bot', 'index', 'ladder']

Pages (server-rendered; a little JavaScript sorts the leaderboard and draws the rating charts
with vendored libraries, and redraws a ladder's page as it moves):

- ``/``: the seasons, the always-on ladders and the newest matches;
- ``/seasons/NAME``: its progress (refreshing itself while it runs) and schedule;
- ``/seasons/NAME/leaderboard``: the figures of ``brandeln ratings``, sortable;
- ``/seasons/NAME/ratings``: every bot's μ with its ±3σ band over the blocks;
- ``/ladders/NAME``: an always-on ladder (``brandeln ladder serve``): its versions ranked, where
  each stands at the referee, its newest blocks and its queue, redrawn in place every few
  seconds from ``/ladders/NAME/state.json`` (:mod:`brandeln.web.ladders`); and the challenge form,
  ``POST /ladders/NAME/challenges``, the one write of the app, off unless
  ``allow_challenges`` (``brandeln web --challenges``; :mod:`brandeln.web.challenge_form`);
- ``/bots/BOT_ID``: its seasons, matches, chips as soloist and defender, contracts, latency,
  and, for a ladder's version, where it stands there;
- ``/matches/MATCH_ID``: seats, result, one row per deal (and the replay, where plugged in).
- ``/manual/``: the manual, as `make docs` built it (:mod:`brandeln.web.manual`); the tables'
  form and a bot's page link into it.

The app owns its stores (:class:`brandeln.web.stores.AppStores`): each request takes them in the
thread that serves it, and the app's lifespan closes what stays open (a PostgreSQL database) when it
shuts down, so a server (``brandeln web`` runs uvicorn with the lifespan on) or a test client
leaves no engine or connection behind. What a request asks for is checked first
(:mod:`brandeln.web.inputs`: a bad ``?page=`` is a 400, an id of no form the referee gives a 404, a
match id prefix several matches start with a 400), and every request passes
:mod:`brandeln.web.guard` (a 421 for a ``Host`` the app does not answer to, against DNS rebinding; a
403 for a post from another site; a 414 for an overlong address; the security headers on every
response).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from http import HTTPStatus
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from brandeln.arena.logrecords import MatchStatus
from brandeln.services.trusted_hosts import LOOPBACK_ONLY, TrustedHosts
from brandeln.web import bots, inputs, ladder_routes, ladders, listing, matches, seasons
from brandeln.web.batch_view import batch_view
from brandeln.web.bot_figures import FiguresCache
from brandeln.web.bot_roles import bot_roles
from brandeln.web.data import BadRequestError, DataError, PageNotFoundError, StorageLocation
from brandeln.web.guard import Guard
from brandeln.web.ladder_routes import LadderPages
from brandeln.web.live import KEEPALIVE_S, RefereeLiveSource, live_routes
from brandeln.web.manual import checkout_manual, manual_mount
from brandeln.web.manual import links as manual_links
from brandeln.web.replay_model import match_model
from brandeln.web.stores import AppStores
from brandeln.web.stream_cap import MAX_STREAMS, StreamSlots
from brandeln.web.table_setup import tables_for
from brandeln.web.templating import STATIC_DIR, environment

__all__ = ["RUNNING_REFRESH_S", "StorageLocation", "create_app"]

RUNNING_REFRESH_S: Final = 5  # a running season's page reloads itself this often

Handler = Callable[[Request], Response]


class _Pages:
    """The page handlers, sharing the app's stores, the figures read from logs, and the
    templates."""

    def __init__(
        self,
        stores: AppStores,
        referee: matches.RefereeLink | None,
    ) -> None:
        self.stores = stores
        self.location = stores.location
        self.referee = referee
        self.figures = FiguresCache()
        self.templates = Jinja2Templates(env=environment())

    def render(
        self,
        request: Request,
        name: str,
        context: dict[str, Any],
        status: HTTPStatus = HTTPStatus.OK,
    ) -> Response:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        context = {
            "root_path": root,
            "static_prefix": f"{root}/static",
            "manual": manual_links(root),
            "location": self.location.describe(),
            **context,
        }
        return self.templates.TemplateResponse(request, name, context, status_code=status)

    def index(self, request: Request) -> Response:
        page = inputs.page_number(request.query_params)
        with self.stores.open() as stores:
            every_season = seasons.seasons(stores)
            names = ladders.ladder_names(stores)
            # A ladder is a season too (its season pages work), but it is listed apart.
            season_rows = [row for row in every_season if row.name not in names]
            ladder_seasons = [row for row in every_season if row.name in names]
            ladder_rows = ladders.ladders(stores, ladder_seasons, ladder_routes.now_ms())
            match_rows, paging = listing.recent_matches(stores, page)
        return self.render(
            request,
            "index.html",
            {
                "seasons": season_rows,
                "ladders": ladder_rows,
                "matches": match_rows,
                "paging": paging,
            },
        )

    def season(self, request: Request) -> Response:
        name = inputs.season_name(request.path_params["name"])
        page = inputs.page_number(request.query_params)
        with self.stores.open() as stores:
            info = seasons.season_info(stores, name)
            blocks, paging = seasons.schedule(stores, name, page)
            links = seasons.bot_links(stores, name)
        return self.render(
            request,
            "season.html",
            {
                "season": info,
                "blocks": blocks,
                "paging": paging,
                "links": links,
                "refresh": RUNNING_REFRESH_S if info.running else None,
            },
        )

    def leaderboard(self, request: Request) -> Response:
        name = inputs.season_name(request.path_params["name"])
        side_a = inputs.single(request.query_params, "a") or ""
        side_b = inputs.single(request.query_params, "b") or ""
        with self.stores.open() as stores:
            info = seasons.season_info(stores, name)
            rows = seasons.leaderboard(stores, name)
            links = seasons.bot_links(stores, name)
            versus = seasons.versus(stores, name, [row.bot for row in rows], side_a, side_b)
            batch = batch_view(stores, name)
        return self.render(
            request,
            "leaderboard.html",
            {"season": info, "rows": rows, "links": links, "versus": versus, "batch": batch},
            status=HTTPStatus.BAD_REQUEST if versus.error else HTTPStatus.OK,
        )

    def ratings(self, request: Request) -> Response:
        name = inputs.season_name(request.path_params["name"])
        with self.stores.open() as stores:
            info = seasons.season_info(stores, name)
            series = seasons.rating_series(stores, name)
            links = seasons.bot_links(stores, name)
        return self.render(
            request,
            "ratings.html",
            {"season": info, "chart": seasons.chart_data(series), "links": links},
        )

    def bot(self, request: Request) -> Response:
        bot_id = inputs.bot_id(request.path_params["bot_id"])
        page = inputs.page_number(request.query_params)
        with self.stores.open() as stores:
            view = bots.bot_view(stores, bot_id, page, self.figures)
            series = bots.bot_rating_series(stores, view.seasons)
            versions = ladders.bot_ladders(stores, view.seasons, ladder_routes.now_ms())
            roles = bot_roles(stores, view.seasons)
        return self.render(
            request,
            "bot.html",
            {
                "bot": view,
                "chart": seasons.chart_data(series),
                "stats_matches": bots.BOT_STATS_MATCHES,
                "ladders": versions,
                "roles": roles,
            },
        )

    def match(self, request: Request) -> Response:
        match_id = inputs.match_id(request.path_params["match_id"])
        with self.stores.open() as stores:
            view = matches.match_view(stores, match_id, self.referee)
        # The replay steps through the deals the log holds (a running match: those that have
        # ended, brandeln.web.match_logs.finished_deals); the live table follows a running match
        # when the app watches a referee.
        replay = match_model(view.log) if view.log is not None else None
        live = self.referee is not None and view.record.status is MatchStatus.RUNNING
        return self.render(request, "match.html", {"match": view, "replay": replay, "live": live})

    # -- errors ---------------------------------------------------------------------------

    def error(self, request: Request, status: HTTPStatus, title: str, message: str) -> Response:
        return self.render(
            request, "error.html", {"title": title, "message": message}, status=status
        )

    def not_found(self, request: Request, exc: Exception) -> Response:
        message = str(exc) if isinstance(exc, PageNotFoundError) else "no such page"
        return self.error(request, HTTPStatus.NOT_FOUND, "Not found", message)

    def bad_request(self, request: Request, exc: Exception) -> Response:
        return self.error(request, HTTPStatus.BAD_REQUEST, "Bad request", str(exc))

    def data_error(self, request: Request, exc: Exception) -> Response:
        status = HTTPStatus.INTERNAL_SERVER_ERROR
        return self.error(request, status, "The data cannot be read", str(exc))

    def http_error(self, request: Request, exc: Exception) -> Response:
        status = HTTPStatus(exc.status_code if isinstance(exc, HTTPException) else 500)
        if status is HTTPStatus.NOT_FOUND:
            return self.not_found(request, exc)
        detail = exc.detail if isinstance(exc, HTTPException) else "error"
        return self.error(request, status, "Error", detail)


def create_app(
    location: StorageLocation,
    *,
    referee: str | None = None,
    admin_token: str | None = None,
    extra_routes: Sequence[BaseRoute] = (),
    debug: bool = False,
    max_streams: int = MAX_STREAMS,
    allow_challenges: bool = False,
    tables: bool = True,
    people_token: str | None = None,
    keepalive_s: float = KEEPALIVE_S,
    trusted_hosts: TrustedHosts = LOOPBACK_ONLY,
    manual: Path | None = None,
) -> Starlette:
    """The app over ``location`` (checked first: :class:`DataError` if it cannot be served).

    ``referee``/``admin_token``: a running referee's Admin service: a match page asks it for
    a match the local stores do not hold, and the pages that watch it (``extra_routes``, e.g.
    the live table's) are mounted beside the pages. ``max_streams``: the live tables' event
    streams open at once (:mod:`brandeln.web.stream_cap`). ``allow_challenges``: a ladder's page
    queues challenges (its form's posts are refused with a 403 otherwise). ``tables``: the
    tables where people play (:mod:`brandeln.web.table_routes`; at ``referee``, else at a referee of
    the app's own over the data folder), ``people_token`` what a person gives to take a seat.
    ``keepalive_s``: the longest silence on an event stream before a keep-alive comment.
    ``trusted_hosts``: the names it answers to (``Host``), at the port each request came to
    (:class:`brandeln.services.trusted_hosts.TrustedHosts`; by default the loopback names only).
    ``manual``: the built manual's folder, served under /manual/ (:mod:`brandeln.web.manual`;
    by default the checkout's site/, which `make docs` builds).

    The app's stores are ``app.state.stores``; its lifespan closes them (run it: a server
    with its lifespan on, ``with TestClient(app)``; or call ``app.state.stores.close()``).
    """
    stores = AppStores(location)
    if referee is not None and not admin_token:
        raise DataError("a referee needs its admin token")
    link = None if referee is None or not admin_token else matches.RefereeLink(referee, admin_token)
    pages = _Pages(stores, link)
    people = tables_for(location, referee, admin_token, enabled=tables, people_token=people_token)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            try:
                await people.close()  # their bots stopped, the tables' own referee too
            finally:
                stores.close()

    slots = StreamSlots(max_streams)
    if referee is not None and admin_token:
        source = RefereeLiveSource(referee, admin_token)
        extra_routes = [*live_routes(source, slots=slots, keepalive_s=keepalive_s), *extra_routes]
    live_here = referee is not None and bool(admin_token)  # its live routes are mounted above
    table_pages = people.routes(
        pages.render, slots, live_mounted=live_here, keepalive_s=keepalive_s
    )
    extra_routes = [*table_pages, *extra_routes]
    routes: list[BaseRoute] = [
        Route("/", pages.index, name="index"),
        Route("/seasons/{name}", pages.season, name="season"),
        Route("/seasons/{name}/leaderboard", pages.leaderboard, name="leaderboard"),
        Route("/seasons/{name}/ratings", pages.ratings, name="ratings"),
        *LadderPages(pages.render, stores, allow_challenges=allow_challenges).routes(),
        Route("/bots/{bot_id}", pages.bot, name="bot"),
        Route("/matches/{match_id}", pages.match, name="match"),
        *extra_routes,
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        manual_mount(manual if manual is not None else checkout_manual(), pages.render),
    ]
    app = Starlette(
        debug=debug,
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(Guard, trusted_hosts=trusted_hosts)],
        exception_handlers={
            PageNotFoundError: pages.not_found,
            BadRequestError: pages.bad_request,
            DataError: pages.data_error,
            HTTPException: pages.http_error,
        },
    )
    app.state.location = location
    app.state.stores = stores
    app.state.referee = referee
    app.state.admin_token = admin_token
    app.state.stream_slots = slots
    app.state.allow_challenges = allow_challenges
    app.state.tables = people.room
    return app
