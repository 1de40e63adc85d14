"""Typed output: the final answer validated into a pydantic model."""

from pydantic import BaseModel

from agentframe_core import Agent


class CityLocation(BaseModel):
    city: str
    country: str


agent = Agent("llamacpp", output=CityLocation)


def main() -> None:
    with agent:
        result = agent.run_sync("Where were the olympics held in 2012?")
    print(result.output)


if __name__ == "__main__":
    main()
