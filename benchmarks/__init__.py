"""Benchmarks of the directory: a synthetic department (generate.py) and the measurements of
``make bench`` (run.py). Not part of the installed package."""
