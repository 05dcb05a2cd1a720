"""What the referee's and the ladder's stores are both built on; imports no project code.

- :mod:`datastore.url`: which database, by URL (an SQLite path, or PostgreSQL);
- :mod:`datastore.engine`: an SQLAlchemy engine for one side's tables there;
- :mod:`datastore.migrations`: Alembic to the newest revision on open, adopting older files;
- :mod:`datastore.errors`, :mod:`datastore.retry`: failures in one line, and retrying whole
  transactions where that is safe;
- :mod:`datastore.transactions`: one whole transaction of a store, retried, its failure named
  in the store's own error; :mod:`datastore.upsert`: INSERT with ON CONFLICT on both backends;
- :mod:`datastore.private_files` (0600/0700 files) and :mod:`datastore.sqlite_schema`.

The two sides never import each other; both may import this package (tests/test_layering.py
checks both).
"""
