"""Brandeln for OpenSpiel: ``import brandeln.openspiel`` registers the game ``brandeln``.

Needs the research extra (``pip install -e '.[research]'``: open_spiel, pettingzoo,
gymnasium); the core install does without it.

>>> import pyspiel
>>> import brandeln.openspiel
>>> game = pyspiel.load_game("brandeln(ruleset=russian)")
>>> str(game)
'brandeln(dealer=0,early_stop=rules,head_rule=trick,pool=0,ruleset=russian,undertrump=forced)'

Modules: ``game`` (the game and its states, on the engine's ``DealState``), ``observer``
(tensors and strings from :mod:`brandeln.sdk.encoding`, the facts of a position from
:mod:`brandeln.engine_encoding`, which every research environment shares), ``chance_deal`` (the deal
as chance nodes), ``hidden_hands`` (``resample_from_infostate``'s uniform redeal), ``limits``
(utility bounds and game length from the engine's settlement).
"""

from __future__ import annotations

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - depends on the install
    raise ImportError("brandeln.openspiel needs OpenSpiel: pip install -e '.[research]'") from error

from brandeln.openspiel.game import GAME_NAME, GAME_TYPE, BrandelnGame, BrandelnState

__all__ = ["GAME_NAME", "BrandelnGame", "BrandelnState"]

if GAME_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, BrandelnGame)
