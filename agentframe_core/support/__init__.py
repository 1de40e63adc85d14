"""Support: helpers the engine, the parts and plugins share (files, redaction, YAML, processes,
the turn lease, retention, transfer).

Knows the contract only, so a store or an adapter can use it without the loop.
"""
