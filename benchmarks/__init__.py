"""Benchmarks of the directory: the measurements of ``make bench`` (run.py) on the synthetic
department of tests/support/synthetic.py. Not part of the installed package; the tests never
import it (tests/invariants/test_architecture.py)."""
