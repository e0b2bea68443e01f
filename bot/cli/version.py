"""The package version, the engine's SIMD kernel and the data files in use."""

from __future__ import annotations

import argparse

HELP = "print the version, the engine's SIMD kernel and the data files in use"


def package_version() -> str:
    """The installed distribution's version (fast: no engine import)."""
    from importlib import metadata

    try:
        return metadata.version("fibsbot")
    except metadata.PackageNotFoundError:
        return "(not installed)"


def version_text() -> str:
    from engine.evaluator import Engine

    engine = Engine()
    files = engine.files
    lines = [f"fibsbot {package_version()}", f"engine kernel: {engine.kernel}", f"weights: {files.weights}",
             f"bearoff: {files.bearoff_os}, {files.bearoff_ts}", f"MET: {files.met}"]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def run(args: argparse.Namespace) -> int:
    print(version_text())
    return 0
