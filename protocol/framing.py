"""Bytes to lines and back, bounded.

Peers end lines with CR LF (the spec), bare LF (.NET ``WriteLine`` on Linux, OpenSpiel) or CR, and
several TM lines can arrive in one read or one line across several reads (docs/protocol.md section 4:
"clients must buffer a stream and split it into lines"). ``LineBuffer`` accepts all of that, drops
blank lines and caps line length so a peer that never sends a terminator cannot grow our memory.
"""

from __future__ import annotations

from bridgebot.protocol.errors import LineTooLong, LocalProtocolError


class LineBuffer:
    """Feed bytes, get complete lines (terminators and trailing blanks removed, blank lines dropped).

    A line longer than ``max_line`` raises ``LineTooLong`` from the ``feed`` that completes the
    overflow; the rest of that line, up to the next terminator, is discarded. Lines that were already
    complete in the same chunk are not lost: they come out of the next ``feed`` (``feed(b"")``
    collects them).
    """

    def __init__(self, max_line: int = 4096) -> None:
        if max_line < 1:
            raise ValueError("max_line must be positive")
        self.max_line = max_line
        self._partial = bytearray()
        self._ready: list[str] = []
        self._discarding = False

    def feed(self, data: bytes) -> list[str]:
        overflow: bytes | None = None
        start = 0
        n = len(data)
        while start <= n:
            end = _next_eol(data, start)
            piece = data[start : n if end < 0 else end]
            if self._discarding:
                if end >= 0:
                    self._discarding = False
            elif len(self._partial) + len(piece) > self.max_line:
                if overflow is None:
                    overflow = bytes(self._partial[:40] + piece[:40])
                self._partial.clear()
                self._discarding = end < 0
            elif end < 0:
                self._partial += piece
            else:
                self._emit(bytes(self._partial + piece))
                self._partial.clear()
            if end < 0:
                break
            start = end + 1
        if overflow is not None:
            raise LineTooLong(
                f"line longer than {self.max_line} bytes without a terminator",
                line=overflow.decode("utf-8", errors="replace") + "...",
            )
        out, self._ready = self._ready, []
        return out

    def close(self) -> list[str]:
        """End of stream: the lines still held, plus an unterminated last line if any."""
        if self._partial and not self._discarding:
            self._emit(bytes(self._partial))
        self._partial.clear()
        self._discarding = False
        out, self._ready = self._ready, []
        return out

    @property
    def pending(self) -> int:
        """Bytes of an incomplete line held (for diagnostics)."""
        return len(self._partial)

    def _emit(self, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="replace").rstrip()
        if text.strip():
            self._ready.append(text)


def _next_eol(data: bytes, start: int) -> int:
    cr = data.find(b"\r", start)
    lf = data.find(b"\n", start)
    if cr < 0:
        return lf
    if lf < 0:
        return cr
    return min(cr, lf)


def encode_line(text: str) -> bytes:
    """``text`` + CR LF in ASCII (the spec's lexical rules); raises ``LocalProtocolError`` for text
    that cannot go on the wire (non-ASCII, or an embedded terminator)."""
    if "\r" in text or "\n" in text:
        raise LocalProtocolError("a line must not contain CR or LF", line=text)
    try:
        return text.encode("ascii") + b"\r\n"
    except UnicodeEncodeError:
        raise LocalProtocolError("a line must be ASCII", line=text) from None
