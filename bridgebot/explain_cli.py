"""``bridgebot explain``: what each call of an auction says about the caller's hand, learned from
the policy (``engine.explain``), one line per call, headline HCP range first.

The command must answer in under a second (``benchmarks/bench_explain.py``), so it defers the
import of matplotlib that ``endplay`` makes and never uses (:func:`defer_matplotlib`): a plain
import costs 0.4 s of CPU, most of the command's start-up."""

from __future__ import annotations

import argparse
import importlib
import sys
import types
from typing import Any

from bridgebot.core.argtypes import seed_number

HELP = "explain each call of an auction as our policy means it (HCP range, suit lengths)"
EXAMPLES = """\
examples:
  bridgebot explain "1NT Pass 2C"
  bridgebot explain "Pass 1H X 2H" --dealer E --vul ns
  bridgebot explain "1S Pass 3S Pass 4NT"   (an ask: partner's answers by the aces they show)
  bridgebot explain "1S Pass 2S" --agent policy:runs/sp --hands 65536   (more hands, surer)

Each line: the call, its headline HCP range (95% of the hands the policy makes it with), the
narrowest range holding three quarters of them with their share, the suit lengths at least 90%
hold, then the sample size and a confidence. The caller's hands are sampled: deal random hands,
keep those with which the policy makes this seat's calls of the auction. A 4NT or 5NT whose
answers tell partner's aces is an ask: its line says what each answer shows first, and the
answer's line what it shows.
"""

_VULS = {"none": "none", "ns": "ns", "ew": "ew", "both": "both", "all": "both", "-": "none"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("auction", help='the calls from the dealer\'s on, e.g. "1NT Pass 2C"')
    parser.add_argument(
        "--dealer", default="N", help="North, East, South, West or N, E, S, W (default N)"
    )
    parser.add_argument(
        "--vul", default="none", type=str.lower, help="none, ns, ew or both (default none)"
    )
    parser.add_argument(
        "--agent",
        default="default",
        help="whose calls: default, policy:DIR or search[:DIR] (their policy; where it plays "
        "control asking, the convention's calls by the convention) (default %(default)s)",
    )
    parser.add_argument(
        "--hands",
        type=int,
        default=16384,
        help="most hands sampled per seat (the work budget, default %(default)s)",
    )
    parser.add_argument("--seed", type=seed_number, default=0, help="sampling seed (default 0)")


def parse_auction(text: str) -> list[object]:
    """Calls from text (``1NT Pass 2C``, ``p``, ``x``, ``xx``, ``1N``); ``ValueError`` names the
    token that is not a call, or says there is none."""
    from bridgebot.laws.notation import NotationError, parse_call

    calls: list[object] = []
    for i, token in enumerate(text.replace(",", " ").split()):
        t = token.upper().rstrip("!")
        t = {"P": "Pass", "PASS": "Pass", "D": "X", "R": "XX"}.get(t, t)
        if t.endswith("N") and not t.endswith("NT"):
            t += "T"
        try:
            calls.append(parse_call(t))
        except NotationError:
            raise ValueError(
                f"call {i + 1} {token!r} is not a call (1C..7NT, Pass, X, XX)"
            ) from None
    if not calls:
        raise ValueError(f'{text!r} holds no call: give the auction, e.g. "1NT Pass 2C"')
    return calls


class _Deferred(types.ModuleType):
    """A module imported for real on its first use (see :func:`defer_matplotlib`)."""

    def __getattr__(self, attr: str) -> Any:
        sub = sys.modules.get(f"{self.__name__}.{attr}")
        if isinstance(sub, _Deferred):  # ``import matplotlib.pyplot`` asks the parent for it
            return sub
        _import_deferred()
        return getattr(importlib.import_module(self.__name__), attr)


def _import_deferred() -> None:
    """Import every deferred module for real (parents first) and fill the stand-ins in."""
    deferred = {n: m for n, m in sys.modules.items() if isinstance(m, _Deferred)}
    for name in deferred:
        del sys.modules[name]
    for name, stand_in in sorted(deferred.items()):
        stand_in.__dict__.update(importlib.import_module(name).__dict__)


def defer_matplotlib() -> None:
    """Put off importing matplotlib until something uses it.

    Why: importing ``endplay`` imports ``matplotlib.pyplot`` (for an HTML output of its dealer
    scripts that we never use), about 0.5 s of CPU, more than the explaining costs; the command
    must answer in under a second. Only in a fresh process (nothing of endplay imported yet); any
    real use of matplotlib still imports it then.
    """
    if "endplay" in sys.modules or "matplotlib" in sys.modules:
        return
    for name in ("matplotlib", "matplotlib.pyplot"):
        sys.modules[name] = _Deferred(name)


def run(args: argparse.Namespace) -> int:
    defer_matplotlib()
    from endplay.types import Player, Vul

    from bridgebot.agents import make_agent
    from bridgebot.engine.agent import AgentSpecError
    from bridgebot.engine.explain import reader_of
    from bridgebot.laws.notation import parse_seat

    try:
        if args.vul not in _VULS:
            raise ValueError(f"--vul {args.vul!r}: one of none, ns, ew, both")
        if args.hands < 1024:
            raise ValueError(f"--hands {args.hands}: at least 1024")
        calls = parse_auction(args.auction)
        try:
            dealer = parse_seat(args.dealer)
        except ValueError as exc:
            raise ValueError(f"--dealer: {exc}") from None
        vul = Vul.find(_VULS[args.vul])
        with make_agent(args.agent, args.seed) as agent:
            reader = reader_of(agent, max_hands=args.hands, target=300, seed=args.seed)
            if reader is None:
                raise ValueError(
                    f"agent {args.agent}: it says nothing about its calls; explanations need a "
                    "learned policy (default, policy:DIR, search) or an outside bidder (epbot:CARD)"
                )
            texts = reader.texts(dealer, vul, calls, list(Player))  # type: ignore[arg-type]
    except AgentSpecError as exc:
        print(f"bridgebot explain: --agent {args.agent!r}: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"bridgebot explain: {exc}", file=sys.stderr)
        return 2
    for call, text in zip(calls, texts, strict=True):
        print(text or f"{call}: no explanation")
    return 0
