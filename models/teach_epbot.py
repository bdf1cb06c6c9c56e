"""``bridgebot teach --teacher``: who bids a teacher file's auctions, bfg or EPBot's cards.

A teacher is ``bfg`` (the default) or ``epbot:CARD``, EPBot playing ``CARD`` in all four seats
and assuming the same card for its opponents (so no report card is read, not even as an
assumption). Random deal k goes to teacher ``k % len(teachers)``, a function of k alone, so a file
resumes and comes out the same whatever the number of workers. :func:`teacher_specs` checks the
names the user gave (no report card, :mod:`engine.epbot_cards`; EPBot present; the card in its
folder) and writes each as the one spelling the file's meta keeps (``epbot:Micro_Bridge_13.4``).

EPBot bids through the ``epbot`` agent's own :meth:`EPBotAgent.bid`, so a teacher auction is the
one that agent bids at a table, every call checked for legality (illegal ones counted).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from bridgebot.core.errors import UserError
from bridgebot.engine.agent import bidding_view
from bridgebot.engine.cardplay import BaselinePlayer
from bridgebot.engine.epbot import EPBotAgent
from bridgebot.engine.epbot_cards import find_card, read_convention_card, training_cards
from bridgebot.engine.epbot_native import Native, epbot_folder, load_library
from bridgebot.laws.calls import auction_over, bid_index
from bridgebot.laws.cards import owners_deal
from endplay.types import Bid, Player, Vul

BFG = "bfg"
PREFIX = "epbot:"


def teacher_specs(written: Sequence[str]) -> tuple[str, ...]:
    """The teachers ``--teacher`` names (each option may hold several, comma-separated), in order
    and spelled as the file records them; ``("bfg",)`` when none is given. A report card, a spec
    that is neither ``bfg`` nor ``epbot:CARD``, a missing EPBot or card: one-line errors."""
    out: list[str] = []
    for name in training_cards(written, "--teacher"):
        if name.lower() == BFG:
            out.append(BFG)
            continue
        if not name.startswith(PREFIX) or not name[len(PREFIX) :].strip():
            raise UserError(f"--teacher: {name!r} is neither bfg nor epbot:CARD")
        card = find_card(epbot_folder(), name[len(PREFIX) :]).stem
        out.append(PREFIX + card.replace(" ", "_"))
    return tuple(out) or (BFG,)


def epbot_version() -> int:
    """The version number of the EPBot that ``$BRIDGEBOT_EPBOT`` names (e.g. 8740)."""
    native = Native(load_library(epbot_folder()))
    try:
        return native.version()
    finally:
        native.close()


class EPBotTeacher:
    """EPBot bidding all four seats with one card; :attr:`calls` and :attr:`illegal` count."""

    def __init__(self, spec: str) -> None:
        folder = epbot_folder()
        card = read_convention_card(find_card(folder, spec.removeprefix(PREFIX)))
        self.agent = EPBotAgent(folder, card, card, BaselinePlayer(), spec)

    @property
    def calls(self) -> int:
        return self.agent.calls

    @property
    def illegal(self) -> int:
        return self.agent.illegal_calls

    def bid_deal(
        self, owners: npt.NDArray[np.uint8], dealer: int, vul: int, board: int
    ) -> list[int]:
        """A complete auction (ALL_CALLS indices from the dealer's call) on deal ``owners``."""
        deal = owners_deal(owners)
        first, v = Player(dealer), Vul(vul)
        auction: list[Bid] = []
        while not auction_over(auction):
            seat = Player((dealer + len(auction)) % 4)
            auction.append(self.agent.bid(bidding_view(first, v, deal[seat], auction, board)))
        return [bid_index(c) for c in auction]

    def close(self) -> None:
        self.agent.close()
