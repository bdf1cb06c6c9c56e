"""``bridgebot play``: the time from a person's click to the next decision on the page.

The README's figures for the person's page ("Play against the bot") come from here. The real
command runs (``python -m bridgebot play --no-browser``, two TCP rooms, the bots in their own
seat processes' tasks); a scripted person plays it over the page's API as the page does: it
reads ``api/state``, passes every call, plays its first legal card (dummy's too when it
declares) and moves on after each board. One action's time runs from the moment its request is
sent to the moment ``api/state`` next shows a decision (``your-call``, ``your-card``,
``dummy-card``, ``board-done``, ``session-done``): every bot call or card in between, the table
managers' relays, and the page's next question. The page is polled every 5 ms, so a figure is
late by 5 ms at most. Printed: the median, the 90th percentile and the longest, by kind of
action (a card, a call), with their counts.

    python benchmarks/bench_play.py --agent default --boards 3
    python benchmarks/bench_play.py --agent default,play=baseline --boards 4
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout

from bridgebot.options import benchmark_args  # noqa: E402

#: The page's states that wait on the person (docs/web.md, "Hooks for tests and scripts").
DECISIONS = ("your-call", "your-card", "dummy-card", "board-done", "session-done")


def _state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "api/state", timeout=30) as r:
        return dict(json.load(r))


def _post(url: str, what: str, body: object) -> None:
    request = urllib.request.Request(
        url + f"api/{what}",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30):
        pass


def _decision(url: str, deadline: float) -> dict[str, Any]:
    while time.monotonic() < deadline:
        view = _state(url)
        if view["state"] in DECISIONS:
            return view
        time.sleep(0.005)
    raise SystemExit("bench_play: the page asked nothing before the deadline")


def play_session(url: str, seconds: float) -> dict[str, list[float]]:
    """Play the session at ``url`` to its end; each action's seconds, by kind."""
    times: dict[str, list[float]] = {"call": [], "card": [], "next": []}
    deadline = time.monotonic() + seconds
    view = _decision(url, deadline)
    while view["state"] != "session-done":
        state = view["state"]
        if state == "your-call":
            kind, body = "call", {"call": "Pass"}
        elif state == "board-done":
            kind, body = "next", {}
        else:
            kind, body = "card", {"card": view["table"]["legalCards"][0]}
        start = time.perf_counter()
        _post(url, kind, body)
        view = _decision(url, deadline)
        times[kind].append(time.perf_counter() - start)
    return times


def _figures(seconds: list[float]) -> str:
    if not seconds:
        return "none"
    ordered = sorted(seconds)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return (
        f"{len(ordered)}, median {statistics.median(ordered) * 1000:.0f} ms, 90% within "
        f"{p90 * 1000:.0f} ms, longest {ordered[-1] * 1000:.0f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="default", help="the bots' agent (default %(default)s)")
    ap.add_argument("--boards", type=int, default=3, metavar="N", help="boards (default 3)")
    ap.add_argument("--seed", type=int, default=1, help="the deal stream (default 1)")
    ap.add_argument("--seat", default="South", help="the person's seat (default South)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds for the whole session")
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = benchmark_args(ap, "bench_play")
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bridgebot", "play", "--no-browser", "--web-port", "0",
             "--agent", args.agent, "--boards", str(args.boards), "--seed", str(args.seed),
             "--seat", args.seat, "--out", str(Path(tmp) / "out")],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
        )  # fmt: skip
        try:
            first = (proc.stdout.readline() if proc.stdout else "").split()
            if first[:1] != ["open"]:
                raise SystemExit(f"bench_play: bridgebot play said {' '.join(first)!r}")
            times = play_session(first[1], args.timeout)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
    boards = f"{args.boards} board{'s' if args.boards != 1 else ''}"
    print(f"bridgebot play --agent {args.agent}, {boards} (seed {args.seed}):")
    print(f"  cards: {_figures(times['card'])}")
    print(f"  calls: {_figures(times['call'])}")
    print(f"  next board: {_figures(times['next'])}")
    if args.json:
        Path(args.json).write_text(json.dumps({"agent": args.agent, **times}, indent=1))


if __name__ == "__main__":
    main()
