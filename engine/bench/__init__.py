"""Benchmarks against the gnubg package (``python -m engine.bench``): one module per command,
their shared timing and gnubg handling in ``harness``, the command line in ``__main__``."""
