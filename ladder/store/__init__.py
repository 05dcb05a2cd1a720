"""The ladder database: its schema, its migrations, and
:class:`brandeln.ladder.store.database.LadderStore` with one module per topic store it holds."""
