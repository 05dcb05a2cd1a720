"""The application services that the command line and the web front both compose.

A layer beside ``brandeln.cli`` and ``web``, below both: the data folder's layout
(:mod:`brandeln.services.data_folder`), where bots and matches are read
(:mod:`brandeln.services.sources`), a bot's conformance check (:mod:`brandeln.services.bot_check`)
and the copy of the stores (:mod:`brandeln.services.db_copy`). It composes engine, arena, ladder,
datastore, the sample bots and the generated stubs; it never imports the CLI, the web front, the
benchmarks, the cluster executor, typer or rich, and it prints nothing: its callers say what it
found, each in its own way.
"""
