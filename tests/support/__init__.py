"""What the tests (and the benchmarks) share: fixtures, builders and measuring helpers."""
