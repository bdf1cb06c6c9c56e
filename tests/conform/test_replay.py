"""The golden transcripts through the kit's checkers: what real programs said passes.

The kit's expectations are written from docs/protocol.md, not from our table and seat
machines; these replays are the check that they agree with the protocol as ComputerBridge's
table manager and clients (6.1) and WBridge5 (6.2) speak it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bridgebot.conform.replay import replay_seat, replay_tm

PEERS = Path(__file__).parent.parent / "peers"
GOLDEN_61 = PEERS / "transcript_6_1.txt"
GOLDEN_62 = PEERS / "transcript_6_2.txt"


def test_the_table_manager_of_6_1_passes_every_check_without_a_warning() -> None:
    record = replay_tm(GOLDEN_61)
    statuses = {r.rule: r.status for r in record.results()}
    assert set(statuses.values()) == {"pass"}, statuses
    # the board exercises the relays, the alert, dummy's lead and the end of the session
    for rule in (
        "tm.call-relay",
        "tm.alert",
        "tm.to-lead",
        "tm.dummy-cards",
        "tm.card-relay",
        "tm.timing",
        "tm.end-of-session",
        "tm.deal",
    ):
        assert statuses[rule] == "pass", rule
    to_lead = next(r for r in record.results() if r.rule == "tm.to-lead")
    assert to_lead.checks == 13


@pytest.mark.parametrize("seat", ["North", "East", "South", "West"])
def test_each_seat_of_6_1_passes_every_check(seat: str) -> None:
    record = replay_seat(GOLDEN_61, seat)
    statuses = {r.rule: r.status for r in record.results()}
    assert set(statuses.values()) == {"pass"}, statuses
    assert statuses["seat.ready-for-card"] == "pass"
    if seat != "North":  # North is dummy
        assert statuses["seat.card-legal"] == "pass"
        assert statuses["seat.ready-for-dummy"] == "pass"


def test_wbridge5_in_6_2_passes_with_warnings_for_its_capitals() -> None:
    record = replay_seat(GOLDEN_62, "East")
    statuses = {r.rule: r.status for r in record.results()}
    assert "fail" not in statuses.values(), statuses
    assert statuses["seat.case"] == "warn"  # EAST PASSES, plays 9s: tolerated by every table
    assert statuses["seat.card-legal"] == "pass"  # East declares and plays dummy's cards
    card = next(r for r in record.results() if r.rule == "seat.card")
    assert card.checks == 26


def test_the_openspiel_wrapper_in_6_2_fails_what_ben_and_bridge_env_reject() -> None:
    """The table side of 6.2 relays WBridge5's capitals as they came: Ben would stop."""
    record = replay_tm(GOLDEN_62)
    failed = set(record.failed_rules())
    assert {"tm.relay-case", "tm.cards", "tm.dummy-cards"} <= failed
    relay = next(r for r in record.results() if r.rule == "tm.relay-case")
    assert relay.findings[0].line == "NORTH PASSES"
    assert relay.findings[0].expected == "North passes"


def test_docs_conformance_lists_every_rule_with_its_protocol_section() -> None:
    """docs/conformance.md's table is the catalogue of report.py, and every section a rule
    cites exists in docs/protocol.md."""
    import re

    from bridgebot.conform.report import RULES

    from tests.test_docs import protocol_sections

    text = (Path(__file__).parent.parent.parent / "docs" / "conformance.md").read_text()
    rows = dict(
        re.findall(r"^\| `((?:tm|seat)\.[a-z-]+)`(?: \(warn\))? \| ([^|]+) \|", text, flags=re.M)
    )
    assert sorted(rows) == sorted(RULES)
    sections = protocol_sections()
    for name, rule in RULES.items():
        for cited in re.findall(r"\d+(?:\.\d+)?", rule.section.split(" rule ")[0]):
            assert cited in sections, (name, cited)
        assert rows[name].strip() == rule.section.replace(" rule 4", "").replace(" rule 2", ""), (
            name
        )


def test_the_kit_imports_none_of_our_protocol_machines() -> None:
    """A kit built on protocol/table.py or protocol/seat.py (or the codec they share) would pass
    the project by construction: the kit may use the laws of bridge and byte framing only."""
    import ast

    allowed_protocol = {"bridgebot.protocol.framing", "bridgebot.protocol.errors"}
    kit = Path(__file__).parent.parent.parent / "conform"
    found: dict[str, set[str]] = {}
    for path in sorted(kit.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                if name.startswith("bridgebot."):
                    found.setdefault(path.name, set()).add(name)
    used = {n for names in found.values() for n in names}
    assert {n for n in used if n.startswith("bridgebot.protocol")} <= allowed_protocol
    outside = {
        n
        for n in used
        if not n.startswith(("bridgebot.conform", "bridgebot.laws", "bridgebot.protocol"))
    }
    # the command's logging set-up and the argparse type of every --seed
    assert outside == {"bridgebot.core.logs", "bridgebot.core.argtypes"}
