"""The fault policy is named for what it is wherever `bot check` and the referee use it.

`brandeln bot check` runs on a :class:`FaultPolicy` in production, so calling it "test-only"
misleads a reader into thinking it may be removed or is never reached outside the tests.
"""

from __future__ import annotations

import re
from pathlib import Path

from brandeln.arena import faults

ROOT = Path(__file__).resolve().parents[2]
# Where the policy is defined and used outside the tests.
USERS = [ROOT / "arena", ROOT / "brandeln" / "services" / "bot_check"]
MISNOMER = re.compile(r"test[- ]only|test fault", re.IGNORECASE)


def test_fault_policy_users_do_not_call_it_test_only() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in USERS
        for path in sorted(folder.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if MISNOMER.search(line)
    ]
    assert found == []


def test_fault_policy_module_says_bot_check_uses_it() -> None:
    doc = faults.__doc__ or ""
    assert "deliberate faults" in doc
    assert "bot check" in doc
