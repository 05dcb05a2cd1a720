"""docs/RULES.md is the one text of the rules: the design's copy, and it holds every rule cited.

The README, the manual's pages, the `.proto` comments and the engine cite rule numbers (`R12.3`,
`R8.3b`); a clone must be able to look each one up, so every citation must name a rule that
docs/RULES.md has.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "RULES.md"

# R<n>.<m>, optionally with the letter of a sub-rule (R8.3b); not inside longer words or versions.
CITATION = re.compile(r"(?<![\w.])R(\d+\.\d+[a-z]?)(?!\w)")
RULE_LINE = re.compile(r"^- R(\d+)\.(\d+) ", re.MULTILINE)
SUB_RULE_LINE = re.compile(r"^  - ([a-z])\. ", re.MULTILINE)


def _design_rules() -> Path | None:
    """The design folder's RULES.md: ``shared/design/`` beside the checkout or an ancestor."""
    for folder in ROOT.parents:
        candidate = folder / "shared" / "design" / "RULES.md"
        if candidate.is_file():
            return candidate
    return None


def _defined_rules() -> set[str]:
    """Every rule docs/RULES.md defines: ``8.3`` and, for its lettered parts, ``8.3b``."""
    text = RULES.read_text(encoding="utf-8")
    defined: set[str] = set()
    matches = list(RULE_LINE.finditer(text))
    for i, match in enumerate(matches):
        number = f"{match[1]}.{match[2]}"
        defined.add(number)
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        for letter in SUB_RULE_LINE.findall(text, match.end(), end):
            defined.add(number + letter)
    return defined


def _citing_files() -> list[Path]:
    """The files outside docs/ that cite rules: there a bare `RULES.md` leads nowhere."""
    files = [ROOT / "README.md", *sorted((ROOT / "proto").rglob("*.proto"))]
    files += sorted((ROOT / "engine").rglob("*.py"))
    return files


def _manual_pages() -> list[Path]:
    """The manual's pages beside docs/RULES.md: they link to it as `RULES.md` or `../RULES.md`."""
    return [page for page in sorted((ROOT / "docs").rglob("*.md")) if page != RULES]


def test_docs_rules_is_the_design_folders_rules_byte_for_byte() -> None:
    design = _design_rules()
    if design is None:
        pytest.skip("no shared/design/RULES.md beside this checkout to compare docs/RULES.md with")
    assert RULES.read_bytes() == design.read_bytes(), (
        f"docs/RULES.md differs from {design}: copy it again (cp {design} docs/RULES.md)"
    )


def test_the_protocol_design_sits_beside_the_rules() -> None:
    assert (ROOT / "docs" / "PROTOCOL.md").is_file()


def test_every_rule_cited_in_the_docs_the_protos_and_the_engine_is_in_docs_rules() -> None:
    defined = _defined_rules()
    assert {"1.1", "8.3", "8.3b", "12.3"} <= defined  # the parser reads the file's layout
    missing = [
        f"{path.relative_to(ROOT)}: R{number}"
        for path in [*_citing_files(), *_manual_pages()]
        for number in sorted(
            set(CITATION.findall(path.read_text())) - defined,
            key=str,
        )
    ]
    assert not missing, f"rules cited but not in docs/RULES.md: {missing}"


def test_the_citations_point_at_docs_rules() -> None:
    """A clone has no design folder: a bare `RULES.md` (not `docs/RULES.md`) is a dead end."""
    bare = re.compile(r"(?<![\w/])RULES\.md")
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in _citing_files()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if bare.search(line)
    ]
    assert not offenders, f"cite docs/RULES.md instead: {offenders}"


def test_every_cited_number_form_is_recognised() -> None:
    found = CITATION.findall("R8.3b, R12.3 and R1.1. (not SR1.2 or R1.2x3)")
    assert found == ["8.3b", "12.3", "1.1"]
