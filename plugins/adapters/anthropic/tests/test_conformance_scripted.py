"""The adapter passes the conformance kit over real HTTP against the scripted Messages API
server, with native tool calls (SmolLM2 on llama-server makes none: see
test_llama_server.py)."""

from __future__ import annotations

import pytest
from agentframe_adapter_anthropic import AnthropicAdapter, AnthropicOptions
from agentframe_adapter_anthropic.testing import Action, ScriptedServer

from agentframe_core.testing import AdapterConformance, Scenario


class TestAnthropicAdapterOverHTTP(AdapterConformance):
    @pytest.fixture
    def adapter(self, server: ScriptedServer, conformance_scenario: Scenario) -> AnthropicAdapter:
        example = conformance_scenario.example
        server.default = Action.reply(
            example.get("content", ""),
            example.get("tool_calls", ()),
            delay=example.get("delay", 0.0),
        )
        self.server = server
        return AnthropicAdapter(AnthropicOptions(base_url=server.url, api_key_env=None))

    def received_text(self, adapter: AnthropicAdapter) -> str | None:
        """The last user text block of the last request body the server read off the wire."""
        if not self.server.requests:
            return None
        return str(self.server.requests[-1]["body"]["messages"][-1]["content"][-1]["text"])
