"""How the Node.js sample bot is started (brandeln.sample_bots.node_bot): the bundle first, else
bot.js over its installed packages, else one line saying what to run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from brandeln.sample_bots.node_bot import (
    BUNDLE,
    BUNDLE_PROTO,
    INSTALLED_SDK,
    SOURCE,
    NodeBotUnavailableError,
    node_bot_command,
)

NODE = "/usr/bin/node"


@pytest.fixture
def node_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda program: NODE if program == "node" else None)


def touch(folder: Path, relative: Path) -> None:
    (folder / relative).parent.mkdir(parents=True, exist_ok=True)
    (folder / relative).write_text("")


def test_the_bundle_runs_when_built_even_beside_installed_packages(
    tmp_path: Path, node_on_path: None
) -> None:
    for part in (BUNDLE, BUNDLE_PROTO, SOURCE, INSTALLED_SDK):
        touch(tmp_path, part)
    assert node_bot_command(tmp_path) == (NODE, str(tmp_path / BUNDLE))


def test_the_bundle_without_its_proto_files_is_not_run(tmp_path: Path, node_on_path: None) -> None:
    for part in (BUNDLE, SOURCE, INSTALLED_SDK):
        touch(tmp_path, part)
    assert node_bot_command(tmp_path) == (NODE, str(tmp_path / SOURCE))


def test_without_a_bundle_bot_js_runs_over_its_installed_packages(
    tmp_path: Path, node_on_path: None
) -> None:
    for part in (SOURCE, INSTALLED_SDK):
        touch(tmp_path, part)
    assert node_bot_command(tmp_path) == (NODE, str(tmp_path / SOURCE))


def test_neither_built_nor_installed_says_what_to_run_in_one_line(
    tmp_path: Path, node_on_path: None
) -> None:
    touch(tmp_path, SOURCE)  # as in a wheel built without the bundle
    with pytest.raises(NodeBotUnavailableError, match="npm ci && npm run build") as raised:
        node_bot_command(tmp_path)
    assert "\n" not in str(raised.value)
    assert str(tmp_path) in str(raised.value)


def test_without_node_on_path_it_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for part in (BUNDLE, BUNDLE_PROTO):
        touch(tmp_path, part)
    monkeypatch.setattr(shutil, "which", lambda program: None)
    with pytest.raises(NodeBotUnavailableError, match="needs `node`"):
        node_bot_command(tmp_path)
