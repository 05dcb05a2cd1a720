"""The referee's compiled hot path (setup.py, mypyc) against its pure-Python reference.

The install compiles the modules a decision goes through (brandeln/compiled/modules.py) as it
does the engine's core; the compiled modules must referee exactly as their sources: the same
messages to every seat, byte for byte, and the same match log, timeouts, strikes and rejections
included.
The sources stay importable (``BRANDELN_PURE_PYTHON=1``) and run the arena's tests where no
compiler built the extensions.
"""

from __future__ import annotations

import json
import re

import pytest

from brandeln import arena
from tests.python_runs import run_python

# Referees matches of scripted seats under a fake clock (tests/arena/test_timecontrol.py), so
# every latency is the same from run to run, and prints every message each seat was sent and
# each match's log, with the arena modules it ran compiled. What the referee sends as bytes is
# compared as it is; a message object deterministically serialized (protobuf writes a map's
# entries in an order that differs from process to process).
_REFEREE = """
import asyncio, itertools, json, sys, tempfile
from pathlib import Path

from brandeln import arena
from brandeln.arena.timecontrol import TimeControlSettings
from brandeln.v1 import bot_pb2, cards_pb2
from tests.arena import test_timecontrol as scripted

sent = {}


class Recording(scripted.ScriptedSession):
    def send(self, message):
        data = (message if isinstance(message, bytes)
                else message.SerializeToString(deterministic=True))
        sent.setdefault(self.session_id, []).append(data.hex())
        super().send(message)


def hostile(start):
    # Answers its requests in turn with a malformed choice (an over-long contract), one for the
    # wrong phase, a stale request id, silence and the last legal choice.
    turns = itertools.count(start)

    def policy(request):
        turn = next(turns) % 5
        choice = request.legal[-1]
        request_id = request.request_id
        if turn == 0:
            choice = cards_pb2.Choice(bid=cards_pb2.Bid(contract="x" * 40))
        elif turn == 1:
            choice = (cards_pb2.Choice(trump=cards_pb2.SUIT_HEARTS)
                      if request.legal[0].HasField("bid")
                      else cards_pb2.Choice(bid=cards_pb2.Bid(contract="pass")))
        elif turn == 2:
            request_id += 7
        elif turn == 3:
            return None
        action = bot_pb2.Action(request_id=request_id, choice=choice)
        return 10 * turn + 1, bot_pb2.BotMessage(action=action)

    return policy


async def referee(policies, tc, deals):
    scripted.ScriptedSession = Recording  # make_table's sessions record what they are sent
    sent.clear()
    with tempfile.TemporaryDirectory() as folder:
        table = scripted.make_table(Path(folder), scripted.FakeClock(), policies, tc, deals)
        summary = await table.run()
        log = Path(table.log_path).read_text()
    return {"sent": dict(sent), "log": log, "summary": str(summary),
            "penalties": [str(p) for p in table.penalties]}


matches = [
    asyncio.run(referee([scripted.silent, scripted.first_legal(600), scripted.first_legal(1),
                         scripted.first_legal(30)],
                        TimeControlSettings(move_ms=100, bank_ms=1000, max_strikes=3), 3)),
    asyncio.run(referee([hostile(0), scripted.first_legal(7), hostile(2), scripted.first_legal(99)],
                        TimeControlSettings(move_ms=50, bank_ms=500, max_strikes=1000), 3)),
]
print(json.dumps({"compiled": list(arena.compiled_modules()), "matches": matches}))
"""

# The wall-clock stamps of a match (its summary's and its log's): the rest must agree.
_WALL_CLOCK = re.compile(r'"?(started_at|ended_at|created_at|finished_at)"?: ?"?\d+"?')


def _built() -> bool:
    """Whether this install compiled the arena's hot path (an extension beside a source)."""
    return arena._MODULES.built_any()


def test_an_install_that_compiled_the_engine_compiled_the_arena_too() -> None:
    # The arena's build is type-checked against grpc, protobuf and SQLAlchemy as installed: a
    # first install into a new environment, before they are there, once compiled the engine
    # alone, and the tests above skipped as if no compiler were at hand (the Makefile now
    # installs the dependencies first).
    from brandeln import engine  # noqa: PLC0415

    engine_built = engine._MODULES.built_any()
    if not engine_built:
        pytest.skip("this install compiled nothing (no C compiler or mypyc)")
    assert _built(), (
        "the engine's core is compiled but the arena's hot path is not: its mypyc build "
        "failed (`pip install -v -e .` says why)"
    )


def test_the_arena_hot_modules_are_the_compiled_ones_where_the_build_has_them() -> None:
    if not _built():
        pytest.skip("this install has no compiled arena (no C compiler or mypyc)")
    code = (
        "import importlib, json\n"
        "from brandeln import arena\n"
        "for name in arena._MODULES.compilable:\n"
        "    importlib.import_module('brandeln.arena.' + name)\n"
        "print(json.dumps(list(arena.compiled_modules())))\n"
    )
    compiled = json.loads(run_python(code, pure=False))
    assert compiled == sorted(f"brandeln.arena.{name}" for name in arena._MODULES.compilable)


def test_the_pure_python_switch_imports_every_arena_module_from_its_source() -> None:
    code = (
        "import importlib, json, pkgutil\n"
        "from brandeln import arena\n"
        "for info in pkgutil.walk_packages(arena.__path__, prefix='brandeln.arena.'):\n"
        "    if info.name.endswith('__mypyc'):\n"
        "        continue  # the compiled modules' shared library\n"
        "    if info.name.startswith('brandeln.arena.store.migrations.'):\n"
        "        continue  # Alembic's scripts, run by Alembic alone\n"
        "    module = importlib.import_module(info.name)\n"
        "    assert module.__file__.endswith('.py'), module.__file__\n"
        "print(json.dumps(list(arena.compiled_modules())))\n"
    )
    assert json.loads(run_python(code, pure=True)) == []


def test_compiled_and_pure_referees_send_and_log_the_same_matches() -> None:
    if not _built():
        pytest.skip("this install has no compiled arena (no C compiler or mypyc)")
    compiled = json.loads(run_python(_REFEREE, pure=False))
    pure = json.loads(run_python(_REFEREE, pure=True))
    assert compiled["compiled"]
    assert pure["compiled"] == []
    for fast, reference in zip(compiled["matches"], pure["matches"], strict=True):
        assert reference["penalties"], "the scripted seats earn penalties"
        assert fast["sent"] == reference["sent"]
        assert fast["penalties"] == reference["penalties"]
        for field in ("log", "summary"):
            assert _WALL_CLOCK.sub("", fast[field]) == _WALL_CLOCK.sub("", reference[field])
