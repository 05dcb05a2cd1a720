"""Nothing of the built manual comes from another host: it must work from file:// and with no
network (issue 52).

Material's offline plugin adds a polyfill from unpkg.com (iframe-worker, which lets search run
from file:// where a browser refuses a Web Worker); a script fetched from a CDN is exactly what
the manual must not load. This hook runs after the plugin and drops every polyfill that is not
a path of the site. Search then works wherever the manual is served (`brandeln web`, under
/manual/); from file:// the rest of the site does.

The build's 404.html goes too: MkDocs writes its links from the host's root (/assets/...,
having no site_url), which hold neither under /manual/ nor from file://, and neither uses it
(`brandeln web` answers a missing page of the manual with its own 404).
"""

from __future__ import annotations

from pathlib import Path

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


def on_post_build(config: MkDocsConfig) -> None:
    (Path(config.site_dir) / "404.html").unlink(missing_ok=True)
