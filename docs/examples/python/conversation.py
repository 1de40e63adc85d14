"""A conversation: the second run sees the first (one session, one store)."""

from agentframe_core import Agent

agent = Agent("llamacpp", system="Be a helpful assistant.")


def main() -> None:
    with agent:
        chat = agent.session()
        print(chat.run_sync("Who was Albert Einstein?").reply)
        print(chat.run_sync("What was his most famous equation?").reply)


if __name__ == "__main__":
    main()
