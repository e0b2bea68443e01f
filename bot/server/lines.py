"""Client bytes -> command lines, defensively (sans I/O).

Telnet IAC sequences are dropped (also when split between reads), lines end
at LF with CR ignored, bytes outside printable ASCII become ``?`` (tabs
become blanks, other controls vanish), and a line longer than ``max_line``
bytes is cut there and the rest of it thrown away, so a client can neither
make the server buffer without bound nor smuggle controls into other users'
lines.

>>> r = LineReader(max_line=8)
>>> r.feed(b"tell bob h\\xc3\\xa9llo there\\r\\nro"), r.feed(b"ll\\n\\xff\\xfb\\x01bye\\n")
(['tell bob'], ['roll', 'bye'])
"""

from __future__ import annotations

IAC, SB, SE = 0xFF, 0xFA, 0xF0
_WILL_TO_DONT = range(0xFB, 0xFF)  # WILL WONT DO DONT take one option byte

_TRANSLATE = bytes(
    c if 0x20 <= c < 0x7F else 0x20 if c == 0x09 else 0x3F if c >= 0x7F else 0
    for c in range(256)
)


class LineReader:
    """Feed received bytes, get complete lines back."""

    def __init__(self, max_line: int = 2048) -> None:
        self.max_line = max_line
        self._line = bytearray()
        self._iac = bytearray()  # an unfinished telnet command
        self._subneg = False  # inside IAC SB ... IAC SE

    def feed(self, data: bytes) -> list[str]:
        *complete, rest = self._strip_telnet(data).split(b"\n")
        lines = []
        for part in complete:
            self._append(part)
            lines.append(bytes(self._line).translate(_TRANSLATE).replace(b"\0", b"").decode("ascii"))
            self._line.clear()
        self._append(rest)
        return lines

    def _append(self, part: bytes) -> None:
        room = self.max_line - len(self._line)
        if room > 0:
            self._line += part.replace(b"\r", b"")[:room]

    def _strip_telnet(self, data: bytes) -> bytes:
        if not self._iac and not self._subneg and IAC not in data:
            return data  # the usual case, without a Python loop over bytes
        out = bytearray()
        for byte in data:
            if self._iac:
                self._iac.append(byte)
                if self._telnet_command_done(out):
                    self._iac.clear()
            elif byte == IAC:
                self._iac.append(byte)
            elif not self._subneg:
                out.append(byte)
        return bytes(out)

    def _telnet_command_done(self, out: bytearray) -> bool:
        command = self._iac[1]
        if command == IAC:  # an escaped 0xFF data byte: not ASCII, shown as '?'
            if not self._subneg:
                out.append(IAC)
            return True
        if command == SB:
            self._subneg = True
        elif command == SE:
            self._subneg = False
        elif command in _WILL_TO_DONT:
            return len(self._iac) == 3
        return True
