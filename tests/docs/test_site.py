"""The manual (mkdocs.yml, docs/): it builds with --strict and not one warning, it loads
nothing from another host, its command-line reference has every command with the help the
CLI prints, the web front's links into it arrive, and the README stays a front page."""

from __future__ import annotations

import doctest
import html
import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.web.manual import ManualLink
from tests.cli.test_argument_help import command_lines
from tests.conftest import PROJECT_PYTHONPATH, ROOT

BUILD_TIMEOUT_S: Final = 300
# About 5 s on an idle machine, a minute on a loaded one; the build runs in the first test.
pytestmark = pytest.mark.timeout(BUILD_TIMEOUT_S + 60)
# The width the CLI wraps its help at in any terminal of 80 columns or more.
HELP_WIDTH: Final = 78
README_MAX_LINES: Final = 300
# A URL that leaves the site: a scheme (http:, https:, data: is allowed) or //host.
REMOTE: Final = re.compile(r"^\s*(?:https?:)?//", re.I)
# Where a page loads something from (what a browser fetches by itself, not a link to follow).
LOADS: Final = {
    "script": "src",
    "link": "href",
    "img": "src",
    "iframe": "src",
    "source": "src",
    "video": "src",
    "audio": "src",
    "embed": "src",
    "object": "data",
}
FONT_HOSTS: Final = ("fonts.googleapis", "fonts.gstatic")
# A Markdown link or image, inline or as a reference definition, and an HTML src/href.
MARKDOWN_LINK: Final = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK: Final = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
HTML_LINK: Final = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")


@dataclass(frozen=True)
class Build:
    folder: Path
    returncode: int
    output: str

    def check(self) -> Path:
        """The built site's folder; a failed build fails the test that needs it."""
        assert self.returncode == 0, self.output[-5000:]
        return self.folder


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """`make docs` (mkdocs build --strict of the checkout's mkdocs.yml and docs/) into a folder
    of the test's instead of site/, by the interpreter running the tests."""
    folder = tmp_path_factory.mktemp("site")
    pythonpath = os.pathsep.join(filter(None, [PROJECT_PYTHONPATH, os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": pythonpath, "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"}
    done = subprocess.run(
        [
            "make",
            "--no-print-directory",
            # With the suite's own interpreter, never the checkout's .venv, which the Makefile
            # would otherwise create and install: its stamp counts as made (-o).
            *("-o", ".venv/.installed", f"BIN={Path(sys.executable).parent}"),
            "docs",
            f"SITE={folder}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    return Build(folder, done.returncode, done.stdout + done.stderr)


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


class _Loads(HTMLParser):
    """What a page loads by itself: (tag, URL) of its scripts, style sheets, images..."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.loads: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attribute = LOADS.get(tag)
        named = dict(attrs)
        if attribute is not None and named.get(attribute):
            self.loads.append((tag, named[attribute] or ""))
        if tag == "link" and named.get("rel") in {"preconnect", "dns-prefetch"}:
            self.loads.append((tag, named.get("href") or ""))


def loads_of(page: Path) -> list[tuple[str, str]]:
    parser = _Loads()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.loads


def test_the_manual_builds_strictly_without_a_warning(build: Build) -> None:
    site = build.check()
    warnings = [line for line in build.output.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert warnings == []
    assert (site / "index.html").is_file()
    assert (site / "search" / "search_index.js").is_file()  # search, from file:// too


def test_the_manual_loads_nothing_from_another_host(build: Build) -> None:
    site = build.check()
    remote = [
        (str(page.relative_to(site)), tag, url)
        for page in pages(site)
        for tag, url in loads_of(page)
        if REMOTE.match(url)
    ]
    assert remote == []
    fonts = [
        str(path.relative_to(site))
        for path in [*pages(site), *site.rglob("*.css")]
        if any(host in path.read_text(encoding="utf-8") for host in FONT_HOSTS)
    ]
    assert fonts == []
    # What the loads name is in the site (a script or style sheet missing offline shows here).
    missing = {
        (str(page.relative_to(site)), url)
        for page in pages(site)
        for _, url in loads_of(page)
        if not url.startswith("data:")
        and not (page.parent / urlsplit(url).path).resolve().is_file()
    }
    assert missing == set()


def cli_sections(site: Path) -> dict[str, str]:
    """The CLI reference's sections: each heading's anchor -> the text of its code block."""
    text = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    sections = {}
    for found in re.finditer(r'<h\d id="(brandeln[^"]*)"', text):
        block = re.search(r"<pre>(.*?)</pre>", text[found.end() :], re.S)
        assert block is not None, found.group(1)
        sections[found.group(1)] = html.unescape(re.sub(r"<[^>]+>", "", block.group(1)))
    return sections


def help_of(path: list[str]) -> str:
    result = CliRunner().invoke(
        app, [*path, "--help"], prog_name="brandeln", terminal_width=HELP_WIDTH
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_the_cli_reference_has_every_command_with_its_help(build: Build) -> None:
    sections = cli_sections(build.check())
    paths = list(command_lines())
    assert ["bench", "solver"] in paths  # the lazily loaded group, whole
    for path in paths:
        anchor = "-".join(["brandeln", *path])
        assert anchor in sections, f"`brandeln {' '.join(path)}` has no section"
        assert sections[anchor].rstrip("\n") == help_of(path).rstrip("\n"), anchor
    assert len(sections) == len(paths)


def test_the_protocol_files_page_shows_every_proto_file_as_it_is(build: Build) -> None:
    # Embedded at build time (pymdownx.snippets): every service, rpc, message and enum of
    # proto/, in the order of its file, and nothing left of the snippet's marker.
    page = html.unescape(
        re.sub(r"<[^>]+>", "", (build.check() / "reference" / "protocol-files.html").read_text())
    )
    assert "--8<--" not in page
    files = sorted((ROOT / "proto").rglob("*.proto"))
    assert len(files) == 3
    for proto in files:
        names = re.findall(r"^\s*(?:service|rpc|message|enum)\s+(\w+)", proto.read_text(), re.M)
        assert names, proto
        at = 0
        for name in names:
            found = re.compile(rf"(?:service|rpc|message|enum)\s+{name}\b").search(page, at)
            assert found is not None, f"{proto.name}: {name} is not on the page (in order)"
            at = found.end()


@pytest.mark.parametrize("path", [[], ["match", "run"], ["bench", "solver"]], ids=" ".join)
def test_the_help_in_the_reference_is_what_the_cli_prints(path: list[str]) -> None:
    # The real command line, in a terminal 100 columns wide: what the reference must show.
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from brandeln.cli.main import app; app(prog_name='brandeln')",
            *path,
            "--help",
        ],
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "PYTHONPATH": PROJECT_PYTHONPATH},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == help_of(path)


@pytest.mark.parametrize("link", list(ManualLink), ids=lambda link: link.name)
def test_the_web_fronts_links_into_the_manual_arrive(build: Build, link: ManualLink) -> None:
    site = build.check()
    path, _, anchor = link.value.partition("#")
    page = site / path
    assert page.is_file(), f"{link.value}: no such page in the built manual"
    if anchor:
        assert f'id="{anchor}"' in page.read_text(encoding="utf-8"), link.value


def test_the_docstring_extensions_examples_hold() -> None:
    # docs/hooks/docstrings.py (the reST docstrings as Markdown): a hook file, no package.
    spec = importlib.util.spec_from_file_location(
        "docstrings_hook", ROOT / "docs" / "hooks" / "docstrings.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0


def relative_targets(markdown: str) -> list[str]:
    found = [
        *MARKDOWN_LINK.findall(markdown),
        *REFERENCE_LINK.findall(markdown),
        *HTML_LINK.findall(markdown),
    ]
    return [target for target in found if not re.match(r"^[a-z][a-z0-9+.-]*:|^//|^#", target, re.I)]


def test_relative_targets_are_read_from_every_kind_of_link() -> None:
    text = (
        '[a](docs/a.md#x) ![b](<img/b.png> "t") [c](https://x.org) [h](#top)\n'
        '[d]: docs/d.md\n<img src="e.png">'
    )
    assert relative_targets(text) == ["docs/a.md#x", "img/b.png", "docs/d.md", "e.png"]


def test_the_readme_is_a_front_page_whose_links_all_resolve() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    broken = [
        target for target in relative_targets(readme) if not (ROOT / urlsplit(target).path).exists()
    ]
    assert broken == []
