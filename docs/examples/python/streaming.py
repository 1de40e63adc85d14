"""Streaming: the reply's text as the model writes it, then the result."""

import asyncio

from agentframe_core import Agent, ResultEvent, TokenEvent

agent = Agent("llamacpp")


async def main() -> None:
    async with agent:
        async for event in agent.run_stream('Where does "hello world" come from?'):
            if isinstance(event, TokenEvent):
                print(event.text, end="", flush=True)
            elif isinstance(event, ResultEvent):
                print(f"\n({event.result.turns} turn, {event.result.outcome})")


if __name__ == "__main__":
    asyncio.run(main())
