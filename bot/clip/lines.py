"""The byte stream to lines: line ends of every kind, the unterminated login prompt, decoding."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

log = logging.getLogger(__name__)


_LINE_END = re.compile(rb"\r\n|\r\x00|\r|\n")


class LineSplitter:
    """Cuts the server's byte stream into lines, in time linear in the bytes.

    CR LF, CR and LF each end a line (also when CR LF is split between
    chunks); a pending unterminated buffer that is exactly one of ``prompts``
    is returned as a line of its own. Lines are decoded as UTF-8, or as
    latin-1 where they are not UTF-8.

    >>> s = LineSplitter()
    >>> s.feed(b"First Internet Backgammon Server\\r\\n\\r\\nlogin: ")
    ['First Internet Backgammon Server', '', 'login: ']
    >>> s.feed(b"1 bob 1041253132 host\\r\\n2 bo"), s.feed(b"b 1 1\\r"), s.feed(b"\\n3\\r")
    (['1 bob 1041253132 host'], ['2 bob 1 1'], ['3'])
    """

    PROMPTS = ("login: ", "Please give your password: ")
    MAX_LINE = 1 << 16
    """A longer unterminated buffer is cut into a line (the server never sends one)."""

    def __init__(self, prompts: Sequence[str] = PROMPTS) -> None:
        self._prompts = tuple(p.encode("ascii") for p in prompts)
        self._buffer = bytearray()
        self._after_cr = False

    def feed(self, data: bytes) -> list[str]:
        """Add received bytes; return the lines (and prompts) now complete."""
        if self._after_cr and data[:1] in (b"\n", b"\x00"):
            data = data[1:]  # the rest of a CR LF (or telnet's CR NUL) cut between two reads
        self._after_cr = data.endswith(b"\r")
        lines = []
        start = 0
        for end in _LINE_END.finditer(data):
            self._buffer += data[start:end.start()]
            lines.append(self._take())
            start = end.end()
        self._buffer += data[start:]
        if len(self._buffer) > self.MAX_LINE:
            log.warning("a line of over %d bytes without a line end: cut", self.MAX_LINE)
            lines.append(self._take())
        elif len(self._buffer) < 40 and bytes(self._buffer) in self._prompts:
            lines.append(self._take())
        return lines

    def flush(self) -> list[str]:
        """At end of stream: the unterminated rest, if any."""
        self._after_cr = False
        return [self._take()] if self._buffer else []

    def _take(self) -> str:
        line, self._buffer = bytes(self._buffer), bytearray()
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            return line.decode("latin-1")
