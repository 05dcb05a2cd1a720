"""Nothing of the built manual comes from another host: it must work from file:// and with no
network (issue 52).

Material's offline plugin adds a polyfill from unpkg.com (iframe-worker, which lets search run
from file:// where a browser refuses a Web Worker); a script fetched from a CDN is exactly what
the manual must not load. This hook runs after the plugin and drops every polyfill that is not
a path of the site. Search then works wherever the manual is served (`brandeln web`, under
/manual/); from file:// the rest of the site does.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

REMOTE_PREFIXES = ("http://", "https://", "//")


@event_priority(-200)  # after the offline plugin's on_config (priority 0)
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    polyfills = config.extra.get("polyfills", [])
    config.extra["polyfills"] = [
        script for script in polyfills if not str(script).startswith(REMOTE_PREFIXES)
    ]
    return config
