"""The ladder database: its schema, its migrations and one module per
topic of :class:`brandeln.ladder.store.database.LadderStore`."""
