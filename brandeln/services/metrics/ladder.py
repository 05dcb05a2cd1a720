"""The always-on ladder's Prometheus metrics (``brandeln ladder serve --metrics-port``), read
from its own counts when they are scraped.

The ladder counts in plain numbers as it plays (:class:`brandeln.ladder.living.counts.LadderCounts`,
``LadderStore.errors``) and knows nothing of Prometheus; :class:`LadderCollector` turns them
into metric families at scrape time, on the metrics server's thread
(brandeln.services.metrics.endpoint): every read is of an int or a one-call copy.

Every name starts with :data:`PREFIX`; :data:`METRICS` lists them with their help.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from brandeln.ladder.living.counts import BLOCK_SECONDS_BUCKETS, LadderCounts
from brandeln.ladder.store.database import LadderStore
from brandeln.services.metrics.families import histogram, labelled_counter

__all__ = ["METRICS", "PREFIX", "LadderCollector"]

PREFIX = "brandeln_ladder"

METRICS: dict[str, str] = {
    "blocks": "Blocks recorded, by whether they moved the ratings (rated; unrated: a "
    "challenge played unrated).",
    "block_seconds": "Time from a block's planning to its record.",
    "blocks_given_back": "Blocks that could not be played (a bot gone when its match was "
    "seated, a match that did not finish): played again later.",
    "blocks_in_flight": "Blocks being played now.",
    "challenges": "Challenges dealt with, by outcome (played; refused: a bot left the ladder).",
    "waits": "Looks at the referee that found too few versions connected to plan a block.",
    "versions_active": "Active bot versions, as of the last look at the referee.",
    "versions_connected": "Active versions connected (idle or playing), as of the last look.",
    "store_errors": "Ladder database transactions given up on (StorageError).",
    "errors": "Looks and blocks the ladder could not finish for a store failure (it goes on).",
}


def _name(key: str) -> str:
    return f"{PREFIX}_{key}"


class LadderCollector(Collector):
    """The metrics of one ladder run, read at each scrape."""

    def __init__(self, counts: LadderCounts, store: LadderStore) -> None:
        self._counts = counts
        self._store = store

    def collect(self) -> Iterator[Metric]:
        counts = self._counts
        rated, unrated, buckets, seconds = counts.blocks()
        blocks = {"rated": rated, "unrated": unrated}
        yield labelled_counter(_name("blocks"), METRICS["blocks"], "rating", blocks)
        yield histogram(
            _name("block_seconds"),
            METRICS["block_seconds"],
            BLOCK_SECONDS_BUCKETS,
            buckets,
            seconds,
        )
        yield CounterMetricFamily(
            _name("blocks_given_back"), METRICS["blocks_given_back"], counts.blocks_given_back
        )
        yield GaugeMetricFamily(
            _name("blocks_in_flight"), METRICS["blocks_in_flight"], counts.in_flight
        )
        challenges = {"played": counts.challenges_played, "refused": counts.challenges_refused}
        yield labelled_counter(_name("challenges"), METRICS["challenges"], "outcome", challenges)
        yield CounterMetricFamily(_name("waits"), METRICS["waits"], counts.waits)
        yield GaugeMetricFamily(
            _name("versions_active"), METRICS["versions_active"], counts.versions_active
        )
        yield GaugeMetricFamily(
            _name("versions_connected"), METRICS["versions_connected"], counts.versions_connected
        )
        yield CounterMetricFamily(
            _name("store_errors"), METRICS["store_errors"], self._store.errors
        )
        yield CounterMetricFamily(_name("errors"), METRICS["errors"], counts.errors)
