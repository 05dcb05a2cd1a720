"""The copy-paste bot example of the Python SDK page must really play, and the README must name
the commands a newcomer meets."""

from __future__ import annotations

import re
from pathlib import Path

from brandeln.v1 import admin_pb2
from tests.conftest import ROOT, AdminClient, BotProcesses

README = (ROOT / "README.md").read_text()
PYTHON_SDK = (ROOT / "docs" / "bot-authors" / "python.md").read_text()


def sdk_example() -> str:
    block = re.search(
        r'<!-- sdk-example -->\n```python title="mybot.py"\n(.*?)```\n<!-- /sdk-example -->',
        PYTHON_SDK,
        re.S,
    )
    assert block is not None, "the Python SDK page lost its marked SDK example"
    return block.group(1)


async def test_the_readme_sdk_example_plays_a_match(
    admin: AdminClient, bot_processes: BotProcesses, tmp_path: Path
) -> None:
    script = tmp_path / "mybot.py"
    script.write_text(sdk_example())
    address = admin.address
    ids = []
    for n in range(4):
        reply = await admin.register(f"readme{n}")
        if n == 0:
            bot_processes.start(
                [str(script)],
                name="readme",
                env={"BRANDELN_SERVER": address, "BRANDELN_TOKEN": reply.token},
            )
        else:
            bot_processes.start(
                [
                    "-m",
                    "brandeln.cli",
                    "bot",
                    "run",
                    "random",
                    "--server",
                    address,
                    "--token",
                    reply.token,
                ],
                name=f"random{n}",
            )
        ids.append(reply.bot_id)
    await admin.wait_for_sessions(ids)
    _, result = await admin.run_match(admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=3))
    assert result.status == "finished"
    assert list(result.strikes) == [0, 0, 0, 0]
    log = await admin.stub.GetMatch(
        admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
    )
    assert "cards left, playing" in log.log_jsonl  # its self.log() reached the match log


def test_the_readme_names_commands_that_exist() -> None:
    for command in (
        "make demo",
        "make test",
        "brandeln serve",
        "brandeln bots add",
        "brandeln bot run",
        "brandeln bot bridge",
        "brandeln season run",
        "brandeln ratings",
        "brandeln matches show",
        "brandeln matches verify",
        "brandeln bot check",
        "brandeln ab",
    ):
        assert command in README
