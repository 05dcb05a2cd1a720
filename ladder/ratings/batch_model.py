"""The Plackett-Luce model behind :mod:`brandeln.ladder.ratings.batch`: blocks as likelihood terms,
and one maximum a posteriori fit of the log-strengths with scipy's L-BFGS-B.

A block ranks its k bots. Plackett-Luce reads a strict ranking as k - 1 successive choices: the
winner is drawn from all k bots with probability ``exp(θ_i) / Σ exp(θ_j)``, then the second
from those left, and so on. **Ties follow Breslow's approximation** (as in Cox regression):
every bot of a tied group is a term of its own and all of them share one risk set, the bots
ranked at or below the tie. A tie is thus evidence that the tied bots are alike, whatever the
order in which they are listed; a tie for last (several forfeits) counts the same way. A term
whose risk set is the chosen bot alone (the last place of a strict ranking) is 1 and left out.

The likelihood only fixes differences of log-strengths, and a bot that wins (or loses) every
block would run off to ±∞. A weak Gaussian prior, each θ ~ N(0, ``prior_sd``²), settles both:
the fit is the posterior mode, finite, and centred (the likelihood does not move under a common
shift, so at the mode the prior's pull, -Σθ/σ², is zero; the centring is then made exact). With
the default ``PRIOR_SD`` = 2 the prior carries about the information of half a block of four (a
precision of 1/4 against ~0.48 per block), so a bot with tens of blocks is shrunk by a percent
or two, while one that wins every block stays a few units above the field (4.4 after 50 blocks
of four) instead of at infinity.

>>> blocks = [{"a": 1, "b": 2}, {"a": 1, "b": 2}, {"b": 1, "a": 2}]
>>> terms = season_terms(blocks)
>>> terms.bots, terms.blocks
(('a', 'b'), 3)
>>> strengths = fit_strengths(terms, terms.weights(), start=terms.zeros())
>>> [round(float(value), 3) for value in strengths]
[0.293, -0.293]
>>> round(log_likelihood(blocks, {"a": 0.0, "b": 0.0}), 4)  # three coin flips
-2.0794
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize

__all__ = [
    "PRIOR_SD",
    "Terms",
    "Vector",
    "comparison_blocks",
    "fit_strengths",
    "log_likelihood",
    "season_terms",
]

PRIOR_SD: Final = 2.0
"""The default standard deviation of the Gaussian prior on each log-strength."""

Vector = npt.NDArray[np.float64]

# L-BFGS-B stops on a gradient this small (every component) or on no relative progress: the
# strengths are then good to ~1e-7, far inside any interval the bootstrap gives.
_OPTIONS: Final = {"gtol": 1e-8, "ftol": 1e-13, "maxiter": 1000}

# Below this spread of the log-strengths one shift for all risk sets is safe: exp(-600) ~ 1e-261
# neither underflows a risk set's sum nor overflows a weight divided by it.
_SPREAD: Final = 600.0


@dataclass(frozen=True, eq=False)
class Terms:
    """A season's comparison blocks (two bots or more) as Plackett-Luce terms.

    ``bots`` are sorted by name (a bot's index is its column); term ``t`` says bot
    ``chosen[t]`` was picked from the bots of ``risk[t]`` (a row of 0s and 1s) in block
    ``block_of[t]``. Blocks are numbered in a canonical order (sorted by their content), so the
    terms, and every sum over them, do not depend on the order the blocks were given in.
    """

    bots: tuple[str, ...]
    blocks: int
    chosen: npt.NDArray[np.intp]
    risk: npt.NDArray[np.float64]  # 1 for the bots of the risk set, else 0
    block_of: npt.NDArray[np.intp]
    blocks_played: tuple[int, ...]  # by bot: its comparison blocks

    def zeros(self) -> Vector:
        return np.zeros(len(self.bots))

    def weights(self, block_counts: npt.NDArray[np.int64] | None = None) -> Vector:
        """Each term's weight: its block's count in a resample (``block_counts``, by canonical
        block), or 1 for the season as played."""
        if block_counts is None:
            return np.ones(len(self.chosen))
        return block_counts[self.block_of].astype(np.float64)


def comparison_blocks(blocks: Sequence[Mapping[str, int]]) -> list[Mapping[str, int]]:
    """The blocks that compare bots: two bots or more (a block of one says nothing)."""
    return [block for block in blocks if len(block) >= 2]


def season_terms(blocks: Sequence[Mapping[str, int]]) -> Terms:
    """The Plackett-Luce terms (Breslow ties) of ``blocks``, each ``{bot: rank}`` (1 is best;
    only the order of the ranks matters, equal ranks are ties). Blocks of fewer than two bots
    are left out."""
    compared = comparison_blocks(blocks)
    bots = tuple(sorted({bot for block in compared for bot in block}))
    index = {bot: column for column, bot in enumerate(bots)}
    canonical = sorted(
        tuple(sorted((index[bot], rank) for bot, rank in b.items())) for b in compared
    )
    chosen: list[int] = []
    risk: list[list[bool]] = []
    block_of: list[int] = []
    played = [0] * len(bots)
    for number, block in enumerate(canonical):
        for column, rank in block:
            played[column] += 1
            at_or_below = [other for other, other_rank in block if other_rank >= rank]
            if len(at_or_below) < 2:
                continue
            chosen.append(column)
            row = [False] * len(bots)
            for other in at_or_below:
                row[other] = True
            risk.append(row)
            block_of.append(number)
    return Terms(
        bots=bots,
        blocks=len(canonical),
        chosen=np.array(chosen, dtype=np.intp),
        risk=np.array(risk, dtype=np.float64).reshape(len(chosen), len(bots)),
        block_of=np.array(block_of, dtype=np.intp),
        blocks_played=tuple(played),
    )


def _negative_log_posterior(
    theta: Vector, terms: Terms, weights: Vector, picked: Vector, precision: float
) -> tuple[float, Vector]:
    """-(weighted log-likelihood + log prior) and its gradient, over all terms at once
    (``picked``: each bot's weighted count of terms where it is the one chosen)."""
    top = theta.max()
    if top - theta.min() < _SPREAD:
        scaled = np.exp(theta - top)
        total = terms.risk @ scaled  # each risk set's Σ exp(θ), shifted by the top
        log_total = top + np.log(total)
        expected = scaled * ((weights / total) @ terms.risk)
    else:  # a wild trial step of the line search: shift each risk set by its own top
        masked = np.where(terms.risk > 0, theta, -np.inf)
        row_top = masked.max(axis=1)  # each row holds its chosen bot: finite
        scaled_rows = np.exp(masked - row_top[:, None])
        total = scaled_rows.sum(axis=1)
        log_total = row_top + np.log(total)
        expected = (weights / total) @ scaled_rows
    value = float(weights @ (log_total - theta[terms.chosen]))
    value += 0.5 * precision * float(theta @ theta)
    gradient: Vector = expected - picked + precision * theta
    return value, gradient


def fit_strengths(
    terms: Terms, weights: Vector, *, start: Vector, prior_sd: float = PRIOR_SD
) -> Vector:
    """The centred log-strengths at the posterior mode for terms weighted by ``weights``,
    from ``start`` (a nearby solution makes it quick)."""
    if not terms.bots:
        return terms.zeros()
    picked = np.bincount(terms.chosen, weights=weights, minlength=len(terms.bots))
    result: Any = minimize(
        _negative_log_posterior,
        start,
        args=(terms, weights, picked, 1.0 / prior_sd**2),
        jac=True,
        method="L-BFGS-B",
        options=_OPTIONS,
    )
    theta = np.asarray(result.x, dtype=np.float64)
    if not np.all(np.isfinite(theta)):  # cannot happen with a proper prior; never pass NaN on
        raise ArithmeticError(f"the fit diverged: {result.message}")
    centred: Vector = theta - theta.mean()
    return centred


def log_likelihood(blocks: Sequence[Mapping[str, int]], strengths: Mapping[str, float]) -> float:
    """The Plackett-Luce log-likelihood of ``blocks`` at ``strengths`` (log-strengths by bot),
    ties by Breslow, term by term in plain Python: the model as written, for checking the
    vectorised fit against (without the prior)."""
    total = 0.0
    for block in blocks:
        for bot, rank in block.items():
            risk = [other for other, other_rank in block.items() if other_rank >= rank]
            if len(risk) < 2:
                continue
            values = [strengths[other] for other in risk]
            top = max(values)
            total += strengths[bot] - top - math.log(sum(math.exp(value - top) for value in values))
    return total
