"""pyproject.toml uses the SPDX license string (the table form is an error in setuptools from
2027-02-18), which needs setuptools 77 or later to build."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_license_is_an_spdx_string_and_setuptools_is_new_enough() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["license"] == "MIT"
    (setuptools,) = [r for r in meta["build-system"]["requires"] if r.startswith("setuptools")]
    m = re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", setuptools.replace(" ", ""))
    assert m is not None and int(m.group(1)) >= 77, setuptools
    assert not any(c.startswith("License ::") for c in meta["project"].get("classifiers", []))


def test_the_license_the_metadata_names_is_in_the_repository() -> None:
    """``license = "MIT"`` with the text beside it, which the package metadata carries."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert "Copyright (c) the bridgebot authors" in text


#: The project's folders, installed only under the ``bridgebot`` namespace.
FOLDERS = ("core", "protocol", "engine", "server", "conform", "tournament", "models")


def test_the_wheel_installs_one_namespace_and_every_shipped_model(tmp_path: Path) -> None:
    """No generic top-level name (``engine``, ``server``...) in the wheel, and the model files the
    agents load (policy, estimator, belief net, the bfg imitation) all inside it; the build says
    no warning (a folder of data left out of ``packages`` is one), and the wheel holds LICENSE."""
    import subprocess
    import sys
    import zipfile

    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    said = [ln for ln in (build.stdout + build.stderr).splitlines() if "warn" in ln.lower()]
    assert said == []
    (wheel,) = tmp_path.glob("bluechip_bridgebot-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"bridgebot"}
    for folder in FOLDERS:
        assert f"bridgebot/{folder}/__init__.py" in names
    for model in (
        "default/policy.onnx",
        "bfgnet/policy.onnx",
        "epbotnet/policy.onnx",
        "ddnet/ddnet.onnx",
        "belief/belief.onnx",
    ):
        assert f"bridgebot/models/{model}" in names
        assert f"bridgebot/models/{model.rsplit('/', 1)[0]}/model.json" in names
    # The person's page (bridgebot play): served from the package, nothing from elsewhere.
    for asset in ("index.html", "play.js", "play.css", "favicon.svg"):
        assert f"bridgebot/server/web/static/{asset}" in names


def test_the_distribution_name_is_not_the_taken_one() -> None:
    # "bridgebot" on the public index is an unrelated project; the console command keeps the name.
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["name"] == "bluechip-bridgebot"
    assert meta["project"]["scripts"]["bridgebot"] == "bridgebot.cli:main"


def test_no_module_is_loaded_under_a_bare_folder_name() -> None:
    """Importing every module of the project loads each once, as ``bridgebot.<folder>...``: a bare
    ``import engine`` anywhere would load a second copy with its own globals (the solver lock)."""
    import importlib
    import importlib.util
    import pkgutil
    import sys

    import bridgebot

    for info in pkgutil.walk_packages(bridgebot.__path__, "bridgebot."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    has_torch = importlib.util.find_spec("torch") is not None
    for folder in FOLDERS:
        module = importlib.import_module(f"bridgebot.{folder}")
        for sub in pkgutil.walk_packages(module.__path__, f"bridgebot.{folder}."):
            if has_torch or folder != "models":
                importlib.import_module(sub.name)
    bare = sorted(n for n in sys.modules if n.split(".")[0] in FOLDERS)
    assert bare == []
