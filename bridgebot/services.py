"""What the composition root hands the commands: the agents, their marks, the double-dummy match
the trainers evaluate by, and the command's own words (:class:`Services`).

A command below the root (the seat client, matches, tournaments, the trainers) may not import
what an agent is made of, so the root builds the services and passes them to the command's
``run(args, services)``, a typed argument each part declares as a protocol of what it reads
(``server.seat_cli.SeatServices``, ``tournament.match_cli.MatchServices``,
``models.cli.TrainServices``); before, they travelled as attributes of the argparse namespace,
which neither a reader nor a type checker could follow.

:class:`AgentBuilder` is the one agent factory (:class:`engine.agent.AgentFactory`) of a
process: it parses each spec text once and builds a new agent on every call (each seat holds its
own seed and board state), while the model files those agents read are opened once per process
(``engine.modelcard.read_model_file``; onnxruntime sessions are shared).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bridgebot.engine.agent import Agent
    from bridgebot.laws.boards import BoardDeal
    from bridgebot.models.selfplay import DDMatch
    from bridgebot.specs import AgentSpec
    from bridgebot.tournament.records import AgentMarks


class AgentBuilder:
    """Builds the agent a spec names (:func:`bridgebot.agents.make_agent`), each spec text parsed
    once in this process (:meth:`spec`); the engine is imported on the first agent, so a command
    that builds none (``tm``) never loads it. Pickles with the specs it parsed (a worker process
    of a match gets them with the factory)."""

    def __init__(self) -> None:
        self._specs: dict[str, AgentSpec] = {}

    def spec(self, text: str) -> AgentSpec:
        """``text`` parsed (:meth:`AgentSpec.parse`), once per text; :class:`AgentSpecError` says
        what is wrong, and is raised again on the next call (a spec that fails is not kept)."""
        found = self._specs.get(text)
        if found is None:
            from bridgebot.specs import AgentSpec

            found = self._specs[text] = AgentSpec.parse(text)
        return found

    def __call__(self, spec: str, seed: int = 0) -> Agent:
        """A new agent of ``spec`` with ``seed`` (unless the spec sets ``seed=``); the caller
        owns it (a context manager)."""
        from bridgebot.agents import make_agent

        return make_agent(self.spec(spec), seed)

    def marks(self, spec: str) -> AgentMarks:
        """What identifies the agent ``spec`` builds (:func:`bridgebot.marks.agent_marks`: every
        setting, and every file and package its builder reads), for a match journal's header
        and a tournament's entrants."""
        from bridgebot.marks import agent_marks

        return agent_marks(self.spec(spec))

    def dd_match(self, us: str, them: str, deals: Sequence[BoardDeal]) -> list[int]:
        """``us`` against ``them`` on ``deals``, a double-dummy team match
        (:func:`tournament.ddmatch.run_dd_match`) with these agents: ``us``'s IMPs on each
        board (a :class:`models.selfplay.DDMatch`: the trainers evaluate a network by it, so
        ``models`` never imports the tournament)."""
        from bridgebot.tournament.ddmatch import run_dd_match

        return run_dd_match(us, them, deals, make_agent=self).imps


@dataclass(frozen=True)
class Services:
    """What a command's ``run(args, services)`` gets from the composition root (:meth:`of`)."""

    make_agent: AgentBuilder
    """The agent factory (:class:`engine.agent.AgentFactory`)."""
    agent_marks: Callable[[str], AgentMarks]
    """A spec's marks (:meth:`AgentBuilder.marks`), for match journals and tournaments."""
    dd_match: DDMatch
    """The double-dummy match the trainers evaluate a network by (:meth:`AgentBuilder.dd_match`)."""
    invocation: tuple[str, ...] = ()
    """The command's words as typed (``bridgebot.cli.main``'s argv, not this process's: a test
    or a script may call ``main`` itself), for the records that name the command."""

    @classmethod
    def of(cls, invocation: Sequence[str] = ()) -> Services:
        """The services of one process's command, over one :class:`AgentBuilder`."""
        agents = AgentBuilder()
        return cls(agents, agents.marks, agents.dd_match, tuple(invocation))
