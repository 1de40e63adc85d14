"""Test doubles and conformance kits for plugin authors.

`ScriptedAdapter` runs a stack with no model. The conformance kits (`StoreConformance`,
`AdapterConformance`, ...) live in `agentframe_core.testing.conformance` and need pytest and
hypothesis (`pip install agentframe[test]`).
"""

from .scripted import ScriptedAdapter, ScriptedOptions, ScriptedReply, ScriptExhaustedError

__all__ = ["ScriptExhaustedError", "ScriptedAdapter", "ScriptedOptions", "ScriptedReply"]
