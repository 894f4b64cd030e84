"""Benchmarks of the core against its baselines; run ``python -m benchmarks.run``.

Scripts that print numbers, never tests that assert speed (the test suite only
runs them on tiny inputs, in ``tests/test_benchmarks_smoke.py``).
"""
