"""Metric families built from a service's own plain counts at scrape time: a counter with one
label, and a histogram from per-bucket counts. What the referee's and the ladder's collectors
(:mod:`brandeln.services.metrics.referee`, :mod:`brandeln.services.metrics.ladder`) share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily

__all__ = ["histogram", "labelled_counter", "le"]


def labelled_counter(
    name: str, help_text: str, label: str, counts: Mapping[str, int]
) -> CounterMetricFamily:
    """A counter family with one sample per value of ``label``."""
    family = CounterMetricFamily(name, help_text, labels=[label])
    for value, count in counts.items():
        family.add_metric([value], count)
    return family


def le(bound: float) -> str:
    """A bucket's bound as Prometheus writes it ("0.001", "1.0", "+Inf").

    >>> [le(b) for b in (0.001, 0.0025, 1.0, 30.0, float("inf"))]
    ['0.001', '0.0025', '1.0', '30.0', '+Inf']
    """
    return "+Inf" if bound == float("inf") else repr(bound)


def histogram(
    name: str,
    help_text: str,
    bounds: Sequence[float],
    buckets: Sequence[int],
    total: float,
) -> HistogramMetricFamily:
    """The histogram from per-bucket counts (``buckets``: one per bound, then the unbounded
    one): cumulative, as Prometheus has them, the count being the last bucket's (so the two
    always agree)."""
    cumulative: list[tuple[str, float]] = []
    running = 0
    for bound, count in zip((*bounds, float("inf")), buckets, strict=True):
        running += count
        cumulative.append((le(bound), running))
    return HistogramMetricFamily(name, help_text, buckets=cumulative, sum_value=total)
