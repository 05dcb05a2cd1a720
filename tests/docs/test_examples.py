"""Every example of getting started and the bot-author pages runs as the page shows it
(tests/docs/examples/ runs them; the convention is in its modules' docstrings), and the
runner itself does what the convention says, on its own pages in tests/docs/fixtures/.

A page the page map names that is missing fails: the examples cannot be said to run.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final, Literal

import pytest

from tests.docs.examples import runner
from tests.docs.examples.netns import Unavailable, unavailable
from tests.docs.examples.page import parse_page, read_page
from tests.docs.examples.runner import NO_NODE, ROOT, ExampleFailedError, Tally, run_page
from tests.docs.examples.shell import Failure
from tests.docs.examples.summary import Totals, record

DOCS: Final = ROOT / "docs"
FIXTURES: Final = Path(__file__).resolve().parent / "fixtures"
# The pages whose examples run (the docs' page map): getting started and every bot-author page.
PAGES_RUN: Final = (
    "getting-started.md",
    "bot-authors/python.md",
    "bot-authors/node.md",
    "bot-authors/bridge.md",
    "bot-authors/improve.md",
    "bot-authors/research.md",
)
PAGE_TIMEOUT_S: Final = 600  # the runner's own timeouts (per command) speak first
# About a minute of pages (and the real pages' minute): collected first, beside the rest.
pytestmark = pytest.mark.early

Recorder = Callable[[str, object], None]


def _pages_run() -> list[str]:
    found = {path.relative_to(DOCS).as_posix() for path in DOCS.glob("bot-authors/*.md")}
    return sorted(set(PAGES_RUN) | found)


def _run(path: Path, name: str, record_property: Recorder, where: str) -> Tally:
    page = read_page(path, name)
    try:
        outcome = run_page(page)
    except ExampleFailedError as failed:
        pytest.fail(str(failed), pytrace=False)
    record(record_property, outcome.tally, where)
    if outcome.skipped is not None:
        pytest.skip(f"{name}: {outcome.skipped}")
    return outcome.tally


@pytest.fixture
def namespaces() -> None:
    if (missing := unavailable()) is not None:
        pytest.skip(missing.value)


@pytest.mark.timeout(PAGE_TIMEOUT_S)
@pytest.mark.parametrize("name", _pages_run())
def test_the_page_s_examples_run_as_shown(name: str, record_property: Recorder) -> None:
    path = DOCS / name
    if not path.is_file():
        pytest.fail(
            f"docs/{name} is missing: the page map names it, its examples must run",
            pytrace=False,
        )
    tally = _run(path, f"docs/{name}", record_property, "docs/")
    assert tally.blocks_run > 0, f"docs/{name} has no example that runs"


@pytest.mark.timeout(PAGE_TIMEOUT_S)
def test_the_sample_page_runs_every_rule(namespaces: None, record_property: Recorder) -> None:
    tally = _run(FIXTURES / "sample.md", "sample.md", record_property, "tests/docs/fixtures/")
    counts = (
        tally.blocks_run,
        tally.commands,
        tally.outputs_compared,
        tally.files_saved,
        tally.skipped,
    )
    assert counts == (5, 13, 6, 1, 1)
    assert tally.skips == ["sample.md:73: it needs a second machine"]


@pytest.mark.timeout(PAGE_TIMEOUT_S)
def test_the_readme_s_five_minutes_run_against_the_real_cli(
    namespaces: None, record_property: Recorder
) -> None:
    tally = _run(
        FIXTURES / "five-minutes.md", "five-minutes.md", record_property, "tests/docs/fixtures/"
    )
    assert (tally.blocks_run, tally.commands, tally.outputs_compared) == (3, 10, 3)


def _failure(text: str, **timeouts: float) -> ExampleFailedError:
    with pytest.raises(ExampleFailedError) as failed:
        run_page(parse_page("t.md", text), **timeouts)
    return failed.value


def test_other_output_names_the_line_and_shows_both(namespaces: None) -> None:
    failed = _failure("Text.\n\n```console\n$ echo one\none\n$ echo actual\nexpected\n```\n")
    assert failed.reason is Failure.OUTPUT
    message = str(failed)
    assert message.startswith("t.md:6: `echo actual` printed other output than the page shows")
    assert "expected (the page):\n    expected\nactual (the command):\n    actual\n" in message


def test_a_failing_command_names_its_status(namespaces: None) -> None:
    failed = _failure('```console\n$ export A=x\n$ echo "$A" && exit 3\n```\n')
    assert failed.reason is Failure.EXIT_STATUS
    assert str(failed) == 't.md:3: `echo "$A" && exit 3` exited with status 3; its output:\n    x'


def test_a_failing_python_block_fails(namespaces: None) -> None:
    failed = _failure("```python\nraise SystemExit('no')\n```\n")
    assert failed.reason is Failure.EXIT_STATUS
    assert str(failed) == "t.md:2: the Python block exited with status 1; its output:\n    no"


def test_a_command_past_its_timeout_is_killed(namespaces: None) -> None:
    started = time.monotonic()
    failed = _failure("```console\n$ echo started && sleep 30\n```\n", timeout_s=1.0)
    assert time.monotonic() - started < 15
    assert failed.reason is Failure.TIMEOUT
    assert str(failed).startswith("t.md:2: `echo started && sleep 30` did not finish within 1 s")
    assert "    started" in str(failed)


def test_a_background_command_that_ends_early_fails(namespaces: None) -> None:
    failed = _failure("```console\n$ echo bye && false &\n```\n")
    assert failed.reason is Failure.BACKGROUND_EXITED
    assert "bye" in str(failed)


def test_a_background_command_never_ready_fails(namespaces: None) -> None:
    failed = _failure(
        "```console\n$ bash -c 'sleep 30' -- --port 8123 &\n```\n", ready_timeout_s=1.0
    )
    assert failed.reason is Failure.NOT_READY
    assert "(nothing of its own listening on port 8123)" in str(failed)


SERVER: Final = """\
import os
import socket
import sys
import sys
import time

listener = socket.socket()
listener.bind(("127.0.0.1", int(sys.argv[2])))
listener.listen()
with open(os.environ["PID_FILE"], "w") as pid:
    pid.write(str(os.getpid()))
time.sleep(120)
"""


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"


def test_a_page_has_its_own_ports_and_its_background_is_stopped(
    namespaces: None, tmp_path: Path
) -> None:
    """The page listens on a port this process holds (its own namespace), is waited for, and
    is gone once the page has run."""
    pid_file = tmp_path / "pid"
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        page = (
            f'```python title="server.py"\n{SERVER}```\n\n'
            f"```console\n$ export PID_FILE={pid_file}\n"
            f"$ python server.py --port {port} &\n"
            f"$ python -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}))'\n"
            "```\n"
        )
        outcome = run_page(parse_page("t.md", page))
    assert outcome.skipped is None
    assert outcome.tally.commands == 3
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid), f"the background server {pid} outlived its page"


def test_a_second_server_on_a_taken_port_is_not_taken_for_ready(
    namespaces: None, tmp_path: Path
) -> None:
    """The port listens, but not for this command: it fails to bind and ends."""
    page = (
        f'```python title="server.py"\n{SERVER}```\n\n'
        f"```console\n$ export PID_FILE={tmp_path / 'pid'}\n"
        "$ python server.py --port 8124 &\n"
        "$ python server.py --port 8124 &\n"
        "```\n"
    )
    failed = _failure(page)
    assert failed.reason is Failure.BACKGROUND_EXITED
    assert str(failed).startswith("t.md:19: the background command `python server.py --port")
    assert "Address already in use" in str(failed)


def test_a_process_that_left_its_group_is_stopped_with_the_page(
    namespaces: None, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    page = f"```console\n$ setsid sleep 300 > /dev/null 2>&1 & echo $! > {pid_file}\n```\n"
    run_page(parse_page("t.md", page))
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid), f"the daemon {pid} outlived its page"


def test_a_page_running_node_skips_where_node_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runner, "node_installed", lambda _path: False)
    outcome = run_page(parse_page("t.md", "```console\n$ node bot.js\n```\n"))
    assert outcome.skipped == NO_NODE
    assert (outcome.tally.skipped, outcome.tally.skips) == (1, [f"t.md: {NO_NODE}"])


def test_a_page_skips_saying_why_without_a_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "unavailable", lambda: Unavailable.NOT_ROOT)
    outcome = run_page(parse_page("t.md", "```console\n$ echo hi\n```\n"))
    assert outcome.skipped == Unavailable.NOT_ROOT.value


def test_the_page_s_environment_puts_this_venv_first() -> None:
    env = runner.page_env(Path("/h"), Path("/t"))
    assert env["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)
    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(ROOT)
    assert env["HOME"] == "/h"


def _report(
    when: Literal["setup", "call", "teardown"], properties: list[tuple[str, object]]
) -> pytest.TestReport:
    return pytest.TestReport(
        "t", ("t.py", 0, "t"), {}, "passed", None, when, user_properties=properties
    )


def test_the_closing_count_adds_the_pages_up_by_folder() -> None:
    totals = Totals()
    recorded: list[tuple[str, object]] = []
    one = Tally(pages=1, blocks_run=2, commands=3, outputs_compared=1, skipped=1, seconds=1.5)
    one.skips.append("a.md:9: a second machine")
    record(lambda name, value: recorded.append((name, value)), one, "docs/")
    record(lambda name, value: recorded.append((name, value)), Tally(pages=1, commands=2), "docs/")
    totals.add(_report("call", recorded))
    totals.add(_report("teardown", recorded))  # the same properties again: not counted twice
    totals.add(_report("call", [("other", {"where": "x"})]))
    assert totals.lines() == [
        "docs/: 2 pages, 2 blocks run, 5 commands, 1 outputs compared, 0 files saved, "
        "1 skipped (1.5 s)",
        "  skipped a.md:9: a second machine",
    ]
