"""The record of what a build compiled: the SHA-256 of each compiled module's source, which
setup.py's build writes beside the package's extensions (:data:`RECORD`) and the package reads
as it is imported (:mod:`brandeln.compiled.extensions`) to tell whether a source changed since.

File times cannot tell it: pip installs a wheel's ``.py`` files after its extensions, so every
source of an installed wheel looks newer than its build, and the wheel would run as pure Python.
The record is in ``sha256sum``'s format, the sources named relative to the package
(``sha256sum -c compiled__sources.sha256`` in the package's folder checks it by hand).
setup.py reads this file by path, before anything is installed: standard library only.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     _ = (Path(folder) / "hot.py").write_text("x = 1\\n")
...     digests = {"hot": source_digest(Path(folder) / "hot.py")}
...     _ = write_record(Path(folder), digests)
...     print((Path(folder) / RECORD).read_text(), end="")
...     read_record(folder) == digests
9e26bf369911c45c243c684147b23fc9e1dcfcf257d299a1c632016a6fcd33f4  hot.py
True
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final

__all__ = ["RECORD", "read_record", "source_digest", "write_record"]

# Beside the package's shared library (``compiled__mypyc``): the build's, like it.
RECORD: Final = "compiled__sources.sha256"

# One line of the record: a SHA-256 in hex, two spaces, a source's path in the package.
_LINE: Final = re.compile(r"([0-9a-f]{64})  ((?:\w+/)*\w+)\.py")


def source_digest(path: str | Path) -> str:
    """The SHA-256 of the file at ``path``, in hex.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as empty:
    ...     source_digest(empty.name)[:16]
    'e3b0c44298fc1c14'
    """
    # Imported here: a package without a build (a pure-Python install) never hashes, and its
    # import is spared hashlib's (OpenSSL's) start.
    import hashlib  # noqa: PLC0415

    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


def write_record(folder: Path, digests: Mapping[str, str]) -> Path:
    """Record in ``folder`` the digest of each module's source (``digests``: by the module's
    name relative to its package, ``"codec.wire"``); the record's path. Written whole or not at
    all (a rename): a package imported meanwhile reads the old record or the new one."""
    record = folder / RECORD
    partial = folder / f"{RECORD}.{os.getpid()}.partial"
    partial.write_text(
        "".join(
            f"{digest}  {name.replace('.', '/')}.py\n" for name, digest in sorted(digests.items())
        )
    )
    os.replace(partial, record)
    return record


def read_record(folder: str | Path) -> dict[str, str] | None:
    """The digest the build recorded in ``folder`` for each module, by its name in the package
    (None: no record there, or not one this module wrote)."""
    try:
        with open(os.path.join(folder, RECORD), encoding="utf-8") as record:
            lines = record.read().splitlines()
    except (OSError, ValueError):
        return None
    found = [_LINE.fullmatch(line) for line in lines]
    if not lines or None in found:
        return None
    return {m.group(2).replace("/", "."): m.group(1) for m in found if m is not None}
