"""Small inline SVG charts (no script, no network) for the dashboard."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

_W, _H, _PAD = 320, 120, 28


def line_chart(values: Sequence[float], label: str, *, bars: bool = False) -> str:
    """``values`` oldest first as a line (or bars), with the lowest and highest marked."""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    n = len(values)
    step = (_W - 2 * _PAD) / max(1, n - 1 if not bars else n)

    def y(v: float) -> float:
        return _H - _PAD - (v - (0.0 if bars else low)) / ((high if bars else span) or 1.0) * (_H - 2 * _PAD)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" role="img" '
             f'data-points="{n}"><title>{escape(label)}</title>',
             f'<line x1="{_PAD}" y1="{_H - _PAD}" x2="{_W - _PAD}" y2="{_H - _PAD}" stroke="#999"/>']
    if bars:
        for i, v in enumerate(values):
            top = y(v)
            parts.append(f'<rect class="bar" x="{_PAD + i * step + 1:.1f}" y="{top:.1f}" '
                         f'width="{max(1.0, step - 2):.1f}" '
                         f'height="{_H - _PAD - top:.1f}" fill="#1f77d0"><title>{v:.1f}</title></rect>')
    else:
        points = " ".join(f"{_PAD + i * step:.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline points="{points}" fill="none" stroke="#1f77d0" stroke-width="2"/>')
    parts.append(f'<text x="4" y="{_PAD - 8}" font-size="11" fill="#444">{high:.1f}</text>')
    parts.append(f'<text x="4" y="{_H - 6}" font-size="11" fill="#444">{0.0 if bars else low:.1f}</text>')
    parts.append("</svg>")
    return "".join(parts)
