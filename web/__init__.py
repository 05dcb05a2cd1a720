"""The web front (``brandeln web``): a read-only Starlette app over the stores the CLI reads.

It composes the layers like the CLI, beside it: the ladder's and the referee's stores through
their own modules, a running referee through ``Admin``. Every asset is served by the app itself
(no CDN); bot-supplied text reaches a page only through autoescaped templates.
"""
