"""Limits that keep strangers' programs from hurting the table manager or each other.

A table manager is a server that anyone who can reach its port may connect to, and Blue Chip has
no authentication. The defaults therefore keep strangers out and bound every resource a peer can
make us hold; every limit is a field of :class:`Limits` and a ``bridgebot tm`` option.

============================  =========  ================================================
limit                         default    what happens when a peer goes past it
============================  =========  ================================================
``max_connections``           4 a table  one line ``Error: too many connections``, closed
                              + 16
``handshake_timeout``         30 s       a connection that owes a line of the seating
                                         handshake for this long (``Connecting`` from its
                                         connection, ``ready for teams`` from its seated
                                         line, ``ready to start`` from its Teams line;
                                         waiting for other seats does not count) is told
                                         why and closed (before the Teams line its seat is
                                         freed, after it held for its team)
``allow_teams``               anyone     ``Error: team '<name>' is not allowed here``
``allow_addresses``           anyone     ``Error: address <ip> is not allowed here``
``max_write_buffer``          1 MiB      bytes queued for a seat that does not read what we
                                         send; past it the seat is dropped (held for its
                                         team, as after any disconnection)
``close_timeout``             5 s        how long closing a socket may wait for a peer
                                         that does not read
``reconnect_timeout``         for ever   how long a board waits for a lost seat to come
                                         back; then the board is abandoned (journaled as
                                         aborted, with the reason), and if the seat is
                                         still away before the next board, the table's
                                         session ends cleanly (``End of session`` to the
                                         seats that are there)
============================  =========  ================================================

Line length and junk-line caps are per table (:class:`server.tm.TableOptions` ``max_line`` and
``max_junk``); binding to 127.0.0.1 unless told otherwise is :class:`server.tm.TableManager`'s
default. Timeouts are policy, kept out of the sans-IO machine.
"""

from __future__ import annotations

import argparse
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Limits:
    """Every limit the table manager applies to its connections (see the module table)."""

    max_connections: int | None = None  # None: four per table plus 16 spare
    handshake_timeout: float | None = 30.0
    allow_teams: frozenset[str] | None = None
    allow_addresses: tuple[Network, ...] | None = None
    max_write_buffer: int = 1 << 20
    close_timeout: float = 5.0
    reconnect_timeout: float | None = None

    def __post_init__(self) -> None:
        if self.max_connections is not None and self.max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, got {self.max_connections}")
        if self.max_write_buffer < 1024:
            raise ValueError(f"max_write_buffer must be at least 1024, got {self.max_write_buffer}")
        for name in ("handshake_timeout", "reconnect_timeout", "close_timeout"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")


#: The defaults of the table above (also the table manager's defaults).
DEFAULT_LIMITS = Limits()


def parse_networks(specs: Iterable[str]) -> tuple[Network, ...]:
    """``127.0.0.1``, ``10.0.0.0/8``, ``::1`` -> networks; a bad one raises ``ValueError`` naming
    it."""
    nets: list[Network] = []
    for spec in specs:
        try:
            nets.append(ipaddress.ip_network(spec.strip(), strict=False))
        except ValueError as exc:
            raise ValueError(f"not an address or network: {spec!r} ({exc})") from None
    return tuple(nets)


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        addr = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped  # ::ffff:127.0.0.1 from a dual-stack socket
    return addr


class ConnectionGuard:
    """Admission control shared by every port of one table manager.

    ``admit`` is called for each accepted socket and, if it returns None, ``release`` exactly once
    when that socket is done. ``check_team`` is called with the team of a ``Connecting`` line.
    Each refusal is the error line to send, naming what was refused, so the peer's operator can
    tell why.
    """

    def __init__(self, limits: Limits, seats: int = 4) -> None:
        self.limits = limits
        self.max_connections = (
            limits.max_connections if limits.max_connections is not None else seats + 16
        )
        self.open = 0
        self.refused = 0

    def admit(self, host: str) -> str | None:
        allowed = self.limits.allow_addresses
        if allowed is not None:
            addr = _address(host)
            if addr is None or not any(addr in net for net in allowed):
                self.refused += 1
                return f"Error: address {host} is not allowed here"
        if self.open >= self.max_connections:
            self.refused += 1
            return f"Error: too many connections ({self.max_connections}); try later"
        self.open += 1
        return None

    def release(self) -> None:
        self.open = max(0, self.open - 1)

    def check_team(self, team: str) -> str | None:
        allowed = self.limits.allow_teams
        if allowed is not None and team not in allowed:
            self.refused += 1
            return f"Error: team '{team}' is not allowed here"
        return None


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``bridgebot tm`` options for :class:`Limits` (defaults from :data:`DEFAULT_LIMITS`)."""
    d = DEFAULT_LIMITS
    g = parser.add_argument_group("limits for strangers' connections (server/guard.py)")
    g.add_argument("--max-connections", type=int, default=d.max_connections, metavar="N",
                   help="open connections at once, all tables (default: 4 per table + 16)")  # fmt: skip
    g.add_argument("--handshake-timeout", type=float, default=d.handshake_timeout,
                   metavar="SECONDS", help="a connection may owe a line of the seating "
                   "handshake for this long (default %(default)s)")  # fmt: skip
    g.add_argument("--max-write-buffer", type=int, default=d.max_write_buffer, metavar="BYTES",
                   help="drop a seat that leaves this much of our output unread "
                   "(default %(default)s)")  # fmt: skip
    g.add_argument("--close-timeout", type=float, default=d.close_timeout, metavar="SECONDS",
                   help="how long closing a connection waits for a peer that does not read "
                   "(default %(default)s)")  # fmt: skip
    g.add_argument("--allow-team", action="append", metavar="NAME",
                   help="accept only these team names (repeat; default: any)")  # fmt: skip
    g.add_argument("--allow-address", action="append", metavar="NET",
                   help="accept connections only from these addresses or networks, e.g. "
                   "127.0.0.1 or 10.0.0.0/8 (repeat; default: any)")  # fmt: skip


def limits_from_args(args: argparse.Namespace) -> Limits:
    """:class:`Limits` from the options of :func:`add_limit_arguments`; ``ValueError`` names a bad
    one."""
    return Limits(
        max_connections=args.max_connections,
        handshake_timeout=args.handshake_timeout,
        reconnect_timeout=args.reconnect_timeout,
        max_write_buffer=args.max_write_buffer,
        close_timeout=args.close_timeout,
        allow_teams=frozenset(args.allow_team) if args.allow_team else None,
        allow_addresses=parse_networks(args.allow_address) if args.allow_address else None,
    )
