"""One running match between two logged-in players: FIBS's game flow and wording.

The table owns the rules (opening roll, rolls, moves, cube, resignation,
Crawford, game and match end) and says every line to the players and the
people watching them, each in their own words (``You`` vs the name). It
knows nothing of sockets or the database: the server behind :class:`Hub`
reports, rates and cleans up.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, Protocol, TypeVar

from bot.fibsboard import FibsBoard
from bot.server.account import PER_GAME, Account
from bot.server.asciiboard import render
from bot.server.dice import Dice
from bot.server.matchdata import MatchData
from bot.server.moves import MoveRejected, fibs_point, fibs_steps, parse_move
from bot.server.ratings import rate_match
from engine.match import CENTRED, GAME_OVER, GAME_PLAYING, MatchState
from engine.position import BAR, OFF, Move, Position

MAX_CUBE = 1 << 14  # below MatchState's limit, far above anything played


class Listener(Protocol):
    """A logged-in user who hears the table: a player or a watcher."""

    name: str
    account: Account

    def send(self, line: str) -> None: ...


class Seat(Listener, Protocol):
    """A player; ``watchers`` are the users watching this player."""

    watchers: set[Listener]


S = TypeVar("S", bound=Seat)


class Hub(Protocol):
    def report(self, line: str, players: tuple[str, str]) -> None:
        """Tell the users with ``toggle report`` on, except the two players."""

    def match_finished(self, table: Table[Any]) -> None:
        """The match is over and rated: store, detach the players, update who lines."""

    @property
    def silent_roll(self) -> bool:
        """A turn the player may not double is neither rolled nor prompted (BaldLies)."""


def points_text(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def match_text(length: int) -> str:
    """``a 5 point match`` / ``an unlimited match``."""
    return f"a {length} point match" if length else "an unlimited match"


class Table(Generic[S]):
    def __init__(self, hub: Hub, seats: tuple[S, S], data: MatchData, dice: Dice) -> None:
        self.hub = hub
        self.seats = seats
        self.data = data
        self.dice = dice
        self.resign: tuple[int, int] | None = None
        """(resigning player, points offered) while an offer waits for an answer."""
        self.joined: set[int] = set()
        self.plays: list[tuple[Move, Position]] = []
        if data.phase == "move" and data.dice:
            self.plays = self.view(data.turn).legal_plays(*data.dice)

    # -- who is who --

    def index(self, seat: Listener) -> int:
        return 0 if self.seats[0] is seat else 1

    def index_of_name(self, name: str) -> int:
        return self.data.names.index(name)

    def name(self, i: int) -> str:
        return self.data.names[i]

    def colour(self, i: int) -> str:
        return "O" if i == self.data.o_player else "X"

    def direction(self, i: int) -> int:
        return -1 if i == self.data.o_player else 1

    def view(self, i: int) -> Position:
        """The board with player ``i`` in board[1]."""
        position = Position.from_position_id(self.data.position)
        return position if i == 0 else position.swap()

    def watchers(self) -> Iterator[tuple[Listener, int]]:
        """Everyone watching, with the player whose side they see."""
        for i, seat in enumerate(self.seats):
            for watcher in list(seat.watchers):
                yield watcher, i

    # -- saying things --

    def _tell(self, i: int, line: str) -> None:
        self.seats[i].send(line)

    def _others(self, i: int, line: str) -> None:
        """The opponent of ``i`` and all watchers."""
        self._tell(1 - i, line)
        self._watch(line)

    def _watch(self, line: str) -> None:
        for watcher, _ in self.watchers():
            watcher.send(line)

    def board_lines(self, i: int, listener: Listener) -> list[str]:
        """The board as ``listener`` sees player ``i``'s side, in the listener's boardstyle."""
        board = self.fibs_board(i, you=listener is self.seats[i])
        if listener.account.settings["boardstyle"] == "3":
            return [board.format()]
        return render(board, self.name(i))

    def fibs_board(self, i: int, *, you: bool) -> FibsBoard:
        d = self.data
        opponent = 1 - i
        decider = 1 - d.turn if d.phase == "doubled" else d.turn
        state = MatchState(
            length=d.length, score=(d.score[opponent], d.score[i]), cube=d.cube,
            cube_owner=CENTRED if d.owner == CENTRED else int(d.owner == i),
            on_roll=int(d.turn == i), turn=int(decider == i), crawford_game=d.crawford_game,
            jacoby=False, crawford_rule=d.crawford_rule and d.length > 0, dice=d.dice,
            doubled=d.phase == "doubled", game_state=GAME_OVER if d.phase == "over" else GAME_PLAYING)
        can_move = len(self.plays[0][0].steps) if self.plays and d.turn == i else 0
        return FibsBoard.from_state(self.view(i), state, player="You" if you else self.name(i),
                                    opponent=self.name(opponent), colour=1 if i == d.o_player else -1,
                                    can_move=can_move)

    def _boards(self, *toggles: str) -> None:
        """Send the board to everyone with one of ``toggles`` on."""
        for i, seat in enumerate(self.seats):
            if any(seat.account.toggles[t] for t in toggles):
                for line in self.board_lines(i, seat):
                    seat.send(line)
        for watcher, i in self.watchers():
            if any(watcher.account.toggles[t] for t in toggles):
                for line in self.board_lines(i, watcher):
                    watcher.send(line)

    # -- starting and resuming --

    def start(self) -> None:
        """Start the next game (a new match, or after both joined)."""
        d = self.data
        d.games += 1
        d.o_player = self.dice.die() % 2 if d.games == 1 else 1 - d.o_player  # random, then alternate
        for seat in self.seats:
            seat.account.toggles.update(PER_GAME)
        d.position = Position.initial().position_id()
        d.cube, d.owner, d.history = 1, CENTRED, []
        self.resign, self.joined = None, set()
        # The first game after someone reached match point (never the first game: 1-point matches).
        d.crawford_game = (d.crawford_rule and d.length > 0 and not d.crawford_done and d.games > 1
                           and d.length - 1 in d.score)
        d.crawford_done = d.crawford_done or d.crawford_game
        for i in (0, 1):
            self._tell(i, f"Starting a new game with {self.name(1 - i)}.")
        while True:
            a, b = self.dice.die(), self.dice.die()
            self._tell(0, f"You rolled {a}, {self.name(1)} rolled {b}")
            self._tell(1, f"You rolled {b}, {self.name(0)} rolled {a}")
            self._watch(f"{self.name(0)} rolled {a}, {self.name(1)} rolled {b}")
            if a != b:
                break
            if d.length == 0 and all(s.account.toggles["autodouble"] for s in self.seats) and d.cube < MAX_CUBE:
                d.cube *= 2
                for i in (0, 1):
                    self._tell(i, f"The number on the doubling cube is now {d.cube}")
        first = 0 if a > b else 1
        d.turn, d.phase, d.dice = first, "move", (max(a, b), min(a, b))
        self._tell(first, "It's your turn to move.")
        self._others(first, f"{self.name(first)} makes the first move.")
        self.plays = self.view(first).legal_plays(*d.dice)
        self._boards("autoboard", "moreboards")
        self._after_roll(opening=True)

    def resume(self) -> None:
        """Continue a loaded match where it was saved."""
        d = self.data
        length = f"match length: {d.length}" if d.length else "unlimited matchlength"
        for i in (0, 1):
            for line in (f"turn: {self.name(d.turn)}.", length, f"points for {self.name(0)}: {d.score[0]}",
                         f"points for {self.name(1)}: {d.score[1]}"):
                self._tell(i, line)
        if d.phase == "over":
            self.start()
            return
        self._boards("autoboard", "moreboards")
        if d.phase == "roll":
            self._offer_roll()
        elif d.phase == "move":
            self._tell(d.turn, self._please_move())
        else:
            self._tell(1 - d.turn, f"{self.name(d.turn)} doubles. Type 'accept' or 'reject'.")

    def saved(self) -> MatchData:
        """The state to store when the match is interrupted (open offers are dropped)."""
        self.data.dice_state = self.dice.state()
        return self.data

    # -- the turn --

    def _please_move(self) -> str:
        n = len(self.plays[0][0].steps)
        return f"Please move {n} piece." if n == 1 else f"Please move {n} pieces."

    def _may_double(self, i: int) -> bool:
        d = self.data
        away = d.length - d.score[i]
        return (not d.crawford_game and d.owner in (CENTRED, i) and d.cube < MAX_CUBE
                and (d.length == 0 or d.cube < away))

    def _offer_roll(self) -> None:
        i = self.data.turn
        if self._may_double(i) and self.seats[i].account.toggles["double"]:
            self._tell(i, "It's your turn. Please roll or double")
        elif self.hub.silent_roll:
            return  # the board said it: the player sends roll
        else:
            self._roll(i)

    def _roll(self, i: int) -> None:
        d = self.data
        a, b = self.dice.die(), self.dice.die()
        d.phase, d.dice = "move", (a, b)
        self.plays = self.view(i).legal_plays(a, b)
        self._tell(i, f"You roll {a} and {b}.")
        self._others(i, f"{self.name(i)} rolls {a} and {b}.")
        self._boards("moreboards")
        self._after_roll(opening=False)

    def _after_roll(self, *, opening: bool) -> None:
        d = self.data
        i = d.turn
        assert d.dice is not None
        toggles = self.seats[i].account.toggles
        if not self.plays[0][0].steps:
            self._tell(i, "You can't move.")
            self._others(i, f"{self.name(i)} can't move.")
            d.history.append(f"{self.colour(i)}: ({d.dice[0]} {d.dice[1]}) can't move")
            self._next_turn()
        elif len(self.plays) == 1 and toggles["automove"]:
            only = self.plays[0][0]
            self._play(only, f"The only possible move is {fibs_steps(only, self.direction(i))} .")
        elif toggles["greedy"] and (bear_off := self._bear_off_play()):
            self._play(bear_off, f"Bearing off: {self._bear_off_text(bear_off)}")
        elif not opening:
            self._tell(i, self._please_move())

    def _bear_off_play(self) -> Move | None:
        """A play bearing off one checker with every die, if there is one."""
        assert self.data.dice is not None
        a, b = self.data.dice
        for move, _ in self.plays:
            if len(move.steps) == (4 if a == b else 2) and all(s.dst == OFF for s in move.steps):
                return move
        return None

    def _bear_off_text(self, move: Move) -> str:
        """``6 o 5 o``: FIBS's way to announce a bear-off with every die."""
        return " ".join(f"{fibs_point(s.src, self.direction(self.data.turn))} o" for s in move.steps)

    def _play(self, move: Move, announce: str | None) -> None:
        """Play ``move`` for the side on roll; ``announce`` tells the mover when the server chose it."""
        d = self.data
        i = d.turn
        assert d.dice is not None
        text = fibs_steps(move, self.direction(i))
        if announce:
            self._tell(i, announce)
        self._others(i, f"{self.name(i)} moves {text} .")
        d.history.append(f"{self.colour(i)}: ({d.dice[0]} {d.dice[1]}) {text}")
        after = self.view(i).play(move)
        d.position = (after if i == 0 else after.swap()).position_id()
        if any(after.board[1]):
            self._next_turn()
            return
        loser = after.board[0]
        kind = 1 if sum(loser) < 15 else 3 if any(loser[18:BAR + 1]) else 2
        d.phase, d.dice, self.plays = "over", None, []
        self._boards("autoboard")
        self._end_game(i, d.cube * kind, "bearoff")

    def _next_turn(self) -> None:
        d = self.data
        d.turn, d.phase, d.dice, self.plays = 1 - d.turn, "roll", None, []
        self._boards("autoboard")
        self._offer_roll()

    # -- commands from the players --

    def _blocked(self, i: int) -> str | None:
        """Why a game command of player ``i`` cannot run now (None: it can)."""
        if self.data.phase == "over":
            return "** Type 'join' if you want to play the next game."
        if self.resign:
            if self.resign[0] == i:
                return f"** {self.name(1 - i)} hasn't accepted or rejected your resign yet."
            return f"** {self.name(1 - i)} wanted to resign. Type 'accept' or 'reject'."
        return None

    def roll(self, i: int) -> None:
        d = self.data
        error = self._blocked(i)
        if error is None and (d.turn != i or d.phase == "doubled"):
            error = "** It's not your turn to roll the dice."
        if error is None and d.phase == "move":
            error = "** You did already roll the dice."
        if error:
            self._tell(i, error)
        else:
            self._roll(i)

    def move(self, i: int, text: str) -> None:
        d = self.data
        error = self._blocked(i)
        if error is None and (d.turn != i or d.phase == "doubled"):
            error = "** It's not your turn to move."
        if error is None and d.phase == "roll":
            error = "** You have to roll the dice before moving."
        if error:
            self._tell(i, error)
            return
        assert d.dice is not None
        try:
            move = parse_move(text, self.view(i), d.dice, self.direction(i), self.plays)
        except MoveRejected as exc:
            self._tell(i, str(exc))
            return
        self._play(move, None)

    def bear_off(self, i: int) -> None:
        """The ``off`` command."""
        d = self.data
        error = self._blocked(i)
        if error is None and (d.turn != i or d.phase == "doubled"):
            error = "** It's not your turn to move."
        if error is None and d.phase == "roll":
            error = "** You have to roll the dice before moving."
        move = self._bear_off_play() if error is None else None
        if error is not None or move is None:
            self._tell(i, error or "** You can't bear off with every number you have rolled.")
            return
        self._play(move, f"Bear off: {self._bear_off_text(move)}")

    def double(self, i: int) -> None:
        d = self.data
        opponent = self.name(1 - i)
        error = self._blocked(i)
        if error is None:
            if d.phase == "doubled":
                error = "** It's not your turn to double"
            elif d.turn != i:
                error = f"** Please wait until {opponent} has moved."
            elif d.phase == "move":
                error = "** You can only double before you roll the dice."
            elif d.crawford_game:
                error = "** You can't double in the Crawford game."
            elif d.owner == 1 - i:
                error = f"** {opponent} owns the cube."
            elif not self._may_double(i):
                error = "** You can't double any more."
        if error:
            self._tell(i, error)
            return
        d.phase = "doubled"
        d.history.append(f"{self.colour(i)}: doubles")
        self._tell(i, f"You double. Please wait for {opponent} to accept or reject.")
        self._tell(1 - i, f"{self.name(i)} doubles. Type 'accept' or 'reject'.")
        self._watch(f"{self.name(i)} doubles.")

    def accept(self, i: int) -> None:
        d = self.data
        if self.resign and self.resign[0] == 1 - i:
            points = self.resign[1]
            self.resign = None
            d.history.append(f"{self.colour(i)}: accepts")
            self._end_game(i, points, "resign")
        elif self.resign:
            self._tell(i, f"** {self.name(1 - i)} hasn't accepted or rejected your resign yet.")
        elif d.phase == "doubled" and d.turn == 1 - i:
            d.cube, d.owner, d.phase = d.cube * 2, i, "roll"
            d.history.append(f"{self.colour(i)}: accepts")
            self._tell(i, f"You accept the double. The cube shows {d.cube}.")
            self._tell(1 - i, f"{self.name(i)} accepts the double. The cube shows {d.cube}.")
            self._watch(f"{self.name(i)} accepts the double.")
            self._roll(d.turn)
        else:
            self._tell(i, f"** {self.name(1 - i)} didn't double or resign.")

    def reject(self, i: int) -> None:
        d = self.data
        if self.resign and self.resign[0] == 1 - i:
            self.resign = None
            self._tell(i, "You reject. The game continues.")
            self._others(i, f"{self.name(i)} rejects. The game continues.")
        elif self.resign:
            self._tell(i, f"** {self.name(1 - i)} hasn't accepted or rejected your resign yet.")
        elif d.phase == "doubled" and d.turn == 1 - i:
            d.history.append(f"{self.colour(i)}: rejects")
            self._end_game(1 - i, d.cube, "giveup")
        else:
            self._tell(i, f"** {self.name(1 - i)} didn't double or resign.")

    def offer_resignation(self, i: int, word: str) -> None:
        kinds = {"n": 1, "normal": 1, "g": 2, "gammon": 2, "b": 3, "backgammon": 3}
        error = "** Type 'join' if you want to play the next game." if self.data.phase == "over" else None
        if error is None and word.lower() not in kinds:
            error = "** Type 'n' (normal), 'g' (gammon) or 'b' (backgammon) after resign."
        if error is None and self.resign:
            error = ("** You already did that." if self.resign[0] == i
                     else f"** {self.name(1 - i)} wanted to resign. Type 'accept' or 'reject'.")
        if error:
            self._tell(i, error)
            return
        points = self.data.cube * kinds[word.lower()]
        self.resign = (i, points)
        winner = self.name(1 - i)
        self._tell(i, f"You want to resign. {winner} will win {points_text(points)}.")
        self._tell(1 - i, f"{self.name(i)} wants to resign. You will win {points_text(points)}. "
                          "Type 'accept' or 'reject'.")
        self._watch(f"{self.name(i)} wants to resign. {winner} will win {points_text(points)}.")

    def join(self, i: int) -> None:
        """``join`` between games; the game starts when both have joined."""
        if self.data.phase != "over":
            self._tell(i, "** Error: Join who?")
            return
        self.joined.add(i)
        if len(self.joined) == 2:
            self.start()
        else:
            self._tell(i, f"** Please wait for {self.name(1 - i)} to join too.")

    def pips(self, listener: Listener) -> str:
        """The ``pip`` reply for a player or watcher."""
        if listener in self.seats:
            i = self.index(listener)
            if not self.seats[1 - i].account.toggles["allowpip"]:
                return f"** {self.name(1 - i)} doesn't allow the use of the 'pip' command."
            mine, theirs = self.view(i).pip_counts()
            return f"Pipcounts: You {mine}   {self.name(1 - i)} {theirs}"
        first, second = self.view(0).pip_counts()
        return f"Pipcounts: {self.name(0)} {first}   {self.name(1)} {second}"

    # -- the end --

    def oldmoves(self, listener: Listener) -> list[str]:
        """``oldmoves`` of this game for ``listener`` (a player sees their own score first)."""
        return self.data.oldmoves(self.index(listener) if listener in self.seats else None)

    def _end_game(self, w: int, points: int, how: str) -> None:
        d = self.data
        lost = 1 - w
        winner, loser, pts = self.name(w), self.name(lost), points_text(points)
        d.score[w] += points
        d.history.append(f"{self.colour(w)}: wins")
        self.resign = None
        lines = {
            "bearoff": (f"You win the game and get {pts}. Congratulations!",
                        f"{winner} wins the game and gets {pts}. Sorry.",
                        f"{winner} wins the game and gets {pts}."),
            "giveup": (f"{loser} gives up. You win {pts}.", f"You give up. {winner} wins {pts}.",
                       f"{loser} gives up. {winner} wins {pts}."),
            "resign": (f"You accept and win {pts}.", f"{winner} accepts and wins {pts}.",
                       f"{winner} accepts and wins {pts}."),
        }[how]
        for i, line in ((w, lines[0]), (lost, lines[1])):
            if self.seats[i].account.toggles["moves"]:
                first, *rest = self.data.oldmoves(i)
                self._tell(i, line + first)  # FIBS glues the list to the line
                for extra in rest:
                    self._tell(i, extra)
            else:
                self._tell(i, line)
        self._watch(lines[2])
        d.phase, d.dice, self.plays, self.joined = "over", None, [], set()
        if d.length and d.score[w] >= d.length:
            self._end_match(w)
            return
        kind = f"{d.length} point match" if d.length else "unlimited match"
        for i in (0, 1):
            self._tell(i, f"score in {kind}: {self.name(i)}-{d.score[i]} {self.name(1 - i)}-{d.score[1 - i]}")
            self._tell(i, "Type 'join' if you want to play the next game, type 'leave' if you don't.")
        self._watch(f"score in {kind}: {self.name(0)}-{d.score[0]} {self.name(1)}-{d.score[1]}")

    def _end_match(self, w: int) -> None:
        d = self.data
        lost = 1 - w
        winner, loser = self.seats[w].account, self.seats[lost].account
        change = rate_match(winner.name, winner.rating, winner.experience,
                            loser.name, loser.rating, loser.experience, d.length)
        score = f"{d.score[w]}-{d.score[lost]}"
        for i in (w, lost):
            if self.seats[i].account.toggles["ratings"]:
                for line in (*change.lines, ""):
                    self._tell(i, line)
        self._tell(w, f"You win the {d.length} point match {score} .")
        self._others(w, f"{winner.name} wins the {d.length} point match {score} .")
        winner.rating += change.winner
        loser.rating += change.loser
        winner.experience += d.length
        loser.experience += d.length
        self.hub.report(f"{winner.name} wins a {d.length} point match against {loser.name}  {score} .",
                        d.names)
        self.hub.match_finished(self)
