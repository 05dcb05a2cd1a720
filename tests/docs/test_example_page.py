"""The examples convention as the runner reads it: which blocks become which steps."""

from __future__ import annotations

import pytest

from tests.docs.examples.page import (
    Command,
    PageError,
    PythonScript,
    SaveFile,
    Skipped,
    find_blocks,
    parse_page,
)

PAGE = """# A page

Some text.

```console
$ export A=1
$ echo one && \\
    echo two
one
two

$ brandeln serve --port 50051 &
$ ls
```

```python title="my_bot.py"
print("saved")
```

```js title='bot.js'
console.log("saved too")
```

```python
print("run")
```

<!-- example: skip it needs a second machine -->
```console
$ ssh elsewhere
```

```toml
name = "read, not run"
```

=== "In a tab"

    ```console
    $ echo indented
    indented
    ```

````markdown
```console
$ not a command: inside a longer fence
```
````
"""


def test_every_kind_of_block_becomes_its_step() -> None:
    page = parse_page("page.md", PAGE)
    assert page.steps == (
        Command(line=6, block=6, text="export A=1", expected=None, background=False),
        Command(
            line=7,
            block=6,
            text="echo one && \\\n    echo two",
            expected=("one", "two"),
            background=False,
        ),
        Command(
            line=12, block=6, text="brandeln serve --port 50051", expected=None, background=True
        ),
        Command(line=13, block=6, text="ls", expected=None, background=False),
        SaveFile(line=17, path="my_bot.py", content='print("saved")\n'),
        SaveFile(line=21, path="bot.js", content='console.log("saved too")\n'),
        PythonScript(line=25, source='print("run")\n'),
        Skipped(line=30, reason="it needs a second machine"),
        Command(line=40, block=40, text="echo indented", expected=("indented",), background=False),
    )


def test_a_blank_line_inside_the_output_is_kept_and_trailing_ones_dropped() -> None:
    page = parse_page("p.md", "```console\n$ printf 'a\\n\\nb\\n'\na\n\nb\n\n```\n")
    assert page.commands[0].expected == ("a", "", "b")


def test_output_lines_lose_their_trailing_spaces() -> None:
    page = parse_page("p.md", "```console\n$ echo a\na   \n```\n")
    assert page.commands[0].expected == ("a",)


def test_blocks_keep_their_language_title_and_first_line() -> None:
    blocks = find_blocks("p.md", 'text\n\n```Python title="a b.py" linenums="1"\nx = 1\n```\n')
    assert [(b.line, b.language, b.title, b.lines) for b in blocks] == [
        (4, "python", "a b.py", ("x = 1",))
    ]


def test_the_skip_comment_may_stand_a_blank_line_above_its_block() -> None:
    page = parse_page("p.md", "<!-- example: skip no network -->\n\n```python\nx\n```\n")
    assert page.steps == (Skipped(line=4, reason="no network"),)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("```console\noutput first\n$ ls\n```\n", "p.md:2: output before any `$ ` command"),
        ("```console\n$ serve &\nready\n```\n", "p.md:2: a background command's output"),
        ("```console\n$ \n```\n", "p.md:2: an empty command"),
        ("```console\n$ ls\n", "p.md:1: the block opened here is never closed"),
        ("<!-- example: skip x -->\nText.\n", "p.md:1: the skip comment is not followed"),
        ("<!-- example: skip x -->\n", "p.md:1: the skip comment is not followed"),
        ("<!-- example: skip -->\n```sh\nls\n```\n", "p.md:1: write the comment as"),
        ("<!-- example: run -->\n```sh\nls\n```\n", "p.md:1: write the comment as"),
        ("```sh\nls\n```\n", "p.md:2: a ```sh block is not run"),
        ("```bash\nls\n```\n", "p.md:2: a ```bash block is not run"),
    ],
)
def test_a_page_breaking_the_convention_is_refused_with_its_line(text: str, error: str) -> None:
    with pytest.raises(PageError) as refused:
        parse_page("p.md", text)
    assert str(refused.value).startswith(error)


def test_a_skipped_shell_block_is_no_error() -> None:
    page = parse_page("p.md", "<!-- example: skip a second machine -->\n```sh\nls\n```\n")
    assert page.steps == (Skipped(line=3, reason="a second machine"),)


@pytest.mark.parametrize(
    ("command", "needs"),
    [
        ("node bot.js", True),
        ("cd bot && npm install", True),
        ("brandeln bot run --bridge -- node child.js", True),
        ("npx tsc", True),
        ("python sample_bots/node/check.py", False),
        ("brandeln match run random node-ish", False),
        ("echo nodes", False),
    ],
)
def test_a_page_needs_node_when_a_command_runs_it(command: str, needs: bool) -> None:
    assert parse_page("p.md", f"```console\n$ {command}\n```\n").needs_node is needs
