"""Where the shipped models are, resolved once, in the composition root.

The model directories ship as package data of ``bridgebot.models`` (pyproject's package-data),
so :mod:`importlib.resources` finds them in a source checkout and in an installed wheel alike.
The algorithms in ``engine`` take a model directory as an argument and never look for one
themselves (issue 27: four modules found the shipped models by a path relative to their own file).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

#: The shipped model directories: the bidding policy, the imitations of bfg and of EPBot that
#: search uses as opponent models, the double-dummy trick estimator and the belief net.
SHIPPED = ("default", "bfgnet", "epbotnet", "ddnet", "belief")

#: The shipped opponent models, by the name an ``opponents=`` option gives them: nets that
#: imitate an outside bidder's auctions (bfg's; EPBot's with a training card), so that search
#: never runs the bidder's own code.
OPPONENT_NETS = ("bfgnet", "epbotnet")


def shipped_model(name: str) -> Path:
    """The directory of the shipped model ``name`` (one of :data:`SHIPPED`)."""
    if name not in SHIPPED:
        raise ValueError(f"no shipped model {name!r}; shipped: {', '.join(SHIPPED)}")
    return Path(str(files("bridgebot.models") / name))


#: The shipped policy (agent ``default``), the directory most commands default to.
DEFAULT_MODEL_DIR = shipped_model("default")

#: The shipped penalty-double model (``engine.doubles.DoublesModel``, the layer of every
#: ``doubles=on`` agent and of the league's doubling opponents), package data of
#: ``bridgebot.engine`` beside the code that reads it, found here and handed down.
PENALTY_DOUBLES = Path(str(files("bridgebot.engine") / "penalty_doubles.json"))


#: The packages whose files records name by the package's path (see :func:`record_name`).
_PACKAGES = ("bridgebot.models", "bridgebot.engine")


def record_name(path: str | Path) -> str:
    """How records name the file at ``path`` (an agent's marks): a shipped file by its package's
    path (``bridgebot.models/default/policy.onnx``), the same in every checkout and install;
    any other file by its resolved path."""
    p = Path(path).resolve()
    for package in _PACKAGES:
        root = Path(str(files(package))).resolve()
        if p.is_relative_to(root):
            return f"{package}/{p.relative_to(root).as_posix()}"
    return str(p)
