"""The fault suite's judges on made-up records: what load explains passes (and is counted as
excused), what it does not explain is a problem however the machine runs.

The referee's own records decide: its session times say how long a dropped seat was away, so a
forfeit for not coming back is excused only when the referee saw the seat away longer than
``reconnect_ms``; a resume it had in time but did not honour stays a problem.
"""

from __future__ import annotations

import json
from typing import Any

from brandeln.v1 import admin_pb2
from tests.faults.fleet import (
    CANCELLED_BY_THE_BOT,
    EXPECTED,
    UNACCEPTED_CALL_S,
    MatchRun,
    handling_problems,
    seat_evidence,
    status_problems,
)

MATCH = "m_0123456789abcdef"
RECONNECT_MS = 3000
T0 = 1_800_000_000.0  # wall seconds


def _header(time_control: dict[str, int]) -> dict[str, Any]:
    """A header as the reader requires it (only the time control matters to the judges)."""
    seats = [{"seat": n, "bot_id": f"b{n}", "bot_name": f"b{n}"} for n in range(4)]
    return {
        "type": "header",
        "match_id": MATCH,
        "ruleset": "standard",
        "players": 4,
        "deals": 2,
        "seats": seats,
        "time_control": time_control,
    }


def _penalty(seat: int, code: str, reason: str = "") -> dict[str, Any]:
    return {
        "type": "penalty",
        "deal": 1,
        "seat": seat,
        "code": code,
        "reason": reason,
        "strikes": 1,
    }


FOOTER: dict[str, Any] = {
    "type": "footer",
    "status": "finished",
    "balances": [0, 0, 0, 0],
    "ranks": [1, 1, 1, 1],
    "forfeited": [],
    "strikes": [0, 0, 0, 0],
    "deals_played": 2,
}


def _msg(stream: int, t: float, body: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "msg", "stream": stream, "t": t, "type": "", "msg": body}


def _drop_and_resume(seat: int) -> list[dict[str, Any]]:
    """A seat session's stream 1 (referee session s1) is seated, dropped mid-match, and its
    stream 2 (session s2) comes back for the seat."""
    started = {"matchStarted": {"matchId": MATCH, "seat": seat}}
    return [
        {"kind": "open", "stream": 1, "t": T0, "purpose": "play", "session": 0},
        _msg(1, T0, {"welcome": {"sessionId": "s1"}}),
        _msg(1, T0 + 1, started),
        {"kind": "fault", "stream": 1, "t": T0 + 2, "what": "drop", "expect": "resume"},
        {"kind": "end", "stream": 1, "t": T0 + 2, "code": "CANCELLED", "details": ""},
        {"kind": "open", "stream": 2, "t": T0 + 2.05, "purpose": "resume", "session": 0},
        _msg(2, T0 + 6, {"welcome": {"sessionId": "s2"}}),
        _msg(2, T0 + 6, started),
        _msg(2, T0 + 9, {"matchEnded": {"matchId": MATCH}}),
    ]


def _sessions(away_ms: int) -> dict[str, tuple[int, int | None]]:
    """The referee closed s1 two seconds in and opened s2 ``away_ms`` later."""
    closed = int((T0 + 2) * 1000)
    return {"s1": (int(T0 * 1000), closed), "s2": (closed + away_ms, None)}


def _run(behaviour: str, seat: int, codes: list[str]) -> tuple[MatchRun, str]:
    strikes = [0, 0, 0, 0]
    strikes[seat] = sum(1 for code in codes if code not in ("forfeited", "disconnected"))
    forfeited = [seat] if {"forfeited", "disconnected"} & set(codes) else []
    seats = ["honest"] * 4
    seats[seat] = behaviour
    run = MatchRun(
        behaviour,
        tuple(seats),
        (seat,),
        seed=1,
        deals=2,
        match_id=MATCH,
        summary=admin_pb2.MatchSummary(status="finished", strikes=strikes, forfeited=forfeited),
    )
    records: list[dict[str, Any]] = [
        _header({"reconnect_ms": RECONNECT_MS}),
        *(_penalty(seat, code) for code in codes),
        FOOTER,
    ]
    return run, "\n".join(json.dumps(r) for r in records)


def test_a_resume_the_referee_saw_only_after_reconnect_ms_excuses_the_forfeit() -> None:
    evidence = seat_evidence(_drop_and_resume(seat=2), _sessions(away_ms=RECONNECT_MS + 200))
    assert evidence.absences == {(MATCH, 2): [RECONNECT_MS + 200]}
    run, log = _run("drop-resume", 2, ["disconnected"])
    excused: list[str] = []
    assert handling_problems(run, log, evidence, excused) == []
    assert len(excused) == 1
    assert "away 3200 ms by the referee's clock" in excused[0]


def test_a_forfeit_with_the_resume_in_time_is_a_problem() -> None:
    # The referee had the resume 80 ms after the drop and still forfeited the seat: a referee
    # that drops resumes, whatever the machine's load.
    evidence = seat_evidence(_drop_and_resume(seat=2), _sessions(away_ms=80))
    run, log = _run("drop-resume", 2, ["disconnected"])
    excused: list[str] = []
    problems = handling_problems(run, log, evidence, excused)
    assert len(problems) == 1
    assert "away (ms) [80]" in problems[0]
    assert excused == []


def test_a_seat_that_never_came_back_is_a_problem() -> None:
    records = _drop_and_resume(seat=1)[:5]  # the drop, and no stream after it
    evidence = seat_evidence(records, _sessions(away_ms=RECONNECT_MS + 200))
    assert evidence.absences == {(MATCH, 1): [None]}
    run, log = _run("oversize", 1, ["disconnected"])
    assert handling_problems(run, log, evidence) != []


def test_only_the_expected_handling_cut_short_by_the_forfeit_is_excused() -> None:
    assert EXPECTED["garbage"].codes == ("malformed", "malformed")
    evidence = seat_evidence(_drop_and_resume(seat=0), _sessions(away_ms=RECONNECT_MS + 1))
    run, log = _run("garbage", 0, ["malformed", "disconnected"])
    assert handling_problems(run, log, evidence) == []
    # A penalty the behaviour never earns is wrong however long the seat was away.
    run, log = _run("garbage", 0, ["illegal", "disconnected"])
    assert handling_problems(run, log, evidence) != []


def test_other_seats_stay_clean_whatever_a_drop_excuses() -> None:
    evidence = seat_evidence(_drop_and_resume(seat=2), _sessions(away_ms=RECONNECT_MS + 200))
    run, log = _run("drop-resume", 2, [])
    assert run.summary is not None
    run.summary.strikes[3] = 1  # an honest seat struck: never excused
    *before, footer = log.split("\n")  # the penalty goes before the footer
    log = "\n".join([*before, json.dumps(_penalty(3, "timeout")), footer])
    problems = handling_problems(run, log, evidence)
    assert len(problems) == 1
    assert "seat 3 (honest)" in problems[0]


def _idle(end_after_s: float, details: str) -> list[dict[str, Any]]:
    return [
        {"kind": "open", "stream": 7, "t": T0, "purpose": "idle"},
        {
            "kind": "fault",
            "stream": 7,
            "t": T0,
            "what": "idle",
            "expect": "status:DEADLINE_EXCEEDED",
        },
        {
            "kind": "end",
            "stream": 7,
            "t": T0 + end_after_s,
            "code": "CANCELLED",
            "details": details,
        },
    ]


def test_a_call_grpc_held_for_the_busy_referee_and_cancelled_is_excused() -> None:
    excused: list[str] = []
    assert status_problems(_idle(UNACCEPTED_CALL_S + 0.5, "CANCELLED"), "idle", excused) == []
    assert len(excused) == 1


def test_an_early_or_self_inflicted_cancel_is_a_problem() -> None:
    excused: list[str] = []
    assert status_problems(_idle(0.01, "CANCELLED"), "idle", excused) != []
    assert status_problems(_idle(UNACCEPTED_CALL_S + 1, CANCELLED_BY_THE_BOT), "idle", excused)
    assert excused == []


def _timed_out(seat: int, waited_ms: int, *, late_answer: bool) -> tuple[list[dict[str, Any]], str]:
    """An honest seat's request 5 timed out after ``waited_ms``; with ``late_answer`` the
    referee later rejected the bot's answer to it as stale."""
    started = {"matchStarted": {"matchId": MATCH, "seat": seat}}
    records = [
        {"kind": "open", "stream": 1, "t": T0, "purpose": "play", "session": 0},
        _msg(1, T0, {"welcome": {"sessionId": "s1"}}),
        _msg(1, T0 + 1, started),
        _msg(1, T0 + 2, {"request": {"requestId": "5"}}),
    ]
    if late_answer:
        rejected = {"requestId": "5", "code": "REJECT_CODE_STALE_REQUEST"}
        records.append(_msg(1, T0 + 4, {"rejected": rejected}))
    log = [
        _header({"move_ms": 1000, "reconnect_ms": RECONNECT_MS}),
        _penalty(seat, "timeout", "no legal answer to request 5 in time"),
        {
            "type": "decision",
            "seat": seat,
            "action": "pass",
            "req": 0,
            "ms": waited_ms,
            "status": "timeout",
        },
        FOOTER,
    ]
    return records, "\n".join(json.dumps(r) for r in log)


def _control_run(seat: int) -> MatchRun:
    strikes = [0, 0, 0, 0]
    strikes[seat] = 1
    summary = admin_pb2.MatchSummary(status="finished", strikes=strikes)
    return MatchRun("control", ("honest",) * 4, (), 1, 2, MATCH, summary)


def test_an_answer_the_referee_read_late_after_the_full_move_time_is_load() -> None:
    records, log = _timed_out(3, waited_ms=2100, late_answer=True)
    evidence = seat_evidence(records, {})
    assert evidence.late_answers == {(MATCH, 3): {5}}
    excused: list[str] = []
    assert handling_problems(_control_run(3), log, evidence, excused) == []
    assert "the answer to request 5 came late" in excused[0]


def test_a_timeout_before_the_move_time_or_without_a_late_answer_is_a_problem() -> None:
    # A referee that gave up early (a short deadline), or never got the answer at all.
    records, log = _timed_out(3, waited_ms=400, late_answer=True)
    assert handling_problems(_control_run(3), log, seat_evidence(records, {})) != []
    records, log = _timed_out(3, waited_ms=2100, late_answer=False)
    assert handling_problems(_control_run(3), log, seat_evidence(records, {})) != []
