"""Train a small policy for one seat of Brandeln on the CPU, with numpy only.

REINFORCE (the policy-gradient method) with a baseline: the learner plays deals in the
Gymnasium environment ``brandeln/Brandeln-v0`` against sample bots, samples its actions from
a softmax over the legal ones (:mod:`policy_bot`'s network), and after every batch of deals
moves its weights towards the actions of deals that won more chips than usual (Adam steps).
Every figure is chips a deal for the learner's seat; the seed fixes everything.

    python examples/research/train_policy.py                      # ~3 minutes, policy.npz
    python examples/research/train_policy.py --episodes 2000 --out /tmp/p.npz \
        --opponents random random random

It prints the chips a deal over each stretch of training, then plays the trained policy
(greedy) and a uniformly random policy on the same evaluation deals against the same bots.
Play the result in a match: see ``policy_bot.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from policy_bot import Array, Network, load_policy  # the sibling module: one network for both

import brandeln.gymnasium_env  # noqa: F401  # registers brandeln/Brandeln-v0

DEFAULT_OPPONENTS = ("heuristic", "random", "heuristic")
# Defaults sized for a few minutes on one core of a small machine (about 100 deals a second
# against these bots, most of it the bots' and the engine's time).
DEFAULT_EPISODES = 12_000
DEFAULT_EVALUATION = 500
BATCH = 32
HIDDEN = 64
LEARNING_RATE = 3e-3
ENTROPY_BONUS = 0.01
BASELINE_DECAY = 0.99
# Chips are scaled into a range the network learns well in: 18 is herrenmord's value, the
# largest a defender moves in one deal of the standard rules.
REWARD_SCALE = 1 / 18
REPORTS = 12  # progress lines over the training
# Evaluation deals are seeded apart from training deals.
EVALUATION_SEED_OFFSET = 1_000_000
ADAM_BETAS = (0.9, 0.999)
ADAM_EPSILON = 1e-8


@dataclass
class Adam:
    """Adam's moments for each weight array of a :class:`Network`."""

    first: list[Array] = field(default_factory=list)
    second: list[Array] = field(default_factory=list)
    steps: int = 0

    def step(self, weights: list[Array], gradients: list[Array], rate: float) -> None:
        """Move ``weights`` (in place) up ``gradients``: gradient *ascent* on the return."""
        if not self.first:
            self.first = [np.zeros_like(w) for w in weights]
            self.second = [np.zeros_like(w) for w in weights]
        self.steps += 1
        beta1, beta2 = ADAM_BETAS
        for w, g, m, v in zip(weights, gradients, self.first, self.second, strict=True):
            m[...] = beta1 * m + (1 - beta1) * g
            v[...] = beta2 * v + (1 - beta2) * g * g
            corrected_m = m / (1 - beta1**self.steps)
            corrected_v = v / (1 - beta2**self.steps)
            w[...] += rate * corrected_m / (np.sqrt(corrected_v) + ADAM_EPSILON)


def _weights(net: Network) -> list[Array]:
    return [net.w1, net.b1, net.w2, net.b2]


def play_deal(
    env: gymnasium.Env[Any, Any], net: Network, seed: int, rng: np.random.Generator
) -> tuple[list[tuple[Array, Array, int]], float]:
    """One deal with actions sampled from the policy: (observation, mask, action) of each of the
    learner's decisions, and its chips."""
    observation, _ = env.reset(seed=seed)
    decisions = []
    chips = 0.0
    terminated = False
    while not terminated:
        features = observation["observation"].astype(np.float64)
        mask = observation["action_mask"]
        _, probabilities = net.probabilities(features, mask)
        action = int(rng.choice(len(probabilities), p=probabilities))
        decisions.append((features, mask, action))
        observation, reward, terminated, truncated, _ = env.step(action)
        chips += float(reward)
        terminated = terminated or truncated
    return decisions, chips


def gradients(
    net: Network, episodes: list[tuple[list[tuple[Array, Array, int]], float]], baseline: float
) -> list[Array]:
    """The batch's policy gradient (with an entropy bonus) for each weight array."""
    grads = [np.zeros_like(w) for w in _weights(net)]
    decisions = sum(len(d) for d, _ in episodes)
    for steps, chips in episodes:
        advantage = (chips - baseline) * REWARD_SCALE
        for features, mask, action in steps:
            hidden, probabilities = net.probabilities(features, mask)
            # d log p(action) / d scores, plus the entropy's gradient (legal actions only).
            score_grad = -probabilities * advantage
            score_grad[action] += advantage
            log_p = np.log(np.where(probabilities > 0, probabilities, 1.0))
            entropy = -(probabilities * log_p).sum()
            score_grad -= ENTROPY_BONUS * probabilities * (log_p + entropy)
            hidden_grad = (net.w2 @ score_grad) * (1 - hidden**2)
            grads[0] += np.outer(features, hidden_grad)
            grads[1] += hidden_grad
            grads[2] += np.outer(hidden, score_grad)
            grads[3] += score_grad
    return [g / max(1, decisions) for g in grads]


def evaluate(env: gymnasium.Env[Any, Any], choose: Any, deals: int, seed: int) -> float:
    """Chips a deal of ``choose(observation, mask) -> index`` on ``deals`` seeded deals."""
    total = 0.0
    for deal in range(deals):
        observation, _ = env.reset(seed=seed + EVALUATION_SEED_OFFSET + deal)
        terminated = False
        while not terminated:
            action = choose(
                observation["observation"].tolist(), observation["action_mask"].tolist()
            )
            observation, reward, terminated, _, _ = env.step(action)
            total += float(reward)
    return total / deals


def random_choice(rng: np.random.Generator) -> Any:
    """A uniformly random legal action: the untrained baseline."""

    def choose(observation: Sequence[float], mask: Sequence[int]) -> int:
        del observation
        return int(rng.choice(np.flatnonzero(np.asarray(mask))))

    return choose


def train(args: argparse.Namespace) -> dict[str, float]:
    """Train, save, evaluate; return the figures printed."""
    env = gymnasium.make(
        "brandeln/Brandeln-v0", opponents=list(args.opponents), ruleset=args.ruleset
    ).unwrapped
    rng = np.random.default_rng(args.seed)
    net = Network.fresh(args.hidden, rng)
    adam = Adam()
    baseline = 0.0
    batch: list[tuple[list[tuple[Array, Array, int]], float]] = []
    report_every = max(1, args.episodes // REPORTS)
    stretch: list[float] = []
    began = time.perf_counter()
    print(
        f"training {args.episodes} deals of {args.ruleset} against {', '.join(args.opponents)}"
        f" (seed {args.seed}, batch {BATCH}, hidden {args.hidden})"
    )
    first_stretch = None
    for episode in range(args.episodes):
        steps, chips = play_deal(env, net, args.seed * args.episodes + episode, rng)
        batch.append((steps, chips))
        stretch.append(chips)
        if len(batch) == BATCH or episode == args.episodes - 1:
            adam.step(_weights(net), gradients(net, batch, baseline), args.learning_rate)
            for _, chips_of_deal in batch:
                baseline = BASELINE_DECAY * baseline + (1 - BASELINE_DECAY) * chips_of_deal
            batch = []
        if len(stretch) == report_every or episode == args.episodes - 1:
            mean = float(np.mean(stretch))
            first_stretch = mean if first_stretch is None else first_stretch
            elapsed = time.perf_counter() - began
            print(
                f"deals {episode + 1 - len(stretch) + 1:>6}-{episode + 1:<6} "
                f"{mean:+7.2f} chips a deal   ({elapsed:5.0f} s)"
            )
            stretch = []
    net.save(args.out)
    print(f"saved {args.out}")
    trained = evaluate(env, load_policy(args.out), args.evaluation, args.seed)
    baseline_policy = random_choice(np.random.default_rng(args.seed))
    untrained = evaluate(env, baseline_policy, args.evaluation, args.seed)
    print(
        f"evaluation on {args.evaluation} deals: trained policy {trained:+.2f} chips a deal, "
        f"random legal actions {untrained:+.2f}"
    )
    return {"first_stretch": float(first_stretch or 0.0), "trained": trained, "random": untrained}


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=DEFAULT_EPISODES, help="deals to train on")
    parser.add_argument(
        "--evaluation", type=int, default=DEFAULT_EVALUATION, help="deals to evaluate on"
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=list(DEFAULT_OPPONENTS),
        help="sample bots of the other seats",
    )
    parser.add_argument("--ruleset", default="standard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", type=int, default=HIDDEN, help="hidden units")
    parser.add_argument("--learning-rate", type=float, default=LEARNING_RATE)
    parser.add_argument(
        "--out", type=Path, default=Path("policy.npz"), help="where to save the weights"
    )
    args = parser.parse_args(argv)
    if args.episodes < 1 or args.evaluation < 1:
        parser.error("--episodes and --evaluation must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    train(parse(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
