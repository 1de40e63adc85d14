"""Sessions as JSON Lines files: the example plugin of docs/plugin-authoring.md."""

from .store import JsonlStore, JsonlStoreOptions

__all__ = ["JsonlStore", "JsonlStoreOptions"]
