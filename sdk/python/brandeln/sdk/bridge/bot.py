"""The stdio bridge: a bot in any language, as a child process speaking JSON Lines.

:class:`BridgeBot` is an SDK bot that keeps the gRPC session and runs ``command`` as a child:
every referee message goes to the child's stdin as one JSON object per line (format in
:mod:`brandeln.sdk.bridge.format` and README.md); each line the child prints on stdout
that answers the open request (``{"request_id": 7, "choice": "HJ"}`` or ``{"choice_index": 0}``)
becomes the ``Action``; ``{"type": "log", "text": ...}`` becomes a ``BotLog``. Anything else the
child prints is logged and ignored. The child's stderr goes to the match log as ``BotLog`` lines,
capped per match.

Stderr is filed in the match during which it was written. The referee closes a match's log when
it sends ``MatchEnded``, and in a season the next match may start at once, so: what the child
writes before an answer is sent before that answer; what it writes after ``match_ended`` (a
summary, a goodbye) goes to the bridge's own log, not to the next match; and the next match's
messages reach the child only once its stderr has been quiet for ``STDERR_QUIET_S`` (at most
``STDERR_SETTLE_MAX_S`` after the match ended). A child that writes about the old match later
than that has those lines filed in the new one.

A child that dies is restarted (at most ``max_restarts`` times per match) and told the welcome,
the match and the deal again before the open request; past that the requests go unanswered,
so the referee's clock runs out and it plays the fallback (the seat collects strikes, the table
carries on) until the next match, which starts a new child.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence
from typing import Final

from brandeln.sdk import Answer, Bot, NotationError, parse_choice
from brandeln.sdk.bridge.format import (
    JsonObject,
    deal_started_json,
    event_json,
    match_ended_json,
    match_started_json,
    rejected_json,
    request_json,
    welcome_json,
)
from brandeln.v1 import bot_pb2, cards_pb2

STDERR_CAP_BYTES: Final = 32_000  # per match, forwarded to the match log
GARBAGE_LOG_LIMIT: Final = 20  # garbage lines reported per match
LINE_LIMIT: Final = 1 << 20  # longest line read from the child
SHOWN_CHARS: Final = 300  # of a garbage line, in the log
RESTART_DELAY_S: Final = 0.1
STDERR_QUIET_S: Final = 0.05  # of silence on stderr after match_ended: the child is done with it
STDERR_SETTLE_MAX_S: Final = 0.5  # the longest the next match waits for that silence
_CATCH_UP_ITERATIONS: Final = 3  # loop turns for stderr already in the pipe to be read and sent

logger = logging.getLogger("brandeln.sdk.bridge.bot")


class _Answer:
    """One parsed answer line."""

    def __init__(self, request_id: int | None, answer: Answer) -> None:
        self.request_id = request_id
        self.answer = answer


class BridgeBot(Bot):
    """Relays the session to a child process over JSON Lines (one bridge per seat session)."""

    version = "1.0"
    decide_in_thread = False

    def __init__(
        self,
        command: Sequence[str],
        name: str = "bridge",
        wants_events: bool = True,
        max_restarts: int = 3,
    ) -> None:
        super().__init__()
        if not command:
            raise ValueError("the bridge needs a COMMAND to run (after --)")
        self.command = list(command)
        self.name = name
        self.wants_events = wants_events
        self.max_restarts = max_restarts
        self.restarts = 0  # in the current match
        self.children_started = 0
        self._proc: asyncio.subprocess.Process | None = None
        self._io_tasks: list[asyncio.Task[None]] = []
        self._answers: asyncio.Queue[_Answer | None] = asyncio.Queue()
        self._context: dict[str, JsonObject] = {}  # welcome, match, deal: replayed on restart
        self._ruleset: cards_pb2.Ruleset | None = None  # the current match's
        self._stderr_bytes = 0
        self._garbage_logged = 0
        self._filing_stderr = False  # stderr goes to the match log (only during a match)
        self._last_stderr_at = 0.0  # loop time of the last stderr line
        self._match_ended_at: float | None = None  # loop time match_ended went to the child
        self._starting: asyncio.Task[None] | None = None  # holds the next match until settled
        self._held: list[JsonObject] = []  # messages for the child while it is held

    # --- the child ---------------------------------------------------------------------
    @property
    def child_alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    async def _start_child(self) -> None:
        self._proc = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=LINE_LIMIT,
        )
        self.children_started += 1
        self._answers = asyncio.Queue()
        proc = self._proc
        assert proc.stdout is not None
        assert proc.stderr is not None
        self._io_tasks = [
            asyncio.create_task(self._read_stdout(proc.stdout)),
            asyncio.create_task(self._read_stderr(proc.stderr)),
        ]
        logger.info("bridge: started %s (pid %d)", " ".join(self.command), proc.pid)
        # While the next match is held, it is told the match by _begin_match, not here.
        keys = ("welcome",) if self._holding else ("welcome", "match_started", "deal_started")
        for key in keys:
            if key in self._context:
                self._write_now(self._context[key])

    async def _ensure_child(self) -> bool:
        """A running child, restarting a dead one if the match allows; False if none."""
        if self.child_alive:
            return True
        if self._proc is not None:  # it ran and died
            if self.restarts >= self.max_restarts:
                return False
            self.restarts += 1
            self.log(f"bridge: restarting the child ({self.restarts}/{self.max_restarts})")
            await asyncio.sleep(RESTART_DELAY_S)
        try:
            await self._start_child()
        except OSError as error:
            self.log(f"bridge: cannot start {self.command[0]!r}: {error}")
            logger.error("bridge: cannot start %r: %s", self.command, error)
            return False
        return True

    async def _read_stdout(self, stream: asyncio.StreamReader) -> None:
        while True:
            try:
                raw = await stream.readline()
            except ValueError:  # a line over LINE_LIMIT: drop what is buffered
                self._garbage("a line longer than 1 MiB")
                continue
            if not raw:
                break
            self._on_line(raw.decode("utf-8", errors="replace").strip())
        await self._child_exited()

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        while raw := await stream.readline():
            self._last_stderr_at = asyncio.get_running_loop().time()
            line = raw.decode("utf-8", errors="replace").rstrip()
            if not self._filing_stderr:
                # Between matches: the last match's log is closed, the next is not this one's.
                logger.info("bridge child stderr (outside a match, in no match log): %s", line)
                continue
            logger.debug("bridge child stderr: %s", line)
            if self._stderr_bytes < STDERR_CAP_BYTES:
                self._stderr_bytes += len(raw)
                if self._stderr_bytes >= STDERR_CAP_BYTES:
                    line += " [stderr cap reached: further output of this match not logged]"
                self.log(f"[stderr] {line}")

    async def _child_exited(self) -> None:
        proc = self._proc
        if proc is None:
            return
        code = await proc.wait()
        self.log(f"bridge: the child exited with code {code}")
        logger.warning("bridge: child %s exited with code %s", self.command[0], code)
        self._answers.put_nowait(None)  # wake a waiting decide

    def _on_line(self, line: str) -> None:
        if not line:
            return
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            self._garbage(line)
            return
        if not isinstance(message, dict):
            self._garbage(line)
            return
        if message.get("type") == "log":
            self.log(str(message.get("text", "")))
            return
        answer = self._parse_answer(message)
        if answer is None:
            self._garbage(line)
        else:
            self._answers.put_nowait(answer)

    @staticmethod
    def _parse_answer(message: JsonObject) -> _Answer | None:
        request_id = message.get("request_id")
        if isinstance(request_id, str) and request_id.isdigit():
            request_id = int(request_id)
        if request_id is not None and (
            isinstance(request_id, bool) or not isinstance(request_id, int)
        ):
            return None
        index = message.get("choice_index")
        if isinstance(index, int) and not isinstance(index, bool):
            return _Answer(request_id, index)
        choice = message.get("choice")
        if isinstance(choice, str):
            try:
                return _Answer(request_id, parse_choice(choice))
            except NotationError:
                return None
        return None

    def _garbage(self, line: str) -> None:
        self._garbage_logged += 1
        if self._garbage_logged <= GARBAGE_LOG_LIMIT:
            shown = line if len(line) <= SHOWN_CHARS else line[:SHOWN_CHARS] + "..."
            note = (
                " (further garbage not logged)" if self._garbage_logged == GARBAGE_LOG_LIMIT else ""
            )
            self.log(f"bridge: ignored a line from the child that is not an answer: {shown}{note}")
        logger.warning("bridge: ignored child output: %.200s", line)

    @property
    def _holding(self) -> bool:
        return self._starting is not None and not self._starting.done()

    def _write(self, message: JsonObject) -> None:
        """Send ``message`` to the child, after the next match's start if that is held."""
        if self._holding:
            self._held.append(message)
            return
        self._write_now(message)

    def _write_now(self, message: JsonObject) -> None:
        proc = self._proc
        if proc is None or proc.returncode is not None or proc.stdin is None:
            return
        if proc.stdin.is_closing():
            return
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        with contextlib.suppress(ConnectionError, RuntimeError):
            proc.stdin.write(data)

    # --- the bot -------------------------------------------------------------------------
    async def decide_async(self, request: bot_pb2.DecisionRequest) -> Answer:
        if self._starting is not None:
            await self._starting  # the child hears of the match before its first request
        while True:
            if not await self._ensure_child():
                # No child to ask: let the referee's clock run out (fallback and a strike).
                await asyncio.Event().wait()
            self._write(request_json(request, self._ruleset))
            while True:
                answer = await self._answers.get()
                if answer is None:  # the child died: restart it and ask again
                    break
                if answer.request_id in (None, request.request_id):
                    await self._stderr_caught_up()
                    return answer.answer
                logger.info("bridge: ignoring an answer for request %s", answer.request_id)

    def on_welcome(self, welcome: bot_pb2.Welcome) -> None:
        self._remember("welcome", welcome_json(welcome))

    async def _stderr_caught_up(self) -> None:
        """Let stderr the child wrote before its answer be read and sent before the answer (a
        match's last answer ends it, and with it the log the lines belong in)."""
        for _ in range(_CATCH_UP_ITERATIONS):
            await asyncio.sleep(0)

    def on_match_start(self, match: bot_pb2.MatchStarted) -> None:
        self.restarts = 0
        self._stderr_bytes = 0
        self._garbage_logged = 0
        self._context.pop("deal_started", None)
        self._ruleset = match.ruleset  # its pack and trump order give the request's strengths
        self._context["match_started"] = match_started_json(match)
        if self._match_ended_at is None or not self.child_alive:
            self._begin_match_now()
        else:
            self._starting = asyncio.get_running_loop().create_task(self._begin_match())

    async def _begin_match(self) -> None:
        """Tell the child of the new match once its stderr about the last one has settled."""
        loop = asyncio.get_running_loop()
        ended = self._match_ended_at if self._match_ended_at is not None else loop.time()
        deadline = ended + STDERR_SETTLE_MAX_S
        while self.child_alive:
            quiet_at = max(ended, self._last_stderr_at) + STDERR_QUIET_S
            wait = min(quiet_at, deadline) - loop.time()
            if wait <= 0:
                break
            await asyncio.sleep(wait)
        self._begin_match_now()

    def _begin_match_now(self) -> None:
        self._starting = None
        self._filing_stderr = True
        self._write_now(self._context["match_started"])
        held, self._held = self._held, []
        for message in held:
            self._write_now(message)

    def on_deal_start(self, deal: bot_pb2.DealStarted) -> None:
        self._remember("deal_started", deal_started_json(deal))

    def on_event(self, event: cards_pb2.GameEvent) -> None:
        self._write(event_json(event))

    def on_rejected(self, rejected: bot_pb2.ActionRejected) -> None:
        self._write(rejected_json(rejected))

    def on_match_end(self, ended: bot_pb2.MatchEnded) -> None:
        self._filing_stderr = False  # the referee has closed this match's log
        self._write(match_ended_json(ended))
        self._match_ended_at = asyncio.get_running_loop().time()
        for key in ("match_started", "deal_started"):
            self._context.pop(key, None)
        if not self.child_alive:
            self._proc = None  # a fresh child for the next match, restarts counted anew
            self.restarts = 0

    def _remember(self, key: str, message: JsonObject) -> None:
        self._context[key] = message
        self._write(message)

    async def start(self) -> None:
        """Start the child now (the SDK also starts it lazily on the first request)."""
        await self._ensure_child()

    async def close(self) -> None:
        if self._starting is not None:
            self._starting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._starting
        proc, self._proc = self._proc, None
        if proc is not None and proc.returncode is None:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 2.0)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        for task in self._io_tasks:
            task.cancel()
        for task in self._io_tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
