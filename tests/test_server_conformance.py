"""The server's lines against the example outputs of FIBS's CLIP documentation
(bot/corpus/fibs-lines/09-...).

Each scenario of that file is reproduced on the server and compared line
by line, names and numbers aside: a line shape is the line with every known
name replaced by ``NAME`` and every number by ``N``. Where the document elides
(``...``) any number of lines may stand.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from bot import fuzz
from bot.fibsboard import parse
from bot.server import FibsServer
from bot.server.asciiboard import render

from fibs_script import Client, MatchPlayer, make_server, start_match

SPEC = fuzz.DATA / "fibs-lines" / "09-spec-example-outputs.txt"
SPEC_NAMES = ["myself", "someplayer", "anotherplayer", "mgnu_advanced"]
OUR_NAMES = ["alice", "bob", "carol", "dave"]


def scenarios() -> dict[str, list[str]]:
    """Scenario title -> its lines (trailing blank lines dropped)."""
    result: dict[str, list[str]] = {}
    title = ""
    for line in SPEC.read_text().split("\n"):
        if line.startswith("## Scenario: "):
            title = line[len("## Scenario: "):]
            result[title] = []
        elif title:
            result[title].append(line.rstrip())
    for lines in result.values():
        while lines and not lines[-1]:
            lines.pop()
    return result


SCENARIOS = scenarios()


def scenario(prefix: str) -> list[str]:
    (title,) = [t for t in SCENARIOS if t.startswith(prefix)]
    return SCENARIOS[title]


_DAYS = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"
_MONTHS = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"


def shape(line: str, names: list[str]) -> str:
    for name in sorted(names, key=len, reverse=True):
        line = re.sub(rf"(?<![\w.@]){re.escape(name)}(?![\w@])", "NAME", line)
    line = re.sub(rf"{_DAYS}, {_MONTHS} \d+ \d\d:\d\d \w+", "DATE", line)
    return re.sub(r"-?\d+(?:\.\d+)*", "N", line)


def assert_conforms(spec: list[str], ours: list[str], names: list[str]) -> None:
    """``ours`` has the document's lines in order (shapes); its ``...`` matches any lines."""
    pattern = "".join(".*?" if s.strip() == "..." else re.escape(shape(s, SPEC_NAMES + names) + "\n") for s in spec)
    text = "".join(shape(line, SPEC_NAMES + names) + "\n" for line in ours)
    assert re.fullmatch(pattern, text, re.DOTALL), f"\nspec:\n{chr(10).join(spec)}\nours:\n{chr(10).join(ours)}"


async def _replies(client: Client, command: str, until: str) -> list[str]:
    """Send ``command``; the lines up to and including the first that matches ``until``."""
    await client.send(command)
    return await client.until(until)


async def _rawwho(client: Client, online: int) -> list[str]:
    """The reply to ``rawwho``: a run of ``online`` 5 lines and a 6 (who updates are 5 + 6 pairs)."""
    await client.send("rawwho")
    run: list[str] = []
    while True:
        line = await client.line()
        if line == "6" and len(run) == online:
            return run + [line]
        run = run + [line] if line.startswith("5 ") else []


WHO_LINE = re.compile(r"5 \S+ \S+ \S+ [01] [01] -?\d+\.\d\d \d+ \d+ \d+ \S+ \S+ \S+")


def _who_shapes(lines: list[str]) -> list[str]:
    return ["5 WHO" if WHO_LINE.fullmatch(line) else line for line in lines]


async def _login(port: int, name: str, client: str = "x") -> tuple[Client, list[str]]:
    """A login of ``name`` (who may be online already); the lines up to the end of the who burst."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    c = Client(reader, writer, name)
    await c.until("login: ")
    await c.send(f"login {client} 1008 {name} secret")
    lines = await c.until(r"6")
    return c, lines


# -- login ---------------------------------------------------------------------

async def test_login_sequence(tmp_path: Path) -> None:
    """Warning, 1, 2, 3 MOTD 4, stored messages (9), the who burst including yourself, 6."""
    async with make_server(tmp_path / "f.db") as server:
        online = [await Client.connect(server.port, name) for name in ("alice", "bob", "carol", "dave")]
        _, lines = await _login(server.port, "alice", "MyClient_v0.1")
        assert online
    spec = scenario("full CLIP login example")
    spec[spec.index("3") + 1:spec.index("4")] = ["..."]  # the MOTD text is our own
    spec = [line for line in spec if not line.startswith("9 ")]  # tested below
    names = ["alice", "MyClient_v0.1", "Australia/Melbourne", "UTC"]
    assert_conforms(_who_shapes(spec), _who_shapes(lines), names)
    assert lines[-2].split()[1] == "alice"  # yourself, last (sorted by login time)


async def test_stored_message_at_login(fibs_server: FibsServer) -> None:
    text = next(line for line in scenario("full CLIP login example") if line.startswith("9 "))
    await (await Client.connect(fibs_server.port, "alice")).close()
    bob = await Client.connect(fibs_server.port, "bob")
    await bob.send("message alice " + text.split(" ", 3)[3])
    await bob.expect(r"11 alice")
    await bob.send("message nobody hello")
    await bob.expect(r"\*\* Don't know user nobody\.")
    _, lines = await _login(fibs_server.port, "alice")
    assert [shape(line, ["bob"]) for line in lines if line.startswith("9 ")] == [shape(text, SPEC_NAMES)]
    await bob.send("message alice online now")
    await bob.expect(r"10 alice")


async def test_failed_login_gets_another_prompt(fibs_server: FibsServer) -> None:
    fibs_server.add_user("alice", "secret")
    reader, writer = await asyncio.open_connection("127.0.0.1", fibs_server.port)
    client = Client(reader, writer, "alice")
    await client.until("login: ")
    await client.send("login x 1008 alice wrong")
    assert await client.line() == "login: "
    await client.send("login x 1008 alice secret")
    assert (await client.line()).startswith("1 alice ")


async def test_guest_registration_text(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db") as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        client = Client(reader, writer, "guest")
        await client.until("login: ")
        await client.send("guest")
        spec = scenario("guest login text")
        assert [await client.line() for _ in spec] == spec
        await client.send("name alice")
        data = await client.read_until(b"Please give your password: ")
        assert b"\xff\xfb\x01" in data  # IAC WILL ECHO before the password prompt
        await client.send("secret")
        await client.read_until(b"Please retype your password: ")
        await client.send("secret")
        assert not [line for line in await client.until("You are registered.") if line.startswith("**")]
        await client.send("bye")
    async with make_server(tmp_path / "f.db", auto_register=False) as server:
        await Client.connect(server.port, "alice")  # the new account works


# -- toggles, settings, who ----------------------------------------------------

async def test_toggle_listing(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db") as server:
        alice = await Client.connect(server.port, "alice")
        ours = await _replies(alice, "toggle", r"wrap +(YES|NO)")
        await alice.send("toggle nonsense")
        await alice.expect(r"\*\* Don't know how to toggle nonsense")
    spec = scenario("toggle listing")
    assert [re.sub(r"YES|NO", "B", line) for line in ours] == [re.sub(r"YES|NO", "B", line) for line in spec]


async def test_set_listing(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db") as server:
        alice = await Client.connect(server.port, "alice")
        ours = await _replies(alice, "set", r"timezone: .*")
        await alice.send("set boardstyle 3")
        await alice.expect(r"Value of 'boardstyle' set to 3\.")
        await alice.send("set boardstyle 4")
        await alice.expect(r"\*\* Valid arguments are the numbers 1 to 3\.")
    spec = scenario("set listing")
    assert ours[0] == spec[0]
    assert [re.match(r"\w+: *", line)[0] for line in ours[1:]] == [  # type: ignore[index]
        re.match(r"\w+: *", line)[0] for line in spec[1:]]  # type: ignore[index]


async def test_ready_toggle_with_own_who_line(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db") as server:
        alice = await Client.connect(server.port, "alice", client="3DFiBs")
        on = await _replies(alice, "toggle ready", "6")
        off = await _replies(alice, "toggle ready", "6")
    spec = scenario("ready toggle with own who line")
    assert off[0] in spec
    assert_conforms(spec[-3:], on, ["alice", "3DFiBs"])


async def test_rawwho(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db") as server:
        players = await start_match(server.port, "alice", "bob", 3)
        carol = await Client.connect(server.port, "carol", client="MacFIBS")
        await carol.send("address carol@somewhere.com")
        await carol.expect(r"Your email address is 'carol@somewhere\.com'\.")
        ours = await _rawwho(carol, 3)
        await carol.send("rawwho nobody")
        await carol.until(r"\*\* There is no one called nobody")
    spec = scenario("rawwho")
    assert all(WHO_LINE.fullmatch(line) for line in spec[:-1] + ours[:-1]) and ours[-1] == spec[-1] == "6"
    assert [line.split()[1:3] for line in ours[:2]] == [["alice", "bob"], ["bob", "alice"]] and players
    assert ours[2].split()[-2:] == ["MacFIBS", "carol@somewhere.com"]


async def test_whois(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db") as server:
        alice = await Client.connect(server.port, "alice")
        bob = await Client.connect(server.port, "bob")
        await bob.send("address bob@somewhere.com")
        await bob.expect(r"Your email address is .*")
        await bob.send("bye")
        await bob.until("Goodbye.")
        carol = await Client.connect(server.port, "carol")
        await carol.send("watch alice")
        await carol.expect(r"You're now watching alice\.")
        offline = await _replies(alice, "whois bob", r"  Email address: .*")
        online = await _replies(alice, "whois carol", r"  No email address\.")
        await alice.send("whois nobody")
        await alice.until(r"No information found on user nobody\.")
    spec = scenario("whois examples")
    gap = spec.index("")
    names = ["alice", "bob", "carol", "bob@somewhere.com", "someplayer@somewhere.com"]
    for spec_part, ours in ((spec[:gap], offline), (spec[gap + 1:], online)):
        start = next(i for i, line in enumerate(ours) if line.startswith("Information about"))
        assert_conforms(spec_part, [line for line in ours[start:] if not line[:1].isdigit()], names)


async def test_ratings_listing(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db") as server:
        alice = await Client.connect(server.port, "alice")
        for name, rating, experience in [("NIHILIST", 2295.11, 7274), ("mloner_II", 2010.78, 140276)]:
            _rate(server, name, rating, experience)
        ours = await _replies(alice, "ratings", r" *3 .*")
    spec = scenario("ratings listing")
    assert ours[:2] == spec[:2]
    assert ours[2] == spec[11].replace("   11 ", "    2 ", 1)


def _rate(server: FibsServer, name: str, rating: float, experience: int) -> None:
    if not server.exists(name):
        server.add_user(name, "secret")
    account = server.store.account(name)
    assert account is not None
    account.rating, account.experience = rating, experience
    server.store.update(account)


# -- boards, game end, match end -----------------------------------------------

def test_ascii_board_is_the_spec_example() -> None:
    spec = scenario("opening board")
    ours = render(parse(spec[0]), "myself")
    start = next(i for i, line in enumerate(spec) if line.lstrip().startswith("+13"))
    assert [line.strip() for line in ours] == [line.strip() for line in spec[start:start + len(ours)]]


async def test_board_styles_on_the_server(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db") as server:
        alice, bob = await start_match(server.port, "alice", "bob", 3)
        await alice.until(r"board:.*")  # the opening board (autoboard)
        await alice.send("set boardstyle 1")
        await alice.until(r"Value of 'boardstyle' set to 1\.")
        ascii_board = (await _replies(alice, "board", r"  BAR: .*"))[-15:]
        line = (await _replies(bob, "board", r"board:.*"))[-1]
    spec = scenario("opening board")
    assert shape(line, ["alice"]) == shape(spec[0], SPEC_NAMES)
    spec_board = spec[next(i for i, x in enumerate(spec) if x.lstrip().startswith("+13")):]

    def frame(row: str) -> str:
        for name in ("alice", "bob", "You", "myself", "someplayer"):
            row = row.replace(name, "NAME")
        row = re.sub(r"\+[\d-]+\+", "+POINTS+", row)  # X sees the numbers the other way round
        return re.sub(r"[OX\d]", " ", row.strip())[:45]
    assert [frame(row) for row in ascii_board] == [frame(row) for row in spec_board]


async def _resign_to_match_end(tmp_path: Path, toggle: str) -> tuple[list[str], list[str]]:
    """alice (rated as the document's "myself") wins 3-0: bob (as "someplayer") resigns a backgammon."""
    async with make_server(tmp_path / "f.db") as server:
        _rate(server, "alice", 1655.634835, 2761)
        _rate(server, "bob", 1500.0, 187)
        alice, bob = await start_match(server.port, "alice", "bob", 3)
        for client in (alice, bob):
            await client.send(f"toggle {toggle}")
            await client.until(r"\*\* You'll see how .*|\*\* You want .*")
        await bob.send("resign b")
        await bob.until(r"You want to resign\. alice will win 3 points\.")
        await alice.until(r"bob wants to resign\. You will win 3 points\. Type 'accept' or 'reject'\.")
        await alice.send("accept")
        return await alice.until(r"You win the 3 point match .*"), await bob.until(r"alice wins the 3 point match .*")


async def test_match_end_with_ratings_toggle(tmp_path: Path) -> None:
    winner, loser = await _resign_to_match_end(tmp_path, "ratings")
    spec = scenario("match end with ratings toggle on")
    block = winner[winner.index("rating calculation:"):]
    assert [line.replace("alice", "myself").replace("bob", "someplayer") for line in block[:-1]] == spec[:-1]
    assert block[-1] == "You win the 3 point match 3-0 ."
    assert loser[-1].replace("alice", "myself") == spec[-1]


MOVE_LINES = [r"[XO]: \(\d \d\)(?: (?:bar|\d+)-(?:off|\d+))+", r"[XO]: \(\d \d\) can't move",
              r"[XO]: (?:doubles|accepts|rejects|wins)"]


async def test_game_end_with_moves_toggle(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db") as server:
        alice, bob = await start_match(server.port, "alice", "bob", 3)
        await alice.send("toggle moves")
        await alice.until(r"\*\* You want a list of moves after this game\.")
        await bob.send("resign n")
        await alice.until(r"bob wants to resign\. You will win 1 point\. Type 'accept' or 'reject'\.")
        await alice.send("accept")
        lines = await alice.until(r"Type 'join' .*")
    ours = lines[next(i for i, line in enumerate(lines) if "Score is" in line):]
    ours = [line for line in ours if not WHO_LINE.fullmatch(line) and line != "6"]
    spec = scenario("end of game with \"moves\" toggle on")
    # the document's game was borne off, ours resigned: same glue, other first half
    assert ours[0] == "You accept and win 1 point.Score is 1-0 in a 3 point match."
    assert shape(spec[0].split("!", 1)[1], SPEC_NAMES) == shape(ours[0].split(".", 1)[1], ["alice"])
    assert [shape(line, ["alice", "bob"]) for line in ours[1:3]] == [shape(line, SPEC_NAMES) for line in spec[1:3]]
    moves = [line for line in spec[3:-2] if line != "..."]
    assert all(any(re.fullmatch(p, line) for p in MOVE_LINES) for line in moves + ours[3:-2])
    assert ours[-3] == spec[-3].replace("O:", ours[-3][0] + ":")  # "<side>: wins"
    assert [shape(line, ["alice", "bob"]) for line in ours[-2:]] == [shape(line, SPEC_NAMES) for line in spec[-2:]]


async def test_oldmoves_output(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db") as server:
        alice, bob = await start_match(server.port, "alice", "bob", 5)
        players = [MatchPlayer(alice, "bob", 5, seed=1, p_double=0, p_resign=0, stop_after_games=1),
                   MatchPlayer(bob, "alice", 5, seed=2, p_double=0, p_resign=0, stop_after_games=1)]
        await asyncio.gather(*(p.run() for p in players))
        carol = await Client.connect(server.port, "carol")
        ours = await _replies(carol, "oldmoves alice", r"[XO]: wins")
        await carol.send("oldmoves nobody")
        await carol.until(r"\*\* There is no saved game with nobody\.")
    spec = scenario("oldmoves output")
    assert_conforms(spec[:3], ours[:3], ["alice", "bob"])
    assert all(any(re.fullmatch(p, line) for p in MOVE_LINES) for line in spec[3:] + ours[3:] if line != "...")
    assert len(ours) > 6


def test_every_spec_scenario_has_a_test() -> None:
    """A new scenario in the examples file needs a test here (this server never glues lines: nothing to test)."""
    covered = ["full CLIP login example", "guest login text", "toggle listing", "set listing",
               "ready toggle with own who line", "rawwho", "oldmoves output", "opening board",
               "end of game with \"moves\" toggle on", "match end with ratings toggle on",
               "malformed (glued) lines", "whois examples", "ratings listing"]
    assert sorted(t for t in SCENARIOS if not any(t.startswith(c) for c in covered)) == []
