"""The ladder's only way to a referee: the Admin service's client,
its messages, and what it reads back as values."""
