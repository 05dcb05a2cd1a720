"""Hostile text for the web tests, and the check that a page holds it only as inert text.

:func:`assert_inert` parses a page as a browser's tokenizer would and fails on anything the
data could have added: a ``<script>`` that is neither one of our files nor a JSON block, an
element the templates never write (``<img>``, ``<iframe>``...), an ``on...=`` attribute, a link
or source with a scheme (``javascript:``), a JSON block that does not parse. A string that
escaped its escaping shows as one of these, whatever the page.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Final

from brandeln.web.templating import TEMPLATES_DIR

HOSTILE_TEXTS: Final = (
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "</script><script>alert(2)</script>",
    "{{7*7}}",
    "'single'",
    "javascript:alert(1)",
)
# Markup without a "/", for a path segment (a "%2F" in one is a "/" to the router).
SLASHLESS_TEXTS: Final = ("<script>alert(3)", "<svg onload=alert(4)>")
# The elements our templates write; anything else on a page came from the data.
TEMPLATE_TAGS: Final = frozenset(
    re.findall(r"<([a-z][a-z0-9]*)", "".join(p.read_text() for p in TEMPLATES_DIR.glob("*.html")))
)
URL_ATTRIBUTES: Final = frozenset({"href", "src", "action", "formaction", "data", "poster"})
SCHEME: Final = re.compile(r"^\s*[A-Za-z][A-Za-z0-9+.-]*:")


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.json_blocks: list[str] = []
        self.text: list[str] = []
        self.attribute_values: list[str] = []
        self._in_json = False
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag not in TEMPLATE_TAGS:
            self.problems.append(f"<{tag}> is no element of ours: {attrs}")
        for name, value in attrs:
            self.attribute_values.append(value or "")
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}={value!r}>: an event handler")
            if name in URL_ATTRIBUTES and value is not None and SCHEME.match(value):
                self.problems.append(f"<{tag} {name}={value!r}>: a URL with a scheme")
        if tag == "script":
            self._in_json = named.get("type") == "application/json"
            self._in_script = True
            source = named.get("src")
            if not self._in_json and not (source and source.startswith("/static/")):
                self.problems.append(f"<script {attrs}>: neither our file nor JSON")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_json = self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_json:
            self.json_blocks.append(data)
        elif self._in_script:
            if data.strip():
                self.problems.append(f"inline script: {data[:80]!r}")
        else:
            self.text.append(data)


def parse(page: str) -> _Page:
    parsed = _Page()
    parsed.feed(page)
    parsed.close()
    return parsed


def assert_inert(page: str, *, shown: tuple[str, ...] = (), where: str = "") -> None:
    """``page`` holds no markup, script or URL from its data; each of ``shown`` is on it as
    text, in an attribute's value or in a JSON block (so it was escaped, not dropped)."""
    parsed = parse(page)
    assert parsed.problems == [], f"{where}: {parsed.problems}"
    data = [json.loads(block) for block in parsed.json_blocks]  # each block parses whole
    text = "".join(parsed.text)
    in_json = json.dumps(data, ensure_ascii=False)
    for string in shown:
        found = (
            string in text
            or any(string in value for value in parsed.attribute_values)
            or json.dumps(string, ensure_ascii=False)[1:-1] in in_json
        )
        assert found, f"{where}: {string!r} is not shown"


def assert_inert_text(body: str, *, where: str = "") -> None:
    """A plain-text answer (an error line): no markup at all."""
    assert "<" not in body, f"{where}: {body[:200]!r}"
