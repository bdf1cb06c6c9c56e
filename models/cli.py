"""``bridgebot train imitation|selfplay`` and ``bridgebot export``: the commands behind the model.

One module serves both subcommands (registered as ``train`` and ``export`` in ``bridgebot/cli.py``);
``run`` tells them apart by ``args.command``. torch is imported only inside ``run``, so ``--help``
and the rest of the CLI work without the ``train`` extra.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

HELP = "train the bidding policy (imitation, self-play) or export it to ONNX"
EXAMPLES = """examples:
  bridgebot train imitation --data data/teach_200k.npz --out runs/imitation --epochs 4
  bridgebot train selfplay --init runs/imitation/policy.pt --out runs/selfplay --iters 300
  bridgebot export --checkpoint runs/selfplay/policy.pt --out models/default

Training resumes from OUT/ckpt.pt when it exists (delete OUT for a fresh run); a GPU is used when
torch sees one. Run long jobs under 'nice -n 5' on a shared machine.
"""

DD_DEFAULT = "data/dd.npz"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # The same module backs 'train' and 'export'; the parser tells which by its prog name.
    if parser.prog.split()[-1] == "export":
        _export_arguments(parser)
        return
    sub = parser.add_subparsers(dest="mode", metavar="MODE", required=True)
    imi = sub.add_parser(
        "imitation",
        help="cross-entropy on teacher calls; reports held-out accuracy",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    imi.add_argument("--data", required=True, help="teacher file from 'bridgebot teach' (.npz)")
    imi.add_argument("--out", required=True, help="run directory (checkpoints, log, policy.pt)")
    imi.add_argument("--epochs", type=float, default=4.0)
    imi.add_argument("--batch", type=int, default=512)
    imi.add_argument("--lr", type=float, default=1e-3)
    imi.add_argument("--hidden", type=int, default=512)
    imi.add_argument("--layers", type=int, default=3)
    imi.add_argument("--holdout", type=int, default=5000, help="last N deals: accuracy only")
    imi.add_argument("--seed", type=int, default=1)
    imi.add_argument("--threads", type=int, default=1, help="1 is fastest on a busy machine")
    imi.add_argument("--save-every", type=int, default=1000, help="steps between checkpoints")
    imi.add_argument("--max-minutes", type=float, default=0.0, help="stop (resumably) after this")
    sp = sub.add_parser(
        "selfplay",
        help="PPO on duplicate DD-scored IMPs against the frozen starting policy",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    sp.add_argument("--init", required=True, help="starting checkpoint (imitation policy.pt)")
    sp.add_argument("--dd", default=DD_DEFAULT, help="deals with DD tables; last 2,000 held out")
    sp.add_argument("--out", required=True, help="run directory")
    sp.add_argument("--iters", type=int, default=300)
    sp.add_argument("--deals-per-iter", type=int, default=1024)
    sp.add_argument("--lr", type=float, default=3e-5)
    sp.add_argument("--ppo-epochs", type=int, default=2)
    sp.add_argument("--minibatch", type=int, default=2048)
    sp.add_argument("--entropy", type=float, default=0.003)
    sp.add_argument("--eval-every", type=int, default=10)
    sp.add_argument("--eval-deals", type=int, default=1000, help="validation deals before holdout")
    sp.add_argument(
        "--eval-bfg-every",
        type=int,
        default=0,
        help="match bfg every N iterations (a multiple of --eval-every)",
    )
    sp.add_argument("--eval-bfg-deals", type=int, default=200, help="validation deals for those")
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--threads", type=int, default=1, help="1 is fastest on a busy machine")
    sp.add_argument("--max-minutes", type=float, default=0.0)
    _league_arguments(sub)
    from bridgebot.models import (
        ddnet,  # issue 5: the learned double-dummy estimator (no torch at import)
    )

    dd = sub.add_parser(
        "ddnet",
        help=ddnet.HELP,
        epilog=ddnet.EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ddnet.add_arguments(dd)
    from bridgebot.models import belief  # issue 5: the belief network for the search's particles

    bel = sub.add_parser(
        "belief",
        help=belief.HELP,
        epilog=belief.EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    belief.add_arguments(bel)


def _league_arguments(sub: Any) -> None:
    """``train league``, ``train exploit`` (issue 12) and ``train doubles``."""
    from bridgebot.models import doubles_fit

    dbl = sub.add_parser("doubles", help=doubles_fit.HELP, epilog=doubles_fit.EXAMPLES,
                         formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    doubles_fit.add_arguments(dbl)
    lg = sub.add_parser(
        "league",
        help="league PPO: the learner meets punishing opponents, snapshots and exploiters",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    ex = sub.add_parser(
        "exploit",
        help="train an exploiter of a frozen policy (the league's exploiter budget and settings)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    ex.add_argument("--target", required=True, help="policy to beat: model dir or .pt")
    lg.add_argument("--init", required=True, help="starting policy: model dir (ONNX) or .pt")
    lg.add_argument("--gens", type=int, default=6)
    lg.add_argument("--learner-iters", type=int, default=200, help="learner iterations per gen")
    from bridgebot.models.league import DEFAULT_MIX

    lg.add_argument("--mix", default=DEFAULT_MIX, help="opponent kinds and their weights")
    lg.add_argument("--lr", type=float, default=1e-4)
    lg.add_argument("--explore", type=float, default=0.05, help="X/XX probability floor at gen 0")
    lg.add_argument("--explore-gens", type=int, default=3, help="the floor reaches 0 here")
    lg.add_argument("--snapshots", type=int, default=4, help="past generations kept")
    for p in (lg, ex):
        p.add_argument("--dd", action="append", required=True,
                       help="DD deal file (repeat); the last file's last 2,000 deals held out")  # fmt: skip
        p.add_argument("--out", required=True, help="run directory (resumes from OUT/ckpt.pt)")
        p.add_argument("--exploiter-iters", type=int, default=100, help="exploiter budget")
        p.add_argument("--exploiter-lr", type=float, default=2e-4)
        p.add_argument("--exploiter-explore", type=float, default=0.05)
        p.add_argument("--deals-per-iter", type=int, default=1024)
        p.add_argument("--entropy", type=float, default=0.003)
        p.add_argument("--eval-deals", type=int, default=1000)
        p.add_argument("--save-minutes", type=float, default=3.0)
        p.add_argument("--max-minutes", type=float, default=0.0)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--threads", type=int, default=1)


def _run_league(args: argparse.Namespace, command: str) -> dict[str, object]:
    from bridgebot.models.league import LeagueConfig, exploit, train_league

    common = dict(
        dd=tuple(args.dd), out=args.out, exploiter_iters=args.exploiter_iters,
        exploiter_lr=args.exploiter_lr, exploiter_explore=args.exploiter_explore,
        deals_per_iter=args.deals_per_iter, entropy=args.entropy, eval_deals=args.eval_deals,
        save_minutes=args.save_minutes, max_minutes=args.max_minutes, seed=args.seed,
        threads=args.threads, command=command,
    )  # fmt: skip
    if args.mode == "exploit":
        return exploit(args.target, LeagueConfig(init=args.target, **common))
    cfg = LeagueConfig(
        init=args.init, gens=args.gens, learner_iters=args.learner_iters, mix=args.mix, lr=args.lr,
        explore=args.explore, explore_gens=args.explore_gens, snapshots=args.snapshots,
        **common,
    )  # fmt: skip
    return train_league(cfg)


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--checkpoint", required=True, help="policy.pt or ckpt.pt of a run")
    parser.add_argument("--out", required=True, help="model directory to write")
    parser.add_argument("--dd", default=DD_DEFAULT, help="deals for the parity states")
    parser.add_argument("--states", type=int, default=512, help="parity batch size")
    parser.add_argument("--tol", type=float, default=1e-4, help="max |onnx - torch| on logits")
    parser.add_argument(
        "--metrics", default=None, help="JSON file of extra metrics to record (benchmarks)"
    )


def run(args: argparse.Namespace) -> int:
    command = "bridgebot " + shlex.join(sys.argv[1:]) if sys.argv[1:] else ""
    if args.command == "export":
        import json

        from bridgebot.models.export import ExportError, export

        extra = None
        if args.metrics:
            with open(args.metrics) as f:
                extra = json.load(f)
        try:
            export(args.checkpoint, args.out, args.dd, args.states, 0, args.tol, command, extra)
        except (ExportError, FileNotFoundError) as e:
            print(f"export failed: {e}", file=sys.stderr)
            return 1
        return 0
    if args.mode == "ddnet":
        from bridgebot.models import ddnet

        return ddnet.run(args)
    if args.mode == "belief":
        from bridgebot.models import belief

        return belief.run(args)
    if args.mode == "doubles":
        from bridgebot.models import doubles_fit

        return doubles_fit.run(args, command)
    from bridgebot.models.data import DataError

    try:
        if args.mode in ("league", "exploit"):
            from bridgebot.models.league import LeagueError

            try:
                metrics: dict[str, object] = _run_league(args, command)
            except LeagueError as e:
                print(f"train {args.mode} failed: {e}", file=sys.stderr)
                return 1
        elif args.mode == "imitation":
            from bridgebot.models.imitation import ImitationConfig, train_imitation

            cfg = ImitationConfig(
                data=args.data,
                out=args.out,
                epochs=args.epochs,
                batch=args.batch,
                lr=args.lr,
                hidden=args.hidden,
                layers=args.layers,
                holdout=args.holdout,
                seed=args.seed,
                threads=args.threads,
                save_every=args.save_every,
                max_minutes=args.max_minutes,
                command=command,
            )
            metrics = train_imitation(cfg)
        else:
            from bridgebot.models.selfplay import SelfPlayConfig, train_selfplay

            scfg = SelfPlayConfig(
                init=args.init,
                dd=args.dd,
                out=args.out,
                deals_per_iter=args.deals_per_iter,
                iters=args.iters,
                lr=args.lr,
                ppo_epochs=args.ppo_epochs,
                minibatch=args.minibatch,
                entropy=args.entropy,
                eval_every=args.eval_every,
                eval_deals=args.eval_deals,
                eval_bfg_every=args.eval_bfg_every,
                eval_bfg_deals=args.eval_bfg_deals,
                max_minutes=args.max_minutes,
                seed=args.seed,
                threads=args.threads,
                command=command,
            )
            metrics = train_selfplay(scfg, make_agent=args.make_agent)
    except (DataError, FileNotFoundError) as e:
        print(f"train {args.mode} failed: {e}", file=sys.stderr)
        return 1
    import json

    print(json.dumps(metrics, indent=2, default=str))
    return 0
