"""Protocol errors, split by whose fault it was.

A table manager or a seat client must tell its operator *who* broke the protocol: the peer
(``RemoteProtocolError``: log it, maybe answer ``Illegal bid``, maybe drop the seat) or our own
code (``LocalProtocolError``: a bug, never the peer's problem). ``ParseError`` is the narrow case
of a line that is not a Blue Chip message at all in the direction it travelled. All of them are
``ValueError`` so callers that only care about "bad input" can catch one thing.
"""

from __future__ import annotations

from endplay.types import Player


class ProtocolError(ValueError):
    """Base class of every error this package raises; ``line`` is the offending text, if any."""

    def __init__(self, message: str, *, line: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return f"{self.message}: {self.line!r}"


class ParseError(ProtocolError):
    """The text is not a Blue Chip message in the direction it was read."""


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol (wrong message now, wrong seat, illegal call or card beyond the
    retry cap). ``seat`` names the offending seat when it is known."""

    def __init__(
        self, message: str, *, seat: Player | None = None, line: str | None = None
    ) -> None:
        super().__init__(message, line=line)
        self.seat = seat

    def __str__(self) -> str:
        base = super().__str__()
        if self.seat is None:
            return base
        return f"{self.seat.name.capitalize()}: {base}"


class LocalProtocolError(ProtocolError):
    """We tried to send something the protocol or the current state forbids (a bug on our side)."""


class LineTooLong(ParseError):
    """A peer sent more than the framing limit without a line terminator."""
