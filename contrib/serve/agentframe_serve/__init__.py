"""agentframe-serve: agents over HTTP (OpenAI Chat Completions, agentframe's sessions)."""

from .app import build_app
from .keys import Keys
from .settings import HashedKey, ServeSettings

__all__ = ["HashedKey", "Keys", "ServeSettings", "build_app"]
