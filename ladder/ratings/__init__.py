"""Ratings and statistics: TrueSkill block by block, batch ratings,
the leaderboard, confidence intervals, head to head, the SPRT."""
