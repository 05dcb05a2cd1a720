"""The bots' processes of a season or an always-on ladder: launched,
watched, their output kept, killed."""
