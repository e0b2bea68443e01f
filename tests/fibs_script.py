"""A minimal scripted FIBS client for the server tests, written from FIBS's CLIP documentation
(E. McLean, "FIBS Client Protocol Detailed Specification") and FIBS's texts alone.

:class:`Client` logs in over a plain asyncio stream and reads lines (and the
unterminated ``login: `` prompt). :class:`MatchPlayer` plays a match with
moves drawn uniformly from the engine's legal plays, doubles, takes and
resigns at random (seeded), and checks every line against the protocol as it
goes: each line must be one FIBS sends at that moment, board lines
must agree with the roll or move announced just before, point counts with
the cube, scores with the points won. Anything else fails the test.
"""

from __future__ import annotations

import asyncio
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.fibsboard import FibsBoard, move_command, parse, parse_move_line
from bot.server import FibsServer

WHO = re.compile(r"[5678]( .*)?")  # who / login / logout lines come at any time
ASYNC = re.compile(r"[5678]( .*)?|1[2-9] .*|20 .*|\S+ (?:is|stops) watching you\.")
"""Lines that may arrive at any moment: who, login/logout, chat, watchers coming and going."""
TIMEOUT_S = 60.0
"""Only a stuck guard: a busy machine may be slow, and a test must not fail for it."""


class ProtocolError(AssertionError):
    """The server sent something FIBS would not send here."""


class Dropped(Exception):
    """The player cut its own connection, as asked (``drop_after_moves``)."""


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, name: str) -> None:
        self.reader, self.writer, self.name = reader, writer, name
        self.transcript: list[str] = []
        """Every line received after login (prompts included)."""
        self._buffer = b""

    @classmethod
    async def connect(cls, port: int, name: str, password: str = "secret", *, client: str = "scripted") -> Client:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        self = cls(reader, writer, name)
        while await self.line() != "login: ":
            pass
        await self.send(f"login {client} 1008 {name} {password}")
        seen_own_info = False
        while True:  # 1, 2, 3 MOTD 4, 9s, the who burst, 6
            line = await self.line()
            seen_own_info = seen_own_info or line.startswith(f"2 {name} ")
            if line == "login: ":
                raise ProtocolError(f"login of {name} refused")
            if seen_own_info and line.rstrip() == "6":  # JIBS pads it
                break
        self.transcript.clear()
        return self

    async def send(self, line: str) -> None:
        self.writer.write(line.encode() + b"\r\n")
        await self.writer.drain()

    async def _read(self, timeout: float) -> bytes:
        """More bytes; a timeout names the client and shows what it saw last (the log of a stuck run)."""
        try:
            return await asyncio.wait_for(self.reader.read(65536), timeout)
        except TimeoutError:
            tail = "\n  ".join(self.transcript[-20:])
            raise TimeoutError(f"{self.name}: nothing for {timeout:g} s after {self._buffer[-200:]!r}; "
                               f"the last lines:\n  {tail}") from None

    async def line(self, timeout: float = TIMEOUT_S) -> str:
        """The next line without its CR LF; the prompt ``login: `` counts as a line."""
        while b"\n" not in self._buffer and self._buffer != b"login: ":
            data = await self._read(timeout)
            if not data:
                raise EOFError(f"{self.name}: server closed the connection")
            self._buffer += data
        if self._buffer == b"login: ":
            self._buffer = b""
            return "login: "
        raw, _, self._buffer = self._buffer.partition(b"\n")
        text = raw.decode("ascii", "replace").rstrip("\r")
        self.transcript.append(text)
        return text

    async def read_until(self, marker: bytes, timeout: float = TIMEOUT_S) -> bytes:
        """Raw bytes up to and including ``marker`` (prompts without a line end, telnet bytes)."""
        while marker not in self._buffer:
            data = await self._read(timeout)
            if not data:
                raise EOFError(f"{self.name}: server closed the connection")
            self._buffer += data
        head, _, self._buffer = self._buffer.partition(marker)
        return head + marker

    async def reply(self, timeout: float = TIMEOUT_S) -> str:
        """The next line that is not an asynchronous one (who, login/logout, chat, watchers)."""
        while ASYNC.fullmatch(line := await self.line(timeout)):
            pass
        return line

    async def expect(self, pattern: str, timeout: float = TIMEOUT_S) -> re.Match[str]:
        line = await self.reply(timeout)
        m = re.fullmatch(pattern, line)
        if not m:
            raise ProtocolError(f"{self.name}: expected {pattern!r}, got {line!r}")
        return m

    async def until(self, pattern: str, timeout: float = TIMEOUT_S) -> list[str]:
        """The lines up to and including the first one matching ``pattern``."""
        lines = []
        while not re.fullmatch(pattern, line := await self.line(timeout)):
            lines.append(line)
        return lines + [line]

    async def rest(self, timeout: float = TIMEOUT_S) -> list[str]:
        """Every line until the server closes the connection."""
        lines = []
        try:
            while True:
                lines.append(await self.line(timeout))
        except EOFError:
            return lines

    async def setup(self, *, ready: bool) -> None:
        """Boardstyle 3, boards after every roll, and ready for invitations if asked."""
        await self.send("set boardstyle 3")
        await self.expect(r"Value of 'boardstyle' set to 3\.")
        await self.send("toggle moreboards")
        await self.expect(r"\*\* Will send rawboards after rolling\.")
        if ready:
            await self.send("toggle ready")
            await self.expect(r"\*\* You're now ready to invite or join someone\.")

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except ConnectionError:
            pass


@dataclass
class Result:
    winner: str
    score: tuple[int, int]
    """Final score, this player's first."""
    games: int
    saved: bool = False
    """The opponent left: the match was saved."""


class MatchPlayer:
    """Plays one match for ``client`` against ``opponent`` and checks every line."""

    def __init__(self, client: Client, opponent: str, length: int, seed: int, *,
                 p_double: float = 0.15, p_take: float = 0.7, p_resign: float = 0.02,
                 p_accept_resign: float = 0.5, stop_after_games: int | None = None,
                 drop_after_moves: int | None = None) -> None:
        self.c, self.opp, self.length = client, opponent, length
        self.kind = f"{length} point match" if length else "unlimited match"
        self.rng = random.Random(seed)
        self.p_double, self.p_take, self.p_resign, self.p_accept_resign = p_double, p_take, p_resign, p_accept_resign
        self.stop_after_games = stop_after_games
        self.moves_left = drop_after_moves
        self.board: FibsBoard | None = None
        self.score = [0, 0]  # mine, theirs
        self.cube = 1
        self.owner: int | None = None  # 0 me, 1 them, None centred
        self.crawford = False  # this game is the Crawford game (announced, not in the board line)
        self.crawford_seen = False
        self.adopt_cube = False  # resumed: take the cube from the next board
        self.games = 0
        self.expect_board: tuple[str, object] | None = None
        self.pending_move = False  # the next board is my opening roll to play
        self.my_resign: int | None = None

    def _fail(self, line: str, why: str) -> ProtocolError:
        return ProtocolError(f"{self.c.name}: {why}: {line!r}")

    async def resume(self) -> None:
        """Read the resume summary (length, score, points) after the join; ``run`` then goes on with the match."""
        o, me = re.escape(self.opp), re.escape(self.c.name)
        await self.c.expect(rf"turn: (?:{o}|{me})\.")
        await self.c.expect(rf"match length: {self.length}" if self.length else "unlimited matchlength")
        for _ in range(2):
            m = await self.c.expect(rf"points for ({o}|{me}): (\d+)")
            self.score[0 if m[1] == self.c.name else 1] = int(m[2])
        self.crawford_seen = not self.length or max(self.score) >= self.length - 1  # (the saved match knows)
        self.adopt_cube = True

    async def run(self) -> Result:
        """Play until the match ends (or ``stop_after_games`` games, or the match is saved)."""
        try:
            return await self._run()
        except Dropped:
            return Result("", (self.score[0], self.score[1]), self.games, saved=True)

    async def _run(self) -> Result:
        o = re.escape(self.opp)
        while True:
            line = await self.c.reply()
            if line.startswith("board:"):
                await self._on_board(line)
                continue
            if self.expect_board is not None:
                raise self._fail(line, f"expected a board ({self.expect_board[0]})")
            if m := re.fullmatch(r"You roll (\d) and (\d)\.", line):
                self.expect_board = ("my roll", (int(m[1]), int(m[2])))
            elif m := re.fullmatch(rf"{o} rolls (\d) and (\d)\.", line):
                self.expect_board = ("their roll", (int(m[1]), int(m[2])))
            elif m := re.fullmatch(rf"{o} moves((?: \S+-\S+)+) \.", line):
                assert self.board is not None
                move = parse_move_line(self.board, f"{self.opp} moves{m[1]} .")
                self.expect_board = ("their move", self.board.position.swap().play(move).swap())
            elif m := re.fullmatch(r"Please move (\d) pieces?\.", line):
                await self._my_move(int(m[1]), line)
            elif line == "It's your turn to move.":
                self.pending_move = True
            elif line == "It's your turn. Please roll or double":
                if self.crawford or self.owner == 1:
                    raise self._fail(line, "doubling offered in the Crawford game or with the cube theirs")
                await self.c.send("double" if self.rng.random() < self.p_double else "roll")
            elif line == f"You double. Please wait for {self.opp} to accept or reject.":
                pass
            elif line == f"{self.opp} doubles. Type 'accept' or 'reject'.":
                await self.c.send("accept" if self.rng.random() < self.p_take else "reject")
            elif m := re.fullmatch(rf"(You accept|{o} accepts) the double\. The cube shows (\d+)\.", line):
                if int(m[2]) != 2 * self.cube:
                    raise self._fail(line, f"cube was {self.cube}")
                self.cube *= 2
                self.owner = 0 if m[1] == "You accept" else 1
            elif line == "You can't move.":
                assert self.board is not None and self.board.dice is not None
                if self.board.position.legal_moves(*self.board.dice)[0].steps:
                    raise self._fail(line, "a move was possible")
            elif line == f"{self.opp} can't move.":
                pass
            elif m := re.fullmatch(rf"You want to resign\. {o} will win (\d+) points?\.", line):
                if int(m[1]) != self.cube * (self.my_resign or 0):
                    raise self._fail(line, "resignation value")
            elif m := re.fullmatch(rf"{o} wants to resign\. You will win (\d+) points?\. "
                                   r"Type 'accept' or 'reject'\.", line):
                await self.c.send("accept" if self.rng.random() < self.p_accept_resign else "reject")
            elif line == f"{self.opp} rejects. The game continues.":
                self.my_resign = None
                await self._play(self.board)
            elif line == "You reject. The game continues.":
                pass
            elif m := re.fullmatch(rf"You win the game and get (\d+) points?\. Congratulations!|"
                                   rf"{o} gives up\. You win (\d+) points?\.|You accept and win (\d+) points?\.",
                                   line):
                self._game_won(0, int(m[1] or m[2] or m[3]), line)
            elif m := re.fullmatch(rf"{o} wins the game and gets (\d+) points?\. Sorry\.|"
                                   rf"You give up\. {o} wins (\d+) points?\.|{o} accepts and wins (\d+) points?\.",
                                   line):
                self._game_won(1, int(m[1] or m[2] or m[3]), line)
            elif m := re.fullmatch(rf"score in {self.kind}: {re.escape(self.c.name)}-(\d+) {o}-(\d+)", line):
                if [int(m[1]), int(m[2])] != self.score:
                    raise self._fail(line, f"score should be {self.score}")
            elif line == "Type 'join' if you want to play the next game, type 'leave' if you don't.":
                if self.stop_after_games is not None and self.games >= self.stop_after_games:
                    return Result("", (self.score[0], self.score[1]), self.games)
                await self.c.send("join")
            elif line == f"** Please wait for {self.opp} to join too.":
                pass
            elif line == f"Starting a new game with {self.opp}.":
                self.cube, self.owner, self.board, self.my_resign = 1, None, None, None
                self.crawford = bool(self.length) and not self.crawford_seen and self.length - 1 in self.score
                self.crawford_seen = self.crawford_seen or self.crawford
            elif re.fullmatch(rf"You rolled (\d), {o} rolled (\d)", line):
                pass
            elif line == f"{self.opp} makes the first move.":
                pass
            elif re.fullmatch(rf"(?:{o} (?:drops connection|logs out)|\*\* Player {o} has left the game)\. "
                              r"The game was saved\.", line):
                return Result("", (self.score[0], self.score[1]), self.games, saved=True)
            elif m := re.fullmatch(rf"(You win|{o} wins) the {self.length} point match (\d+)-(\d+) \.", line):
                mine = m[1] == "You win"
                expected = (self.score[0], self.score[1]) if mine else (self.score[1], self.score[0])
                if (int(m[2]), int(m[3])) != expected or max(self.score) < self.length:
                    raise self._fail(line, f"final score should be {self.score}")
                return Result(self.c.name if mine else self.opp, (self.score[0], self.score[1]), self.games)
            else:
                raise self._fail(line, "line not allowed here")

    async def _on_board(self, line: str) -> None:
        board = parse(line)
        if board.player != "You" or board.opponent != self.opp or board.match_length != (self.length or 9999):
            raise self._fail(line, "names or length")
        if self.adopt_cube:
            self.cube, self.adopt_cube = board.cube, False
            centred = board.player_may_double == board.opponent_may_double
            self.owner = None if centred else int(board.opponent_may_double)
        if (board.player_score, board.opponent_score) != tuple(self.score) or board.cube != self.cube:
            raise self._fail(line, f"score {self.score} / cube {self.cube}")
        check, self.expect_board = self.expect_board, None
        if check is not None:
            what, value = check
            if what == "my roll" and not (board.player_on_turn and board.dice == value):
                raise self._fail(line, f"my roll {value} not on the board")
            if what == "their roll" and not (not board.player_on_turn and board.dice == value):
                raise self._fail(line, f"their roll {value} not on the board")
            if what in ("my move", "their move") and board.position != value:
                raise self._fail(line, f"board does not show {what}")
        self.board = board
        if self.pending_move:
            self.pending_move = False
            if not (board.player_on_turn and board.dice):
                raise self._fail(line, "opening board without my dice")
            await self._play(board)

    async def _my_move(self, count: int, line: str) -> None:
        board = self.board
        if board is None or board.dice is None or not board.player_on_turn:
            raise self._fail(line, "Please move without my roll on the board")
        if count != len(board.position.legal_moves(*board.dice)[0].steps):
            raise self._fail(line, "wrong number of pieces")
        if self.rng.random() < self.p_resign:
            self.my_resign = self.rng.choice([1, 2, 3])
            await self.c.send(f"resign {'ngb'[self.my_resign - 1]}")
            return
        await self._play(board)

    async def _play(self, board: FibsBoard | None) -> None:
        assert board is not None and board.dice is not None
        if self.moves_left is not None:
            if self.moves_left == 0:  # vanish at the moment we should move, without a word
                self.c.writer.transport.abort()
                raise Dropped
            self.moves_left -= 1
        plays = board.position.legal_plays(*board.dice)
        move, after = self.rng.choice(plays)
        self.expect_board = ("my move", after)
        await self.c.send(move_command(board, move))

    def _game_won(self, side: int, points: int, line: str) -> None:
        board = self.board
        if board is not None and "game and get" in line:  # borne off: the value follows from the board
            loser_board = board.position.board[side]  # board[1] is mine: the loser's row
            loser_off = 15 - sum(loser_board)
            kind = 1 if loser_off else 3 if any(loser_board[18:25]) else 2
            if points != kind * self.cube:
                raise self._fail(line, f"a win is worth {kind} x cube {self.cube}")
        self.score[side] += points
        self.games += 1
        self.expect_board = None


def make_server(db: Path, *, seed: int | None = 1, **options: Any) -> FibsServer:
    """A loopback server on a free port; cheap password hashing keeps the tests fast."""
    options.setdefault("auto_register", True)
    return FibsServer(port=0, db_path=db, seed=seed, scrypt_n=2**8, **options)


async def start_match(port: int, inviter: str, invitee: str, length: int) -> tuple[Client, Client]:
    """Log both in, ``invite`` and ``join`` (length 0: unlimited); returns (inviter, invitee), match started."""
    a = await Client.connect(port, inviter)
    b = await Client.connect(port, invitee)
    await a.setup(ready=True)
    await b.setup(ready=True)
    kind = f"a {length} point match" if length else "an unlimited match"
    await a.send(f"invite {invitee} {length or 'unlimited'}")
    await a.expect(rf"\*\* You invited {invitee} to {kind}\.")
    await b.expect(rf"{inviter} wants to play {kind} with you\.")
    await b.expect(rf"Type 'join {inviter}' to accept\.")
    await b.send(f"join {inviter}")
    await b.expect(rf"\*\* You are now playing {kind} with {inviter}")
    stars = r"\*\* " if length else ""  # FIBS has no stars for unlimited matches
    await a.expect(rf"{stars}Player {invitee} has joined you for {kind}\.")
    return a, b


def game_lines(transcript: list[str]) -> list[str]:
    """The transcript without lines whose order or content depends on timing (who lines, join order)."""
    return [line for line in transcript if not WHO.fullmatch(line) and not line.startswith("** Please wait for")]
