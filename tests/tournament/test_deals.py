"""Deal sets: the npz layout, PBN files, seeded deals with rotating dealer/vulnerability, DD cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bridgebot.tournament.deals import (
    DealSourceError,
    ensure_dd,
    generate,
    load_deals,
    load_npz,
    load_pbn,
    owners_to_pbn,
    pbn_to_owners,
)
from endplay.types import Deal, Player, Vul

RANKS = "AKQJT98765432"


def test_owners_layout_matches_the_data_readme() -> None:
    owners = np.array([(s * 13 + r) % 4 for s in range(4) for r in range(13)], dtype=np.uint8)
    # The README's own decoding, written out independently.
    hands = [".".join("".join(RANKS[r] for r in range(13) if owners[s * 13 + r] == seat)
                      for s in range(4)) for seat in range(4)]  # fmt: skip
    assert owners_to_pbn(owners) == "N:" + " ".join(hands)
    assert pbn_to_owners(owners_to_pbn(owners)).tolist() == owners.tolist()
    # A deal given from another first seat maps to the same owners.
    assert pbn_to_owners(Deal(owners_to_pbn(owners)).to_pbn()).tolist() == owners.tolist()


def test_generated_deals_rotate_dealer_and_vulnerability() -> None:
    deals = generate(seed=4, boards=17)
    assert generate(seed=4, boards=17) == deals
    assert [d.dealer for d in deals[:5]] == [
        Player.north,
        Player.east,
        Player.south,
        Player.west,
        Player.north,
    ]
    assert [d.vul for d in deals[:4]] == [Vul.none, Vul.ns, Vul.ew, Vul.both]
    assert deals[16].vul == Vul.none and deals[16].board == 17  # the cycle starts again
    for d in deals:
        assert sorted(len(d.deal()[p]) for p in Player) == [13, 13, 13, 13]
    assert len({d.pbn for d in deals}) == 17


def test_pbn_file_keeps_its_tags_and_reports_bad_files(tmp_path: Path) -> None:
    deal = generate(seed=1, boards=1)[0].pbn
    path = tmp_path / "two.pbn"
    path.write_text(
        f'[Board "1"]\n[Dealer "W"]\n[Vulnerable "All"]\n[Deal "{deal}"]\n\n'
        f'[Board "2"]\n[Dealer "S"]\n[Vulnerable "None"]\n[Deal "{deal}"]\n'
    )
    boards = load_pbn(path)
    assert [(b.board, b.dealer, b.vul) for b in boards] == [
        (1, Player.west, Vul.both), (2, Player.south, Vul.none),
    ]  # fmt: skip
    assert Deal(boards[0].pbn) == Deal(deal)
    with pytest.raises(DealSourceError, match=r"two.pbn: 3 boards asked for, 2 in the file"):
        load_pbn(path, boards=3)
    with pytest.raises(DealSourceError, match=r"nope.npz: no such deal file"):
        load_deals(deals=tmp_path / "nope.npz")
    bad = tmp_path / "bad.npz"
    np.savez(bad, something=np.zeros(3))
    with pytest.raises(DealSourceError, match=r"bad.npz: not a DD deal file"):
        load_npz(bad)


def test_ensure_dd_solves_once_and_caches(tmp_path: Path, solved_npz: Path) -> None:
    stored = load_npz(solved_npz, boards=2)
    plain = [type(d)(d.board, d.dealer, d.vul, d.pbn) for d in stored]
    cache = tmp_path / "cache.npz"
    solved = ensure_dd(plain, cache=cache, workers=1)
    assert [d.dd.tolist() for d in solved] == [d.dd.tolist() for d in stored]  # type: ignore[union-attr]
    # The cache is in the npz format of docs/data.md and answers without the solver next time.
    assert [d.board for d in load_npz(cache)] == [1, 2]
    cached = {owners_to_pbn(row): dd for row, dd in zip(*np.load(cache).values(), strict=True)}
    cached[stored[0].pbn][:] = 0  # a poisoned cache proves the second call reads it
    np.savez(
        cache,
        owners=np.stack([pbn_to_owners(k) for k in cached]),
        dd=np.stack(list(cached.values())),
    )
    again = ensure_dd(plain[:1], cache=cache, workers=1)
    assert again[0].dd is not None and int(again[0].dd.sum()) == 0
