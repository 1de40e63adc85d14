"""The adapter passes the conformance kit over real HTTP against the scripted server, with
native tool calls (llama-server with SmolLM2 has none: see test_llama_server.py)."""

from __future__ import annotations

import pytest
from agentframe_adapter_openai import OpenAIAdapter, OpenAIOptions
from agentframe_adapter_openai.testing import Action, ScriptedServer

from agentframe_core.testing import AdapterConformance, Scenario


class TestOpenAIAdapterOverHTTP(AdapterConformance):
    @pytest.fixture
    def adapter(self, server: ScriptedServer, conformance_scenario: Scenario) -> OpenAIAdapter:
        example = conformance_scenario.example
        server.default = Action.reply(
            example.get("content", ""), example.get("tool_calls", ()), example.get("delay", 0.0)
        )
        self.server = server
        return OpenAIAdapter(OpenAIOptions(base_url=server.url, api_key_env=None))

    def received_text(self, adapter: OpenAIAdapter) -> str | None:
        """The last user message of the last request body the server read off the wire."""
        if not self.server.requests:
            return None
        return str(self.server.requests[-1]["body"]["messages"][-1]["content"])
