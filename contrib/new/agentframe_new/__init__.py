"""agentframe-new: `agentframe new plugin KIND NAME` scaffolds a plugin package (see README.md)."""
