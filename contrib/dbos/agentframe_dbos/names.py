"""Names the workers and the client commands agree on, without importing either side."""

from __future__ import annotations

__all__ = [
    "ANSWER_TOPIC",
    "QUESTION_PREFIX",
    "QUESTION_WORKFLOW",
    "WAITING_EVENT",
    "WORKFLOW_NAME",
    "question_workflow_id",
    "result_topic",
]

#: The DBOS workflow a run is.
WORKFLOW_NAME = "agentframe_run"
#: The workflow event naming the parked call a run waits for (`agentframe status` shows it).
WAITING_EVENT = "waiting_for"
#: The DBOS workflow one question of a run is: it waits for the answer `agentframe send` gives.
QUESTION_WORKFLOW = "agentframe_question"
#: The message topic of a question's answer.
ANSWER_TOPIC = "answer"
#: How a question's id begins (`agentframe send RUN q-... ANSWER`).
QUESTION_PREFIX = "q-"


def result_topic(call_id: str) -> str:
    """The DBOS message topic that carries the result of the parked call `call_id`."""
    return f"tool-result:{call_id}"


def question_workflow_id(workflow_id: str, question_id: str) -> str:
    """The workflow of the question `question_id` (`q-...`) the run `workflow_id` asks."""
    return f"{workflow_id}/{question_id}"
