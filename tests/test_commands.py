"""bot.commands: exact command texts, and nothing can inject a second command."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot import commands


def test_command_texts() -> None:
    assert commands.login("GnuBot", "pw") == "login fibsbot 1008 GnuBot pw"
    assert commands.toggle("ready") == "toggle ready"
    assert commands.set_variable("boardstyle", 3) == "set boardstyle 3"
    assert commands.join() == "join" and commands.join("bob") == "join bob"
    assert [commands.roll(), commands.double(), commands.accept(), commands.reject()] == \
        ["roll", "double", "accept", "reject"]
    assert [commands.resign(v) for v in (1, 2, 3)] == ["resign n", "resign g", "resign b"]
    assert commands.board() == "board" and commands.leave() == "leave" and commands.bye() == "bye"
    assert commands.kibitz("I am a program. Good luck!") == "kibitz I am a program. Good luck!"
    assert commands.message("bob", "saved match?") == "message bob saved match?"
    assert commands.address("ComputerPlayer___GnuBot@example.org") == "address ComputerPlayer___GnuBot@example.org"
    assert commands.rawwho() == "rawwho" and commands.rawwho("GnuBot") == "rawwho GnuBot"
    assert commands.whois("bob") == "whois bob" and commands.oldmoves("bob") == "oldmoves bob"
    assert commands.show_saved() == "show saved"
    assert commands.show_savedcount("bob") == "show savedcount bob"


def test_chat_text_stays_on_one_line() -> None:
    assert commands.tell("bob", "hi\r\nleave\x00 caf\u00e9") == "tell bob hi  leave  caf?"
    assert commands.kibitz("\tmove\x7f") == "kibitz move"


@pytest.mark.parametrize("build", [
    lambda: commands.tell("bob leave", "x"),
    lambda: commands.join("bob\n"),
    lambda: commands.invite(""),
    lambda: commands.invite("bob", -1),
    lambda: commands.toggle("readyy"),
    lambda: commands.set_variable("boardstyle", "3\nbye"),
    lambda: commands.set_variable("colour", 1),
    lambda: commands.resign(0),
    lambda: commands.login("bob", "pass word"),
    lambda: commands.login("bob", "pw", client="x" * 21),
])
def test_bad_arguments_raise(build: Callable[[], str]) -> None:
    with pytest.raises(ValueError):
        build()
