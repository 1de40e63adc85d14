"""Hello world: one prompt, one reply, on the embedded default model."""

from agentframe_core import Agent

agent = Agent("llamacpp", system="Be concise, reply with one sentence.")


def main() -> None:
    with agent:
        result = agent.run_sync('Where does "hello world" come from?')
    print(result.reply)


if __name__ == "__main__":
    main()
