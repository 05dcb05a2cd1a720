"""The public contract's values, shared by both sides of the wire (docs/PROTOCOL.md).

The referee (``arena``) writes them, the ladder (``ladder``, through Admin only) and the readers
(the CLI, the web pages) read them; the layering keeps arena and ladder apart, so what both
speak lives here, beside the generated stubs and below both:

- :mod:`brandeln.protocol.statuses`: the closed sets the wire and the logs carry as words (a match's
  status, how a decision ended, a session's state), one enum each.
- :mod:`brandeln.protocol.events`: the public events as a match log records them, one dataclass per
  kind, and a seat's penalty.
- :mod:`brandeln.protocol.decode`: a streamed ``GameEvent`` (``WatchMatch``, ``RunMatch``) read into
  those records: the reverse of the referee's ``brandeln.arena.codec.event_to_pb``.

It imports the engine (values) and the stubs, nothing else of the project.
"""
