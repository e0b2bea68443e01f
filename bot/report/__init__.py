"""Pictures: board diagrams (SVG, PNG), HTML match reports and the operator's dashboard."""

from bot.report.diagram import Play, render_svg
from bot.report.errors import ReportError

__all__ = ["Play", "ReportError", "render_svg"]
