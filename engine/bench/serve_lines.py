"""FIBS board lines for the external-player service, and a driver for gnubg's ``external``.

:func:`board_lines` plays seeded games with the engine (Beginner, for varied
positions) and writes requests of every kind gnubg's external interface
answers: moves (including dances, bar entries, bear-offs, dice in the
opponent's tokens), cube decisions, takes (doubled boards, turn = doubler),
resignations and ``evaluation fibsboard``, in money play (Jacoby on and off)
and matches (Crawford and post-Crawford, the cube centred or owned).
:class:`GnubgExternal` runs Debian's ``gnubg -t`` in external mode on loopback,
:class:`OursExternal` our ``fibsbot serve --external`` in its default mode.
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from engine import Engine, Position

GNUBG = "/usr/games/gnubg"

SETTINGS = {
    "expert": ("set evaluation chequerplay evaluation plies 0\n"
               "set evaluation cubedecision evaluation plies 0\n"),
    "world class": ("set evaluation chequerplay evaluation plies 2\n"
                    "set evaluation chequerplay evaluation prune on\n"
                    "set evaluation cubedecision evaluation plies 2\n"
                    "set evaluation cubedecision evaluation prune on\n"),
}


def fibs_tokens(position: Position, you_move: bool, colour: int) -> list[int]:
    """The 26 point tokens of a FIBS board for ``position`` (mover in board[1])."""
    direction = -colour
    you, opp = (position.board[1], position.board[0]) if you_move else (position.board[0], position.board[1])
    points = [0] * 26
    for own in range(1, 25):
        p_you = own if direction == -1 else 25 - own
        points[p_you] += colour * you[own - 1]
        points[25 - p_you] -= colour * opp[own - 1]
    you_bar, opp_bar = (25, 0) if colour == 1 else (0, 25)
    points[you_bar] += colour * you[24]
    points[opp_bar] -= colour * opp[24]
    return points


def line(position: Position, *, you_move: bool, colour: int, length: int, score: tuple[int, int],
         dice: tuple[int, int] | None, dice_in_opponent: bool = False, cube: int = 1,
         may: tuple[int, int] = (1, 1), doubled: int = 0, crawford_done: int = 0,
         names: tuple[str, str] = ("You", "Opp")) -> str:
    """A board line: ``score`` is (you, opponent); ``may`` the may-double tokens (you, opp)."""
    turn = colour if you_move else -colour
    d = dice or (0, 0)
    dice_you, dice_opp = ((0, 0), d) if dice_in_opponent else (d, (0, 0))
    tokens = [length, score[0], score[1], *fibs_tokens(position, you_move, colour), turn, *dice_you, *dice_opp,
              cube, may[0], may[1], doubled, colour, -colour, 0 if colour == 1 else 25, 25 if colour == 1 else 0,
              0, 0, 0, 0, 1, 0, crawford_done, 0]
    return "board:" + ":".join([names[0], names[1], *map(str, tokens)])


def _games(engine: Engine, rng: random.Random, count: int) -> Iterator[Position]:
    for _ in range(count):
        position = Position.initial()
        for _ply in range(200):
            if position.winner() is not None:
                break
            yield position
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            move = engine.best_move(position, dice, level="beginner").move
            position = position.play(move, dice).swap() if len(move) else position.swap()


def board_lines(seed: int, count: int, engine: Engine | None = None) -> list[str]:
    """``count`` requests of mixed kinds from seeded games."""
    engine = engine or Engine()
    rng = random.Random(seed)
    positions = list(_games(engine, rng, max(4, count // 30)))
    out: list[str] = []
    kinds = ["move"] * 5 + ["cube"] * 3 + ["take"] * 2 + ["resign", "eval"]
    for position in rng.sample(positions, min(count, len(positions))):
        kind = rng.choice(kinds)
        if position.is_race() and rng.random() < 0.3:
            kind = "resign"
        length = rng.choice([9999, 9999, 1, 3, 5, 7, 11])
        if length == 9999:
            score = (0, 0)
            crawford_done = 0
        else:
            score = (rng.randrange(length), rng.randrange(length))
            crawford_done = rng.choice([0, 1]) if length - 1 in score else 0
        cube = rng.choice([1, 1, 1, 2, 4])
        may = (1, 1) if cube == 1 else rng.choice([(1, 0), (0, 1)])
        you_move = rng.random() < 0.6
        colour = rng.choice([1, -1])
        args = {"you_move": you_move, "colour": colour, "length": length, "score": score, "cube": cube, "may": may,
                "crawford_done": crawford_done}
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        suffix = ""
        if length == 9999 and rng.random() < 0.3:
            suffix = " jacobyrule off"
        if kind == "move":
            text = line(position, dice=dice, dice_in_opponent=rng.random() < 0.2, **args)  # type: ignore[arg-type]
        elif kind == "cube":
            text = line(position, dice=None, **args)  # type: ignore[arg-type]
        elif kind == "take":
            args["may"] = (1, 1) if cube == 1 else may
            text = line(position, dice=None, doubled=1, **args)  # type: ignore[arg-type]
        elif kind == "resign":
            text = line(position, dice=None, **args) + f" resignation {rng.choice([1, 1, 2, 3])}"  # type: ignore[arg-type]
        else:
            text = "evaluation fibsboard " + line(position, dice=None, **args)  # type: ignore[arg-type]
            suffix += rng.choice(["", " cubeful", " cube on", " cubeless", " plies 1 cubeful", " crawfordrule off"])
        out.append(text + suffix)
    return out


class ExternalProcess:
    """A server process with an external-player socket on ``127.0.0.1:port``, one client connection."""

    proc: subprocess.Popen[bytes]

    def connect(self, port: int, what: str, wait: float = 60) -> None:
        deadline = time.monotonic() + wait
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=300)
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.close()
                    raise RuntimeError(f"{what} did not listen on port {port}") from None
                time.sleep(0.05)
        self.reader = self.sock.makefile("rb")

    def ask(self, request: str) -> str:
        """One request, one reply line (without its LF)."""
        self.sock.sendall(request.encode() + b"\n")
        return self.reader.readline().decode().rstrip("\n")

    def close(self) -> None:
        if hasattr(self, "sock"):
            self.sock.close()
        self.proc.kill()
        self.proc.wait()


class GnubgExternal(ExternalProcess):
    """Debian's gnubg in external mode on ``127.0.0.1:port``, at a level of :data:`SETTINGS`."""

    def __init__(self, port: int, level: str = "expert", program: str = GNUBG) -> None:
        self.proc = subprocess.Popen([program, "-t", "-q"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        assert self.proc.stdin is not None
        self.proc.stdin.write((SETTINGS[level] + f"external localhost:{port}\n").encode())
        self.proc.stdin.flush()
        self.connect(port, "gnubg external")


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def checkout_env() -> dict[str, str]:
    """The environment for a ``python -m bot.cli`` subprocess that runs this checkout's code."""
    root = Path(__file__).resolve().parents[2]
    return dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))


class OursExternal(ExternalProcess):
    """``fibsbot serve --external 127.0.0.1:port --level LEVEL`` in its default mode (no
    emulation flags; ``extra`` adds arguments), this checkout's code first on the path."""

    def __init__(self, port: int, level: str = "expert", extra: tuple[str, ...] = ()) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve", "--external", f"127.0.0.1:{port}",
                                      "--level", level, *extra], env=checkout_env(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.connect(port, "fibsbot serve --external")
