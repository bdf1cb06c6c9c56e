"""The docker files only reference things that exist: commands, options, agents, source paths."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from bridgebot.agents import AgentSpec, known_agents
from bridgebot.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "docker" / "Dockerfile"
COMPOSE = ROOT / "docker" / "compose.yaml"


def _compose_commands() -> list[list[str]]:
    lines = re.findall(r"^\s*command:\s*(\[.*\])\s*$", COMPOSE.read_text(), flags=re.M)
    return [json.loads(line) for line in lines]


def test_compose_starts_a_table_manager_and_four_seats() -> None:
    commands = _compose_commands()
    assert [c[0] for c in commands] == ["tm", "seat", "seat", "seat", "seat"]
    seats = sorted(c[c.index("--seat") + 1] for c in commands if c[0] == "seat")
    assert seats == ["East", "North", "South", "West"]
    port = commands[0][commands[0].index("--port") + 1]
    assert all(c[c.index("--port") + 1] == port for c in commands[1:])
    assert re.search(rf'"{port}:{port}"', COMPOSE.read_text())


@pytest.mark.parametrize("argv", _compose_commands(), ids=lambda a: " ".join(a[:1] + a[-8:-6]))
def test_compose_commands_parse_with_the_real_cli(argv: list[str]) -> None:
    assert argv[0] in COMMANDS
    args = build_parser(only=argv[0]).parse_args(argv)  # exits on an unknown option
    if argv[0] == "seat":
        assert AgentSpec.parse(args.agent).name in known_agents()


def test_dockerfile_entry_point_and_sources() -> None:
    text = DOCKERFILE.read_text()
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    entry = json.loads(re.search(r"^ENTRYPOINT (\[.*\])$", text, flags=re.M).group(1))  # type: ignore[union-attr]
    assert entry[0] in scripts
    for source in re.findall(r"^COPY (.+) \S+$", text, flags=re.M):
        for path in source.split():
            assert (ROOT / path).exists(), f"Dockerfile copies missing {path}"
    # A runtime image: the train extra (torch) is never installed.
    instructions = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))
    assert "torch" not in instructions
    assert "[train" not in instructions and "[dev" not in instructions
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", text, flags=re.M).group(1))  # type: ignore[union-attr]
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(cmd)
    assert exc.value.code == 0


def test_dockerignore_keeps_the_venv_and_outputs_out_of_the_build_context() -> None:
    patterns = {
        line.strip().rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for path in (".venv", ".git", "out", "data", "runs", "**/node_modules", "**/__pycache__"):
        assert path in patterns, f".dockerignore does not exclude {path}"
    copied = {p for src in re.findall(r"^COPY (.+) \S+$", DOCKERFILE.read_text(), flags=re.M)
              for p in src.split()}  # fmt: skip
    assert not copied & patterns  # nothing the image needs is ignored


def _service(name: str) -> str:
    """The text of one service of compose.yaml (up to the next service)."""
    text = COMPOSE.read_text().split("\nservices:\n", 1)[1]
    blocks = re.split(r"^  (?=[\w-]+:\s*$)", text, flags=re.M)
    return next(b for b in blocks if b.startswith(f"{name}:"))


def test_compose_publishes_on_loopback_or_with_allow_lists() -> None:
    tm_command = _compose_commands()[0]
    ports = re.findall(r"^\s*ports:\s*(\[.*\])\s*$", COMPOSE.read_text(), flags=re.M)
    published = [entry for line in ports for entry in json.loads(line)]
    assert published
    for entry in published:
        loopback = entry.startswith("127.0.0.1:")
        assert loopback or "--allow-address" in tm_command, entry
    assert "--allow-team" in tm_command


def test_compose_bind_mount_is_handed_to_the_image_user_first() -> None:
    uid = re.search(r"useradd .*--uid (\d+) (\w+)", DOCKERFILE.read_text())
    assert uid is not None and uid.group(2) == "bridge"
    user = re.search(r"^USER (\w+)$", DOCKERFILE.read_text(), flags=re.M)
    assert user is not None and user.group(1) == "bridge"  # the table manager runs as bridge
    owner = _service("volume-owner")
    assert "user: root" in owner
    entry = json.loads(re.search(r"entrypoint:\s*(\[.*\])", owner).group(1))  # type: ignore[union-attr]
    mount = re.search(r'volumes: \["(\S+):(\S+)"\]', owner)
    assert mount is not None
    assert entry == ["chown", "-R", f"{uid.group(1)}:{uid.group(1)}", mount.group(2)]
    tm = _service("tm")
    assert f'volumes: ["{mount.group(1)}:{mount.group(2)}"]' in tm
    assert re.search(r"volume-owner: \{condition: service_completed_successfully\}", tm)
    out = _compose_commands()[0]
    assert out[out.index("--out") + 1].startswith(mount.group(2) + "/")
