"""The ladder: seasons of duplicate blocks between bots, rated with TrueSkill (and, over a
whole season, with batch ratings).

It drives a referee only through the Admin gRPC service (``brandeln.ladder.referee.admin_client``,
its messages in ``brandeln.ladder.referee.admin_wire``), so a season can run against a referee on
another machine; it never imports the arena. docs/ARCHITECTURE.md lists its modules: season files
(``config``), playing a season (``runner``, ``season_run``, ``duplicate``, ``schedule``), the bots'
processes (``bot_processes``, ``bot_output``, ``process_killer``), the store (``storage`` and its
parts), the ratings (``ratings``, ``rating_order``, ``batch_ratings``) and what is shown
(``leaderboard``, ``stats``, ``versus``).
"""
