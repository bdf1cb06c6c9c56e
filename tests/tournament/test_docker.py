"""The docker files only reference things that exist: commands, options, agents, source paths."""

from __future__ import annotations

import json
import re
import shlex
import socket
import subprocess
import sys
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


def _instructions() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    return [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def _source_roots() -> set[str]:
    """What ``pip install`` of the project reads: every package folder's top directory, the
    readme and the license files."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    dirs = meta["tool"]["setuptools"]["package-dir"].values()
    return (
        {d.split("/")[0] for d in dirs}
        | {meta["project"]["readme"]}
        | set(meta["project"].get("license-files", []))
    )


def test_dependencies_are_installed_before_the_sources_are_copied() -> None:
    """Issue 44: the sources were copied before the one ``pip install .``, so every change to
    them reinstalled all the dependencies. Now a layer of the dependencies alone, read from
    pyproject.toml, comes first and the package is installed without them."""
    steps = _instructions()
    copies = [i for i, s in enumerate(steps) if s.startswith("COPY ")]
    sources = [
        i for i in copies if set(steps[i].split()[1:-1]) & (_source_roots() - {"pyproject.toml"})
    ]
    deps = next(i for i, s in enumerate(steps) if s.startswith("RUN ") and "pip install -r" in s)
    assert all(steps[i].split()[1:-1] == ["pyproject.toml"] for i in copies if i < deps)
    assert deps < min(sources)
    install = next(s for s in steps[min(sources) :] if s.startswith("RUN ") and "pip install" in s)
    assert "--no-deps" in install
    # The requirements that layer installs are exactly the project's (and its build backend's).
    code = re.search(r'python -c "(.+?)"\s+>', steps[deps]).group(1)  # type: ignore[union-attr]
    code = code.replace("/tmp/pyproject.toml", str(ROOT / "pyproject.toml"))
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout.split()  # fmt: skip
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert printed == meta["build-system"]["requires"] + meta["project"]["dependencies"]


def test_every_source_is_copied_and_no_copy_stays_in_the_image() -> None:
    """What ``pip install`` needs is copied (the license file was not, once pyproject named it),
    and the copy is removed by the step that installs it: no second copy in /app."""
    steps = _instructions()
    copied: dict[str, str] = {}
    for step in steps:
        if step.startswith("COPY "):
            *sources, dest = step.split()[1:]
            copied.update({s: dest for s in sources})
    assert _source_roots() <= set(copied), _source_roots() - set(copied)
    install = next(s for s in steps if s.startswith("RUN ") and "--no-deps" in s)
    src = re.search(r"pip install .*--no-deps\S* .*?(/\S+)", install).group(1)  # type: ignore[union-attr]
    assert f"rm -rf {src}" in install
    for source in _source_roots() - {"pyproject.toml"}:
        assert copied[source].startswith(src), (source, copied[source])
    assert not [s for s in steps if s.startswith("WORKDIR") and s.split()[1] in ("/app", src)]


def _header_commands() -> list[list[str]]:
    """The ``docker run`` examples of the Dockerfile's header, as argv lists."""
    header = []
    for line in DOCKERFILE.read_text().splitlines():
        if not line.startswith("#"):
            break
        header.append(line[1:].strip())
    text = re.sub(r"\\\n", " ", "\n".join(header))
    runs = [re.split(r"\s{2,}\(", ln)[0] for ln in text.splitlines() if ln.startswith("docker run")]
    return [shlex.split(r) for r in runs]


def test_header_examples_keep_their_output_and_listen_where_the_image_says() -> None:
    """Issue 44: ``--out /tmp/m`` under ``--rm`` threw the results away, and ``tm`` listened on
    127.0.0.1 on a random port despite ``EXPOSE 2000``. Every example's command parses with the
    real command line, every ``--out`` lies in a volume, and ``tm`` listens on every address on
    the exposed port, published."""
    text = DOCKERFILE.read_text()
    expose = re.search(r"^EXPOSE (\d+)$", text, flags=re.M).group(1)  # type: ignore[union-attr]
    commands = _header_commands()
    assert {"match", "tm"} <= {c[c.index("bridgebot") + 1] for c in commands if "bridgebot" in c}
    for argv in commands:
        image = argv.index("bridgebot")
        docker, command = argv[:image], argv[image + 1 :]
        if command[0] != "--help":
            build_parser(only=command[0]).parse_args(command)  # exits on a mistake
        volumes = [docker[i + 1].split(":") for i, a in enumerate(docker) if a == "-v"]
        if "--out" in command:
            out = command[command.index("--out") + 1]
            assert any(out.startswith(inside + "/") for _, inside in volumes), argv
            assert all(not name.startswith(("/", ".", "$")) for name, _ in volumes), argv
        if command[0] == "tm":
            assert command[command.index("--host") + 1] == "0.0.0.0"
            assert command[command.index("--port") + 1] == expose
            ports = [docker[i + 1] for i, a in enumerate(docker) if a == "-p"]
            assert any(p.endswith(f":{expose}") for p in ports), argv
    # A bind mount instead of a volume must be writable by the image's user: the header says so.
    uid = re.search(r"useradd .*--uid (\d+)", text).group(1)  # type: ignore[union-attr]
    assert f"uid {uid}" in text and f"chown {uid}" in text


def test_the_default_command_needs_no_optional_extra(tmp_path: Path) -> None:
    """Issue 44: the image (no torch) answered its default command, ``--help``, with exit 2 and
    "needs the 'train' extra"; CI installs torch, so the check runs where importing it fails."""
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", DOCKERFILE.read_text(), flags=re.M).group(1))  # type: ignore[union-attr]
    code = ("import sys; sys.modules['torch'] = sys.modules['ray'] = None\n"
            "from bridgebot.cli import main\nsys.exit(main(sys.argv[1:]))")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code, *cmd], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.startswith("usage: bridgebot")


def test_services_of_the_built_image_never_pull_it() -> None:
    """Issue 44: services naming only ``image: bridgebot:latest`` tried to pull it from a
    registry before the build."""
    text = COMPOSE.read_text()
    anchors = re.findall(r"^x-[\w-]+: &(\w+)\n((?:  .*\n)+)", text, flags=re.M)
    blocks = {f"<<: *{name}": body for name, body in anchors}
    services = re.split(r"^  (?=[\w-]+:\s*$)", text.split("\nservices:\n", 1)[1], flags=re.M)
    for service in filter(None, services):
        body = service + "".join(b for ref, b in blocks.items() if ref in service)
        if "image: bridgebot:latest" in body and "build:" not in body:
            assert "pull_policy: never" in body, service.split(":")[0]


def test_table_manager_healthcheck_connects_to_its_port() -> None:
    """The healthcheck is a TCP connect to the table manager's port, and the seats wait for it.
    Its probe runs here: it passes against a listening port and fails against a closed one."""
    tm = _service("tm")
    probe = json.loads(re.search(r"^\s*test:\s*(\[.*\])\s*$", tm, flags=re.M).group(1))  # type: ignore[union-attr]
    assert probe[:3] == ["CMD", "python", "-c"]
    port = _compose_commands()[0][_compose_commands()[0].index("--port") + 1]
    assert f", {port})" in probe[3]
    with socket.create_server(("127.0.0.1", 0)) as server:
        free = str(server.getsockname()[1])
        code = probe[3].replace(f", {port})", f", {free})")
        assert subprocess.run([sys.executable, "-c", code], timeout=30).returncode == 0
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30).returncode
    seat = COMPOSE.read_text().split("x-seat:", 1)[1].split("\nservices:", 1)[0]
    assert re.search(r"tm: \{condition: service_healthy\}", seat)
