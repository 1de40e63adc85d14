from __future__ import annotations

import os

from agentframe_llamacpp.options import KEEP_ALIVE_ENV
from agentframe_llamacpp.testing import llama_runtime  # noqa: F401 (a fixture)

# Run from this folder, pytest does not see the repository's conftest.py: the same setting,
# so that the servers of the tests' `agentframe` subprocesses stop when those exit.
os.environ.setdefault(KEEP_ALIVE_ENV, "0")
