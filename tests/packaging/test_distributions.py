"""The two Python distributions, built by `make dist-python` (into a temporary folder: the
checkout's dist/ is left alone) and installed in fresh virtual environments outside the
repository.

brandeln-bot (sdk/python) holds the stubs, the SDK and the stdio bridge, needs grpcio and
protobuf alone, and a bot written on it plays a match against a referee; brandeln-arena holds
everything else, depends on it, and from its wheel `brandeln demo` plays its season and
`brandeln web` serves it. Both put nothing but ``brandeln`` at the top of site-packages.

The wheels are built once for the module, without mypyc (``BRANDELN_PURE_PYTHON=1``: a compiled
build takes minutes of both cores, more than the whole suite can spend on it). That pip's
install of a compiled wheel keeps its extensions in use is
tests/compiled/test_installed_order.py's, on the checkout's own compiled build laid out as pip
lays out a wheel. Installing the arena's dependencies needs the package index (or pip's cache):
the module is collected early, to run beside the rest of the suite.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tarfile
import tomllib
import urllib.request
import venv
import zipfile
from email.parser import Parser
from pathlib import Path
from typing import Final

import pytest

from brandeln.v1 import admin_pb2, cards_pb2
from tests.cli_process import cli_process
from tests.conftest import ROOT, AdminClient, BotProcesses
from tests.faults.referee_process import ADMIN_TOKEN, RefereeUnderTest
from tests.web.web_process import ADDRESS, STARTED

INSTALL_TIMEOUT_S: Final = 900  # the arena's dependencies from the index on a slow day
BUILD_TIMEOUT_S: Final = 600  # two sdists and two wheels, pure Python, on a busy machine
# Early, to run beside the rest of the suite; each test may wait on the build, pip and the index.
pytestmark = [pytest.mark.early, pytest.mark.timeout(BUILD_TIMEOUT_S + 2 * INSTALL_TIMEOUT_S)]

# A bot author's environment beside pip (issue 49): the SDK, grpcio and protobuf fit in this.
SDK_ENVIRONMENT_LIMIT_BYTES: Final = 40 * 1024 * 1024
# What pip puts in an environment of its own, not counted as the bot's (none here: see
# _environment).
PIP_ITSELF: Final = frozenset({"pip", "setuptools", "_distutils_hack", "pkg_resources"})
FAST: Final = cards_pb2.TimeControl(move_ms=1500, bank_ms=5000, max_strikes=3)

# A bot on the SDK alone, as a bot author would write it.
FIRST_LEGAL_BOT = """
import sys
from brandeln.sdk import Bot, SessionOptions, run

class FirstLegal(Bot):
    name = "first-legal"

    def decide(self, request):
        return 0

run(FirstLegal, SessionOptions(server=sys.argv[1], token=sys.argv[2], max_matches=1))
"""
# Prints the distributions grpcio needs (its own dependencies count as its).
GRPC_NEEDS = """
import importlib.metadata as m, re
for requirement in m.requires("grpcio") or []:
    if "extra ==" not in requirement:
        print(re.match(r"[A-Za-z0-9_.-]+", requirement).group().lower().replace("_", "-"))
"""
# Prints, as JSON, every installed distribution with the top-level names of its files.
TOP_LEVELS = """
import importlib.metadata as m, json
print(json.dumps({
    d.metadata["Name"].lower().replace("_", "-"):
        sorted({f.parts[0] for f in d.files or () if ".." not in f.parts})
    for d in m.distributions()
}))
"""


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The distributions as `make dist-python` builds them, into a folder of the test's."""
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [
            "make",
            "--no-print-directory",
            # Built with this environment (the suite's), never the checkout's .venv, which the
            # Makefile would otherwise create and install: its stamp counts as made (-o).
            *("-o", ".venv/.installed", f"BIN={Path(sys.executable).parent}"),
            "dist-python",
            f"DIST={out}",
        ],
        cwd=ROOT,
        # Pure Python: see the module's docstring.
        env={**os.environ, "BRANDELN_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    return out


def _outside() -> dict[str, str]:
    """The environment of a process of a fresh virtual environment: this one's but PYTHONPATH,
    which (the suite run from a checkout) would show it the checkout's code and its egg-info,
    and pip would take our distributions for installed already."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _one(dist: Path, pattern: str) -> Path:
    [found] = dist.glob(pattern)
    return found


def _metadata(wheel: Path) -> dict[str, list[str]]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        message = Parser().parsestr(archive.read(name).decode())
    return {key: message.get_all(key) or [] for key in ("Name", "Version", "Requires-Dist")}


def _environment(where: Path, *requirements: str, dist: Path) -> Path:
    """A fresh virtual environment at ``where`` with ``requirements`` installed from ``dist``
    (our wheels) and the package index (the rest); its folder."""
    # Without pip of its own (venv's ensurepip takes 15 s): this environment's pip installs
    # into it, so its site-packages hold exactly what the requirements need.
    venv.create(where, with_pip=False)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            where / "bin" / "python",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--find-links",
            str(dist),
            *requirements,
        ],
        cwd=where,
        env=_outside(),
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=True,
    )
    return where


def _installed(environment: Path) -> dict[str, list[str]]:
    done = subprocess.run(
        [environment / "bin" / "python", "-c", TOP_LEVELS],
        cwd=environment,
        env=_outside(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    installed: dict[str, list[str]] = json.loads(done.stdout)
    return installed


@pytest.mark.parametrize("pattern", ["brandeln_bot-*.whl", "brandeln_arena-*.whl"])
def test_each_wheel_installs_the_brandeln_namespace_and_nothing_else(
    dist: Path, pattern: str
) -> None:
    wheel = _one(dist, pattern)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    dist_info = wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"
    assert {name.split("/")[0] for name in names} == {"brandeln", dist_info}
    assert "brandeln/__init__.py" not in names  # a namespace: two distributions share it


def test_the_wheels_divide_the_namespace_between_them(dist: Path) -> None:
    def packages(pattern: str) -> set[str]:
        with zipfile.ZipFile(_one(dist, pattern)) as archive:
            return {n.split("/")[1] for n in archive.namelist() if n.startswith("brandeln/")}

    assert packages("brandeln_bot-*.whl") == {"sdk", "v1"}
    arena = packages("brandeln_arena-*.whl")
    assert {"engine", "arena", "ladder", "sample_bots", "cli", "web"} <= arena
    assert not arena & {"sdk", "v1"}


def test_the_arena_sdist_holds_real_files_where_the_checkout_has_symlinks(dist: Path) -> None:
    with tarfile.open(_one(dist, "brandeln_arena-*.tar.gz")) as archive:
        members = archive.getmembers()
    assert [m.name for m in members if m.issym() or m.islnk()] == []
    assert any(m.isfile() and m.name.endswith("/brandeln/engine/state.py") for m in members)


def test_the_sdk_needs_grpcio_and_protobuf_only_and_the_arena_pins_it(dist: Path) -> None:
    sdk = _metadata(_one(dist, "brandeln_bot-*.whl"))
    arena = _metadata(_one(dist, "brandeln_arena-*.whl"))
    assert sorted(sdk["Requires-Dist"]) == sorted(
        r for r in arena["Requires-Dist"] if r.startswith(("grpcio<", "protobuf<"))
    )
    assert [r.split("<")[0] for r in sorted(sdk["Requires-Dist"])] == ["grpcio", "protobuf"]
    assert f"brandeln-bot=={sdk['Version'][0]}" in arena["Requires-Dist"]
    assert sdk["Version"] == arena["Version"]
    # The arena's own pyproject says the same, so `make install` takes this checkout's SDK.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert f"brandeln-bot=={project['version']}" in project["dependencies"]


@pytest.fixture(scope="module")
def sdk_environment(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bot author's environment: the SDK's wheel alone, from outside the repository."""
    return _environment(tmp_path_factory.mktemp("bot-env"), "brandeln-bot", dist=dist)


def test_the_sdk_environment_holds_the_sdk_grpcio_and_protobuf_alone(
    sdk_environment: Path,
) -> None:
    installed = _installed(sdk_environment)
    ours = {name: tops for name, tops in installed.items() if name.startswith("brandeln")}
    assert ours == {"brandeln-bot": ["brandeln", "brandeln_bot-0.1.0.dist-info"]}
    # Nothing but the SDK, grpcio, protobuf and what they need themselves.
    needed = subprocess.run(
        [sdk_environment / "bin" / "python", "-c", GRPC_NEEDS],
        env=_outside(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    extra = set(installed) - PIP_ITSELF - {"brandeln-bot", "grpcio", "protobuf", *needed}
    assert extra == set()
    site = next((sdk_environment / "lib").glob("python3*/site-packages"))
    size = sum(
        path.stat().st_size
        for path in site.rglob("*")
        if path.is_file() and path.relative_to(site).parts[0].split("-")[0] not in PIP_ITSELF
    )
    print(f"the SDK's environment: {size / 1e6:.1f} MB beside pip")
    assert size <= SDK_ENVIRONMENT_LIMIT_BYTES


async def test_a_bot_on_the_sdk_wheel_alone_plays_a_match(
    sdk_environment: Path, tmp_path: Path, bot_processes: BotProcesses
) -> None:
    referee = RefereeUnderTest.serve(tmp_path / "referee")
    admin = AdminClient(referee.address, ADMIN_TOKEN)
    on_the_sdk: list[asyncio.subprocess.Process] = []  # the SDK environment's processes
    try:
        ids = []
        bot = tmp_path / "first_legal.py"
        bot.write_text(FIRST_LEGAL_BOT)
        sdk_bot = await admin.register("sdk-bot")
        # And the stdio bridge from the SDK's environment, with the sample child.
        bridge = await admin.register("sdk-bridge")
        ids += [sdk_bot.bot_id, bridge.bot_id]
        child = ROOT / "sample_bots" / "bridge_examples" / "simple_bot.py"
        for command in (
            [str(bot), referee.address, sdk_bot.token],
            [
                "-m",
                "brandeln.sdk.bridge",
                "--server",
                referee.address,
                "--token",
                bridge.token,
                "--matches",
                "1",
                "--",
                sys.executable,
                str(child),
            ],
        ):
            on_the_sdk.append(
                await asyncio.create_subprocess_exec(
                    sdk_environment / "bin" / "python",
                    *command,
                    cwd=tmp_path,
                    env=_outside(),
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.DEVNULL,
                )
            )
        for name in ("random", "heuristic"):
            sample = await admin.register(name)
            bot_processes.start(
                [
                    *("-m", "brandeln.sample_bots", name),
                    *("--server", referee.address, "--token", sample.token),
                ],
                name=name,
            )
            ids.append(sample.bot_id)
        await admin.wait_for_sessions(ids, timeout=60)
        _, result = await admin.run_match(
            admin_pb2.RunMatchRequest(bot_ids=ids, deals=2, seed=5, time_control=FAST)
        )
        assert result.status == "finished"
        assert list(result.strikes) == [0, 0, 0, 0]
        # Both leave after their one match (max_matches, --matches 1), with success.
        async with asyncio.timeout(60):
            assert [await process.wait() for process in on_the_sdk] == [0, 0]
    finally:
        for process in on_the_sdk:
            if process.returncode is None:
                process.kill()
                await process.wait()
        await admin.close()
        referee.terminate()


@pytest.fixture(scope="module")
def arena_environment(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An operator's environment: the arena's wheel (and the SDK's, which it pins)."""
    wheel = str(_one(dist, "brandeln_arena-*.whl"))
    return _environment(tmp_path_factory.mktemp("arena-env"), wheel, dist=dist)


def test_the_arena_wheel_plays_the_demo_and_serves_it(
    arena_environment: Path, tmp_path: Path
) -> None:
    environment = arena_environment
    ours = {
        name: tops for name, tops in _installed(environment).items() if name.startswith("brandeln")
    }
    assert ours == {
        "brandeln-arena": ["brandeln", "brandeln_arena-0.1.0.dist-info"],
        "brandeln-bot": ["brandeln", "brandeln_bot-0.1.0.dist-info"],
    }
    data = tmp_path / "data"
    demo = subprocess.run(
        [environment / "bin" / "brandeln", "demo", "--data", str(data)],
        cwd=tmp_path,
        env=_outside(),
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
    assert "heuristic-2" in demo.stdout  # the leaderboard, every bot on it
    with cli_process(["web", "--data", str(data), "--port", "0"], installed=environment) as web:
        web.wait_for(STARTED)
        found = next(m for line in web.lines if (m := ADDRESS.search(line)))
        with urllib.request.urlopen(f"http://127.0.0.1:{found.group(1)}/", timeout=60) as page:
            assert page.status == 200
            assert "demo" in page.read().decode()
