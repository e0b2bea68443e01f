"""argparse types for numbers and lists of numbers."""

from __future__ import annotations

import argparse


def positive(text: str) -> int:
    """A whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def floats(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}") from None


def ints(text: str) -> list[int]:
    values = floats(text)
    if any(v != int(v) or v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected whole numbers >= 0 separated by commas, got {text!r}")
    return [int(v) for v in values]


def positive_float(text: str) -> float:
    """A finite number above 0 (a thinking budget)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number above 0, got {text!r}")
    return value
