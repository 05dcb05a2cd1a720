"""The web front (``brandeln web``): a read-only Starlette app over the stores the CLI reads.

It composes the layers like the CLI, beside it: the ladder's and the referee's stores through
their own modules, a running referee through ``Admin``. It speaks values only: match logs read
typed (``brandeln.arena.logreader``), the Admin client's records, the protocol's events; never a
protobuf message (``tests/web/test_web_imports.py``). Every asset is served by the app itself
(no CDN); bot-supplied text reaches a page only through autoescaped templates.
"""
