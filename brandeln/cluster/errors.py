"""The cluster executor's errors: one line each, for the CLI to print."""

from __future__ import annotations

__all__ = ["ClusterError", "ClusterUnreachableError", "NodeNotReadyError"]


class ClusterError(Exception):
    """A cluster season cannot go on (the message says why and what to do)."""


class ClusterUnreachableError(ClusterError):
    """No Ray cluster at the address given."""


class NodeNotReadyError(ClusterError):
    """A node lacks what a command bot needs (its program or files)."""
