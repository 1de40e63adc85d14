"""Durable agentframe runs on DBOS (`agentframe submit|worker|status|result|cancel`)."""
