"""Every wire string of the protocol, written once.

The codec renders with these templates and parses with the patterns built next to them; tests
import the same constants, so a typo cannot hide in one place. An example session (one seat's view,
``>`` client to table manager, ``<`` table manager to client)::

    > Connecting "Bots" as North using protocol version 18      CONNECT
    < North ("Bots") seated                                      SEATED_PAREN
    > North ready for teams                                      READY_FOR_TEAMS
    < Teams : N/S : "Bots" E/W : "Others"                        TEAMS_CANONICAL
    > North ready to start                                       READY_TO_START
    < Start of board                                             START_OF_BOARD
    > North ready for deal                                       READY_FOR_DEAL
    < Board number 1. Dealer North. Neither vulnerable.          BOARD
    > North ready for cards                                      READY_FOR_CARDS
    < North's cards : S A T 4 3. H T 8 5 3. D K T. C K T 6.      CARDS
    > North passes                                               CALL_PASS
    > North ready for East's bid                                 READY_FOR_BID
    < East bids 1NT Alert. 15 to 17 total points.                CALL_BID + ALERT_SUFFIX
    > North ready for East's card to trick 1                     READY_FOR_CARD
    < East to lead / Dummy to lead                               TO_LEAD / DUMMY_TO_LEAD
    < East plays QH                                              PLAY
    > North ready for dummy                                      READY_FOR_DUMMY
    < Dummy's cards : S J 7. H Q 7 6. D Q 8 5. C Q J 8 7 3.     DUMMY_CARDS
    > North ready for dummy's card to trick 2                    READY_FOR_DUMMYS_CARD
    < Timing - N/S : this board  00:14,  total  0:00:14.  E/W : this board  00:08,  total  0:00:08.
    < End of session                                             END_OF_SESSION
"""

from __future__ import annotations

from endplay.types import Denom, Player, Rank, Vul

# ----------------------------------------------------------------- vocabulary

SEAT_NAMES: dict[Player, str] = {
    Player.north: "North",
    Player.east: "East",
    Player.south: "South",
    Player.west: "West",
}
#: The longest team name a table accepts at ``Connecting``. The Teams line carries two names plus
#: about 40 characters, so with this bound every line the table sends stays far below the
#: 4,096-byte line limit that both our table manager and our seat client enforce (issue 16).
MAX_TEAM_NAME = 64
ANY_SEAT = "ANYPL"  # WBridge5 Autoconnect: "any player"
DUMMY = "Dummy"
DUMMYS = "dummy's"

#: Suit letters in the canonical hand order S H D C (endplay's Denom order too).
SUIT_LETTERS: dict[Denom, str] = {
    Denom.spades: "S",
    Denom.hearts: "H",
    Denom.diamonds: "D",
    Denom.clubs: "C",
}
STRAIN_TEXT: dict[Denom, str] = {**SUIT_LETTERS, Denom.nt: "NT"}
RANK_LETTERS: dict[Rank, str] = {r: r.abbr for r in Rank}  # A K Q J T 9 ... 2

VUL_TEXT: dict[Vul, str] = {
    Vul.none: "Neither",
    Vul.ns: "N/S",
    Vul.ew: "E/W",
    Vul.both: "Both",
}
SCORINGS = ("IMP", "MP")
ROOMS = ("Open", "Closed")

# ----------------------------------------------------------------- client -> table manager

CONNECT = 'Connecting "{team}" as {seat} using protocol version {version}'
READY_FOR_TEAMS = "{seat} ready for teams"
READY_TO_START = "{seat} ready to start"
READY_FOR_DEAL = "{seat} ready for deal"
READY_FOR_CARDS = "{seat} ready for cards"
READY_FOR_BID = "{seat} ready for {bidder}'s bid"
READY_FOR_CARD = "{seat} ready for {player}'s card to trick {trick}"
READY_FOR_DUMMYS_CARD = "{seat} ready for dummy's card to trick {trick}"
READY_FOR_DUMMY = "{seat} ready for dummy"
RECEIVED_DUMMY = "{seat} received dummy"

# ----------------------------------------------------------------- both directions

CALL_PASS = "{seat} passes"
CALL_DOUBLE = "{seat} doubles"
CALL_REDOUBLE = "{seat} redoubles"
CALL_BID = "{seat} bids {bid}"
ALERT_SUFFIX = " Alert. {text}"  # bare: " Alert."
ALERT_BARE = " Alert."
INFO_SUFFIX = " Infos. {text}"
INFO_BARE = " Infos."
PLAY = "{seat} plays {card}"
DUMMY_PLAYS = "Dummy plays {card}"
PLAY_NOTE_SUFFIX = ". {note}"

# ----------------------------------------------------------------- table manager -> client

SEATED_PAREN = '{seat} ("{team}") seated'
SEATED_QUOTED = '{seat} "{team}" seated'
SEATED_BARE = "{seat} {team} seated"
TEAMS_CANONICAL = 'Teams : N/S : "{ns}" E/W : "{ew}"'
TEAMS_SPEC = 'Teams : N/S : "{ns}". E/W : "{ew}"'
TEAMS_COLONLESS = 'Teams: N/S "{ns}" E/W "{ew}"'
PLAYING_SUFFIX = ". Playing {scoring}"
START_OF_BOARD = "Start of board"
BOARD = "Board number {number}. Dealer {dealer}. {vul} vulnerable"
ROOM_SUFFIX = " {room} room."
CARDS = "{seat}'s cards : {hand}"
DUMMY_CARDS = "Dummy's cards : {hand}"
TO_LEAD = "{seat} to lead"
DUMMY_TO_LEAD = "Dummy to lead"
TIMING = (
    "Timing - N/S : this board  {ns_board},  total  {ns_total}.  "
    "E/W : this board  {ew_board},  total  {ew_total}"
)
END_OF_SESSION = "End of session"
ILLEGAL_BID = "Illegal bid"
ILLEGAL_CARD = "Illegal card"
