"""A browser for tests (`BROWSER="python browser.py %s"`): opens the URL and follows its
redirects, as a person who is already logged in at the authorization server would, which
brings the authorization code to `agentframe mcp login`'s loopback port."""

from __future__ import annotations

import sys
import urllib.request

if __name__ == "__main__":
    with urllib.request.urlopen(sys.argv[1], timeout=20) as reply:
        reply.read()
