"""The record of what a build compiled: the SHA-256 of each compiled module's source, which
setup.py's build writes beside the package's extensions (:data:`RECORD`) and the package reads
as it is imported (:mod:`brandeln.compiled.extensions`) to tell whether a source changed since.

File times cannot tell it: pip installs a wheel's ``.py`` files after its extensions, so every
source of an installed wheel looks newer than its build, and the wheel would run as pure Python.
setup.py reads this file by path, before anything is installed: standard library only.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     _ = (Path(folder) / "hot.py").write_text("x = 1\\n")
...     _ = write_record(Path(folder), {"hot": Path(folder) / "hot.py"})
...     read_record(Path(folder)) == {"hot": source_digest(Path(folder) / "hot.py")}
True
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

__all__ = ["RECORD", "read_record", "source_digest", "write_record"]

# Beside the package's shared library (``compiled__mypyc``): the build's, like it.
RECORD: Final = "compiled__sources.json"


def source_digest(path: str | Path) -> str:
    """The SHA-256 of the file at ``path``, in hex.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as empty:
    ...     source_digest(empty.name)[:16]
    'e3b0c44298fc1c14'
    """
    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


def write_record(folder: Path, sources: Mapping[str, Path]) -> Path:
    """Record in ``folder`` the digest of each source of ``sources`` (a module's name relative
    to its package, ``"codec.wire"``, to its file); the record's path. Written whole or not at
    all (a rename): a package imported meanwhile reads the old record or the new one."""
    record = folder / RECORD
    partial = folder / f"{RECORD}.{os.getpid()}.partial"
    digests = {name: source_digest(path) for name, path in sorted(sources.items())}
    partial.write_text(json.dumps(digests, indent=1) + "\n")
    os.replace(partial, record)
    return record


def read_record(folder: str | Path) -> dict[str, str] | None:
    """The digests the build recorded in ``folder`` (None: no record there, or not one this
    module wrote)."""
    try:
        with open(os.path.join(folder, RECORD), encoding="utf-8") as record:
            digests = json.load(record)
    except (OSError, ValueError):
        return None
    if not isinstance(digests, dict) or not all(
        isinstance(name, str) and isinstance(digest, str) for name, digest in digests.items()
    ):
        return None
    return digests
