"""Guarantees of the whole package, each proved by walking every route, form, model, output
or module."""
