"""The report package's named error."""

from __future__ import annotations


class ReportError(ValueError):
    """A picture or report cannot be made from this input (the message says why)."""
