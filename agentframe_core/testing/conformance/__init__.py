"""Conformance kits: one module per extension point, each a pytest base class."""
