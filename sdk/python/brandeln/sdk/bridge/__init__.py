"""The stdio bridge: a bot in any language, as a child process speaking
JSON Lines (``python -m brandeln.sdk.bridge``)."""
