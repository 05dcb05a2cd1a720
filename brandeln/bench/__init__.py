"""Benchmarks: programs that measure, not tests, and no part of the runtime packages.

- :mod:`brandeln.bench.engine`: the engine's rules code (``python -m brandeln.bench.engine``).
- :mod:`brandeln.bench.referee`: the referee against its floor (``brandeln bench referee``).
- :mod:`brandeln.bench.season`: a ladder season end to end (``brandeln bench season``).
- :mod:`brandeln.bench.report`: every benchmark in one report (``brandeln bench all``).
- :mod:`brandeln.bench.cli`: the ``brandeln bench`` sub-commands, mounted by name by
  ``brandeln.cli.main`` and imported only when ``brandeln bench`` runs.

bench may import every package of the project but the CLI (which mounts it:
:mod:`brandeln.bench.output` prints for it); no runtime package imports bench
(tests/test_layering.py checks).
"""
