"""The always-on ladder's pages (:mod:`brandeln.web.ladders` reads them): ``/ladders/NAME``, its
state for the page's redraw (``/ladders/NAME/state.json``) and the challenge form's post
(``POST /ladders/NAME/challenges``, the one write of the app, refused unless the app allows
challenges: :mod:`brandeln.web.challenge_form`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from http import HTTPStatus
from typing import Final
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from brandeln.web import challenge_form, inputs, ladders
from brandeln.web.challenge_form import ChallengeFields, ChallengeRefusedError
from brandeln.web.script_json import script_json
from brandeln.web.stores import AppStores

__all__ = ["LADDER_REFERRER_POLICY", "LadderPages", "now_ms"]

# The ladder's page holds the challenge form: a browser names the page's origin in the post's
# Origin header (which the form's check needs) only under a policy that lets it; "same-origin"
# still sends no address to other sites.
LADDER_REFERRER_POLICY: Final = "same-origin"

Render = Callable[..., Response]


def now_ms() -> int:
    """The wall clock, for the age of what a ladder last saw (stored in ms since the epoch)."""
    return time.time_ns() // 1_000_000


class LadderPages:
    """The ladder's page handlers, rendering with the app's ``render``."""

    def __init__(self, render: Render, stores: AppStores, *, allow_challenges: bool) -> None:
        self.render = render
        self.stores = stores
        self.allow_challenges = allow_challenges

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/ladders/{name}", self.ladder, name="ladder"),
            Route("/ladders/{name}/state.json", self.ladder_state, name="ladder_state"),
            Route(
                "/ladders/{name}/challenges",
                self.ladder_challenge,
                methods=["POST"],
                name="ladder_challenge",
            ),
        ]

    def ladder(self, request: Request) -> Response:
        name = inputs.season_name(request.path_params["name"])
        queued = challenge_form.queued_number(request.query_params)
        with self.stores.open() as stores:
            view = ladders.ladder_view(stores, name, now_ms())
        return self._ladder_page(request, view, queued=queued)

    def ladder_state(self, request: Request) -> Response:
        name = inputs.season_name(request.path_params["name"])
        with self.stores.open() as stores:
            view = ladders.ladder_view(stores, name, now_ms())
        return Response(
            script_json(ladders.state_json(view)),
            media_type="application/json",
            headers={"cache-control": "no-store"},  # each poll reads the ladder anew
        )

    async def ladder_challenge(self, request: Request) -> Response:
        name = inputs.season_name(request.path_params["name"])
        try:
            challenge_form.refuse_unless_allowed(
                request, allowed=self.allow_challenges, ladder=name, location=self.stores.location
            )
            body = await challenge_form.read_body(request)
        except ChallengeRefusedError as refused:
            return await run_in_threadpool(self._refused_post, request, name, refused)
        # The store's reads and its write block: in a worker thread, as the other pages.
        return await run_in_threadpool(self._queue_challenge, request, name, body)

    def _queue_challenge(self, request: Request, name: str, body: bytes) -> Response:
        with self.stores.open() as stores:
            view = ladders.ladder_view(stores, name, now_ms())
            assert stores.ladder is not None  # ladder_view found the ladder there
            fields = None
            try:
                fields = challenge_form.read_fields(
                    body, seats=view.seats, default_deals=view.deals_per_match
                )
                number = challenge_form.queue_challenge(stores.ladder, name, fields)
            except ChallengeRefusedError as refused:
                return self._ladder_page(request, view, refused=refused, fields=fields)
        root = str(request.scope.get("root_path", "")).rstrip("/")
        # 303: the browser follows with a GET, so a reload does not post the form again.
        return RedirectResponse(
            f"{root}/ladders/{quote(name, safe='')}?queued={number}",
            status_code=HTTPStatus.SEE_OTHER,
        )

    def _refused_post(
        self, request: Request, name: str, refused: ChallengeRefusedError
    ) -> Response:
        with self.stores.open() as stores:
            view = ladders.ladder_view(stores, name, now_ms())
        return self._ladder_page(request, view, refused=refused)

    def _ladder_page(
        self,
        request: Request,
        view: ladders.LadderView,
        *,
        queued: int | None = None,
        refused: ChallengeRefusedError | None = None,
        fields: ChallengeFields | None = None,
    ) -> Response:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        path = f"{root}/ladders/{quote(view.name, safe='')}"
        response = self.render(
            request,
            "ladder.html",
            {
                "ladder": view,
                "ladder_path": path,
                "state_url": f"{path}/state.json",
                "poll_ms": ladders.LADDER_POLL_S * 1000,
                "allow_challenges": self.allow_challenges,
                "cli_command": challenge_form.cli_command(
                    view.name, deals=view.deals_per_match, location=self.stores.location
                ),
                "queued": queued,
                "refused": refused.reason if refused is not None else "",
                "fields": fields,
                "max_deals": challenge_form.MAX_DEALS,
            },
            status=refused.status if refused is not None else HTTPStatus.OK,
        )
        response.headers["referrer-policy"] = LADDER_REFERRER_POLICY
        return response
