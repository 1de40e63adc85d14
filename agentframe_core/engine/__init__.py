"""The engine: the agent loop and what it runs (tool dispatch, rendering, prompts, retrieval,
agent definitions).
"""
