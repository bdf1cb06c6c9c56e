"""Progress of the long commands (teach, ddgen, train ...): the one bar of
:func:`bridgebot.server.logs.progress_bar`, under the name the trainers import."""

from __future__ import annotations

from bridgebot.server.logs import progress_bar

__all__ = ["progress_bar"]
