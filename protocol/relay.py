"""The play of one board at the table, and its relay to the four seats (``protocol.table``
rules 5-8).

:class:`CardPlay` is made when an auction ends in a contract and dropped with its board. It knows
whose card is due, which cards each seat has said it is ready for and which it has been sent, and
when each seat gets ``<Seat> to lead`` and ``Dummy's cards``. Its cursors count cards: card ``k``
(0-based) of the play is the ``k % 4 + 1``-th card of trick ``k // 4 + 1``.
"""

from __future__ import annotations

from collections.abc import Callable

from bridgebot.laws.play import legal_cards, trick_winner
from bridgebot.protocol.errors import LocalProtocolError, RemoteProtocolError
from bridgebot.protocol.messages import DummyCards, Message, PlayMsg, ReadyForCard, ToLead
from endplay.types import Card, Contract, Deal, Player

SEATS: tuple[Player, ...] = (Player.north, Player.east, Player.south, Player.west)
Out = tuple[Player, Message]


class RepeatedReady(Exception):
    """A ready line for a card its seat has already said it is ready for. Not an error: the
    machine drops it and counts it (``protocol.table`` rule 2). Raised, not returned, because a
    handler's bool already means taken or waiting."""


def side(p: Player) -> int:
    """0 for North/South, 1 for East/West."""
    return p.value % 2


def name(p: Player) -> str:
    return p.name.capitalize()


class ThinkingTime:
    """Rule 8: the clock is read when a call or card falls due and when a legal one arrives; the
    difference goes to the side that made it."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._due_since: float | None = None
        self.seconds = [0.0, 0.0]
        """Per side (:func:`side`): N/S, E/W."""

    def start(self) -> None:
        self._due_since = self._clock()

    def stop(self, seat: Player) -> None:
        if self._due_since is None:
            return
        self.seconds[side(seat)] += max(0.0, self._clock() - self._due_since)
        self._due_since = None


class CardPlay:
    """One board's play as the table manager runs it (rules 5-7)."""

    def __init__(self, deal: Deal, contract: Contract, time: ThinkingTime) -> None:
        self.deal = deal
        self.contract = contract
        self.time = time
        self.declarer = contract.declarer
        self.dummy = contract.declarer.partner
        self.leader = contract.declarer.lho
        """The leader of the current trick (after the 52nd card, of the last one)."""
        self.plays: list[tuple[Player, Card]] = []
        self.declarer_tricks = 0
        self._remaining = {p: deal[p].copy() for p in SEATS}
        self._ready_upto = dict.fromkeys(SEATS, 0)
        """Per seat, the card its next ready line is for (the cards before it are asked for)."""
        self._relayed_upto = dict.fromkeys(SEATS, 0)
        """Per seat, the first card not yet sent to it (or that it controls, see _skip_own)."""
        self._lead_sent = False
        self._dummy_asked: set[Player] = set()
        self._dummy_sent: set[Player] = set()

    # ------------------------------------------------------------------ whose card

    def _known(self, k: int) -> bool:
        """Whether the player of card ``k`` is known yet (played, or in the current trick)."""
        n = len(self.plays)
        return k < n or (k < 52 and k // 4 == n // 4)

    def _player_of(self, k: int) -> Player:
        """Who plays card ``k``; ``k`` must be :meth:`_known`."""
        n = len(self.plays)
        if k < n:
            return self.plays[k][0]
        if not self._known(k):
            raise LocalProtocolError(f"card {k} is not in the current trick")
        return Player((self.leader.value + k % 4) % 4)

    def controller(self, p: Player) -> Player:
        return self.declarer if p == self.dummy else p

    def _next_ready(self, seat: Player) -> int:
        """Index of the next card ``seat`` owes a ready message for (skips cards it controls)."""
        k = self._ready_upto[seat]
        while self._known(k) and self.controller(self._player_of(k)) == seat:
            k += 1
        return k  # not stored here: a refused ready message must leave the state unchanged

    def _sent_upto(self, seat: Player) -> int:
        """The first card ``seat`` has neither been sent nor controls (it is never sent those)."""
        n = len(self.plays)
        k = self._relayed_upto[seat]
        while k < n and self.controller(self.plays[k][0]) == seat:
            k += 1
        return k

    @property
    def done(self) -> bool:
        """All 52 cards are played and every seat has been sent every card (a late seat's ready
        may still be on its way after the last card)."""
        return len(self.plays) == 52 and all(self._sent_upto(s) == 52 for s in SEATS)

    # ------------------------------------------------------------------ messages

    def on_ready_for_dummy(self, seat: Player, out: list[Out]) -> bool:
        if seat == self.dummy:
            raise RemoteProtocolError("dummy asked for dummy's cards", seat=seat)
        if seat in self._dummy_asked:
            raise RemoteProtocolError("asked for dummy twice", seat=seat)
        self._dummy_asked.add(seat)
        if not self.plays:  # bridge-player asks before the opening lead: answer after it (rule 6)
            self._maybe_send_lead(out)
            return True
        self._dummy_sent.add(seat)
        out.append((seat, DummyCards(hand=self.deal[self.dummy].copy())))
        return True

    def on_ready_for_card(self, seat: Player, msg: ReadyForCard, out: list[Out]) -> bool:
        """Take a ready line as ``seat``'s ready for the next card it is owed (rule 5).

        A card-level ready line is never matched by its text alone: the same text can ask for
        different cards (bridge-player's dummy says ``ready for dummy's card to trick 3`` before
        each card of trick 3, its own included). It is for the next card the seat is owed if it
        fits that card; otherwise, if it fits a card of the same trick the seat has already asked
        for, it is a repeat (:class:`RepeatedReady`); a line for a trick already asked for in full
        is a repeat or an error at once, never a line that waits."""
        k = self._next_ready(seat)
        due = k // 4 + 1
        if msg.trick < due or (
            msg.trick == due and self._known(k) and not self._fits(seat, msg, k)
        ):
            if any(self._fits(seat, msg, j) for j in self._asked(seat, msg.trick, k)):
                raise RepeatedReady
            if msg.trick < due:
                raise RemoteProtocolError(
                    f"ready for trick {msg.trick}, but its next card is in trick {due}", seat=seat
                )
        if not self._known(k):
            return False  # early: for a card of the next trick (or after the last card)
        self._check_ready_form(seat, msg, self._player_of(k), k)
        self._ready_upto[seat] = k + 1
        if k < len(self.plays):
            self._relay_card(seat, k, out)
        self._maybe_send_lead(out)
        return True

    def card_due(self, seat: Player, msg: PlayMsg) -> Player:
        """The player whose card is due; raise unless ``seat`` controls that card (rule 2)."""
        n = len(self.plays)
        if n >= 52:
            raise RemoteProtocolError("all 52 cards have been played", seat=seat)
        p = self._player_of(n)
        c = self.controller(p)
        if seat != c:
            raise RemoteProtocolError(
                f"{name(c)} is to play {name(p)}'s card, not {name(seat)}",
                seat=seat, line=repr(msg),
            )  # fmt: skip
        return p

    def on_card(self, seat: Player, msg: PlayMsg, out: list[Out]) -> bool | None:
        """Take ``seat``'s card: True if taken, False if it must wait for its ``to lead``, None if
        it is illegal (the board counts that against the seat)."""
        p = self.card_due(seat, msg)
        named = msg.seat if msg.seat is not None else self.dummy
        if named != p:
            raise RemoteProtocolError(
                f"a card in {name(named)}'s name when {name(p)} is to play", seat=seat
            )
        n = len(self.plays)
        if n % 4 == 0 and not self._lead_sent:
            return False  # the leader waits for "to lead"; keep the card until then
        trick = [c for _, c in self.plays[n // 4 * 4 :]]
        if msg.card not in legal_cards(self._remaining[p], trick):
            return None
        self.time.stop(seat)
        self._accept_card(p, msg.card, out)
        return True

    def _fits(self, seat: Player, msg: ReadyForCard, k: int) -> bool:
        """Whether ``msg`` from ``seat`` is a correct ready line for card ``k`` (known): its
        trick, and its player or the dummy's form (rule 5)."""
        if msg.trick != k // 4 + 1:
            return False
        p = self._player_of(k)
        if msg.player is None:
            return p == self.dummy or seat == self.dummy
        return msg.player == p

    def _asked(self, seat: Player, trick: int, upto: int) -> list[int]:
        """The cards of ``trick`` before card ``upto`` that ``seat`` has said it is ready for
        (all of them but the ones it controls)."""
        first = (trick - 1) * 4
        return [
            j
            for j in range(max(first, 0), min(first + 4, upto))
            if self.controller(self._player_of(j)) != seat
        ]

    def _check_ready_form(self, seat: Player, msg: ReadyForCard, p: Player, k: int) -> None:
        if self._fits(seat, msg, k):
            return
        trick = k // 4 + 1
        if msg.trick != trick:
            raise RemoteProtocolError(f"ready for trick {msg.trick}, but trick {trick} is in play",
                                      seat=seat)  # fmt: skip
        if msg.player is None:  # the dummy's form (rule 5)
            raise RemoteProtocolError(f"ready for dummy's card, but {name(p)} is to play",
                                      seat=seat)  # fmt: skip
        if msg.player != p:
            raise RemoteProtocolError(f"ready for {name(msg.player)}'s card, but {name(p)} "
                                      "is to play", seat=seat)  # fmt: skip

    # ------------------------------------------------------------------ the relay

    def _maybe_send_lead(self, out: list[Out]) -> None:
        """``<Seat> to lead`` to the controller once the other seats are ready (rule 6)."""
        n = len(self.plays)
        if n % 4 != 0 or self._lead_sent or n >= 52:
            return
        p = self._player_of(n)
        c = self.controller(p)
        self._skip_own(c)
        if self._relayed_upto[c] < n:
            return  # the leader has not yet been sent the last card of the previous trick
        for s in SEATS:
            if s == c or self._ready_upto[s] > n:
                continue
            if n == 0 and s in self._dummy_asked:
                continue  # bridge-player waits for dummy before this ready (rule 6)
            return
        self._lead_sent = True
        out.append((c, ToLead(seat=None if p == self.dummy else p)))
        self.time.start()

    def _accept_card(self, p: Player, card: Card, out: list[Out]) -> None:
        k = len(self.plays)
        self.plays.append((p, card))
        self._remaining[p].remove(card)
        c = self.controller(p)
        for s in SEATS:
            if s != c and self._ready_upto[s] > k:
                self._relay_card(s, k, out)
        if k == 0:  # answer the early dummy requests (rule 6)
            for s in SEATS:
                if s in self._dummy_asked and s not in self._dummy_sent:
                    self._dummy_sent.add(s)
                    out.append((s, DummyCards(hand=self.deal[self.dummy].copy())))
        if len(self.plays) % 4 == 0:
            self._end_trick(out)
        else:
            self.time.start()

    def _relay_card(self, seat: Player, k: int, out: list[Out]) -> None:
        """Rule 7: card ``k`` goes to ``seat`` once played and asked for, in order."""
        self._skip_own(seat)
        if self._relayed_upto[seat] != k:
            raise LocalProtocolError(f"relaying card {k} to {name(seat)} out of order")
        p, card = self.plays[k]
        out.append((seat, PlayMsg(seat=p, card=card)))
        self._relayed_upto[seat] = k + 1
        self._skip_own(seat)

    def _skip_own(self, seat: Player) -> None:
        self._relayed_upto[seat] = self._sent_upto(seat)

    def _end_trick(self, out: list[Out]) -> None:
        trick = [c for _, c in self.plays[-4:]]
        self.leader = trick_winner(self.plays[-4][0], trick, self.contract.denom)
        self.declarer_tricks += side(self.leader) == side(self.declarer)
        self._lead_sent = False
        self._maybe_send_lead(out)

    # ------------------------------------------------------------------ introspection

    def waiting_for(self) -> list[Player]:
        """The controller of the card due (once it may play), then the seats not yet ready."""
        n = len(self.plays)
        if n == 52:  # the last cards still go to the seats that were late to ask for them
            return [s for s in SEATS if self._next_ready(s) < 52]
        c = self.controller(self._player_of(n))
        waiting = [s for s in SEATS if s != c and self._ready_upto[s] <= n]
        if n % 4 != 0 or self._lead_sent:
            waiting.insert(0, c)
        return waiting

    def describe(self) -> str:
        n = len(self.plays)
        return "all cards played" if n == 52 else f"trick {n // 4 + 1}, card {n % 4 + 1}"
