"""Brandeln for OpenSpiel (the research extra: ``pip install -e '.[research]'``).

:mod:`brandeln.openspiel.engine_encoding` turns engine positions into the encoding's facts
(:mod:`sample_bots.sdk.encoding`) for every research environment.
"""
