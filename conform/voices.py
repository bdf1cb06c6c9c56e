"""How each known kind of seat writes its lines (docs/protocol.md 4.2 and section 7).

The kit's scripted seats speak in one of these voices (``conform tm --style``): ``canonical``
(the ComputerBridge clients of the golden transcript 6.1: ``dummy's`` only from dummy while dummy
is to play), ``wbridge5`` (capitals, lower-case cards, a double blank in ``ready for  NORTH's
bid``), ``ben`` (``dummy's`` from every seat while dummy is to play) and ``bridge-player``
(lower-case seat names, ``ready for dummy`` right after the auction, ``received dummy``, and
dummy's ``ready for dummy's card to trick <t>`` after every card). The behaviour that goes with a
voice (when bridge-player asks for dummy, for instance) is the driver's; this module only writes.
"""

from __future__ import annotations

from bridgebot.conform.wire import call_text, card_text, connecting_line

STYLES = ("canonical", "wbridge5", "ben", "bridge-player")


class Voice:
    def __init__(self, style: str) -> None:
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r}")
        self.style = style

    def name(self, seat: str) -> str:
        if self.style == "wbridge5":
            return seat.upper()
        if self.style == "bridge-player":
            return seat.lower()
        return seat

    def connect(self, team: str, seat: str) -> str:
        return connecting_line(team, self.name(seat))

    def ready(self, seat: str, what: str) -> str:
        """``teams``, ``start``, ``deal``, ``cards``, ``dummy``: the simple ready lines."""
        words = {"start": "ready to start", "dummy": "ready for dummy"}.get(
            what, f"ready for {what}"
        )
        return f"{self.name(seat)} {words}"

    def ready_bid(self, seat: str, bidder: str) -> str:
        gap = "  " if self.style == "wbridge5" else " "
        return f"{self.name(seat)} ready for{gap}{self.name(bidder)}'s bid"

    def ready_card(
        self, seat: str, player: str, trick: int, *, dummy_to_play: bool, is_dummy: bool
    ) -> str:
        """The ready line for ``player``'s card; the ``dummy's`` form where this voice uses it."""
        use_dummy = (
            (self.style == "ben" and dummy_to_play)
            or (self.style == "canonical" and dummy_to_play and is_dummy)
            or (self.style == "bridge-player" and is_dummy)
        )
        who = "dummy" if use_dummy else self.name(player)
        return f"{self.name(seat)} ready for {who}'s card to trick {trick}"

    def call(self, seat: str, call: str, alert: str | None = None) -> str:
        text = call_text(self.name(seat), call)
        if self.style == "wbridge5" and call in ("P", "X", "XX"):
            text = text.upper()
        if alert is not None:
            text += f" Alert. {alert}" if alert else " Alert."
        return text

    def card(self, seat: str, card: str) -> str:
        if self.style == "wbridge5":
            return card_text(self.name(seat), card.lower())
        return card_text(self.name(seat), card)

    def received_dummy(self, seat: str) -> str:
        return f"{self.name(seat)} received dummy"
