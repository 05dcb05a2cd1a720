"""The examples of getting started and the bot-author pages, run as a reader follows them.

The convention a page is written in (tests/docs/test_examples.py runs docs/getting-started.md
and docs/bot-authors/*.md):

- A ```console block: a line starting with ``$ `` is a command (a trailing ``\\`` continues it
  on the next line); the lines after it, up to the next ``$ `` or the block's end, are its
  output, compared line by line after stripping trailing spaces (trailing blank lines never
  count). ``...`` inside a line matches any text on that line; a line that is only ``...``
  matches any number of lines. A command with no lines after it: output not compared. Every
  command must exit 0.
- A command ending in `` &`` runs in the background for the rest of the page: the runner waits
  until a socket of its own listens on the port it names (``--port N``, ``--listen HOST:PORT``),
  or, naming none, until it holds a listening or connected socket (a bot connected to its
  referee); it stops its process group at the page's end, and then anything else left in the
  page's namespace. No output may follow it.
- A block with a title (```python title="my_bot.py"```, any language) is saved as that file in
  the shell's current folder, not run.
- A ```python block without a title runs as ``python -`` in the shell's folder; it must exit 0.
- An untitled ```sh/```bash block is an error (it would silently not run): write a console
  block. Untitled blocks of other languages (text, toml, json, proto, js) are read, not run.
- ``<!-- example: skip REASON -->`` on the line before a block (blank lines between allowed)
  skips it; the closing count lists each skip with its reason.

The reader's terminal: each page in a fresh folder and a network namespace of its own
(loopback up: the documented ports are free; needs root, else the page skips saying why),
commands through bash (``cd`` and ``export`` carry over), the venv's bin/ first on PATH,
stdout and stderr together in the order written, 80 columns, no colour, a fresh $HOME; a
command has 60 s, a background command 30 s to be ready. A page that runs node, npm or npx
skips where node is missing.
"""
