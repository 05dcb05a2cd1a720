"""A referee process with short connection limits, so a test sees them act within seconds.

Usage: python tests/faults/limited_referee.py DATA_DIR HANDSHAKE_MS STREAMS IDLE_MS

It serves what ``brandeln serve`` serves (``brandeln.arena.server.create_server``, after raising the
open-file limit the same way), with the admin token from $BRANDELN_ADMIN_TOKEN, on a free
loopback port; it prints ``referee listening on 127.0.0.1:PORT`` to stderr as ``serve`` does and
runs until SIGTERM.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from brandeln.arena.limits import ConnectionLimits
from brandeln.arena.referee import Referee, RefereeConfig
from brandeln.arena.server import create_server, raise_open_file_limit


async def main(data_dir: Path, limits: ConnectionLimits) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    raise_open_file_limit()
    config = RefereeConfig(
        db_path=data_dir / "referee.db",
        logs_dir=data_dir / "logs",
        admin_token=os.environ["BRANDELN_ADMIN_TOKEN"],
        connections=limits,
    )
    referee = Referee(config)
    server, port = await create_server("127.0.0.1:0", referee)
    print(f"referee listening on 127.0.0.1:{port}", file=sys.stderr, flush=True)
    await stop.wait()
    await referee.drain()
    await server.stop(0.5)
    referee.close()


if __name__ == "__main__":
    handshake_ms, streams, idle_ms = (int(arg) for arg in sys.argv[2:5])
    limits = ConnectionLimits(
        handshake_timeout_ms=handshake_ms,
        max_streams_per_connection=streams,
        max_connection_idle_ms=idle_ms,
    )
    asyncio.run(main(Path(sys.argv[1]), limits))
