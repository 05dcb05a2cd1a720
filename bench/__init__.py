"""Benchmarks: programs that measure, not tests, and no part of the runtime packages.

- :mod:`bench.engine`: the engine's rules code (``python -m bench.engine``).
- :mod:`bench.referee`: the referee against its floor (``brandeln bench referee``).
- :mod:`bench.season`: a ladder season end to end (``brandeln bench season``).
- :mod:`bench.report`: every benchmark in one report (``brandeln bench all``).
- :mod:`bench.cli`: the ``brandeln bench`` sub-commands, mounted by name by ``brandeln_cli.main``
  and imported only when ``brandeln bench`` runs.

bench may import every package of the project but the CLI (which mounts it: :mod:`bench.output`
prints for it); no runtime package imports bench (tests/test_layering.py checks).
"""
