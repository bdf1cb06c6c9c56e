"""Bidding strength, double-dummy scored, on the held-out deals (the last 2,000 of the DD file).

Team matches (each board bid in two rooms with the pairs swapped, contracts scored from the DD
table, IMPs per board) through ``tournament.ddmatch`` with the real agents:

1. our model against the ``bfg`` pair (the bar: +1.0 IMPs/board and more than 2 standard errors);
2. the imitation model against ``bfg`` (the baseline measured in the same run);
3. our model against the imitation model.

Also the imitation accuracy of each model against the teacher on held-out teacher auctions (the
last ``--teach-holdout`` deals of the teach file, which imitation training never saw). Boards run
over the whole 16-board cycle, so all dealers and vulnerabilities appear equally.

    python benchmarks/bench_bidding_strength.py --model models/default \\
        --imitation runs/imitation_onnx --teach data/teach_40k.npz --boards 2000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from bridgebot.options import benchmark_args, deal_file
from bridgebot.shipped import shipped_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from bridgebot.core.stats import mean_stderr
from bridgebot.engine.policy import Policy
from bridgebot.laws.board_sets import load_npz
from bridgebot.models.data import HOLDOUT, load_dd, load_teach, observe
from bridgebot.tournament.ddmatch import run_dd_match

from bridgebot.agents import make_agent


def teacher_accuracy(model: str, teach_path: str, holdout: int) -> dict[str, float]:
    """Share of held-out teacher calls that the model's greedy choice reproduces."""
    teach = load_teach(teach_path)
    n = len(teach)
    deal, pos = teach.decisions(np.arange(n - holdout, n, dtype=np.int64))
    policy = Policy(model)
    hits = 0
    whole = np.ones(holdout, dtype=bool)
    for i in range(0, len(deal), 8192):
        d, p = deal[i : i + 8192], pos[i : i + 8192]
        x, m = observe(teach.owners[d], teach.dealer[d], teach.vul[d], teach.auctions[d], p)
        ok = policy.choose(x, m) == teach.auctions[d, p]
        hits += int(ok.sum())
        np.logical_and.at(whole, d - (n - holdout), ok)
    return {
        "decisions": float(len(deal)),
        "accuracy": hits / len(deal),
        "whole_auction_accuracy": float(whole.mean()),
    }


def match(us: str, them: str, dd_path: str, boards: int) -> dict[str, object]:
    data = load_dd(dd_path)
    first = max(len(data) - HOLDOUT, 0)  # the held-out deals (all of a smaller file)
    deals = load_npz(Path(dd_path), boards=boards, first=first)
    t = time.perf_counter()
    result = run_dd_match(us, them, deals, boards=boards, make_agent=make_agent)
    wall = time.perf_counter() - t
    imps = np.array(result.imps, dtype=float)
    by_vul = {}
    for b in result.boards:
        by_vul.setdefault(b.vul, []).append(b.imps)
    same = sum(1 for b in result.boards if len({r.contract for r in b.rooms}) == 1)
    return {
        "us": us,
        "them": them,
        "boards": len(imps),
        "first_deal": first,
        "imps_per_board": float(imps.mean()),
        "stderr": mean_stderr(imps.tolist())[1],
        "sd_per_board": float(imps.std(ddof=1)),
        "same_contract_boards": same,
        "by_vul": {k: float(np.mean(v)) for k, v in sorted(by_vul.items())},
        "wall_s": wall,
    }


def show(name: str, r: dict[str, object]) -> None:
    z = float(r["imps_per_board"]) / float(r["stderr"]) if float(r["stderr"]) else float("nan")  # type: ignore[arg-type]
    print(
        f"{name:<28} {r['imps_per_board']:+.3f} IMPs/board  se {r['stderr']:.3f}  "  # type: ignore[str-format]
        f"({z:+.1f} se)  boards {r['boards']}  same contract {r['same_contract_boards']}  "
        f"{r['wall_s']:.0f}s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", default=str(shipped_model("default")))
    ap.add_argument("--imitation", required=True, help="exported imitation model directory")
    ap.add_argument("--deals", default="data/dd.npz", help="DD deal file (default %(default)s)")
    ap.add_argument("--boards", type=int, default=HOLDOUT)
    ap.add_argument("--them", default="bfg")
    ap.add_argument("--teach", default=None, help="teach file for the accuracy figures")
    ap.add_argument("--teach-holdout", type=int, default=2000)
    ap.add_argument("--skip", default="", help="comma list of: model,imitation,head")
    ap.add_argument("--json", default=None)
    args = benchmark_args(ap, "bench_bidding_strength")
    deal_file(args.deals)
    skip = set(filter(None, args.skip.split(",")))
    model, imi = f"policy:{args.model}", f"policy:{args.imitation}"
    out: dict[str, object] = {}
    if args.teach:
        for name, path in (("model", args.model), ("imitation", args.imitation)):
            acc = teacher_accuracy(path, args.teach, args.teach_holdout)
            out[f"accuracy_{name}"] = acc
            print(
                f"accuracy vs teacher, {name:<9}: {acc['accuracy']:.4f} of "
                f"{int(acc['decisions'])} held-out calls; whole auctions "
                f"{acc['whole_auction_accuracy']:.4f}"
            )
    plan = [
        ("model", f"{args.model} vs {args.them}", model, args.them),
        ("imitation", f"imitation vs {args.them}", imi, args.them),
        ("head", "model vs imitation", model, imi),
    ]
    for key, name, us, them in plan:
        if key in skip:
            continue
        r = match(us, them, args.deals, args.boards)
        out[key] = r
        show(name, r)
    if "model" in out and "imitation" in out:
        a, b = out["model"], out["imitation"]
        gain = float(a["imps_per_board"]) - float(b["imps_per_board"])  # type: ignore[index]
        print(f"ratio/baseline: model gains {gain:+.3f} IMPs/board over the imitation baseline")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
