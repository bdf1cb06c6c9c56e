"""``bridgebot train MODE`` and ``bridgebot export``: the commands behind the shipped models.

One module serves both subcommands (registered as ``train`` and ``export`` in ``bridgebot/cli.py``);
``run`` tells them apart by ``args.command``. Each trainer's options are its configuration's
fields (:mod:`models.config`). torch is imported only inside ``run``, so ``--help`` and the rest of
the CLI work without the ``train`` extra.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bridgebot.core.argtypes import positive_int
from bridgebot.core.runs import add_run, open_run
from pydantic import JsonValue, TypeAdapter, ValidationError

if TYPE_CHECKING:
    from bridgebot.engine.agent import AgentFactory
    from bridgebot.models.selfplay import DDMatch


class TrainServices(Protocol):
    """What ``train`` and ``export`` read of the services the composition root hands them
    (``bridgebot.services.Services``)."""

    @property
    def make_agent(self) -> AgentFactory:
        """Builds the league's opponents from their specs."""

    @property
    def dd_match(self) -> DDMatch:
        """The double-dummy match self-play evaluates a network by."""

    @property
    def invocation(self) -> tuple[str, ...]:
        """The command's words, recorded in the model card."""


HELP = {
    "train": "train the bidding policy (imitation, self-play, league, ...) or the helper networks",
    "export": "export a trained policy to ONNX with its model card (a model directory)",
}
EXAMPLES = """examples:
  bridgebot teach --boards 200000 --seed 1 --out data/teach_200k.npz
  bridgebot train imitation --data data/teach_200k.npz --out runs/imitation --epochs 4
  bridgebot ddgen --boards 42336 --seed 20261123 --out data/dd_2026b.npz
  bridgebot train selfplay --init runs/imitation/policy.pt --deals data/dd_2026b.npz --out runs/sp
  bridgebot export --checkpoint runs/sp/policy.pt --deals data/dd_2026b.npz --out models/default

Training resumes from OUT/ckpt.pt when it exists (delete OUT for a fresh run); a GPU is used when
torch sees one. Run long jobs under 'nice -n 5' on a shared machine. With --run NAME (imitation,
selfplay, league, exploit) the run's folder is $BRIDGEBOT_RUNS/NAME/<OUT's name>, outside the work
tree: the same command resumes it in a later session, and OUT gets a copy when it ends well.
"""


def _mode(sub: Any, name: str, help: str, epilog: str | None = None) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=help, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # The same module backs 'train' and 'export'; the parser tells which by its prog name.
    if parser.prog.split()[-1] == "export":
        _export_arguments(parser)
        return
    from bridgebot.models import average, belief, ddnet, distill, doubles_fit, slamnet
    from bridgebot.models.config import (
        LEARNER_ONLY,
        ImitationConfig,
        LeagueConfig,
        SelfPlayConfig,
        add_config_arguments,
    )

    sub = parser.add_subparsers(dest="mode", metavar="MODE", required=True)
    trainers: list[tuple[str, str, Any, frozenset[str]]] = [
        ("imitation", "cross-entropy on teacher calls; reports held-out accuracy",
         ImitationConfig, frozenset()),
        ("selfplay", "PPO on duplicate DD-scored IMPs against the frozen starting policy",
         SelfPlayConfig, frozenset()),
        ("league", "league PPO: the learner meets punishing opponents, snapshots and exploiters",
         LeagueConfig, frozenset()),
        ("exploit", "train an exploiter of a frozen policy (the league's exploiter budget)",
         LeagueConfig, LEARNER_ONLY),
    ]  # fmt: skip
    for name, help, config, skip in trainers:
        p = _mode(sub, name, help)
        if name == "exploit":
            p.add_argument("--target", required=True, help="policy to beat: model dir or .pt")
        add_config_arguments(p, config, skip)
        add_run(p)
        p.add_argument("--quiet", action="store_true", help="no progress bar")
    for module in (ddnet, belief, doubles_fit, slamnet, average, distill):
        name = module.__name__.rsplit(".", 1)[-1].removesuffix("_fit")
        module.add_arguments(_mode(sub, name, module.HELP, module.EXAMPLES))


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--checkpoint", required=True, help="policy.pt or ckpt.pt of a run")
    parser.add_argument("--out", required=True, help="model directory to write")
    parser.add_argument(
        "--deals",
        dest="dd",
        required=True,
        metavar="FILE",
        help="DD deal file whose deals give the parity states (ddgen)",
    )
    parser.add_argument("--states", type=positive_int, default=512, help="parity batch size")
    parser.add_argument(
        "--tol",
        type=float,
        default=1e-4,
        help="max |onnx - torch| on logits, per unit of the largest |logit| (at least 1)",
    )
    parser.add_argument(
        "--metrics", default=None, help="JSON file of extra metrics to record (benchmarks)"
    )


def read_metrics(path: str) -> dict[str, JsonValue]:
    """``export --metrics FILE``: a JSON object of JSON values, recorded in the card's metrics.
    A file that is not one is a :class:`DataError` naming the file."""
    from bridgebot.core.errors import validation_fault
    from bridgebot.models.data import DataError

    try:
        text = Path(path).read_bytes()
    except OSError as e:
        raise DataError(f"{path}: cannot read the metrics ({e.strerror})") from None
    try:
        return _METRICS.validate_json(text)
    except ValidationError as e:
        raise DataError(f"{path}: not a JSON object of metrics: {validation_fault(e)}") from None


_METRICS: TypeAdapter[dict[str, JsonValue]] = TypeAdapter(dict[str, JsonValue])


def _train(args: argparse.Namespace, command: str, services: TrainServices) -> dict[str, object]:
    from bridgebot.models.config import (
        ImitationConfig,
        LeagueConfig,
        SelfPlayConfig,
        config_from_args,
    )

    progress = not args.quiet
    if args.mode == "imitation":
        from bridgebot.models.imitation import train_imitation

        return train_imitation(config_from_args(ImitationConfig, args), command, progress)
    if args.mode == "selfplay":
        from bridgebot.models.selfplay import train_selfplay

        return train_selfplay(
            config_from_args(SelfPlayConfig, args), command, progress, dd_match=services.dd_match
        )
    from bridgebot.models.league.exploiters import exploit
    from bridgebot.models.league.run import train_league

    if args.mode == "exploit":
        cfg = config_from_args(LeagueConfig, args, init=args.target)
        return exploit(args.target, cfg, command, progress)
    from bridgebot.engine.doubles import DoublesModel

    doubles = DoublesModel.load(args.penalty_doubles)  # the composition root's (shipped.py)
    cfg = config_from_args(LeagueConfig, args)
    return train_league(cfg, command, progress, make_agent=services.make_agent, doubles=doubles)


def _failed(mode: str, error: Exception) -> int:
    """A user's mistake (a file, an option): one line and exit status 2."""
    print(f"bridgebot train {mode}: {error}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace, services: TrainServices) -> int:
    # The words it was run with (bridgebot.cli.main's argv, not this process's: a test or a
    # script may call main itself), recorded in the model card.
    command = "bridgebot " + shlex.join(services.invocation) if services.invocation else ""
    from bridgebot.engine.modelcard import ModelError
    from bridgebot.models.data import DataError

    if args.command == "export":
        from bridgebot.models.export import ExportError, export

        try:
            extra = read_metrics(args.metrics) if args.metrics else None
            export(args.checkpoint, args.out, args.dd, args.states, 0, args.tol, command, extra)
        except (DataError, ModelError, FileNotFoundError) as e:
            print(f"bridgebot export: {e}", file=sys.stderr)
            return 2
        except ExportError as e:  # the verdict: ONNX and torch disagree
            print(f"bridgebot export: failed: {e}", file=sys.stderr)
            return 1
        return 0
    try:
        if args.mode in ("ddnet", "belief", "doubles", "slamnet", "average", "distill"):
            from bridgebot.models import average, belief, ddnet, distill, doubles_fit, slamnet

            module = {"ddnet": ddnet, "belief": belief, "doubles": doubles_fit,
                      "slamnet": slamnet, "average": average, "distill": distill}[args.mode]  # fmt: skip
            return int(module.run(args, command))
        from bridgebot.models.league.mix import LeagueError  # the trainers below need torch

        state = open_run(args.run, Path(args.out), sys.stderr)
        args.out = str(state.path)  # the trainers checkpoint in the run's state folder
        try:
            metrics = _train(args, command, services)
        except LeagueError as e:
            return _failed(args.mode, e)
        state.publish()
    except (DataError, ModelError, FileNotFoundError) as e:
        return _failed(args.mode, e)
    except ValidationError as e:  # an option its configuration refuses (a report card in --field)
        from bridgebot.core.errors import validation_fault

        return _failed(args.mode, ValueError(validation_fault(e)))
    print(json.dumps(metrics, indent=2, default=str))
    return 0
