"""Running every check on an embedded referee of the check's own, and the report."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.ladder.bots.processes import stop_bots
from brandeln.services.bot_check.checks import Checker
from brandeln.services.bot_check.policy import CheckPolicy
from brandeln.services.bot_check.report import CheckName, CheckReport
from brandeln.services.bot_check.settings import CHECKED_NAME, HOUSE_NAME, CheckOptions, CheckTarget


async def run_check(
    data_dir: Path,
    target: CheckTarget,
    options: CheckOptions | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    say: Callable[[str], None] = lambda line: None,
    ready: Callable[[str, str], None] | None = None,
) -> CheckReport:
    """Run every check on an embedded referee in ``data_dir`` and report.

    ``ready(address, token)`` is called once the referee listens (for a bot that connects by
    itself); ``say`` gets a line as each check starts.
    """
    from brandeln.sample_bots.random_bot import RandomBot  # noqa: PLC0415
    from brandeln.sdk import SessionOptions, play  # noqa: PLC0415

    options = options or CheckOptions()
    policy = CheckPolicy()
    async with EmbeddedReferee(data_dir, host, port, faults=policy) as embedded:
        checker = Checker(embedded, policy, options, target, say)
        referee = checker.referee
        # A bot configured already keeps its token: the referee accepts it for this run.
        record, checker.token = referee.store.register_bot(CHECKED_NAME, target.token)
        checker.bot_id = record.bot_id
        house, house_token = referee.register_bot(HOUSE_NAME)
        checker.house_id = house.bot_id
        seats = max(find_ruleset(r).players for r in RULESET_IDS) - 1
        house_task = asyncio.create_task(
            play(
                RandomBot,
                SessionOptions(server=embedded.address, token=house_token),
                tables=seats * options.tables,
            )
        )
        try:
            if ready is not None:
                ready(embedded.address, checker.token)
            await checker.start_bot()
            say("handshake")
            first = await checker.handshake()
            if first is None:
                return CheckReport(tuple(checker.results))
            # Read now: the session may be gone (dropped on purpose) by the end.
            hello_name = referee.hello_names.get(first.session_id, "")
            claimed = tuple(sorted(first.rulesets)) or RULESET_IDS
            wanted = options.rulesets or claimed
            for ruleset in wanted:
                if ruleset not in claimed:
                    checker.add(
                        CheckName.RULESET,
                        False,
                        f"its Hello does not list it (it plays: {', '.join(claimed)})",
                        ruleset,
                    )
            rulesets = [r for r in wanted if r in claimed]
            if rulesets:
                main = "standard" if "standard" in rulesets else rulesets[0]
                say("phases and rulesets")
                await checker.rulesets_and_phases(rulesets)
                for name, step in (
                    ("same request twice", checker.repeated),
                    ("rejected, then legal", checker.rejected),
                    ("time pressure", checker.time_pressure),
                    ("dropped stream", checker.resume),
                    ("several tables", checker.tables),
                    ("many matches", checker.endurance),
                ):
                    say(name)
                    await step(main)
            return CheckReport(
                tuple(checker.results), hello_name, first.bot_version, tuple(rulesets)
            )
        finally:
            house_task.cancel()
            with contextlib.suppress(BaseException):
                await house_task
            # Each process it started, and whatever they started (brandeln.ladder.bots.processes).
            await stop_bots(checker.processes)
