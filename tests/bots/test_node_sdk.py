"""The Node SDK, npm package `brandeln-bot` (sdk/node), as a user gets it: packed with `npm pack`
and installed from the tarball in an empty folder, the Node page's 20-line bot plays a whole match
against a real referee; the sample bot's bundle plays with `node` alone; the TypeScript types
compile (and catch a typo); the SDK resumes, falls back and refuses bad settings in one line
against the scripted fake referee; its .proto copy and its version follow the project's."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import pytest

from brandeln.arena.embedded import EmbeddedReferee
from tests.bots.botkit_fakes import (
    FakeReferee,
    FakeSeat,
    FakeServer,
    Script,
    deal_started,
    match_ended,
    match_started,
    scripted_requests,
)
from tests.bots.test_bots_e2e import EXIT_WAIT_S, node_bot_plays_a_match
from tests.conftest import NODE_DIR, ROOT, AdminClient, BotProcesses
from tests.test_proto_drift import _load_generator

NODE_SDK: Final = ROOT / "sdk" / "node"
NPM_QUIET: Final = ("--no-audit", "--no-fund", "--loglevel=error")


def page_bot() -> str:
    """The Node.js page's example, exactly as a reader copies it."""
    page = (ROOT / "docs" / "bot-authors" / "node.md").read_text(encoding="utf-8")
    block = re.search(
        r'<!-- node-sdk-example -->\n```js title="mybot.js"\n(.*?)```\n<!-- /node-sdk-example -->',
        page,
        re.S,
    )
    assert block is not None, "the Node.js page lost its marked example"
    return block.group(1)


def npm_run(*args: str, cwd: Path) -> str:
    npm = shutil.which("npm")
    assert npm is not None  # node_bin skipped otherwise
    done = subprocess.run(
        [npm, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, f"npm {' '.join(args)} in {cwd} failed: {done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed_sdk(node_bin: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty folder where the packed tarball (and the SDK's TypeScript) was npm-installed."""
    work = tmp_path_factory.mktemp("node-sdk")
    tarball = npm_run("pack", str(NODE_SDK), "--pack-destination", str(work), cwd=work)
    app = work / "app"
    app.mkdir()
    (app / "package.json").write_text('{"private": true}\n')
    typescript = json.loads((NODE_SDK / "package.json").read_text())["devDependencies"][
        "typescript"
    ]
    npm_run(
        "install",
        *NPM_QUIET,
        str(work / tarball.strip().splitlines()[-1]),
        f"typescript@{typescript}",
        cwd=app,
    )
    return app


@pytest.fixture(scope="module")
def bundle(node_bin: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample bot's bundle (`npm run build`), alone in a folder with no node_modules above."""
    folder = tmp_path_factory.mktemp("node-bundle") / "bot"
    npm_run("run", "--silent", "build", "--", str(folder), cwd=NODE_DIR)
    assert sorted(p.name for p in folder.iterdir()) == ["bot.cjs", "proto"]
    assert not any((parent / "node_modules").exists() for parent in folder.parents)
    return folder


async def test_the_node_page_bot_installed_from_the_tarball_plays_a_whole_match(
    admin: AdminClient,
    bot_processes: BotProcesses,
    referee: EmbeddedReferee,
    installed_sdk: Path,
    node_bin: str,
) -> None:
    script = page_bot()
    assert len(script.splitlines()) <= 20
    (installed_sdk / "mybot.js").write_text(script)
    output = await node_bot_plays_a_match(
        admin,
        bot_processes,
        referee.address,
        [node_bin, "mybot.js"],
        installed_sdk,
    )
    assert "welcomed as bot" in output
    assert re.search(r"match \S+ ended: balances", output), output


async def test_the_sample_bots_bundle_plays_with_node_alone(
    admin: AdminClient,
    bot_processes: BotProcesses,
    referee: EmbeddedReferee,
    bundle: Path,
    node_bin: str,
) -> None:
    output = await node_bot_plays_a_match(
        admin,
        bot_processes,
        referee.address,
        [node_bin, "bot.cjs"],
        bundle,
    )
    assert "welcomed as bot" in output


TYPED_BOT: Final = """
import { Bot, Context, DecisionRequest, MatchEnded } from 'brandeln-bot';
import { cardText, choiceText, play, run } from 'brandeln-bot';

class Leader extends Bot {
  name = 'leader';
  decide(request: DecisionRequest, context: Context): string | number {
    if (request.phase !== 'PHASE_CARD') return 0;
    context.logger.debug(request.view.hand.map(cardText).join(' '));
    return choiceText(request.legal[request.legal.length - 1]);
  }
  onMatchEnd(ended: MatchEnded): void {
    this.log(`balance ${Number(ended.balances[this.match ? this.match.seat : 0])}`);
  }
}

run(Leader, { tables: 2, matches: 1, logLevel: 'debug' });
run((request) => request.legal.length - 1);
run({ name: 'first', decide: async (request: DecisionRequest) => request.legal[0] });
play(Leader, { token: 't' }).then((stats) => stats.map((s) => s.matches + s.fallbacks));
"""


# Strict, and no ambient Node types: what the package declares is all a bot sees.
TSCONFIG: Final = {
    "compilerOptions": {
        "strict": True,
        "noEmit": True,
        "module": "commonjs",
        "moduleResolution": "node",
        "target": "es2020",
        "types": [],
    },
    "files": ["typed_bot.ts"],
}


def tsc(folder: Path, source: str) -> subprocess.CompletedProcess[str]:
    (folder / "typed_bot.ts").write_text(source)
    (folder / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    return subprocess.run(
        [str(folder / "node_modules" / ".bin" / "tsc"), "--project", "tsconfig.json"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_typescript_types_compile_and_catch_a_wrong_field(installed_sdk: Path) -> None:
    done = tsc(installed_sdk, TYPED_BOT)
    assert done.returncode == 0, done.stdout + done.stderr
    typo = tsc(installed_sdk, TYPED_BOT + "run((request) => request.view.hands.length);\n")
    assert typo.returncode != 0
    assert "'hands' does not exist on type 'PlayerView'" in typo.stdout


def test_the_packaged_proto_files_are_the_projects(tmp_path: Path) -> None:
    generator = _load_generator()
    copied = generator.copy_protos(tmp_path)  # type: ignore[attr-defined]
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in copied}
    packaged = {
        p.relative_to(NODE_SDK / "proto"): p.read_bytes()
        for p in (NODE_SDK / "proto").rglob("*")
        if p.is_file()
    }
    assert fresh, "no .proto files copied"
    assert packaged == fresh, "sdk/node/proto has drifted from proto/; run `make proto` and commit"


def test_the_package_version_is_the_projects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert json.loads((NODE_SDK / "package.json").read_text())["version"] == project


# --- against the scripted fake referee --------------------------------------------------------
async def run_node(
    folder: Path, node_bin: str, script: str, args: list[str], env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run `script` (saved in ``folder``) to its end; stdout and stderr kept apart."""
    (folder / "scripted.js").write_text(script)
    process = await asyncio.create_subprocess_exec(
        node_bin,
        "scripted.js",
        *args,
        cwd=folder,
        env={"PATH": os.environ["PATH"], **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), EXIT_WAIT_S)
    assert process.returncode is not None
    return subprocess.CompletedProcess(args, process.returncode, stdout.decode(), stderr.decode())


async def one_match_at_the_fake(
    folder: Path, node_bin: str, script: Script, bot: str
) -> tuple[FakeReferee, subprocess.CompletedProcess[str]]:
    """The Node ``bot`` (with a good token, for one match) against a fake referee running
    ``script`` for each of its streams."""
    referee = FakeReferee(script)
    async with FakeServer(referee) as address:
        done = await run_node(
            folder,
            node_bin,
            bot,
            ["--server", address, "--matches", "1"],
            {"BRANDELN_TOKEN": "good-token"},
        )
    assert referee.errors == []
    assert done.returncode == 0, done.stderr
    return referee, done


async def test_a_dropped_stream_resumes_the_running_match(
    installed_sdk: Path, node_bin: str
) -> None:
    requests = scripted_requests()

    async def drop_once(seat: FakeSeat) -> None:
        await seat.send(match_started=match_started("m7", reconnect_ms=3000))
        await seat.send(deal_started=deal_started())
        if seat.stream_number == 0:
            await seat.ask(requests[0])
            await seat.send(request=requests[1])  # dropped before the answer arrives
            await seat.drop()
        else:  # like the real referee: the open request is sent again after the resume
            for request in requests[1:]:
                await seat.ask(request)
            await seat.send(match_ended=match_ended("m7"))
            await seat.until_closed()

    last_legal = "require('brandeln-bot').run((request) => request.legal.length - 1);\n"
    referee, _ = await one_match_at_the_fake(installed_sdk, node_bin, drop_once, last_legal)
    first, second = referee.hellos
    assert (first.resume_match_id, second.resume_match_id) == ("", "m7")
    assert second.token == first.token == "good-token"
    assert first.snapshot_only
    assert first.protocol_version == 1
    assert [a.request_id for a in referee.seats[1].actions] == [12, 13, 14]


FAILING_BOT: Final = """
const { run } = require('brandeln-bot');
run({
  decide(request) {
    if (request.phase === 'PHASE_BID') throw new Error('a bug on purpose');
    if (request.phase === 'PHASE_TRUMP') return 'HJ'; // a card, where a suit is asked
    if (request.request_id === '13') return new Promise(() => {}); // never settles
    return 'CA'; // text, and legal
  },
}, { deadlineMarginMs: 100 });
"""


async def test_a_failing_late_or_illegal_decide_answers_the_first_legal_choice(
    installed_sdk: Path, node_bin: str
) -> None:
    requests = scripted_requests()
    requests[2].move_ms, requests[2].bank_ms = 300, 0  # the SDK answers for it at 200 ms

    async def one_match(seat: FakeSeat) -> None:
        await seat.send(match_started=match_started("m1"))
        await seat.send(deal_started=deal_started())
        for request in requests:
            await seat.ask(request)  # however long it takes: the SDK answers, not this clock
        await seat.send(match_ended=match_ended("m1"))
        await seat.until_closed()

    referee, done = await one_match_at_the_fake(installed_sdk, node_bin, one_match, FAILING_BOT)
    [seat] = referee.seats
    answered = [(a.request_id, a.choice.WhichOneof("kind")) for a in seat.actions]
    assert answered == [(11, "bid"), (12, "trump"), (13, "card"), (14, "card")]
    first_legal = [r.legal[0] for r in requests[:3]]
    assert [a.choice for a in seat.actions[:3]] == first_legal
    assert seat.actions[3].choice == requests[3].legal[1]  # 'CA', its own answer
    logs = "\n".join(seat.logs)
    assert "a bug on purpose" in logs
    assert 'decide() returned "HJ", which is not legal here; legal: C S H D' in logs
    assert "decide() did not answer within 200 ms" in logs
    assert done.stderr.count("answering the first legal choice") == 3


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ([], {}, "no token: pass --token or set BRANDELN_TOKEN"),
        (["--tables", "two"], {}, '--tables must be a whole number of at least 1, not "two"'),
        (["--tabels", "2"], {}, "unknown option --tabels"),
        (["play"], {}, 'unexpected argument "play"'),
        (["--server"], {}, "--server needs a value (HOST:PORT)"),
        (["--ca", "/nowhere/ca.pem"], {}, "--ca /nowhere/ca.pem: cannot read it (ENOENT)"),
        (["--log-level", "loud"], {}, "--log-level must be one of error, warn, info, debug"),
        ([], {"BRANDELN_CONNECT_TIMEOUT": "soon"}, "BRANDELN_CONNECT_TIMEOUT must be a positive"),
        ([], {"BRANDELN_TABLES": "0"}, "BRANDELN_TABLES must be a whole number of at least 1"),
    ],
)
async def test_a_bad_setting_is_one_error_line_and_status_2(
    installed_sdk: Path, node_bin: str, args: list[str], env: dict[str, str], message: str
) -> None:
    token = {"BRANDELN_TOKEN": "t"} if args or env else {}
    done = await run_node(
        installed_sdk, node_bin, "require('brandeln-bot').run(() => 0);\n", args, {**token, **env}
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {message}"), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


async def test_a_bad_token_is_one_error_line_and_status_2(
    installed_sdk: Path, node_bin: str
) -> None:
    referee = FakeReferee(FakeSeat.until_closed)
    async with FakeServer(referee) as address:
        done = await run_node(
            installed_sdk,
            node_bin,
            "require('brandeln-bot').run(() => 0);\n",
            ["--server", address, "--token", "-nope"],  # a token may start with a dash
            {},
        )
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: bad token: the referee at {address} rejected it")
    assert len(referee.hellos) == 1  # no retries with a token that cannot work
