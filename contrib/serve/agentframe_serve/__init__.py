"""agentframe-serve: agents over HTTP (OpenAI Chat Completions, agentframe's sessions)."""

from .app import ROUTES_GROUP, build_app
from .cli import serve_stack
from .errors import ApiError
from .extensions import ApiCall, ApiRoute
from .keys import Keys
from .settings import HashedKey, ServeSettings

__all__ = [
    "ROUTES_GROUP",
    "ApiCall",
    "ApiError",
    "ApiRoute",
    "HashedKey",
    "Keys",
    "ServeSettings",
    "build_app",
    "serve_stack",
]
