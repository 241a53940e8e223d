"""Measurements with documented commands (``python -m gammon.benchmarks.NAME``); figures in
benchmarks/RESULTS.md."""
