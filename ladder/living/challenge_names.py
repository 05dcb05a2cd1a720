"""The bots a challenge names, as versions of an always-on ladder: what ``brandeln challenge``
and the web's challenge form both accept, resolved the same way.

A name is a version as it is (``BOT@VERSION``, retired ones included: the store then says it
is not active) or a bot family, standing for its active version.

>>> from brandeln.ladder.ratings.trueskill_model import Rating
>>> from brandeln.ladder.store.schema import VersionStatus
>>> def version(name, status=VersionStatus.ACTIVE):
...     family, _, number = name.partition("@")
...     return LadderVersion(name, family, number, "", status, 0, Rating(25.0, 8.0), 0)
>>> versions = [version("a@1", VersionStatus.RETIRED), version("a@2"), version("b@1")]
>>> resolve_versions(versions, ["a", "b@1"], "ladder")
('a@2', 'b@1')
>>> resolve_versions(versions, ["c"], "ladder")
Traceback (most recent call last):
...
brandeln.ladder.errors.LadderError: no version 'c' in ladder 'ladder' (active: a@2, b@1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from brandeln.ladder.errors import LadderError
from brandeln.ladder.store.living import LadderVersion

__all__ = ["resolve_versions"]


def resolve_versions(
    versions: Sequence[LadderVersion], names: Iterable[str], ladder: str
) -> tuple[str, ...]:
    """Each of ``names`` as a version of ``ladder`` (whose versions are ``versions``):
    ``BOT@VERSION`` as it is, ``BOT`` as its active version. LadderError naming the first
    name that is unknown, or a version named twice."""
    seated: list[str] = []
    for name in names:
        found = [v.name for v in versions if v.name == name] or [
            v.name for v in versions if v.family == name and v.active
        ]
        if not found:
            known = ", ".join(v.name for v in versions if v.active) or "none yet"
            raise LadderError(f"no version {name!r} in ladder {ladder!r} (active: {known})")
        if found[0] in seated:
            raise LadderError(f"{found[0]} is named twice")
        seated.append(found[0])
    return tuple(seated)
