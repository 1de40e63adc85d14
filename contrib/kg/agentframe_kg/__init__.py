"""agentframe-kg: a folder of documents to a validated RDF knowledge graph (see README.md)."""
