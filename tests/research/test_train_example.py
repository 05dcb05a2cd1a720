"""The training example: a few deals of training write a policy that loads, picks only legal
actions, and plays as a bot on the referee's requests."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("pettingzoo", reason="install the research extra: pip install -e '.[research]'")

import gymnasium
import numpy as np

from brandeln.gymnasium_env import ENV_ID, BrandelnEnv
from brandeln.sdk.encoding import NUM_ACTIONS, OBSERVATION_SIZE
from tests.conftest import PROJECT_PYTHONPATH, ROOT

EXAMPLES = ROOT / "examples" / "research"
# A handful of batches: enough to update the weights, quick on any machine.
TRAINING_DEALS = 70
EVALUATION_DEALS = 4


def _policy_bot() -> ModuleType:
    """The example's policy module, imported from its file as the training script imports it."""
    spec = importlib.util.spec_from_file_location("policy_bot", EXAMPLES / "policy_bot.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("policy") / "policy.npz"
    env = {**os.environ, "PYTHONPATH": PROJECT_PYTHONPATH}
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "train_policy.py"),
            f"--episodes={TRAINING_DEALS}",
            f"--evaluation={EVALUATION_DEALS}",
            "--opponents",
            "random",
            "heuristic",
            "random",
            f"--out={out}",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "chips a deal" in done.stdout
    assert "evaluation on" in done.stdout
    return out


def test_training_writes_a_policy_that_picks_only_legal_actions(trained: Path) -> None:
    policy = _policy_bot().load_policy(trained)
    env = gymnasium.make(ENV_ID, opponents=["random", "heuristic", "random"]).unwrapped
    decisions = 0
    for seed in range(20):
        observation, _ = env.reset(seed=seed)
        terminated = False
        while not terminated:
            mask = observation["action_mask"].tolist()
            action = policy(observation["observation"].tolist(), mask)
            assert mask[action] == 1
            decisions += 1
            observation, _, terminated, _, info = env.step(action)
            assert "illegal_action" not in info
    assert decisions > 20


def test_a_saved_policy_refuses_another_encodings_sizes(trained: Path, tmp_path: Path) -> None:
    module = _policy_bot()
    network = module.Network.load(trained)
    assert network.w1.shape[0] == OBSERVATION_SIZE
    assert network.w2.shape[1] == NUM_ACTIONS
    stale = tmp_path / "stale.npz"
    np.savez(
        stale,
        w1=network.w1,
        b1=network.b1,
        w2=network.w2,
        b2=network.b2,
        observation_size=OBSERVATION_SIZE - 1,
        num_actions=NUM_ACTIONS,
    )
    with pytest.raises(ValueError, match="trained on observations of"):
        module.load_policy(stale)


def test_the_policy_bot_answers_the_referees_requests_legally(trained: Path) -> None:
    # The bot sits in-process at a Gymnasium table: every decision it makes is a DecisionRequest
    # built by the arena's codec, and an answer outside request.legal would raise.
    module = _policy_bot()
    bots = [module.PolicyBot(module.load_policy(trained)) for _ in range(3)]
    env = BrandelnEnv(opponents=bots, episode="match", deals=4)
    observation, _ = env.reset(seed=5)
    terminated = False
    while not terminated:
        action = int(observation["action_mask"].argmax())
        observation, _, terminated, _, _ = env.step(action)
    assert env.game.episode.match.deal_number == 4
