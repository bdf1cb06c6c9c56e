"""League training: opponents that punish, doubled-contract accounting, rewards, resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from bridgebot.engine.doubles import DoublesModel
from bridgebot.engine.policy import Policy
from bridgebot.laws.calls import ALL_CALLS, final_contract
from bridgebot.laws.scoring import dd_tricks, ns_score
from bridgebot.models.config import LeagueConfig
from bridgebot.models.data import observe
from bridgebot.models.doubles_fit import observer_seats
from bridgebot.models.league.choosers import learner_chooser, oracle_doubles
from bridgebot.models.league.data import curriculum, league_data, learner_deals
from bridgebot.models.league.exploiters import exploit
from bridgebot.models.league.mix import LeagueError, parse_mix
from bridgebot.models.league.rl import doubled_stats, learner_double_share
from bridgebot.models.league.run import train_league
from bridgebot.models.onnx_mlp import policy_from_onnx
from bridgebot.models.selfplay import Recorder, duplicate_imps
from endplay.types import Penalty, Player, Vul

from bridgebot.shipped import PENALTY_DOUBLES
from tests.engine.test_epbot import epbot  # noqa: F401 (the fixture)
from tests.models.test_train import _solved, small_dd

#: The penalty-double model the league's doubling opponents play, handed down as the command
#: line hands it (bridgebot/shipped.py finds it).
DOUBLES = DoublesModel.load(PENALTY_DOUBLES)

pytestmark = pytest.mark.train

P, X, XX = 0, 1, 2
ONE_NT, SEVEN_NT = 7, 37


def scripted(calls: list[int]):  # type: ignore[no-untyped-def]
    """A chooser that makes its k-th decision of each row from ``calls`` (then passes)."""
    seen: dict[int, int] = {}

    def choose(rows, x, mask):  # type: ignore[no-untyped-def]
        out = []
        for r in rows:
            k = seen.get(int(r), 0)
            seen[int(r)] = k + 1
            out.append(calls[k] if k < len(calls) else P)
        return np.array(out, dtype=np.int64)

    return choose


def test_onnx_import_computes_what_the_shipped_model_computes() -> None:
    owners, _ = _solved()
    net = policy_from_onnx("models/default")
    auctions = np.array([[P, ONE_NT, -1, -1]] * len(owners))
    x, _ = observe(owners, np.zeros(len(owners), np.int64), np.zeros(len(owners), np.int64),
                   auctions, np.full(len(owners), 2))  # fmt: skip
    want = Policy("models/default").logits(x)
    got = net(torch.from_numpy(x)).detach().numpy()
    assert np.abs(got - want).max() < 1e-3
    assert float(net.value.weight.detach().abs().sum()) == 0.0


@pytest.mark.parametrize("penalty", [1, 2])
def test_rewards_score_doubled_and_redoubled_contracts(penalty: int) -> None:
    """North opens 7NT, East doubles, (North redoubles): the reward equals endplay's score."""
    owners, dd = _solved()
    b = len(owners)
    dealer = np.zeros(b, np.int64)
    vul = np.full(b, Vul.both.value, np.int64)
    us = scripted([SEVEN_NT, XX if penalty == 2 else P])
    them = scripted([X])
    _, auctions, ns = duplicate_imps(owners, dd, dealer, vul, us, them)
    for i in range(b):
        calls = [ALL_CALLS[c] for c in auctions[i] if c >= 0]
        contract = final_contract(Player.north, calls)
        assert (
            contract is not None
            and contract.penalty == (Penalty.doubled, Penalty.redoubled)[penalty - 1]
        )
        assert ns[i] == ns_score(contract, dd_tricks(contract, dd[i]), Vul.both)


def test_doubled_stats_count_the_learners_failed_doubled_contracts() -> None:
    owners, dd = _solved()
    b = len(owners)
    # Table 0 (learner N-S): N 7NT, E X, all pass; table 1 (learner E-W): N 1NT, all pass.
    auctions = np.full((2 * b, 8), -1, np.int64)
    auctions[:b, :5] = [SEVEN_NT, X, P, P, P]
    auctions[b:, :4] = [ONE_NT, P, P, P]
    imps = np.arange(b, dtype=np.int64) - 3
    s = doubled_stats(auctions, np.zeros(b, np.int64), dd, imps)
    fails = dd[:, 0, 4] < 13
    assert s["ours_doubled"] == b and s["ours_doubled_failed"] == fails.sum()
    assert s["ours_doubled_imps"] == imps[fails].sum()
    assert s["theirs_doubled"] == 0 and s["ours_declared"] == b


def test_oracle_doubles_exactly_the_contracts_that_go_down() -> None:
    owners, dd = _solved()
    b = len(owners)
    # North opened 2S; East to call.
    auctions = np.tile(np.array([[3 + 5 + 3, -1]]), (b, 1))
    x, mask = observe(
        owners, np.zeros(b, np.int64), np.zeros(b, np.int64), auctions, np.ones(b, np.int64)
    )
    assert (observer_seats(owners, x) == 1).all()
    calls = oracle_doubles(np.zeros(b, np.int64), np.arange(b), x, mask, owners, dd)
    down = dd[:, 0, 3] < 8
    assert ((calls == X) == down).all() and down.any() and (~down).any()


def test_learner_floor_explores_doubles_and_records_behaviour_logp() -> None:
    owners, _ = _solved()
    b = len(owners)
    net = policy_from_onnx("models/default")
    auctions = np.tile(np.array([[ONE_NT, -1]]), (b, 1))
    x, mask = observe(
        owners, np.zeros(b, np.int64), np.zeros(b, np.int64), auctions, np.ones(b, np.int64)
    )
    rec = Recorder()
    choose = learner_chooser(net, torch.device("cpu"), torch.Generator().manual_seed(1), rec, 1.0)
    calls = choose(np.arange(b), x, mask)
    assert (calls == X).all()
    assert np.allclose(rec.logp[0], 0.0, atol=1e-5)


def test_mix_errors_name_the_option() -> None:
    assert parse_mix("self=1,oracle=0.5") == {"self": 1.0, "oracle": 0.5}
    for bad in ("wbridge5=1", "self=x", "self=-1", "self=0"):
        with pytest.raises(LeagueError, match="--mix"):
            parse_mix(bad)


def test_league_runs_checkpoints_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BRIDGEBOT_EPBOT", raising=False)  # the default mix needs no EPBot
    dd = str(small_dd(tmp_path / "dd.npz", 2100))
    base = dict(
        init="models/default", dd=(dd,), out=str(tmp_path / "run"), learner_iters=2,
        exploiter_iters=1, deals_per_iter=16, eval_deals=32, minibatch=64,
    )  # fmt: skip
    with pytest.raises(LeagueError, match="needs the penalty-double model"):
        train_league(LeagueConfig(gens=1, **base))  # type: ignore[arg-type]
    first = train_league(LeagueConfig(gens=1, **base), doubles=DOUBLES)  # type: ignore[arg-type]
    assert first["gens_done"] == 1
    run = tmp_path / "run"
    assert (run / "gen0.pt").exists() and (run / "exploiter0.pt").exists()
    again = train_league(LeagueConfig(gens=2, **base), doubles=DOUBLES)  # type: ignore[arg-type]
    assert again["gens_done"] == 2 and (run / "gen1.pt").exists()
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    learn = [e for e in log if e["phase"] == "learn"]
    assert len(learn) == 4  # two per generation: the resumed run did not redo generation 0
    assert {"self", "selfx", "init", "initx", "oracle"} <= set().union(
        *(e["imps_by_opponent"] for e in learn)
    )
    assert all("ours_doubled_imps" in e["doubled"] for e in learn)
    ex = exploit(str(run / "gen1.pt"), LeagueConfig(**{**base, "out": str(tmp_path / "ex")}))  # type: ignore[arg-type]
    assert (tmp_path / "ex" / "policy.pt").exists() and "imps_per_board" in ex["vs_target"]  # type: ignore[operator]


def test_the_learners_double_share_counts_its_own_calls_at_both_tables() -> None:
    one_spade = 3 + 3  # 1S: ALL_CALLS index
    auction = [one_spade, X, P, P, P, -1]
    # Table 0: the learner North-South (positions 0, 2, 4: 1S, P, P); table 1: East-West
    # (positions 1, 3: X, P). One double in five calls.
    share = learner_double_share(np.array([auction, auction]), np.array([0]))
    assert share == pytest.approx(1 / 5)
    # Dealt by East, the seats shift: table 0's learner now makes positions 1 and 3.
    assert learner_double_share(np.array([auction, auction]), np.array([1])) == pytest.approx(1 / 5)
    assert learner_double_share(np.array([[P, P, P, P], [P, P, P, P]]), np.array([2])) == 0.0


def test_an_exploiter_of_the_auto_reading_meets_it(tmp_path: Path) -> None:
    """``--policy-doubles auto``: after an iteration in which the exploiter doubled wildly (here
    it doubles whenever it may: a floor of 1), the target reads its doubles as passes."""
    dd = str(small_dd(tmp_path / "dd.npz", 2100))
    cfg = LeagueConfig(
        init="models/default", dd=(dd,), out=str(tmp_path / "ex"), exploiter_iters=2,
        deals_per_iter=16, eval_deals=32, minibatch=64, exploiter_explore=1.0,
        policy_doubles="auto",
    )  # type: ignore[arg-type]  # fmt: skip
    exploit("models/default", cfg)
    log = [json.loads(line) for line in (tmp_path / "ex" / "log.jsonl").read_text().splitlines()]
    assert [e["target_ignores_doubles"] for e in log] == [False, True]
    assert log[0]["double_share"] >= 0.12
    read = LeagueConfig(
        **{**cfg.model_dump(), "out": str(tmp_path / "read"), "policy_doubles": "read"}
    )
    exploit("models/default", read)
    log = [json.loads(line) for line in (tmp_path / "read" / "log.jsonl").read_text().splitlines()]
    assert [e["target_ignores_doubles"] for e in log] == [False, False]


def test_auction_is_recovered_from_the_observation() -> None:
    """Random legal auctions (passes likely): the decoder gives back every call in order."""
    from bridgebot.engine.features import (
        auction_from_observation,
        encode_arrays,
        legal_masks_arrays,
    )

    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(400):
        calls: list[int] = []
        for _ in range(int(rng.integers(0, 14))):
            m = legal_masks_arrays(np.array([[*calls, -1]]))[0]
            if not m.any():
                break
            p = m / m.sum() * 0.4
            p[0] += 0.6
            calls.append(int(rng.choice(38, p=p)))
        a = np.array([[*calls, -1]])
        if not legal_masks_arrays(a)[0].any():
            continue
        x = encode_arrays(
            np.zeros((1, 52), np.uint8), np.array([len(calls) % 4]), np.zeros(1, bool),
            np.zeros(1, bool), a,
        )  # fmt: skip
        assert auction_from_observation(x[0]) == calls
        checked += 1
    assert checked > 200


def test_bfg_in_the_league_bids_what_the_bfg_agent_bids() -> None:
    from bridgebot.engine.agent import BiddingView
    from bridgebot.laws.calls import legal_calls
    from bridgebot.laws.cards import owners_pbn
    from bridgebot.models.league.choosers import bfg_chooser
    from endplay.types import Deal

    from bridgebot.agents import make_agent

    owners, _ = _solved()
    b = len(owners)
    dealer = np.zeros(b, np.int64)
    auctions = np.tile(np.array([[ONE_NT, -1]]), (b, 1))
    x, mask = observe(owners, dealer, dealer, auctions, np.ones(b, np.int64))
    got = bfg_chooser()(np.arange(b), x, mask)
    agent = make_agent("bfg")
    for i in range(b):
        deal = Deal(owners_pbn(owners[i]))
        calls = (ALL_CALLS[ONE_NT],)
        v = BiddingView(Player.east, Player.north, Vul.none, deal[Player.east], calls, 1,
                        legal_calls(Player.north, calls))  # fmt: skip
        assert ALL_CALLS[got[i]] == agent.bid(v)


def test_the_slam_curriculum_draws_its_shares_and_prices_the_slams(tmp_path: Path) -> None:
    dd = str(small_dd(tmp_path / "dd.npz", 2100))
    slams = str(small_dd(tmp_path / "slams.npz", 40))
    cfg = LeagueConfig(
        init="models/default", dd=(dd,), slam_dd=(slams,), slam_frac=0.25, strong_frac=0.25,
        slam_weight=1.0, out=str(tmp_path / "run"), gens=1, learner_iters=2, exploiter_iters=1,
        deals_per_iter=64, eval_deals=32, minibatch=64, mix="self=1,init=1",
    )  # fmt: skip
    owners, dd_all, train_idx, _val = league_data(cfg.dd, cfg.eval_deals)
    owners2, _dd2, slam_idx, strong_idx = curriculum(owners, dd_all, train_idx, cfg)
    assert len(owners2) == len(owners) + 40 and slam_idx.tolist() == list(range(2100, 2140))
    assert np.isin(strong_idx, train_idx).all()
    deals = learner_deals(np.random.default_rng(1), cfg, train_idx, slam_idx, strong_idx)
    assert len(deals) == 64 and (deals >= 2100).sum() == 16
    assert np.isin(deals[48:], strong_idx).all()
    train_league(cfg, doubles=DOUBLES)
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    learn = [e for e in log if e["phase"] == "learn"]
    assert all({"chances", "bid", "made", "shortfall"} <= set(e["slams"]) for e in learn)
    done = next(e for e in log if e["phase"] == "learn-done")
    assert "slams_chances" in done["eval"]["vs_init"]
    with pytest.raises(LeagueError, match="--slam-deals"):
        curriculum(owners, dd_all, train_idx, cfg.model_copy(update={"slam_dd": ()}))


def test_the_field_bids_what_the_epbot_agent_bids(epbot: Path) -> None:  # noqa: F811
    """Rows seen from relative seats bid as the agent bids at the absolute seat, card per row."""
    from bridgebot.engine.agent import bidding_view
    from bridgebot.laws.cards import owners_deal
    from bridgebot.laws.deals import random_owners_batch
    from bridgebot.models.field import Field

    from bridgebot.agents import make_agent

    owners = random_owners_batch(7, 0, 24)
    b = len(owners)
    field = Field(["BBA-Sayc,Acol"])
    agents = [make_agent(f"epbot:{c},opponents={c}") for c in ("BBA-Sayc", "Acol")]
    for prefix in ([ONE_NT], [P, P, ONE_NT], [P], [ONE_NT, X], [3, P, 6, X, XX], []):
        dealer, vul = np.arange(b) % 4, (np.arange(b) // 2) % 4
        auctions = np.tile(np.array([[*prefix, -1]]), (b, 1))
        x, mask = observe(owners, dealer, vul, auctions, np.full(b, len(prefix)))
        pick = np.arange(b) % 2
        got = field.chooser(pick)(np.arange(b), x, mask)
        for i in range(b):
            calls = [ALL_CALLS[c] for c in prefix]
            first = Player(int(dealer[i]))
            hand = owners_deal(owners[i])[Player((dealer[i] + len(prefix)) % 4)]
            view = bidding_view(first, Vul(int(vul[i])), hand, calls, 1)
            assert ALL_CALLS[got[i]] == agents[pick[i]].bid(view), (prefix, i)
    assert field.illegal_calls == 0 and field.specs == ("epbot:BBA-Sayc", "epbot:Acol")
    field.close()


def test_the_field_needs_epbot_and_never_a_report_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bridgebot.cli import main

    argv = ["train", "league", "--init", "models/default", "--deals", str(tmp_path / "none.npz"),
            "--out", str(tmp_path / "run"), "--quiet"]  # fmt: skip
    monkeypatch.delenv("BRIDGEBOT_EPBOT", raising=False)
    assert main([*argv, "--mix", "self=1,field=1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--mix asks for field" in err and "set BRIDGEBOT_EPBOT" in err
    for cards in (
        ["--field", "BBA-Sayc,WBridge5-21GF"],
        ["--field", "Acol", "--field", "wbridge5_sayc"],
    ):
        assert main([*argv, "--mix", "self=1,field=1", *cards]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "are the report cards and stay out of every training run" in err
    with pytest.raises(ValueError, match="report cards"):
        LeagueConfig(init="x", dd=("x",), out="x", field=("WBridge5-Sayc",))
    with pytest.raises(ValueError, match="--convention: WBridge5-21GF is refused"):
        LeagueConfig(
            init="x", dd=("x",), out="x", convention="epbot:BBA-Sayc,opponents=WBridge5_21GF"
        )
    assert LeagueConfig(init="x", dd=("x",), out="x", field=("Acol,WJ",)).field == ("Acol", "WJ")
    assert not (tmp_path / "run").exists()


def test_a_league_with_the_field_resumes_after_a_kill(epbot: Path, tmp_path: Path) -> None:  # noqa: F811
    """The command killed mid-generation, then run again: it ends as one run would, the field
    played and recorded."""
    import os
    import signal
    import subprocess
    import sys
    import time

    dd = str(small_dd(tmp_path / "dd.npz", 2100))
    run = tmp_path / "run"
    command = [sys.executable, "-m", "bridgebot", "train", "league", "--init", "models/default",
               "--deals", dd, "--out", str(run), "--gens", "1", "--learner-iters", "4",
               "--exploiter-iters", "1", "--deals-per-iter", "16", "--eval-deals", "16",
               "--minibatch", "64", "--mix", "self=1,field=3", "--field", "BBA-Sayc,Acol,WJ",
               "--save-minutes", "0", "--quiet"]  # fmt: skip
    env = {**os.environ, "BRIDGEBOT_EPBOT": str(epbot)}
    errors = tmp_path / "stderr.txt"
    with errors.open("wb") as err:
        first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=err)
    log = run / "log.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and first.poll() is None:
        if log.exists() and '"phase": "learn", "it": 2' in log.read_text():
            break
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    assert first.wait() == -signal.SIGKILL, errors.read_text()
    assert '"learn-done"' not in log.read_text()  # killed mid-way
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    learn = [e for e in entries if e["phase"] == "learn"]
    assert sorted({e["it"] for e in learn}) == [1, 2, 3, 4]
    assert len(learn) < 6  # the rerun did not start over
    assert all(e["field_illegal_calls"] == 0 for e in learn)
    assert any("field" in e["imps_by_opponent"] for e in learn)
    meta = torch.load(run / "policy.pt", weights_only=False)["meta"]
    assert meta["opponents"] == ["self", "field", "epbot:BBA-Sayc", "epbot:Acol", "epbot:WJ"]
    assert meta["config"]["field"] == ["BBA-Sayc", "Acol", "WJ"]
    assert torch.load(run / "gen0.pt", weights_only=False)["meta"]["opponents"] == meta["opponents"]
    done_eval = next(e for e in entries if e["phase"] == "learn-done")["eval"]
    assert done_eval["vs_field"]["boards"] == done_eval["field_gain"]["boards"] == 16


def test_the_league_reads_each_generation_against_the_field(
    epbot: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the field in the mix, a generation's evaluation plays the validation deals against
    the training cards, and ``field_gain`` is the learner minus its start on the same deals and
    cards: a learner that has not moved (a learning rate of 1e-12) gains exactly nothing, while
    its own row against the field is a real match."""
    from bridgebot.cli import main
    from bridgebot.shipped import DEFAULT_MODEL_DIR

    monkeypatch.setenv("BRIDGEBOT_EPBOT", str(epbot))
    dd = str(small_dd(tmp_path / "dd.npz", 2100))
    run = tmp_path / "run"
    argv = ["train", "league", "--init", str(DEFAULT_MODEL_DIR), "--deals", dd, "--out", str(run),
            "--gens", "1", "--learner-iters", "1", "--exploiter-iters", "1", "--deals-per-iter",
            "16", "--eval-deals", "40", "--minibatch", "64", "--mix", "self=1,field=1",
            "--field", "Acol,WJ", "--lr", "1e-12", "--quiet"]  # fmt: skip
    assert main(argv) == 0
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    res = next(e for e in log if e["phase"] == "learn-done")["eval"]
    assert res["field_gain"] == {"boards": 40.0, "imps_per_board": 0.0, "stderr": 0.0}
    assert res["vs_field"]["boards"] == 40.0 and res["vs_field"]["stderr"] > 0
    saved = torch.load(run / "gen0.pt", weights_only=False)["meta"]["eval"]
    assert saved["vs_field"] == res["vs_field"]


def test_the_command_line_hands_the_league_the_shipped_penalty_double_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bridgebot train league`` from any directory: the composition root finds the doubling
    opponents' model (bridgebot/shipped.py) and hands it down; the library finds none itself."""
    from bridgebot.cli import main
    from bridgebot.shipped import DEFAULT_MODEL_DIR

    dd = str(small_dd(tmp_path / "dd.npz", 2100))
    monkeypatch.chdir(tmp_path)
    argv = ["train", "league", "--init", str(DEFAULT_MODEL_DIR), "--deals", dd, "--out", "run",
            "--gens", "1", "--learner-iters", "1", "--exploiter-iters", "1", "--deals-per-iter",
            "16", "--eval-deals", "32", "--minibatch", "64", "--mix", "selfx=1", "--quiet"]  # fmt: skip
    assert main(argv) == 0
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    learn = next(e for e in log if e["phase"] == "learn")
    assert set(learn["imps_by_opponent"]) == {"selfx"}
