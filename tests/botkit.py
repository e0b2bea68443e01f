"""Test support for the bot: a deterministic decider, a fake connection, board lines.

Imported by the bot's tests (conftest: pytest puts this folder on the import path).
"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass, field

from bot import clip
from bot.config import BotConfig, load
from bot.fibsboard import FibsBoard
from bot.player import Player
from bot.session import Opener, Reader, Writer
from engine.match import MatchState
from engine.position import Move, Position


@dataclass(frozen=True)
class Choice:
    move: Move


@dataclass(frozen=True)
class Cube:
    should_double: bool
    should_take: bool


@dataclass
class FakeDecider:
    """Plays the first legal move; doubles and takes by the pip counts (so that matches
    see doubles, takes and drops); resigns a hopeless race. ``hang`` names decisions
    that block for ``hang_s`` (a stuck engine); ``calls`` counts decisions."""

    double_lead: float = 0.25
    take_lead: float = 0.35
    resign: bool = True
    accept_resignations: bool = True
    forced: dict[str, object] = field(default_factory=dict)
    hang: set[str] = field(default_factory=set)
    hang_s: float = 5.0
    calls: list[str] = field(default_factory=list)

    def _enter(self, what: str) -> object | None:
        self.calls.append(what)
        if what in self.hang:
            time.sleep(self.hang_s)
        return self.forced.get(what)

    def best_move(self, position: Position, dice: tuple[int, int], match: MatchState | None = None,
                  level: str = "expert") -> Choice:
        forced = self._enter("move")
        return Choice(forced if isinstance(forced, Move) else position.legal_moves(*dice)[0])

    def cube_decision(self, position: Position, match: MatchState | None = None, level: str = "expert") -> Cube:
        forced = self._enter("cube")
        if isinstance(forced, Cube):
            return forced
        mine, theirs = position.pip_counts()
        lead = (theirs - mine) / max(theirs, 1)
        return Cube(lead > self.double_lead, lead < self.take_lead)

    def resign_offer(self, position: Position, match: MatchState | None = None, level: str = "expert",
                     declined: int = 0) -> int:
        forced = self._enter("resign")
        if isinstance(forced, int):
            return forced
        mine, theirs = position.off()
        return 1 if self.resign and theirs >= 14 and mine == 0 and position.is_race() else 0

    def accept_resignation(self, position: Position, match: MatchState | None, level: str, value: int) -> bool:
        forced = self._enter("accept")
        return forced if isinstance(forced, bool) else self.accept_resignations


class FakeLink:
    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed = False

    def send(self, command: str) -> None:
        self.sent.append(command)

    def close(self) -> None:
        self.closed = True

    def take(self) -> list[str]:
        sent, self.sent = self.sent, []
        return sent


def config(tmp: object, **sections: dict[str, object]) -> BotConfig:
    """The shipped config/bot.yaml with records under ``tmp`` and some sections changed."""
    data = load().model_dump()
    data["records"].update(dir=f"{tmp}/records", transcript=f"{tmp}/logs/{{user}}.log", ledger=f"{tmp}/ledger.jsonl")
    data["account"]["user"] = "GnuBot"
    for name, values in sections.items():
        data[name].update(values)
    return BotConfig.model_validate(data)


OWN_INFO = "2 GnuBot 1 1 0 0 0 0 1 1 2396 0 1 0 1 1650.00 0 1 0 0 1 UTC"


class Dialogue:
    """A player on a fake link: feed server lines, read the commands it sent."""

    def __init__(self, cfg: BotConfig, decider: FakeDecider | None = None, **kwargs: object) -> None:
        self.decider = decider or FakeDecider()
        self.player = Player(cfg, self.decider, **kwargs)  # type: ignore[arg-type]
        self.link = FakeLink()
        self.player.attach(self.link)

    async def login(self) -> list[str]:
        self.player.on_login("GnuBot", clip.parse(OWN_INFO))  # type: ignore[arg-type]
        return await self.say()

    async def say(self, *lines: str, settle: bool = True) -> list[str]:
        """Feed ``lines``, let every decision finish, return the commands sent.

        ``settle=False`` when the bot is expected to wait for the server's next line."""
        for line in lines:
            for event in clip.parse_all(line):
                self.player.handle(event)
            await asyncio.sleep(0)
        if settle:
            await asyncio.wait_for(self.player.settle(), 10)
        else:
            for _ in range(20):
                await asyncio.sleep(0.001)
        return self.link.take()


def board(position: Position, *, score: tuple[int, int] = (0, 0), length: int = 3, cube: int = 1,
          owner: int = -1, turn: int = 1, dice: tuple[int, int] | None = None, doubled: bool = False,
          colour: int = 1, opponent: str = "bob", crawford: bool = False, over: bool = False) -> str:
    """A board line for us ("You", player 1 = ``position.board[1]``); ``turn`` 1 = ours.

    ``score`` is (ours, theirs)."""
    state = MatchState(length=length, score=(score[1], score[0]), cube=cube, cube_owner=owner,
                       on_roll=turn if not doubled else 1 - turn, turn=turn, dice=dice, doubled=doubled,
                       crawford_game=crawford, jacoby=False, game_state=3 if over else 1)
    return FibsBoard.from_state(position, state, player="You", opponent=opponent, colour=colour).format()


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cuttable:
    """An opener whose current connection the test can cut."""

    def __init__(self, opener: Opener) -> None:
        self.opener = opener
        self.writer: Writer | None = None

    async def __call__(self) -> tuple[Reader, Writer]:
        reader, self.writer = await self.opener()
        return reader, self.writer

    def cut(self) -> None:
        assert self.writer is not None
        self.writer.close()
