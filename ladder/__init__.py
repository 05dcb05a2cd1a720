"""The ladder: seasons of duplicate blocks between bots, rated with TrueSkill.

It drives a referee only through the Admin gRPC service (``ladder.admin_client``), so a season
can run against a referee on another machine; it never imports the arena. Modules:
``config`` (season files), ``schedule`` (who plays which block), ``duplicate`` (a block's
matches and ranking), ``tally`` (per-seat counts from match events), ``ratings`` (TrueSkill),
``storage`` (the ladder database, SQLite or PostgreSQL, with its tables in ``schema`` and its
Alembic revisions in ``migrations``), ``claims`` (which runner plays which block), ``stats``
and ``leaderboard``, ``bot_processes`` and ``runner`` (playing a season).
"""
