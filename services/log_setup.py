"""Where a service's log records go (``brandeln serve``, ``brandeln ladder serve``): stderr, as
JSON lines or text, at a chosen level.

The level applies to the project's own loggers (``arena``, ``ladder``, ``cluster``, and
``brandeln`` of the datastore and the ladder service);
the libraries' (gRPC, SQLAlchemy, Alembic, asyncio) keep to warnings and errors whatever it is,
so ``--log-level debug`` is the service's detail, not every library's. Python's warnings go the
same way (``logging.captureWarnings``), so a JSON stream stays JSON.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from services.logging_json import InertTextFormatter, JsonFormatter

__all__ = ["OWN_LOGGERS", "TEXT_FORMAT", "service_logging"]

OWN_LOGGERS = ("arena", "ladder", "cluster", "brandeln")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


@contextmanager
def service_logging(
    level: int = logging.WARNING, *, json_lines: bool = False, stream: TextIO | None = None
) -> Iterator[logging.Handler]:
    """Send log records to ``stream`` (stderr) while in the block, then put back what was.

    The handler goes on the root logger, so a library's warning is a line of the same form.
    """
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if json_lines else InertTextFormatter(TEXT_FORMAT))
    root = logging.getLogger()
    own = [logging.getLogger(name) for name in OWN_LOGGERS]
    saved = [(logger, logger.level) for logger in (root, *own)]
    root.addHandler(handler)
    root.setLevel(max(level, logging.WARNING))
    for logger in own:
        logger.setLevel(level)
    logging.captureWarnings(True)
    try:
        yield handler
    finally:
        logging.captureWarnings(False)
        root.removeHandler(handler)
        for logger, saved_level in saved:
            logger.setLevel(saved_level)
