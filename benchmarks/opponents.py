"""The cross-table's opponents: list them, and rebuild the missing ones from this repository.

Every benchmark that keeps the league's gains (``bench_slam.py``, ``bench_crosstable.py``,
``bench_search.py``) plays the shipped model against earlier policies that live outside the
repository, in ``data/cand`` (a few MB each, too many to ship). ``benchmarks/opponents.toml``
says how each was made: a model directory as a past commit shipped it (``git``), or the training
and export commands that made it (``steps``). This script rebuilds them from that manifest, so a
fresh checkout can run the cross-table again:

    python benchmarks/opponents.py list                      # built or not, and --opponents
    python benchmarks/opponents.py build def default_old     # from git: seconds
    python benchmarks/opponents.py build ex_s22              # trains: 20-60 minutes a core
    python benchmarks/opponents.py build --all --dry-run     # the commands, in order

A step is skipped where the file it ``creates`` exists, and the training commands resume from
their own checkpoints, so an interrupted build goes on with the same command. ``list`` prints the
``--opponents`` spec of the opponents that are built (``--spec`` prints only that).
"""

from __future__ import annotations

import argparse
import io
import json
import shlex
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = Path(__file__).with_name("opponents.toml")
#: The model directory a ``git`` opponent is taken from, in that revision.
MODEL_PATH = "models/default"


class ManifestError(ValueError):
    """The manifest is malformed or names an opponent it does not define."""


@dataclass(frozen=True)
class Step:
    run: str
    creates: str


@dataclass(frozen=True)
class Opponent:
    name: str
    about: str
    git: str | None
    steps: tuple[Step, ...]
    needs: tuple[str, ...]
    made_at: str | None = None
    """The commit that recorded a trained original's command (a rebuild at a later commit is a
    new draw of the recipe)."""


@dataclass(frozen=True)
class Places:
    """Where opponents, training runs and deal files live (the manifest's ``{cand}``,
    ``{runs}`` and ``{deals}``), relative to the repository's root unless absolute."""

    cand: Path
    runs: Path
    deals: Path

    def fill(self, text: str) -> str:
        return text.format(cand=self.cand, runs=self.runs, deals=self.deals)

    def model(self, name: str) -> Path:
        return self.cand / name


def load_manifest(path: Path = MANIFEST) -> dict[str, Opponent]:
    """The opponents of ``path``, by name, in the manifest's order; checked for the mistakes a
    build would only find hours in."""
    raw = tomllib.loads(path.read_text())
    trainings = raw.get("training", {})

    def step(name: str, s: dict[str, str]) -> Step:
        """A step as written (``run``, ``creates``), or a shared training by its name."""
        if set(s) == {"training"}:
            if s["training"] not in trainings:
                raise ManifestError(f"{path}: {name!r}: no [training.{s['training']}]")
            s = trainings[s["training"]]
        if set(s) != {"run", "creates"}:
            raise ManifestError(f"{path}: {name!r}: a step has run and creates, not {set(s)}")
        return Step(s["run"], s["creates"])

    out: dict[str, Opponent] = {}
    for entry in raw.get("opponent", []):
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise ManifestError(f"{path}: an opponent without a name: {entry}")
        if name in out:
            raise ManifestError(f"{path}: opponent {name!r} is defined twice")
        git, steps, export = entry.get("git"), entry.get("steps", []), entry.get("export")
        if (git is None) == (not steps) or (export is None) == (git is None):
            raise ManifestError(
                f"{path}: opponent {name!r} needs exactly one of git and steps, and steps the "
                "export of a checkpoint"
            )
        made = [step(name, s) for s in steps]
        if export is not None:
            made.append(
                Step(
                    f"bridgebot export --checkpoint {export} --out {{cand}}/{name} "
                    "--deals {deals}/dd_2026.npz",
                    f"{{cand}}/{name}/policy.onnx",
                )
            )
        out[name] = Opponent(
            name=name,
            about=str(entry.get("about", "")),
            git=git,
            steps=tuple(made),
            needs=tuple(entry.get("needs", ())),
            made_at=entry.get("made_at"),
        )
    for o in out.values():
        for need in o.needs:
            if need not in out:
                raise ManifestError(f"{path}: {o.name!r} needs {need!r}, which it does not define")
    return out


def built(places: Places, name: str) -> bool:
    return (ROOT / places.model(name) / "policy.onnx").is_file()


def build_order(opponents: dict[str, Opponent], names: Sequence[str]) -> list[str]:
    """``names`` and what they need, each after what it needs, each once."""
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name not in opponents:
            raise ManifestError(f"no opponent {name!r} in the manifest ({', '.join(opponents)})")
        if name in path:
            raise ManifestError(f"opponents need each other: {' -> '.join((*path, name))}")
        for need in opponents[name].needs:
            visit(need, (*path, name))
        if name not in order:
            order.append(name)

    for n in names:
        visit(n, ())
    return order


def upgrade_card(directory: Path) -> None:
    """Rewrite a model card of format 1 (before ``engine.modelcard``, commit f6bc126) as format
    2, content kept, as that commit rewrote the shipped cards: the one input and output tensor,
    the network's file named."""
    path = directory / "model.json"
    card = json.loads(path.read_text())
    if card.get("format") != 1:
        return
    card.pop("calls", None)
    card.update(format=2, onnx="policy.onnx")
    card["input"], card["output"] = card.pop("inputs")[0], card.pop("outputs")[0]
    path.write_text(json.dumps(card, indent=2) + "\n")


def from_git(rev: str, target: Path) -> None:
    """``target`` = the model directory as revision ``rev`` shipped it (its card in today's
    format)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, MODEL_PATH],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        raise RuntimeError(
            f"git archive {rev} {MODEL_PATH} failed ({archive.stderr.decode().strip()}); "
            "a shallow clone lacks old revisions: git fetch --unshallow"
        )
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, filter="data")
        upgrade_card(Path(tmp) / MODEL_PATH)
        (Path(tmp) / MODEL_PATH).rename(target)


def build(opponent: Opponent, places: Places, dry_run: bool) -> None:
    target = ROOT / places.model(opponent.name)
    if target.exists():
        raise RuntimeError(
            f"{opponent.name}: {places.model(opponent.name)} exists but holds no policy.onnx "
            "(an export that stopped?): remove it and build again"
        )
    if opponent.git is not None:
        print(f"{opponent.name}: {MODEL_PATH} at {opponent.git} -> {places.model(opponent.name)}")
        if not dry_run:
            target.parent.mkdir(parents=True, exist_ok=True)
            from_git(opponent.git, target)
        return
    for step in opponent.steps:
        if (ROOT / places.fill(step.creates)).exists():
            print(f"{opponent.name}: have {places.fill(step.creates)}")
            continue
        command = places.fill(step.run)
        print(f"{opponent.name}: {command}", flush=True)
        if dry_run:
            continue
        argv = shlex.split(command)
        if argv[0] == "bridgebot":  # this interpreter's, whether or not its venv is on PATH
            argv[:1] = [sys.executable, "-m", "bridgebot"]
        done = subprocess.run(argv, cwd=ROOT, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{opponent.name}: the step exited {done.returncode}: {command}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("action", choices=("list", "build"))
    parser.add_argument("names", nargs="*", help="opponents to build (with what they need)")
    parser.add_argument("--all", action="store_true", help="build every opponent")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    parser.add_argument("--spec", action="store_true", help="list: print only --opponents")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--cand", type=Path, default=Path("data/cand"), help="opponents' directory")
    parser.add_argument("--runs", type=Path, default=Path("data/runs"), help="training runs")
    parser.add_argument(
        "--deals-dir", type=Path, default=Path("data"), help="the deal files' directory"
    )
    args = parser.parse_args(argv)
    try:
        opponents = load_manifest(args.manifest)
    except (OSError, tomllib.TOMLDecodeError, ManifestError) as e:
        parser.error(str(e))
    places = Places(args.cand, args.runs, args.deals_dir)
    if args.action == "list":
        ready = [n for n in opponents if built(places, n)]
        spec = ";".join(["bfg", "bfg,doubles=on", *(f"policy:{places.model(n)}" for n in ready)])
        if args.spec:
            print(spec)
            return 0
        for o in opponents.values():
            mark = "built  " if o.name in ready else "missing"
            origin = f"git {o.git}" if o.git else f"trained (original at {o.made_at})"
            print(f"{mark} {o.name:<14} {o.about}; {origin}")
        print(f"\n--opponents {shlex.quote(spec)}")
        return 0
    names = list(opponents) if args.all else args.names
    if not names:
        parser.error("build: name the opponents, or --all")
    try:
        order = build_order(opponents, names)
        for name in order:
            if built(places, name):
                print(f"{name}: built ({places.model(name)})")
                continue
            build(opponents[name], places, args.dry_run)
    except (ManifestError, RuntimeError) as e:
        print(f"opponents: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("opponents: stopped; the same command goes on where it stopped", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
