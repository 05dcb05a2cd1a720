"""A season: its file, its schedule of duplicate blocks, the runner
that plays them, its committed seed and its rerun."""
