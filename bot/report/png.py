"""PNG from a diagram's SVG through CairoSVG (the optional ``png`` extra; it needs
the system's cairo library, Debian's libcairo2)."""

from __future__ import annotations

from bot.report.diagram import HEIGHT, WIDTH
from bot.report.errors import ReportError

PNG_HINT = ("PNG output needs CairoSVG and the cairo library: pip install 'fibsbot[png]' "
            "(Debian: apt-get install libcairo2)")


def svg_to_png(svg: str, width: int = WIDTH) -> bytes:
    """Rasterise ``svg`` (a diagram) at ``width`` pixels wide, its aspect kept."""
    if width < 16 or width > 8000:
        raise ReportError(f"PNG width {width} is outside 16..8000 pixels")
    try:
        import cairosvg  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except (ImportError, OSError) as exc:  # OSError: the package is there, libcairo is not
        raise ReportError(f"{PNG_HINT} ({exc})") from None
    data: bytes = cairosvg.svg2png(bytestring=svg.encode(), output_width=width,
                                   output_height=round(width * HEIGHT / WIDTH))
    return data


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ReportError("not a PNG")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
