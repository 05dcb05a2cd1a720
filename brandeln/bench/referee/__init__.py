"""Benchmarks of the referee (the arena), measured against their floors in the same run.

- :mod:`brandeln.bench.referee.referee_bench`: the referee against the floor at 1, 16, 64... tables
  (``brandeln bench referee``).
- :mod:`brandeln.bench.referee.floor`: the floor, a bare ``grpc.aio`` server that replays the
  messages the referee sent in a recorded match, with no rules, logs, checks or database.
- :mod:`brandeln.bench.referee.own_cost`: the referee's own CPU per decision with no gRPC, its
  sessions answered in-process (``python -m brandeln.bench.referee.own_cost``): the part a referee
  change shrinks.
- :mod:`brandeln.bench.referee.loadgen`: the load generator process, four instant bots per table
  (``python -m brandeln.bench.referee.loadgen``).

These are programs that measure, not tests: nothing here asserts a speed.
"""
