"""The working memory's real-model test uses the llamacpp plugin's shared llama-server."""

from __future__ import annotations

import contextlib

with contextlib.suppress(ImportError):  # the real-model test needs agentframe-llamacpp
    from agentframe_llamacpp.testing import llama_runtime  # noqa: F401 (a fixture)
