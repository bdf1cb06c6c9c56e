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
