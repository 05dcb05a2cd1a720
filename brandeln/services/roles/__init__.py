"""Ratings by role: a match's figures judged from its log, and a
season's, bot by bot."""
