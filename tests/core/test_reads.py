"""The recorder of what code reads (``core.files.recording_reads``), which an agent's marks are
made of: each reader reports the files it read, with the sha256 of the bytes, and only while a
recorder watches; the readers outside ``engine.modelcard`` report too (EPBot's convention cards
and library, the penalty-double model)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from bridgebot.core.files import file_sha256, note_file, note_read, recording_reads
from bridgebot.engine.doubles import DoublesModel
from bridgebot.engine.epbot_cards import read_convention_card
from bridgebot.engine.modelcard import forget_model_files, read_model_file

from bridgebot.shipped import PENALTY_DOUBLES, shipped_model


def test_a_recorder_collects_what_is_reported_inside_it_only(tmp_path: Path) -> None:
    a, b = tmp_path / "a.bin", tmp_path / "b.so"
    a.write_bytes(b"one")
    b.write_bytes(b"native")
    note_read(a, b"ignored: nobody watches")
    with recording_reads() as reads:
        note_read(a, b"one")
        note_file(b)
    note_read(b, b"after")
    assert reads.files == {
        a.resolve(): hashlib.sha256(b"one").hexdigest(),
        b.resolve(): file_sha256(b),
    }
    assert reads.packages == {}


def test_a_model_file_read_from_the_cache_is_still_reported(tmp_path: Path) -> None:
    forget_model_files()
    card = shipped_model("ddnet") / "model.json"
    first = read_model_file(card)
    with recording_reads() as reads:
        assert read_model_file(card) is first  # kept: not opened again
    assert reads.files == {card.resolve(): file_sha256(card)}
    copy = tmp_path / "model.json"
    copy.write_bytes(card.read_bytes())
    assert read_model_file(copy).sha256 == first.sha256
    copy.write_bytes(card.read_bytes() + b"\n")  # the same path, another file: read again
    assert read_model_file(copy).sha256 == file_sha256(copy) != first.sha256


def test_the_convention_cards_and_the_penalty_double_model_are_reported(tmp_path: Path) -> None:
    card = tmp_path / "Mine.bbsa"
    card.write_text("System type = 0\nStayman = 1\n")
    with recording_reads() as reads:
        assert read_convention_card(card).conventions == (("Stayman", True),)
        DoublesModel.load(PENALTY_DOUBLES)
    assert reads.files == {
        card.resolve(): file_sha256(card),
        PENALTY_DOUBLES.resolve(): file_sha256(PENALTY_DOUBLES),
    }
