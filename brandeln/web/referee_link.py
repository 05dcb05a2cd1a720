"""Where a running referee's Admin service listens, and its admin token (``--referee``,
``--admin-token``): what the match pages and the tables both need to reach it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RefereeLink"]


@dataclass(frozen=True, slots=True)
class RefereeLink:
    """Where a referee listens, and its admin token."""

    address: str
    admin_token: str
