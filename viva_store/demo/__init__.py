"""Synthetic team history written as real harness files (demo, tests, benchmarks)."""
