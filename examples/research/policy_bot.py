"""A policy trained by ``train_policy.py``, as a plain callable and as a bot on the SDK.

``load_policy(path)`` reads the ``.npz`` the training wrote and returns
``policy(observation: list[float], mask: list[int]) -> int``: the legal action index with the
highest score (the encoding's index, :mod:`brandeln.sdk.encoding`). The SDK's
:class:`~brandeln.sdk.policy.PolicyBot` asks it on every ``DecisionRequest``, building the
observation and the mask exactly as the environment built them in training.

Play it against the sample bots now, as a command bot of ``brandeln match run``::

    brandeln match run heuristic random heuristic -- \
        python examples/research/policy_bot.py policy.npz

(the command bot learns the referee and its token from ``BRANDELN_SERVER`` and
``BRANDELN_TOKEN``, which ``match run`` sets).

The network: one hidden layer of ``tanh`` units, then a score per action; illegal actions are
masked out before the softmax (training) or the arg max (play).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from brandeln.sdk import BotKitError, run
from brandeln.sdk.encoding import NUM_ACTIONS, OBSERVATION_SIZE
from brandeln.sdk.launch import LaunchError, resolve_options, resolve_tables
from brandeln.sdk.policy import Policy, PolicyBot

__all__ = ["Network", "PolicyBot", "load_policy", "main"]

Array = np.ndarray[Any, Any]
# What an illegal action scores before the softmax: never chosen, exp() of it is 0.
MASKED_SCORE = -1e9


@dataclass
class Network:
    """The policy's weights: observation -> ``tanh`` hidden layer -> a score per action."""

    w1: Array
    b1: Array
    w2: Array
    b2: Array

    @classmethod
    def fresh(cls, hidden: int, rng: np.random.Generator) -> Network:
        """Small random weights (scaled by fan-in), zero biases."""
        return cls(
            rng.normal(0, OBSERVATION_SIZE**-0.5, (OBSERVATION_SIZE, hidden)),
            np.zeros(hidden),
            rng.normal(0, hidden**-0.5, (hidden, NUM_ACTIONS)),
            np.zeros(NUM_ACTIONS),
        )

    def hidden(self, observation: Array) -> Array:
        """The hidden layer's activations."""
        result: Array = np.tanh(observation @ self.w1 + self.b1)
        return result

    def probabilities(self, observation: Array, mask: Array) -> tuple[Array, Array]:
        """(hidden activations, the softmax over the legal actions; 0 for the others)."""
        hidden = self.hidden(observation)
        scores = np.where(mask > 0, hidden @ self.w2 + self.b2, MASKED_SCORE)
        exp = np.exp(scores - scores.max())
        return hidden, exp / exp.sum()

    def best(self, observation: Sequence[float], mask: Sequence[int]) -> int:
        """The legal action with the highest score."""
        legal = np.asarray(mask) > 0
        if not legal.any():
            raise ValueError("the mask holds no legal action")
        scores = self.hidden(np.asarray(observation, np.float64)) @ self.w2 + self.b2
        return int(np.argmax(np.where(legal, scores, MASKED_SCORE)))

    def save(self, path: Path) -> None:
        """Write the weights, with the encoding's sizes they were trained for."""
        np.savez(
            path,
            w1=self.w1,
            b1=self.b1,
            w2=self.w2,
            b2=self.b2,
            observation_size=OBSERVATION_SIZE,
            num_actions=NUM_ACTIONS,
        )

    @classmethod
    def load(cls, path: Path) -> Network:
        """Read weights written by :meth:`save`; refuse ones trained on another encoding."""
        with np.load(path) as saved:
            sizes = (int(saved["observation_size"]), int(saved["num_actions"]))
            if sizes != (OBSERVATION_SIZE, NUM_ACTIONS):
                raise ValueError(
                    f"{path} was trained on observations of {sizes[0]} and {sizes[1]} actions; "
                    f"the encoding now has {OBSERVATION_SIZE} and {NUM_ACTIONS}"
                )
            return cls(saved["w1"], saved["b1"], saved["w2"], saved["b2"])


def load_policy(path: str | Path) -> Policy:
    """``policy(observation, mask) -> action index`` from a saved network (greedy)."""
    return Network.load(Path(path)).best


def main(argv: Sequence[str] | None = None) -> int:
    """Play with a saved policy at a referee until stopped (see the module docstring)."""
    parser = argparse.ArgumentParser(description="Play a trained policy through the SDK.")
    parser.add_argument("policy", type=Path, help="the .npz that train_policy.py wrote")
    parser.add_argument("--server", help="referee HOST:PORT [env BRANDELN_SERVER]")
    parser.add_argument("--token", help="the bot's token [env BRANDELN_TOKEN]")
    parser.add_argument("--tables", type=int, help="tables at once [env BRANDELN_TABLES, 1]")
    args = parser.parse_args(argv)
    policy = load_policy(args.policy)
    try:
        options = resolve_options(args.server, args.token)
        run(lambda: PolicyBot(policy), options, resolve_tables(args.tables))
    except (LaunchError, BotKitError) as error:
        print(f"policy_bot: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
