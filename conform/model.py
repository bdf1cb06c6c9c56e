"""One board as the kit follows it: who calls, who plays, what is legal.

The kit's own bookkeeping of docs/protocol.md 2.3 and 2.4 (the turn order, the controller of a
card, trick numbers, the opening leader), with the laws of bridge taken from
:mod:`bridgebot.laws` (legal calls, the final contract, the winner of a trick). It knows only
the hands it has seen: all four when the kit plays every seat, its own otherwise; for the
others it still catches a card played twice, a card seen in another hand, and a revoke once a
seat has shown out of a suit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridgebot.conform.wire import RANKS, SEATS, SUITS, seat_at
from bridgebot.laws.calls import auction_over, final_contract, is_legal_call, passed_out
from bridgebot.laws.play import legal_cards, trick_winner
from endplay.types import Bid, Card, Denom, Hand, Player


def _bid(call: str) -> Bid:
    return Bid("P" if call == "P" else call)


def _card(card: str) -> Card:
    return Card(card[1] + card[0])


def _player(seat: str) -> Player:
    return Player(SEATS.index(seat))


@dataclass
class BoardModel:
    number: int
    dealer: str
    vul: str
    hands: dict[str, frozenset[str]] = field(default_factory=dict)
    """The hands dealt, as far as known."""
    calls: list[tuple[str, str]] = field(default_factory=list)
    cards: list[tuple[str, str]] = field(default_factory=list)
    """(holder, card) in the order played."""
    declarer: str = ""
    dummy: str = ""
    strain: str = ""
    void: dict[str, set[str]] = field(default_factory=dict)
    tricks: dict[str, int] = field(default_factory=lambda: {"NS": 0, "EW": 0})
    dummy_led: int = 0
    """Tricks dummy led (after winning the one before)."""
    _leader: str = ""

    # ------------------------------------------------------------------ auction

    @property
    def auction(self) -> list[Bid]:
        return [_bid(c) for _, c in self.calls]

    def next_bidder(self) -> str:
        return seat_at(self.dealer, len(self.calls))

    def auction_done(self) -> bool:
        return auction_over(self.auction)

    def passed_out(self) -> bool:
        return passed_out(self.auction)

    def call_legal(self, call: str) -> bool:
        return not self.auction_done() and is_legal_call(
            _player(self.dealer), self.auction, _bid(call)
        )

    def add_call(self, call: str) -> None:
        self.calls.append((self.next_bidder(), call))
        if self.auction_done() and not self.passed_out():
            contract = final_contract(_player(self.dealer), self.auction)
            assert contract is not None
            self.declarer = SEATS[contract.declarer.value]
            self.dummy = seat_at(self.declarer, 2)
            self.strain = "SHDCN"[contract.denom.value]
            self._leader = seat_at(self.declarer, 1)

    # ------------------------------------------------------------------ play

    @property
    def in_play(self) -> bool:
        return bool(self.declarer) and len(self.cards) < 52

    def done(self) -> bool:
        return self.passed_out() or len(self.cards) == 52

    def trick_no(self, index: int | None = None) -> int:
        """Trick (1-13) of card ``index`` (default: the next card)."""
        return (len(self.cards) if index is None else index) // 4 + 1

    def next_player(self) -> str:
        return seat_at(self._leader, len(self.cards) % 4)

    def controller(self, player: str | None = None) -> str:
        p = self.next_player() if player is None else player
        return self.declarer if p == self.dummy else p

    def trick_start(self) -> bool:
        return len(self.cards) % 4 == 0

    def current_trick(self) -> list[str]:
        start = len(self.cards) - len(self.cards) % 4
        return [c for _, c in self.cards[start:]]

    def remaining(self, seat: str) -> frozenset[str] | None:
        hand = self.hands.get(seat)
        if hand is None:
            return None
        return hand - {c for s, c in self.cards if s == seat}

    def card_problem(self, seat: str, card: str) -> str | None:
        """Why ``seat`` may not play ``card`` now (None: legal as far as known)."""
        if any(c == card for _, c in self.cards):
            return f"{card} was played already"
        for other, hand in self.hands.items():
            if other != seat and card in hand:
                return f"{card} is in {other}'s hand"
        trick = self.current_trick()
        held = self.remaining(seat)
        if held is not None:
            if card not in held:
                return f"{seat} does not hold {card}"
            legal = legal_cards(
                Hand(".".join("".join(r for r in RANKS if r + s in held) for s in "SHDC")),
                [_card(c) for c in trick],
            )
            if _card(card) not in legal:
                return f"{card} revokes: {seat} holds {trick[0][1]}"
        if card[1] in self.void.get(seat, set()):  # an unknown hand that showed out earlier
            return f"{seat} showed out of {card[1]} earlier, so one of its cards revoked"
        return None

    def add_card(self, card: str) -> None:
        seat = self.next_player()
        trick = self.current_trick()
        if trick and card[1] != trick[0][1]:
            self.void.setdefault(seat, set()).add(trick[0][1])
        self.cards.append((seat, card))
        if len(self.cards) % 4 == 0:
            trump = {
                "S": Denom.spades,
                "H": Denom.hearts,
                "D": Denom.diamonds,
                "C": Denom.clubs,
                "N": Denom.nt,
            }[self.strain]
            winner = SEATS[
                trick_winner(
                    _player(self._leader), [_card(c) for c in self.current_trick_of_last()], trump
                ).value
            ]
            self.tricks["NS" if winner in ("North", "South") else "EW"] += 1
            self._leader = winner
            if winner == self.dummy and len(self.cards) < 52:
                self.dummy_led += 1

    def kit_card(self, player: str) -> str:
        """The card the kit's scripted side plays for ``player``: dummy's highest legal card
        (so dummy wins tricks and leads), anyone else's lowest. Cards of one rank are ordered
        by suit (spades first), so the choice depends on the position alone, never on the
        order a set of cards happens to iterate in: a ``--seed`` replays the same play."""
        held = self.remaining(player)
        assert held is not None, f"{player}'s hand is unknown"
        legal = sorted(
            (c for c in held if self.card_problem(player, c) is None),
            key=lambda c: (RANKS.index(c[0]), SUITS.index(c[1])),
        )
        return legal[0] if player == self.dummy else legal[-1]

    def current_trick_of_last(self) -> list[str]:
        return [c for _, c in self.cards[-4:]]
