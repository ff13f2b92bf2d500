"""The services: the write path, imports, reads and the department's data."""
