"""The third-party front-end code the app serves: the versions
brandeln/web/frontend/package-lock.json pins, each with its licence, and no page or asset loads
anything from another host."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from brandeln.web.templating import STATIC_DIR, TEMPLATES_DIR

LOCK = Path(__file__).resolve().parents[3] / "brandeln" / "web" / "frontend" / "package-lock.json"
VENDOR = STATIC_DIR / "vendor"
# package -> (its licence file, the served files, how each names its version)
VENDORED = {
    "chart.js": ("LICENSE.md", ("chart.umd.min.js",), r"Chart\.js v(\S+)"),
    "tablesort": (
        "LICENCE",
        ("tablesort.min.js", "tablesort.number.min.js"),
        r"tablesort v(\S+)",
    ),
}


def locked_version(package: str) -> str:
    lock = json.loads(LOCK.read_text())
    return str(lock["packages"][f"node_modules/{package}"]["version"])


@pytest.mark.parametrize("package", sorted(VENDORED))
def test_vendored_files_are_the_locked_version_with_their_licence(package: str) -> None:
    licence, files, version_pattern = VENDORED[package]
    assert "Permission is hereby granted" in (VENDOR / package / licence).read_text()  # MIT
    for name in files:
        head = (VENDOR / package / name).read_text()[:400]
        found = re.search(version_pattern, head)
        assert found is not None, name
        assert found.group(1) == locked_version(package), name


def test_package_json_pins_exact_versions() -> None:
    manifest = json.loads((LOCK.parent / "package.json").read_text())
    for package, version in manifest["dependencies"].items():
        assert version == locked_version(package), package


def test_no_page_or_asset_loads_from_another_host() -> None:
    remote = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)
    imports = re.compile(r"""(?:@import|url\()\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)
    checked = 0
    for path in [*TEMPLATES_DIR.rglob("*.html"), *STATIC_DIR.rglob("*.css")]:
        text = path.read_text()
        assert not remote.search(text), path
        assert not imports.search(text), path
        checked += 1
    for path in STATIC_DIR.glob("*.js"):  # our own scripts name no host at all
        assert not re.search(r"https?://", path.read_text()), path
        checked += 1
    assert checked >= 8
