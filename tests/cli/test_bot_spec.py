"""The BOT argument of `match run`, `ab` and `bot check`: one parser, the ladder's descriptions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from brandeln.cli import bot_spec
from brandeln.cli.bot_spec import (
    BotArgError,
    CommandAfterDashes,
    parse_bot,
    parse_bots,
    registered_ids,
    sample_names,
    trailing_command,
)
from brandeln.ladder.season.config import CommandBot, ExternalBot, parse_season
from brandeln.sample_bots import node_bot
from brandeln.sample_bots.registry import BOT_NAMES


def test_every_registry_bot_and_the_examples_are_sample_names() -> None:
    assert sample_names() == (*BOT_NAMES, "bridge", "node")


@pytest.mark.parametrize("name", BOT_NAMES)
def test_a_registry_bot_runs_as_the_season_files_name_it(name: str) -> None:
    spec = parse_bot(name)
    assert spec == CommandBot(
        name=name, command=("python", "-m", "brandeln.sample_bots", name), tables=1
    )
    # The same command a season file gives is accepted by the season parser (one description).
    text = "\n".join(
        ['name = "s"', "seed = 1", "blocks = 1"]
        + [f'[[bots]]\nname = "b{n}"\ncommand = {list(spec.command)!r}' for n in range(4)]
    ).replace("'", '"')
    season = parse_season(text)
    assert {bot.command for bot in season.bots if isinstance(bot, CommandBot)} == {spec.command}


def test_the_bridge_sample_runs_the_example_child_through_the_bridge() -> None:
    spec = parse_bot("bridge")
    assert isinstance(spec, CommandBot)
    assert spec.command[:6] == ("python", "-m", "brandeln.cli", "bot", "bridge", "--")
    assert Path(spec.command[-1]) == bot_spec.BRIDGE_CHILD
    assert bot_spec.BRIDGE_CHILD.is_file()


def test_the_node_sample_without_its_packages_says_how_to_install_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(node_bot, "NODE_DIR", tmp_path / "node")
    monkeypatch.setattr(shutil, "which", lambda program: f"/usr/bin/{program}")
    with pytest.raises(BotArgError, match="npm ci && npm run build"):
        parse_bot("node")


def test_the_node_sample_runs_the_node_bot_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "node" / "node_modules" / "brandeln-bot").mkdir(parents=True)
    (tmp_path / "node" / "node_modules" / "brandeln-bot" / "package.json").write_text("{}")
    (tmp_path / "node" / "bot.js").write_text("")
    monkeypatch.setattr(node_bot, "NODE_DIR", tmp_path / "node")
    monkeypatch.setattr(shutil, "which", lambda program: f"/usr/bin/{program}")
    assert parse_bot("node") == CommandBot(
        name="node", command=("/usr/bin/node", str(tmp_path / "node" / "bot.js")), tables=1
    )


def test_a_cmd_prefix_is_split_like_a_shell_and_named_after_its_script() -> None:
    spec = parse_bot("cmd:python -u 'my bots/clever_bot.py' --depth 3", tables=2)
    assert spec == CommandBot(
        name="clever_bot",
        command=("python", "-u", "my bots/clever_bot.py", "--depth", "3"),
        tables=2,
    )


def test_a_cmd_prefix_without_a_script_is_named_after_its_program() -> None:
    assert parse_bot("cmd:./bin/mybot --fast").name == "mybot"


@pytest.mark.parametrize("text", ["cmd:", "cmd:   ", "cmd:python 'unclosed"])
def test_a_cmd_prefix_without_a_usable_command_is_an_error(text: str) -> None:
    with pytest.raises(BotArgError, match="command"):
        parse_bot(text)


def test_a_referee_bot_id_is_a_bot_that_connects_by_itself() -> None:
    assert parse_bot("bot_0123456789ab") == ExternalBot(
        name="bot_0123456789ab", bot_id="bot_0123456789ab"
    )
    assert parse_bot("id:b-3f2a") == ExternalBot(name="b-3f2a", bot_id="b-3f2a")


def test_an_unknown_bot_is_one_line_naming_every_form_and_the_closest_name() -> None:
    with pytest.raises(BotArgError) as caught:
        parse_bot("heuristc")
    message = str(caught.value)
    assert "\n" not in message
    assert "did you mean 'heuristic'?" in message
    assert "cmd:python mybot.py" in message
    assert "bot_" in message
    for name in sample_names():
        assert name in message


def test_bots_get_unique_names_by_seat_and_the_trailing_command_comes_last() -> None:
    specs = parse_bots(["random", "random", "bot_0123456789ab"], ("python", "random.py"))
    assert [spec.name for spec in specs] == ["random", "random-2", "bot_0123456789ab", "random-3"]
    assert isinstance(specs[3], CommandBot)
    assert specs[3].command == ("python", "random.py")
    assert registered_ids(specs) == ["bot_0123456789ab"]


def test_words_after_dashes_are_one_command_not_more_bots() -> None:
    app = typer.Typer()
    seen: dict[str, object] = {}

    @app.command(cls=CommandAfterDashes)
    def run(ctx: typer.Context, bots: list[str], deals: int = 4) -> None:
        seen["bots"] = bots
        seen["command"] = trailing_command(ctx)
        seen["deals"] = deals

    result = CliRunner().invoke(
        app, ["random", "heuristic", "--deals", "8", "--", "python", "mybot.py", "--deals", "2"]
    )
    assert result.exit_code == 0, result.output
    assert seen == {
        "bots": ["random", "heuristic"],
        "command": ("python", "mybot.py", "--deals", "2"),
        "deals": 8,
    }
    result = CliRunner().invoke(app, ["random"])
    assert result.exit_code == 0, result.output
    assert seen["command"] == ()
