"""Benchmarks of the arena, measured against their floors in the same run.

- :mod:`arena.bench.referee_bench`: the referee against the floor at 1, 16, 64... tables
  (``brandeln bench referee``).
- :mod:`arena.bench.floor`: the floor, a bare ``grpc.aio`` server that replays the messages the
  referee sent in a recorded match, with no rules, logs, checks or database.
- :mod:`arena.bench.loadgen`: the load generator process, four instant bots per table
  (``python -m arena.bench.loadgen``).

These are programs that measure, not tests: nothing here asserts a speed.
"""
