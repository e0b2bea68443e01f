"""The error a subcommand raises for a mistake on its command line (light: no imports)."""

from __future__ import annotations


class CommandError(Exception):
    """A command line that cannot be run as given; ``fibsbot`` prints it as one line, exit 2."""
