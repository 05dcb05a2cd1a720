"""The application services that the command line and the web front both compose.

A layer beside ``brandeln_cli`` and ``web``, below both: the data folder's layout
(:mod:`services.data_folder`), where bots and matches are read (:mod:`services.sources`), a
bot's conformance check (:mod:`services.bot_check`) and the copy of the stores
(:mod:`services.db_copy`). It composes engine, arena, ladder, datastore, the sample bots and the
generated stubs; it never imports the CLI, the web front, the benchmarks, the cluster executor,
typer or rich, and it prints nothing: its callers say what it found, each in its own way.
"""
