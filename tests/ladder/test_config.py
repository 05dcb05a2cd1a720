"""Season files: parsing, defaults and errors that name the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from brandeln.ladder.errors import SeasonConfigError
from brandeln.ladder.season.config import (
    CommandBot,
    ExternalBot,
    RatingParams,
    TimeControl,
    load_season,
    parse_season,
)

FOUR_BOTS = "".join(
    f'[[bots]]\nname = "{name}"\ncommand = ["python", "-m", "bot", "{name}"]\n'
    for name in ("a", "b", "c", "d")
)
MINIMAL = f'name = "s1"\nseed = 3\nblocks = 2\n{FOUR_BOTS}'


def test_a_minimal_file_takes_the_defaults() -> None:
    config = parse_season(MINIMAL, "s.toml")
    assert (config.name, config.ruleset, config.seed, config.blocks) == ("s1", "standard", 3, 2)
    assert config.players == 4
    assert config.deals_per_match == 8
    assert config.concurrency == 4
    assert config.time_control == TimeControl(0, 0, 0, 0)
    assert config.rating == RatingParams(25.0, 25 / 3, 25 / 6, 25 / 300, 0.10)
    assert config.options == {}
    assert config.bots[0] == CommandBot("a", ("python", "-m", "bot", "a"), tables=4)


def test_every_setting_is_read() -> None:
    text = """
name = "full"
ruleset = "three-player"
seed = 18446744073709551615
blocks = 5
deals_per_match = 6
concurrency = 2
connect_timeout_ms = 500
seat_wait_ms = 2000
[options]
early_stop = "when_decided"
[time_control]
move_ms = 100
bank_ms = 1000
max_strikes = 5
reconnect_ms = 3000
[rating]
mu = 1500
sigma = 500.0
beta = 250
tau = 5
draw_probability = 0.0
[[bots]]
name = "x"
command = "brandeln bot run random --tables '{tables}'"
tables = 3
[[bots]]
name = "y"
bot_id = "b-1"
[[bots]]
name = "z"
bot_id = "b-2"
"""
    config = parse_season(text, "full.toml")
    assert config.players == 3
    assert config.seed == 2**64 - 1
    assert config.deals_per_match == 6
    assert config.options == {"early_stop": "when_decided"}
    assert config.time_control == TimeControl(100, 1000, 5, 3000)
    assert config.rating == RatingParams(1500.0, 500.0, 250.0, 5.0, 0.0)
    assert config.bots == (
        CommandBot("x", ("brandeln", "bot", "run", "random", "--tables", "{tables}"), 3),
        ExternalBot("y", "b-1"),
        ExternalBot("z", "b-2"),
    )
    assert (config.concurrency, config.connect_timeout_ms, config.seat_wait_ms) == (2, 500, 2000)


def test_the_three_player_default_deals_are_a_multiple_of_three() -> None:
    text = MINIMAL.replace("blocks = 2", 'blocks = 2\nruleset = "three-player"')
    assert parse_season(text).deals_per_match % 3 == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("blocks = 2", "blcoks = 2"), "s.toml: blcoks: unknown key; did you mean 'blocks'?"),
        (("blocks = 2", "blocks = 2\nfoo = 1"), "s.toml: foo: unknown key; known keys: name,"),
        (("blocks = 2", 'blocks = "ten"'), "s.toml: blocks: expected an integer, got a string"),
        (("blocks = 2", "blocks = true"), "s.toml: blocks: expected an integer, got a boolean"),
        (("blocks = 2", "blocks = 0"), "s.toml: blocks: must be between 1 and"),
        (("blocks = 2", ""), "s.toml: blocks: missing (required)"),
        (('name = "s1"', 'name = "bad name"'), "s.toml: name: 'bad name' must be"),
        (('name = "s1"', "name = 3"), "s.toml: name: expected a string, got an integer"),
        (("seed = 3", "seed = -1"), "s.toml: seed: must be between 0 and"),
        (
            ("blocks = 2", 'blocks = 2\nruleset = "poker"'),
            "s.toml: ruleset: unknown ruleset 'poker'",
        ),
        (
            ("blocks = 2", "blocks = 2\ndeals_per_match = 6"),
            "s.toml: deals_per_match: must be a multiple of the 4 players",
        ),
        (
            ("blocks = 2", 'blocks = 2\n[options]\nhead_rule = "always"'),
            "s.toml: options: switch 'head_rule' cannot be 'always'",
        ),
        (
            ("blocks = 2", "blocks = 2\n[options]\nearly_stop = 1"),
            "s.toml: options.early_stop: expected a string",
        ),
        (
            ("blocks = 2", "blocks = 2\n[time_control]\nmove_ms = 1.5"),
            "s.toml: time_control.move_ms: expected an integer, got a number",
        ),
        (
            ("blocks = 2", "blocks = 2\n[time_control]\nmoves_ms = 1"),
            "s.toml: time_control.moves_ms: unknown key; did you mean 'move_ms'?",
        ),
        (
            ("blocks = 2", "blocks = 2\n[rating]\ndraw_probability = 1.0"),
            "s.toml: rating.draw_probability: must be in [0.0, 1.0)",
        ),
        (
            ("blocks = 2", 'blocks = 2\n[rating]\nsigma = "x"'),
            "s.toml: rating.sigma: expected a number, got a string",
        ),
        (("blocks = 2", "blocks = 2\ntime_control = 3"), "s.toml: time_control: expected a table"),
    ],
)
def test_errors_name_the_file_and_the_key(change: tuple[str, str], message: str) -> None:
    with pytest.raises(SeasonConfigError) as caught:
        parse_season(MINIMAL.replace(*change, 1), "s.toml")
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("bots", "message"),
    [
        ("", "s.toml: bots: missing"),
        ("bots = 3\n", "s.toml: bots: expected [[bots]] tables"),
        ('[[bots]]\nname = "a"\n', "s.toml: bots[0].command: give exactly one of"),
        (
            '[[bots]]\nname = "a"\ncommand = "x"\nbot_id = "y"\n',
            "s.toml: bots[0].command: give exactly one of",
        ),
        (
            '[[bots]]\nname = "a"\ncommand = 3\n',
            "s.toml: bots[0].command: expected a list of strings",
        ),
        ('[[bots]]\nname = "a"\ncommand = ["x", 1]\n', "s.toml: bots[0].command: expected a list"),
        ('[[bots]]\nname = "a"\ncommand = []\n', "s.toml: bots[0].command: must name a program"),
        ('[[bots]]\nname = "a"\ncommand = "x \'y"\n', "s.toml: bots[0].command: cannot split"),
        (
            '[[bots]]\nname = "a"\ntoken = "t"\n',
            "s.toml: bots[0].token: give a self-connecting bot",
        ),
        ('[[bots]]\nname = "a"\nbot_id = "1"\ntables = 2\n', "s.toml: bots[0].tables: only a"),
        ('[[bots]]\nname = "a"\ncommand = "x"\ntables = 0\n', "s.toml: bots[0].tables: must be"),
        ('[[bots]]\ncommand = "x"\n', "s.toml: bots[0].name: missing"),
        ('[[bots]]\nname = "a"\ncommand = "x"\nflavour = 1\n', "s.toml: bots[0].flavour: unknown"),
        (
            FOUR_BOTS + '[[bots]]\nname = "a"\ncommand = "x"\n',
            "s.toml: bots[4].name: 'a' is used by an earlier bot",
        ),
        (
            '[[bots]]\nname = "a"\ncommand = "x"\n',
            "s.toml: bots: a table needs 4 bots and the season names 1",
        ),
    ],
)
def test_bot_errors_name_the_entry(bots: str, message: str) -> None:
    with pytest.raises(SeasonConfigError) as caught:
        parse_season(MINIMAL.replace(FOUR_BOTS, bots), "s.toml")
    assert str(caught.value).startswith(message)


def test_a_toml_syntax_error_names_the_file_and_line() -> None:
    with pytest.raises(SeasonConfigError, match=r"^s.toml: TOML syntax error: .*line 1"):
        parse_season('name = "unterminated\n', "s.toml")


def test_load_season_reads_a_file_and_keeps_its_path(tmp_path: Path) -> None:
    path = tmp_path / "season.toml"
    path.write_text(MINIMAL)
    config = load_season(path)
    assert config.source == path
    assert config.name == "s1"


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(SeasonConfigError, match="no such season file"):
        load_season(tmp_path / "nope.toml")


def test_the_example_and_packaged_season_files_are_valid() -> None:
    root = Path(__file__).resolve().parents[2]
    paths = [
        *sorted((root / "examples" / "seasons").glob("*.toml")),
        root / "ladder" / "default_season.toml",
    ]
    assert len(paths) >= 2
    for path in paths:
        assert load_season(path).bots, path


def test_a_command_bot_may_ask_to_be_checked_first() -> None:
    text = MINIMAL.replace('name = "a"\n', 'name = "a"\ncheck = true\n', 1)
    config = parse_season(text, "s.toml")
    checks = [bot.check for bot in config.bots if isinstance(bot, CommandBot)]
    assert checks == [True, False, False, False]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('name = "x"\nbot_id = "b1"\ncheck = true', "only a command bot can be checked"),
        ('name = "x"\ncommand = "bot"\ncheck = "yes"', "expected true or false"),
    ],
)
def test_check_errors_name_the_entry(entry: str, message: str) -> None:
    with pytest.raises(SeasonConfigError, match=message):
        parse_season(f"{MINIMAL}[[bots]]\n{entry}\n", "s.toml")
