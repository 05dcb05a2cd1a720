"""What the referee's and the ladder's stores are both built on, standard library only: files
and folders private to the user (:mod:`datastore.private_files`) and the check that an SQLite
file holds a schema (:mod:`datastore.sqlite_schema`).

The two sides never import each other; both may import this package, which imports no project
code (tests/test_layering.py checks both).
"""
