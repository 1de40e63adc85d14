from agentframe_store_postgres.testing import postgres_dsn

__all__ = ["postgres_dsn"]
