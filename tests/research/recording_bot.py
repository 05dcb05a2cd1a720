"""A bot for the encoding test: at every decision it writes the observation tensor, the
information-state tensor and the legal mask it built from the ``DecisionRequest`` as one JSON
line, then plays a random legal choice (so the matches reach every phase and contract).

Run as a command bot: ``python tests/research/recording_bot.py OUT.jsonl`` with the referee
and the token in ``BRANDELN_SERVER`` and ``BRANDELN_TOKEN``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from brandeln.sdk import Answer, Bot, run
from brandeln.sdk.encoding import legal_mask
from brandeln.sdk.observation import (
    information_state_tensor,
    legal_action_indices,
    observation_from_request,
    observation_tensor,
)
from brandeln.v1 import bot_pb2


class RecordingBot(Bot):
    name = "recorder"
    decide_in_thread = False

    def __init__(self, out: Path) -> None:
        super().__init__()
        self.out = out
        self.rng = random.Random(7)

    def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
        assert self.match is not None
        facts = observation_from_request(request, self.match.ruleset)
        record = {
            "match_id": self.match.match_id,
            "seat": self.match.seat,
            "deal": request.view.deal_number,
            "observation": observation_tensor(facts),
            "information_state": information_state_tensor(facts),
            "mask": legal_mask(legal_action_indices(request)),
        }
        with self.out.open("a") as out:  # one line per decision, whole when the answer goes
            out.write(json.dumps(record) + "\n")
        return self.rng.randrange(len(request.legal))


if __name__ == "__main__":
    run(RecordingBot(Path(sys.argv[1])))
