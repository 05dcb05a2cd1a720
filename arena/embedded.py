"""A referee in the current event loop, for the CLI's season runner and for tests.

It never touches another referee's data: its admin token lives in memory for this run only (the
database's stored token, an operator's, is left alone), and it takes the database's lock
(``brandeln.arena.datalock``), so it refuses to start while a live referee (``brandeln serve``,
another season run) owns the folder. The CLI gives it a folder of its own (``DATA/embedded``).

>>> async def demo(tmp):                                   # doctest: +SKIP
...     async with EmbeddedReferee(tmp) as referee:
...         print(referee.address, referee.admin_token)
"""

from __future__ import annotations

import secrets
from pathlib import Path
from types import TracebackType

import grpc

from brandeln.arena.clock import Clock
from brandeln.arena.datalock import RefereeLock
from brandeln.arena.faults import FaultPolicy
from brandeln.arena.referee import AdminTokenScope, Referee, RefereeConfig
from brandeln.arena.server import TlsFiles, create_server, stop_server
from brandeln.arena.timecontrol import TimeControlSettings

__all__ = ["EmbeddedReferee"]


class EmbeddedReferee:
    """Start a referee on ``host:port`` (port 0: a free one) with its data under ``data_dir``.

    ``start`` raises ``brandeln.arena.errors.DataInUseError`` while another referee owns
    ``data_dir``.
    """

    def __init__(
        self,
        data_dir: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        admin_token: str | None = None,
        *,
        tls: TlsFiles | None = None,
        time_control: TimeControlSettings | None = None,
        clock: Clock | None = None,
        faults: FaultPolicy | None = None,
        database: str | None = None,
        owner: str = "an embedded referee (season run)",
    ) -> None:
        """``database``: a database URL (PostgreSQL, shared with other referees) in place of
        ``data_dir/referee.db``; its logs are then kept in it and no lock file is taken.
        ``owner``: who it runs for, as another referee refused the folder is told."""
        self.data_dir = Path(data_dir)
        self.host = host
        self.port = port
        # An embedded referee lives as long as its owner, so a fresh token each time is enough.
        self.admin_token = admin_token or secrets.token_urlsafe(24)
        self.tls = tls
        self.config = RefereeConfig(
            db_path=self.data_dir / "referee.db",
            logs_dir=self.data_dir / "logs",
            admin_token=self.admin_token,
            admin_token_scope=AdminTokenScope.THIS_RUN,
            time_control=time_control or TimeControlSettings(),
            database=database,
        )
        self.clock = clock
        self.faults = faults  # deliberate faults (brandeln.arena.faults), in this process only
        self.lock = RefereeLock(self.config.db_path, owner) if database is None else None
        self.referee: Referee | None = None
        self.server: grpc.aio.Server | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def start(self) -> EmbeddedReferee:
        if self.lock is not None:
            self.lock.acquire()  # before the file is opened: its recovery would harm a live one
        try:
            self.referee = Referee(self.config, self.clock, self.faults)
            self.server, self.port = await create_server(
                f"{self.host}:{self.port}", self.referee, self.tls
            )
        except BaseException:
            if self.referee is not None:
                self.referee.close()
                self.referee = None
            if self.lock is not None:
                self.lock.release_after_failure()
            raise
        if self.lock is not None:
            self.lock.announce(self.address)
        return self

    async def stop(self, grace: float = 1.0) -> None:
        """Abort running matches (recorded as aborted), then stop serving."""
        if self.referee is not None:
            await self.referee.abort_all()
        if self.server is not None:
            await stop_server(self.server, grace)
            self.server = None
        if self.referee is not None:
            self.referee.close()
            self.referee = None
        if self.lock is not None:
            self.lock.release()

    async def __aenter__(self) -> EmbeddedReferee:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()
