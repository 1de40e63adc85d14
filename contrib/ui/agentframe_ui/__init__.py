"""agentframe-ui: a local web UI served by `agentframe serve` (at `/`) and `agentframe ui`."""

from .routes import CSP, routes

__all__ = ["CSP", "routes"]
