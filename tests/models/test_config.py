"""The trainers' configurations are their command lines, and model cards name data by command."""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.modelcard import CARD_FILE, ModelCard
from bridgebot.models.config import (
    BeliefConfig,
    DDNetConfig,
    DoublesConfig,
    ImitationConfig,
    LeagueConfig,
    SelfPlayConfig,
    TrainerConfig,
    config_from_args,
)
from bridgebot.models.data import DataError, load_dd, load_teach
from bridgebot.models.provenance import data_record

from bridgebot.cli import build_parser
from bridgebot.shipped import SHIPPED

REQUIRED = {
    "imitation": (ImitationConfig, ["--data", "t.npz", "--out", "r"]),
    "selfplay": (SelfPlayConfig, ["--init", "p.pt", "--deals", "d.npz", "--out", "r"]),
    "league": (LeagueConfig, ["--init", "m", "--deals", "a.npz", "--deals", "b.npz", "--out", "r"]),
    "ddnet": (DDNetConfig, ["--deals", "d.npz", "--out", "m"]),
    "belief": (BeliefConfig, ["--deals", "d.npz", "--out", "m"]),
    "doubles": (DoublesConfig, ["--deals", "d.npz", "--out", "p.json"]),
}


def _parse(*argv: str) -> argparse.Namespace:
    return build_parser(only="train").parse_args(["train", *argv])


@pytest.mark.parametrize("mode", sorted(REQUIRED))
def test_the_command_line_defaults_are_the_configs(mode: str) -> None:
    config, required = REQUIRED[mode]
    cfg = config_from_args(config, _parse(mode, *required))
    defaults = {k: f.default for k, f in config.model_fields.items() if not f.is_required()}
    assert defaults and all(getattr(cfg, k) == v for k, v in defaults.items())


@pytest.mark.parametrize("mode", ["belief", "doubles", "slamnet"])
def test_the_policy_a_trainer_reads_defaults_to_the_shipped_one_from_any_directory(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default is the shipped policy the composition root resolves (bridgebot/shipped.py),
    not the working directory's ``models/default``; an option still names another."""
    from bridgebot.models.config import SlamNetConfig

    from bridgebot.shipped import DEFAULT_MODEL_DIR

    config, required = {**REQUIRED, "slamnet": (SlamNetConfig, ["--deals", "d.npz"])}[mode]
    (field,) = config.SHIPPED_POLICY
    monkeypatch.chdir(tmp_path)
    cfg = config_from_args(config, _parse(mode, *required))
    assert Path(getattr(cfg, field)) == DEFAULT_MODEL_DIR
    assert (Path(getattr(cfg, field)) / "policy.onnx").is_file()
    flag = "--model" if mode == "doubles" else "--policy"
    cfg = config_from_args(config, _parse(mode, *required, flag, "runs/other"))
    assert getattr(cfg, field) == "runs/other"


def test_every_option_is_a_field_and_says_what_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parse("selfplay", "--help")
    text = capsys.readouterr().out
    for name, field in SelfPlayConfig.model_fields.items():
        flag = SelfPlayConfig.FLAGS.get(name, f"--{name.replace('_', '-')}")
        assert f"{flag} " in text and field.description
    assert "PPO iterations (default: 300)" in text


def test_options_fill_the_config_and_exploit_takes_the_exploiters_fields() -> None:
    args = _parse("ddnet", "--deals", "d.npz", "--out", "m", "--hidden", "64,32", "--epochs", "2")
    assert config_from_args(DDNetConfig, args).hidden == (64, 32)
    args = _parse(
        "exploit", "--target", "m", "--deals", "a.npz", "--out", "r", "--exploiter-iters", "3"
    )
    cfg = config_from_args(LeagueConfig, args, init=args.target)
    assert (cfg.init, cfg.dd, cfg.exploiter_iters) == ("m", ("a.npz",), 3)
    with pytest.raises(SystemExit):
        _parse("exploit", "--target", "m", "--deals", "a.npz", "--out", "r", "--gens", "2")


def test_configs_are_frozen_and_refuse_unknown_fields() -> None:
    with pytest.raises(ValueError, match="iterz"):
        SelfPlayConfig(init="a", dd="b", out="c", iterz=3)  # type: ignore[call-arg]
    assert all(issubclass(c, TrainerConfig) for c, _ in REQUIRED.values())


def _npz(path: Path, n: int, meta: dict[str, object] | None) -> Path:
    extra = {"meta": np.str_(json.dumps(meta))} if meta is not None else {}
    owners = np.tile(np.repeat(np.arange(4, dtype=np.uint8), 13), (n, 1))
    np.savez(path, owners=owners, dd=np.zeros((n, 4, 5), np.uint8), **extra)  # type: ignore[arg-type]
    return path


def test_data_is_named_by_the_command_that_makes_it_again(tmp_path: Path) -> None:
    made = _npz(tmp_path / "dd_b.npz", 5, {"generator": "ddgen-v1", "seed": 20261123, "count": 5})
    record = data_record(made)
    assert record.regenerate == f"bridgebot ddgen --boards 5 --seed 20261123 --out {made}"
    assert record.deals == 5 and record.sha256 is not None and len(record.sha256) == 64
    teach = _npz(
        tmp_path / "t.npz", 3, {"generator": "teach-v1", "seed": 4, "source": "random", "count": 3}
    )
    assert data_record(teach).regenerate == f"bridgebot teach --boards 3 --seed 4 --out {teach}"
    unknown = data_record(_npz(tmp_path / "old.npz", 2, None))
    assert unknown.regenerate is None and "unknown" in unknown.note


def test_a_missing_data_file_says_how_to_make_it(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"no such file; make it with 'bridgebot ddgen .* --out "):
        load_dd(tmp_path / "dd.npz")
    with pytest.raises(DataError, match=r"make it with 'bridgebot teach"):
        load_teach(tmp_path / "teach.npz")


def test_a_dd_file_is_read_by_the_one_reader_of_the_format(tmp_path: Path) -> None:
    """The trainers' arrays and the commands' boards come from one reader
    (``laws.board_sets.npz_deals``): a deal that gives a seat 14 cards, or a file without its
    tables, is refused alike, in the same words, by both."""
    from bridgebot.laws.board_sets import BoardSetError, load_npz

    path = _npz(tmp_path / "dd.npz", 3, None)
    with np.load(path) as z:
        owners, dd = z["owners"].copy(), z["dd"]
    owners[2, 0] = 1  # the club two goes to East: North 12 cards, East 14
    np.savez(path, owners=owners, dd=dd)
    said = r"dd.npz: deal 2 does not give 13 cards to each seat"
    with pytest.raises(DataError, match=said):
        load_dd(path)
    with pytest.raises(BoardSetError, match=said):
        load_npz(path)
    np.savez(path, owners=owners[:2])
    with pytest.raises(DataError, match=r"dd.npz: expected arrays 'owners' and 'dd'"):
        load_dd(path)
    assert [b.number for b in load_npz(path)] == [1, 2]


def test_the_shipped_cards_name_their_data_by_command_or_say_unknown() -> None:
    root = Path(__file__).resolve().parents[2]
    for name in SHIPPED:
        card = ModelCard.read(root / "models" / name / CARD_FILE)
        assert "bridgebot train" in card.training.command
        for data in card.training.data:
            assert data.deals and (data.regenerate or "unknown" in data.note), (name, data)
    default = ModelCard.read(root / "models" / "default" / CARD_FILE)
    regenerate = {d.name: d.regenerate for d in default.training.data}
    # The shipped default is distilled from the search's calls (run 21, round 4): each file names
    # the command that bids it again (r4_b cut back to the boards it held: the same file).
    teach = "python scripts/search_teach.py --spec search --deals "
    assert regenerate == {
        "data/distill/r4_a.npz": teach
        + "data/dd_2026b.npz --first 8500 --boards 5500 --seed 10 --out data/distill/r4_a.npz",
        "data/distill/r4_b.npz": teach
        + "data/dd_2026.npz --first 22770 --boards 5740 --seed 11 --out data/distill/r4_b.npz",
    }
    # Two auctions a board, and no two files of the round bid the same training rows.
    used: dict[str, list[tuple[int, int]]] = {}
    for data in default.training.data:
        words = data.regenerate.split()
        first, boards = (
            int(words[words.index("--first") + 1]),
            int(words[words.index("--boards") + 1]),
        )
        assert data.deals == 2 * boards, data
        used.setdefault(words[words.index("--deals") + 1], []).append((first, first + boards))
    for spans in used.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans)), spans
