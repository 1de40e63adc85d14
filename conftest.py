"""Settings for every test of the repository."""

from __future__ import annotations

import os

# Servers that `agentframe run` starts in the tests' subprocesses stop when those exit (a warm
# llama-server per test cache would outlive the suite); tests of warm servers set their own.
os.environ.setdefault("AGENTFRAME_LLAMA_KEEP_ALIVE", "0")
