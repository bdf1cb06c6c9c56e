"""The ``epbot`` agent: EPBot bids, a card player plays.

Each seat the agent is asked to bid for gets its own EPBot instance, made on its first call, with
the agent's card for the seat's side and the opponents' card (``WBridge5-Sayc`` unless told) for
the other side, IMP scoring. Each decision starts the board afresh (``new_hand``), replays the
whole auction from the dealer (``set_bid``) and asks for the call (``get_bid``), as Ben drives it,
so the agent keeps no state between calls and any mix of boards and seats is right.

Every call is checked against the view's legal calls; an illegal one (EPBot made none in 37,000
measured) is logged, counted in :attr:`EPBotAgent.illegal_calls` and replaced by a pass (the
lowest legal call where a pass is not legal), so a table never stops for it.

The agent pickles without its native instances (they are made again where it is unpickled); a
worker process builds its own agents from the spec string, as for every agent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import structlog
from bridgebot.engine.agent import Agent, BiddingView, CardPlayer, PlayView
from bridgebot.engine.epbot_cards import ConventionCard
from bridgebot.engine.epbot_meaning import Meaning, clean
from bridgebot.engine.epbot_native import INTERPRETED, EPBotError, Native, load_library
from bridgebot.engine.explain import check_auction
from bridgebot.engine.parts import Parts
from bridgebot.laws.calls import ALL_CALLS, PASS, bid_index, legal_calls, same_call, seat_of_call
from bridgebot.laws.notation import call_text
from endplay.types import Bid, Card, Hand, Player, Vul

_log = structlog.get_logger("bridgebot.epbot")

#: The hand a seat is read with where its own is not known (PBN, spades first).
STAND_IN = "T98.T98.T987.T98"

#: EPBot's vulnerability number: E/W + 2 * N/S.
_VUL = {Vul.none: 0, Vul.ew: 1, Vul.ns: 2, Vul.both: 3}


def epbot_call(call: Bid) -> int:
    """EPBot's id of ``call``: 0 pass, 1 double, 2 redouble, 5 + 5 * (level - 1) + strain."""
    index = bid_index(call)
    return index if index < 3 else index + 2


def from_epbot(call: int) -> Bid | None:
    """The call of an EPBot id; None for a number that is no call."""
    index = call if call < 3 else call - 2
    return ALL_CALLS[index] if 0 <= call < 40 and call not in (3, 4) else None


def epbot_card(text: str) -> Card | None:
    """The card EPBot writes (``TS``, rank then suit, in BBA's samples; either order is read),
    or None where ``text`` holds no one card."""
    ranks = [c for c in text.upper() if c in "AKQJT98765432"]
    suits = [c for c in text.upper() if c in "CDHS"]
    return Card(suits[0] + ranks[0]) if len(ranks) == 1 and len(suits) == 1 else None


def epbot_hand(hand: Hand) -> str:
    """The hand as EPBot reads it: the ranks of clubs, diamonds, hearts, spades on four lines."""
    return "\n".join(reversed(hand.to_pbn().split(".")))


class EPBotAgent(Agent):
    """Bids with EPBot playing ``card`` (its opponents assumed to play ``opponents``); plays with
    ``player``. ``illegal_calls`` and ``calls`` count over the agent's lifetime."""

    def __init__(
        self,
        folder: Path,
        card: ConventionCard,
        opponents: ConventionCard,
        player: CardPlayer,
        name: str,
    ) -> None:
        self.folder = folder
        self.card = card
        self.opponents = opponents
        self.player = player
        self.name = name
        self.calls = 0
        self.illegal_calls = 0
        self._seats: dict[int, Native] = {}
        load_library(folder)  # a folder whose library will not load fails here, not mid-board

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_seats"] = {}
        return state

    def _native(self, seat: int) -> Native:
        native = self._seats.get(seat)
        if native is None:
            native = Native(load_library(self.folder))
            ours, theirs = seat % 2, 1 - seat % 2
            for side, card in ((ours, self.card), (theirs, self.opponents)):
                native.set_system(side, card.system)
                for key, on in card.conventions:
                    native.set_convention(side, key, on)
            native.set_scoring(imps=True)
            self._seats[seat] = native
        return native

    def _replay(self, view: BiddingView, upto: int | None = None) -> Native:
        """The seat's instance with the board started and ``view.auction[:upto]`` told."""
        native = self._native(view.seat.value)
        native.new_hand(view.seat.value, epbot_hand(view.hand), view.dealer.value, _VUL[view.vul])
        for i, call in enumerate(view.auction[:upto]):
            native.set_bid((view.dealer.value + i) % 4, epbot_call(call))
        return native

    def reset(self, board: int) -> None:
        self.player.reset(board)

    def bid(self, view: BiddingView) -> Bid:
        self.calls += 1
        answer = self._replay(view).get_bid()
        call = from_epbot(answer)
        if call is not None and any(same_call(call, legal) for legal in view.legal):
            return call
        self.illegal_calls += 1
        fallback = next((c for c in view.legal if same_call(c, PASS)), view.legal[0])
        _log.warning(
            "epbot_illegal_call",
            agent=self.name,
            board=view.board,
            seat=view.seat.name,
            auction=" ".join(map(str, view.auction)),
            call=answer,
            instead=str(fallback),
        )
        return fallback

    def meaning(self, view: BiddingView, call: Bid) -> Meaning:
        """EPBot's reading of ``call`` made by ``view.seat`` after ``view.auction``."""
        native = self._replay(view)
        native.interpret(epbot_call(call))
        return _read(native, INTERPRETED, call)

    def alert_for(self, view: BiddingView, call: Bid) -> str | None:
        """The ``Alert.`` text of our artificial ``call`` (:attr:`Meaning.artificial`), in the
        protocol's vocabulary; None for a natural call."""
        meaning = self.meaning(view, call)
        return meaning.alert_text() if meaning.artificial else None

    def explain(self, view: BiddingView, call: Bid) -> str | None:
        """EPBot's meaning of any ``call`` made next (``transfer: 0-25 HCP, 5+ hearts``); None
        where it says nothing."""
        return self.meaning(view, call).text() or None

    def parts(self) -> Parts:
        """No policy and no layers; the agent reads its own calls (:mod:`engine.parts`)."""
        return Parts(reader=self)

    def texts(
        self,
        dealer: Player,
        vul: Vul,
        auction: Sequence[Bid],
        seats: Sequence[Player],
        hands: Mapping[Player, Hand] | None = None,
    ) -> list[str | None]:
        """EPBot's meaning of each call of ``auction`` made by ``seats`` (a
        :class:`engine.parts.CallReader`); a seat whose hand is not given is read with a
        stand-in hand (the meaning of a call does not depend on the reader's own cards)."""
        check_auction(dealer, auction)
        out: list[str | None] = [None] * len(auction)
        for i, call in enumerate(auction):
            seat = seat_of_call(dealer, i)
            if seat not in seats:
                continue
            hand = (hands or {}).get(seat) or Hand(STAND_IN)
            view = BiddingView(
                seat, dealer, vul, hand, tuple(auction[:i]), 0, legal_calls(dealer, auction[:i])
            )
            text = self.explain(view, call)
            out[i] = None if text is None else f"{call_text(call)}: {text}"
        return out

    def explain_auction(self, view: BiddingView) -> list[str | None]:
        """EPBot's meaning of each call already in ``view.auction``, whoever made it (read with
        the card EPBot assumes for that seat's side)."""
        out: list[str | None] = []
        for i, call in enumerate(view.auction):
            native = self._replay(view, upto=i + 1)
            out.append(_read(native, (view.dealer.value + i) % 4, call).text() or None)
        return out

    def play(self, view: PlayView) -> Card:
        return self.player.play(view)

    def lead(self, view: PlayView, bcalconsole: str) -> Card:
        """EPBot's opening lead for ``view`` (the opening leader's, before any card), its card
        play running BCalcConsole at ``bcalconsole``. :class:`EPBotError` where EPBot gives no
        lead, or one that is not a legal card of the view."""
        native = self._native(view.seat.value)
        native.set_bcalconsole(bcalconsole)
        native.new_hand(view.seat.value, epbot_hand(view.hand), view.dealer.value, _VUL[view.vul])
        for i, call in enumerate(view.auction):
            native.set_bid((view.dealer.value + i) % 4, epbot_call(call))
        text = native.lead()
        card = epbot_card(text)
        if card is None or card not in view.legal:
            raise EPBotError(f"EPBot led {text!r}, not a legal card of {view.seat.name}")
        return card

    def close(self) -> None:
        try:
            self.player.close()
        finally:
            for native in self._seats.values():
                native.close()
            self._seats.clear()


def _read(native: Native, position: int, call: Bid) -> Meaning:
    """What ``native`` says of ``call``, the last call at ``position`` (a seat, or
    :data:`INTERPRETED`)."""
    least, most = native.min_length(position), native.max_length(position)
    return Meaning(
        epbot_call(call),
        clean(native.meaning(position)),
        native.alerting(position),
        native.hcp(position),
        (least[0], least[1], least[2], least[3]),
        (most[0], most[1], most[2], most[3]),
    )
