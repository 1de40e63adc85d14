"""Testing: a scripted model in place of the real one, and what it was sent."""

from agentframe_core import Agent
from agentframe_core.testing import ScriptedAdapter


def forecast(city: str) -> str:
    """The weather forecast for a city."""
    return f"Sunny in {city}"


agent = Agent("llamacpp", tools=[forecast])


def test_forecast() -> None:
    model = ScriptedAdapter(
        [{"tool_calls": [{"name": "forecast", "arguments": {"city": "Oslo"}}]}, "Sunny."]
    )
    with agent.override(model=model), agent:
        result = agent.run_sync("Weather in Oslo?")
    assert result.reply == "Sunny."
    assert [(c.name, c.content) for c in result.tool_calls] == [("forecast", "Sunny in Oslo")]
    assert model.requests[0].messages[-1].content == "Weather in Oslo?"


if __name__ == "__main__":
    test_forecast()
