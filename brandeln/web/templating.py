"""The one Jinja2 environment of the web front: autoescaping on for every template.

Bot names, versions and log lines are hostile text; with autoescape on, a template cannot
forget to escape them. ``|tojson`` is the only way data reaches a ``<script>`` (it escapes
``<``, ``>`` and ``&`` so a name such as ``</script>`` cannot close the element).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Final

import jinja2

PACKAGE_DIR: Final = Path(__file__).resolve().parent
TEMPLATES_DIR: Final = PACKAGE_DIR / "templates"
STATIC_DIR: Final = PACKAGE_DIR / "static"


@cache
def environment() -> jinja2.Environment:
    """The shared environment (templates load from brandeln/web/templates/)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=True,  # every template, whatever its file name
        undefined=jinja2.StrictUndefined,  # a missing value is a bug, not an empty cell
        trim_blocks=True,
        lstrip_blocks=True,
    )
