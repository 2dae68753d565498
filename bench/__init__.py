"""Benchmarks that print figures (run as modules: ``python -m bench.<name>``)."""
