"""Assembly: the plugin host, reading and validating config, building a stack, the facade."""
