"""Seasons across machines on Ray (``brandeln season run --cluster``).

The cluster executor composes the arena and the ladder the way the CLI does, beside it (the
layering test keeps it out of both): the driver (:mod:`brandeln.cluster.driver`, in the CLI's
process) registers the season's bots once, then hands the blocks to Ray actors; each actor
(:mod:`brandeln.cluster.worker`) hosts an embedded referee and the season's command bots on its own
node, plays whole blocks and returns their outcomes; the driver alone records results and
ratings, through the ladder's block loop (:func:`brandeln.ladder.season.runner.run_blocks`). Ray is
imported only here and only when a season is run with ``--cluster``.
"""

import os

# The CLI's process handles SIGTERM and SIGINT itself: it stops the season or the ladder and
# exits 0. Ray's C++ failure handler (Abseil's) would catch SIGTERM too, print a stack dump,
# and set a 3 s alarm that aborts the process (exit -6) when it is still alive by then: a
# clean stop that took longer on a loaded machine ended by SIGABRT. Read when Ray is first
# imported; an operator may still set it to 0.
os.environ.setdefault("RAY_DISABLE_FAILURE_SIGNAL_HANDLER", "1")
