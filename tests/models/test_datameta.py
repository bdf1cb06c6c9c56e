"""The ``meta`` of ddgen and teach files: one schema, read back on resume and by provenance; the
files today's commands wrote (tests/datafiles, made before the schema) still read and resume."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from bridgebot.models import ddgen, teach
from bridgebot.models.data import DataError
from bridgebot.models.datameta import DataMeta, read_meta
from bridgebot.models.provenance import data_record

from bridgebot.cli import main

#: ``bridgebot ddgen --deals 3 --seed 7`` and ``bridgebot teach --count 3 --seed 7``, as written
#: by the code before :class:`DataMeta`.
FILES = Path(__file__).resolve().parents[1] / "datafiles"
GENERATE = {"ddgen-v1.npz": ddgen.generate, "teach-v1.npz": teach.generate}


def arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def meta_of(path: Path) -> DataMeta | None:
    with np.load(path, allow_pickle=False) as z:
        return read_meta(path, z)


def with_meta(source: Path, path: Path, meta: dict[str, object]) -> Path:
    """A copy of ``source`` whose meta JSON is ``meta``."""
    np.savez(path, **(arrays(source) | {"meta": np.str_(json.dumps(meta))}))  # type: ignore[arg-type]
    return path


def test_round_trip_keeps_unknown_keys_and_writes_no_defaults() -> None:
    meta = DataMeta(generator="ddgen-v1", seed=3, count=2)
    assert json.loads(str(meta.array())) == {"generator": "ddgen-v1", "seed": 3, "count": 2}
    other = DataMeta.model_validate_json('{"generator": "x", "seed": 1, "count": 0, "host": null}')
    assert DataMeta.model_validate_json(str(other.array())) == other
    assert json.loads(str(other.array()))["host"] is None


def test_todays_files_read_and_name_their_command() -> None:
    dd, taught = meta_of(FILES / "ddgen-v1.npz"), meta_of(FILES / "teach-v1.npz")
    assert dd == DataMeta(generator="ddgen-v1", seed=7, count=3)
    assert taught is not None and (taught.generator, taught.seed, taught.count) == (
        "teach-v1",
        7,
        3,
    )
    assert (taught.source, taught.errors, taught.fallbacks) == ("random", 0, 0) and taught.calls
    assert data_record(FILES / "teach-v1.npz").regenerate == (
        f"bridgebot teach --boards 3 --seed 7 --out {FILES / 'teach-v1.npz'}"
    )


@pytest.mark.parametrize("name", sorted(GENERATE))
def test_todays_files_resume_to_what_one_run_makes(name: str, tmp_path: Path) -> None:
    old = json.loads(str(arrays(FILES / name)["meta"]))
    resumed = with_meta(FILES / name, tmp_path / "resumed.npz", old | {"host": "elsewhere"})
    GENERATE[name](resumed, 5, seed=7, progress=False)
    GENERATE[name](tmp_path / "whole.npz", 5, seed=7, progress=False)
    got, want = arrays(resumed), arrays(tmp_path / "whole.npz")
    assert set(got) == set(want)
    for key in set(want) - {"meta"}:
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
    # one meta, but for the key only the older file had, which the resume kept
    assert json.loads(str(got["meta"])) == json.loads(str(want["meta"])) | {"host": "elsewhere"}


@pytest.mark.parametrize(
    ("change", "field"),
    [({"seed": "seven"}, "seed"), ({"count": -1}, "count"), ({"generator": None}, "generator")],
)
def test_a_malformed_meta_names_the_file_and_field(
    change: dict[str, object], field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = json.loads(str(arrays(FILES / "ddgen-v1.npz")["meta"]))
    bad = with_meta(FILES / "ddgen-v1.npz", tmp_path / "bad.npz", old | change)
    fault = rf"^{bad}: array meta: field {field}: "
    with pytest.raises(DataError, match=fault):
        data_record(bad)
    with pytest.raises(DataError, match=fault):
        teach.generate(bad, 4, seed=7, progress=False)
    assert main(["ddgen", "--boards", "4", "--seed", "7", "--out", str(bad), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith(f"bridgebot ddgen: {bad}: array meta: field {field}: ")
        and err.count("\n") == 1
    )


def test_a_run_with_another_seed_or_source_does_not_continue_a_file(tmp_path: Path) -> None:
    copy = Path(shutil.copy(FILES / "teach-v1.npz", tmp_path / "t.npz"))
    with pytest.raises(teach.TeachError, match=r"cannot continue, its seed is 7, this run's is 8"):
        teach.generate(copy, 5, seed=8, progress=False)
    deals = Path(shutil.copy(FILES / "ddgen-v1.npz", tmp_path / "dd.npz"))
    with pytest.raises(teach.TeachError, match=r"its source is 'random', this run's is 'deals:"):
        teach.generate(copy, 3, seed=7, deals=deals, progress=False)
    with pytest.raises(
        ddgen.DDGenError, match=r"its generator is 'teach-v1', this run's is 'ddgen"
    ):
        ddgen.generate(copy, 5, seed=7, progress=False)


def test_another_programs_meta_is_recorded_as_it_is(tmp_path: Path) -> None:
    """A DD file made elsewhere (a curriculum filtered by another script) trains and is carded:
    its meta is kept verbatim in the record's note, and no bridgebot command is claimed."""
    theirs = {"count": 2, "generator": "slam-rich filter", "base_seed": 5}
    f = with_meta(FILES / "ddgen-v1.npz", tmp_path / "theirs.npz", theirs)
    record = data_record(f)
    assert record.regenerate is None and '"generator": "slam-rich filter"' in record.note
