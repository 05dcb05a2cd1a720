"""The always-on ladder (``brandeln ladder serve``): its loop,
matchmaking, seating, seed periods and challenges."""
