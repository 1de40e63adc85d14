"""Child of the open race: wait for a line on stdin, then open the store at PATH and close it.
Imports only the schema module, so that many of these start quickly."""

from __future__ import annotations

import sys
from pathlib import Path

from agentframe_store_sqlite.schema import open_database

print("ready", flush=True)
sys.stdin.readline()
open_database(Path(sys.argv[1]), busy_timeout=5.0, synchronous="full").close()
