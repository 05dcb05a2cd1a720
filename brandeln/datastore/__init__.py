"""What the referee's and the ladder's stores are both built on; imports no project code.

- :mod:`brandeln.datastore.url`: which database, by URL (an SQLite path, or PostgreSQL);
- :mod:`brandeln.datastore.engine`: an SQLAlchemy engine for one side's tables there;
- :mod:`brandeln.datastore.migrations`: Alembic to the newest revision on open, adopting older
  files;
- :mod:`brandeln.datastore.errors`, :mod:`brandeln.datastore.retry`: failures in one line, and
  retrying whole transactions where that is safe;
- :mod:`brandeln.datastore.transactions`: one whole transaction of a store, retried, its failure
  named in the store's own error; :mod:`brandeln.datastore.upsert`: INSERT with ON CONFLICT on both
  backends;
- :mod:`brandeln.datastore.private_files` (0600/0700 files) and
  :mod:`brandeln.datastore.sqlite_schema`.

The two sides never import each other; both may import this package (tests/test_layering.py
checks both).
"""
