"""A tool: a plain function the model may call; the reply and what the run cost."""

from agentframe_core import Agent


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


agent = Agent("llamacpp", system="Use the add tool for sums.", tools=[add])


def main() -> None:
    with agent:
        result = agent.run_sync("What is 2+3?")
    print(result.reply)
    print(result.usage)


if __name__ == "__main__":
    main()
