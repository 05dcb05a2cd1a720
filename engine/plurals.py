"""A count with its noun in the right number: "1 block", "2 blocks", "1 match", "0 matches".

Every layer prints counts (the CLI's summaries, the verifiers' and checks' reports, errors),
and a count of one is as common as any: one block, one deal, one table. The engine is the layer
every other may import, and this is pure text, so the one helper lives here.

>>> plural(1, "block"), plural(3, "block"), plural(0, "match"), plural(1, "match")
('1 block', '3 blocks', '0 matches', '1 match')
>>> plural(2, "illegal move"), plural(-1, "chip")
('2 illegal moves', '-1 chips')
>>> plural(2, "person", "people")
'2 people'
"""

from __future__ import annotations

__all__ = ["plural", "plural_noun"]

# A noun ending in one of these takes "es" (match, box, pass); the others take "s".
_SIBILANT_ENDINGS = ("s", "x", "z", "ch", "sh")


def plural_noun(noun: str) -> str:
    """The regular plural of ``noun``: "es" after a sibilant, "s" otherwise.

    >>> plural_noun("match"), plural_noun("deal"), plural_noun("illegal move")
    ('matches', 'deals', 'illegal moves')
    """
    return f"{noun}es" if noun.endswith(_SIBILANT_ENDINGS) else f"{noun}s"


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is exactly one.

    ``plural_form`` is the plural where the regular one (:func:`plural_noun`) is wrong.
    """
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {plural_form or plural_noun(noun)}"
