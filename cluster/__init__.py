"""Seasons across machines on Ray (``brandeln season run --cluster``).

The cluster executor composes the arena and the ladder the way the CLI does, beside it (the
layering test keeps it out of both): the driver (:mod:`cluster.driver`, in the CLI's process)
registers the season's bots once, then hands the blocks to Ray actors; each actor
(:mod:`cluster.worker`) hosts an embedded referee and the season's command bots on its own
node, plays whole blocks and returns their outcomes; the driver alone records results and
ratings, through the ladder's block loop (:func:`ladder.runner.run_blocks`). Ray is imported
only here and only when a season is run with ``--cluster``.
"""
