"""The SDK's policy adapter: a callable from observation and mask to an action index, seated."""

from __future__ import annotations

import socket
from collections.abc import Sequence

import pytest

from brandeln.sdk import UnreachableError, choice_text, play, run
from brandeln.sdk.encoding import NUM_ACTIONS, OBSERVATION_SIZE, action_index
from brandeln.sdk.launch import CONNECT_TIMEOUT_ENV, SERVER_ENV, TOKEN_ENV, LaunchError
from brandeln.sdk.policy import PolicyBot
from tests.bots.botkit_fakes import FakeReferee, FakeServer, scripted_requests
from tests.bots.test_sdk_session import one_match_then_lobby, options


def last_legal(observation: Sequence[float], mask: Sequence[int]) -> int:
    return max(index for index, legal in enumerate(mask) if legal)


async def test_the_policy_sees_the_encoding_and_its_action_is_answered() -> None:
    seen: list[tuple[int, list[int]]] = []

    def policy(observation: Sequence[float], mask: Sequence[int]) -> int:
        seen.append((len(observation), [i for i, legal in enumerate(mask) if legal]))
        assert len(mask) == NUM_ACTIONS
        return last_legal(observation, mask)

    referee = FakeReferee(one_match_then_lobby)
    async with FakeServer(referee) as address:
        [stats] = await play(lambda: PolicyBot(policy), options(address))
    requests = scripted_requests()
    legal_indices = [sorted(action_index(choice_text(c)) for c in r.legal) for r in requests]
    assert seen == [(OBSERVATION_SIZE, indices) for indices in legal_indices]
    answered = [action_index(choice_text(a.choice)) for a in referee.seats[0].actions]
    assert answered == [indices[-1] for indices in legal_indices]
    assert stats.fallbacks == 0


async def test_an_index_outside_the_mask_falls_back_with_the_reason_logged() -> None:
    def outside(observation: Sequence[float], mask: Sequence[int]) -> int:
        return mask.index(0)

    referee = FakeReferee(one_match_then_lobby)
    async with FakeServer(referee) as address:
        [stats] = await play(lambda: PolicyBot(outside), options(address))
    seat = referee.seats[0]
    first_legal = [choice_text(r.legal[0]) for r in scripted_requests()]
    assert [choice_text(a.choice) for a in seat.actions] == first_legal
    assert stats.fallbacks == len(first_legal)
    assert any("outside the mask; legal: pass" in text for text in seat.logs)


def test_without_options_the_referee_and_token_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The five-line recipe's run(PolicyBot(policy)): no options, as a command bot is started.
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    with pytest.raises(LaunchError, match="no token"):
        run(PolicyBot(last_legal))
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    monkeypatch.setenv(SERVER_ENV, address)
    monkeypatch.setenv(TOKEN_ENV, "good-token")
    monkeypatch.setenv(CONNECT_TIMEOUT_ENV, "0.2")
    with pytest.raises(UnreachableError, match=address):
        run(PolicyBot(last_legal))


def test_one_bot_object_cannot_play_two_tables() -> None:
    with pytest.raises(ValueError, match="one bot object cannot play 2 tables"):
        run(PolicyBot(last_legal), options("127.0.0.1:1"), tables=2)
