from __future__ import annotations

from collections.abc import Iterator

import pytest
from agentframe_adapter_openai.testing import ScriptedServer


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(models=("scripted-model", "other-model")) as running:
        yield running
