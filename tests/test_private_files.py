"""The private-files helper both stores use keeps its modes whatever the umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import brandeln.datastore.private_files

COPIES = [brandeln.datastore.private_files]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(params=[0o022, 0o277, 0o000], ids=["umask022", "umask277", "umask000"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


@pytest.mark.parametrize("module", COPIES, ids=lambda m: m.__name__)
def test_new_files_and_folders_are_private(module: ModuleType, umask: int, tmp_path: Path) -> None:
    chosen = tmp_path / "chosen"
    chosen.mkdir(mode=0o755)
    os.chmod(chosen, 0o755)
    file = module.private_file(chosen / "new" / "deeper" / "db")
    assert (_mode(chosen), _mode(chosen / "new"), _mode(file.parent), _mode(file)) == (
        0o755,  # a folder that was there is the user's choice
        0o700,
        0o700,
        0o600,
    )
    with module.open_private(chosen / "new" / "log.jsonl") as log:
        log.write("one\n")
    with module.open_private(chosen / "new" / "log.jsonl", "a") as log:
        log.write("two\n")
    assert (chosen / "new" / "log.jsonl").read_text() == "one\ntwo\n"
    assert _mode(chosen / "new" / "log.jsonl") == 0o600


@pytest.mark.parametrize("module", COPIES, ids=lambda m: m.__name__)
def test_existing_files_of_ours_are_made_private(module: ModuleType, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    os.chmod(logs, 0o755)
    db = tmp_path / "some.db"
    db.write_text("kept")
    wal = tmp_path / "some.db-wal"
    wal.touch()
    for path in (db, wal):
        os.chmod(path, 0o644)
    module.private_dir(logs)
    module.private_sqlite(db)
    assert (_mode(logs), _mode(db), _mode(wal)) == (0o700, 0o600, 0o600)
    assert db.read_text() == "kept"


def test_a_journal_gone_between_the_look_and_the_chmod_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen beside CPU hogs: eight openers of one new ladder.db, and one failed with "cannot
    # create the database file: ... ladder.db-journal": another's transaction had deleted its
    # journal between the helper's exists() and its chmod.
    db = tmp_path / "ladder.db"
    journal = tmp_path / "ladder.db-journal"
    journal.touch()
    chmod = os.chmod

    def journal_vanishes_first(path: os.PathLike[str] | str, mode: int) -> None:
        if Path(path) == journal:
            journal.unlink(missing_ok=True)  # the other transaction ends just now
        chmod(path, mode)

    monkeypatch.setattr(os, "chmod", journal_vanishes_first)
    brandeln.datastore.private_files.private_sqlite(db)
    assert _mode(db) == 0o600
    assert not journal.exists()
