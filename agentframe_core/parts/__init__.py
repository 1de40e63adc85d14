"""The kernel's own parts (the in-process store, the verbatim context builder, the scripted
adapter), registered by `plugin.py` exactly as a third-party plugin registers its parts.
"""
