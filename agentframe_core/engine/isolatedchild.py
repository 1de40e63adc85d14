"""The child side of an isolated tool call (`isolated.py`): read the request from stdin, call
the function, print the result as JSON on stdout."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from .functions import import_tool, outcome_text


def main() -> None:
    """Read the request, call the function, print the result: never a traceback."""
    try:
        request = json.loads(sys.stdin.buffer.read())
        folder = request.get("folder")
        tool = import_tool(request["reference"], Path(folder) if folder else None)
        value = asyncio.run(tool.run(request["arguments"]))
        content, is_error = outcome_text(value)
    except Exception as err:  # the model gets the error, as for an in-process tool
        content, is_error = f"{type(err).__name__}: {err}", True
    sys.stdout.write(json.dumps({"content": content, "is_error": is_error}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
