"""``brandeln season verify``: a season checked from its stored
data and its match logs alone."""
