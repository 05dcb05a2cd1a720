"""Benchmarks: programs that measure, not tests, and no part of the runtime packages.

- :mod:`bench.engine`: the engine's rules code (``python -m bench.engine``).
- :mod:`bench.referee`: the referee against its floor (``brandeln bench referee``).
- :mod:`bench.season`: a ladder season end to end (``brandeln bench season``).
- :mod:`bench.report`: every benchmark in one report (``brandeln bench all``).
- :mod:`bench.cli`: the ``brandeln bench`` sub-commands, mounted by ``brandeln_cli.main``.

bench may import every package of the project; no runtime package imports bench
(tests/test_layering.py checks).
"""
