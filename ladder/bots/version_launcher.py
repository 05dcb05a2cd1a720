"""The always-on ladder's command versions (``bots version add ... --command``), launched by
the ladder at its referee as a season launches its command bots.

:class:`VersionLauncher` keeps one process per active command version: at each look
(:func:`keep_launched`, every ``interval``) it starts the versions not running yet (a fresh
token from the referee each time,
:meth:`brandeln.ladder.referee.admin_client.AdminClient.rotate_bot_token`, handed to the process
only; :func:`brandeln.ladder.bots.processes.start_bot`, with its output capped in a log of its own)
and stops, by process group, the ones retired since. A version whose process exits is not started
again in this run (a bot that crashes would crash again, and the referee would count each crash
against it): the exit is said once, in the log and as the version's last error (``ladder status``),
and the next run of the ladder starts it again. Presence, and so matchmaking, sees a launched
version like any other once its sessions connect.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from pathlib import Path

from brandeln.ladder.bots.processes import BotProcess, start_bot, stop_bots
from brandeln.ladder.errors import LadderError
from brandeln.ladder.living.ladder import LivingLadder
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.store.database import LadderStore, LadderVersion
from brandeln.ladder.tasks import finish_in_thread

__all__ = ["VersionLauncher", "keep_launched", "serve_launching"]

log = logging.getLogger("brandeln.ladder.launcher")


class VersionLauncher:
    """The processes of one ladder's command versions at one referee."""

    def __init__(
        self, store: LadderStore, ladder: str, admin: AdminClient, address: str, logs_dir: Path
    ) -> None:
        self.store = store
        self.ladder = ladder
        self.admin = admin
        self.address = address
        self.logs_dir = logs_dir
        self.running: dict[str, BotProcess] = {}
        self._ended: set[str] = set()  # exited or not startable: not tried again this run

    async def sync(self, versions: Sequence[LadderVersion]) -> None:
        """Start the active command versions not running; stop the ones retired."""
        wanted = {v.name: v for v in versions if v.active and v.command is not None}
        for name in sorted(set(self.running) - set(wanted)):
            log.info("stopping %s: retired", name, extra={"event": "version_stopped"})
            await stop_bots([self.running.pop(name)])
        for name, version in sorted(wanted.items()):
            process = self.running.get(name)
            if process is None and name not in self._ended:
                await self._start(version)
            elif process is not None and process.exited and name not in self._ended:
                self._ended.add(name)
                await process.output_written()
                await self._trouble(
                    name,
                    f"its process exited with code {process.process.returncode} (not started "
                    f"again until the ladder restarts); its log ({process.log_path}) ends: "
                    f"{process.log_tail(1)}",
                )

    async def _start(self, version: LadderVersion) -> None:
        assert version.command is not None
        token = await self.admin.rotate_bot_token(version.bot_id)
        if token is None:
            self._ended.add(version.name)
            await self._trouble(
                version.name,
                f"the referee at {self.address} does not know its bot id {version.bot_id} "
                "(publish it with the referee the ladder plays on)",
            )
            return
        try:
            self.running[version.name] = await start_bot(
                version.name,
                version.command.argv,
                server=self.address,
                token=token,
                tables=version.command.tables,
                log_path=self.logs_dir / f"{version.name}.log",
                die_with_parent=True,  # a SIGKILLed ladder leaves no bot behind
            )
        except LadderError as error:  # BotStartError: no such program
            self._ended.add(version.name)
            await self._trouble(version.name, str(error))
            return
        log.info(
            "launched %s (%d table(s))",
            version.name,
            version.command.tables,
            extra={"event": "version_launched", "bot": version.name},
        )

    async def _trouble(self, name: str, detail: str) -> None:
        log.warning("%s: %s", name, detail, extra={"event": "version_trouble", "bot": name})
        with contextlib.suppress(LadderError):  # said in the log already
            await finish_in_thread(self.store.presence.version_error, self.ladder, name, detail)

    async def close(self) -> None:
        """Stop every process this launcher started (by process group and token)."""
        running, self.running = list(self.running.values()), {}
        await stop_bots(running)


async def keep_launched(launcher: VersionLauncher, stop: asyncio.Event, interval_s: float) -> None:
    """Sync ``launcher`` with the ladder's versions every ``interval_s`` until ``stop`` is set
    (the store away: said once a look, tried again at the next); then stop its processes."""
    try:
        while not stop.is_set():
            try:
                versions = await finish_in_thread(launcher.store.ladders.versions, launcher.ladder)
                await launcher.sync(versions)
            except LadderError as error:
                log.warning("launching versions: %s", error, extra={"event": "launcher_error"})
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval_s)
    finally:
        await launcher.close()


async def serve_launching(
    ladder: LivingLadder, launcher: VersionLauncher, stop: asyncio.Event
) -> None:
    """Serve ``ladder`` with ``launcher`` keeping its command versions running beside it; both
    stop together (the processes stopped by PID whatever ends the run)."""
    launching = asyncio.ensure_future(keep_launched(launcher, stop, ladder.config.interval_s))
    try:
        await ladder.serve(stop)
    finally:
        launching.cancel()
        await asyncio.gather(launching, return_exceptions=True)
