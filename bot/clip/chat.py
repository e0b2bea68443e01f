"""Events of messages and chat (CLIP 9-20), watching, away, replies to chat commands, and server errors."""

from __future__ import annotations

from dataclasses import dataclass

from bot.clip.event import Event


# -- numbered CLIP messages 1-20 ----------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredMessage(Event):
    """CLIP 9: a message left for us while we were away."""

    sender: str
    time: int
    text: str


@dataclass(frozen=True, slots=True)
class MessageDelivered(Event):
    """CLIP 10: our ``message`` reached an online user."""

    name: str


@dataclass(frozen=True, slots=True)
class MessageSaved(Event):
    """CLIP 11: the recipient is offline; the message is stored."""

    name: str


@dataclass(frozen=True, slots=True)
class Says(Event):
    """CLIP 12: someone's ``tell`` or in-game ``say`` to us."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Shouts(Event):
    """CLIP 13."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Whispers(Event):
    """CLIP 14."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Kibitzes(Event):
    """CLIP 15."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class YouSay(Event):
    """CLIP 16, the echo of our tell; also ``You say to yourself: ...`` (name YOU)."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class YouShout(Event):
    """CLIP 17."""

    text: str


@dataclass(frozen=True, slots=True)
class YouWhisper(Event):
    """CLIP 18."""

    text: str


@dataclass(frozen=True, slots=True)
class YouKibitz(Event):
    """CLIP 19."""

    text: str


@dataclass(frozen=True, slots=True)
class Alert(Event):
    """CLIP 20 (CLIP 1009); treat like a tell."""

    name: str
    text: str


# -- watching, away, chat replies ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Watching(Event):
    """``You're now watching <user>.``"""

    user: str


@dataclass(frozen=True, slots=True)
class StopWatching(Event):
    """We no longer watch ``user`` (unwatch, they logged out, or they banned us)."""

    user: str


@dataclass(frozen=True, slots=True)
class WatchIdle(Event):
    """``<user> is not doing anything interesting.``"""

    user: str


@dataclass(frozen=True, slots=True)
class Watcher(Event):
    """``<watcher> starts/stops watching <watched>.`` (watched YOU: ``... watching you.``)"""

    watcher: str
    watched: str
    started: bool


@dataclass(frozen=True, slots=True)
class AwayReminder(Event):
    """``You're away. Please type 'back'``"""


@dataclass(frozen=True, slots=True)
class WelcomeBack(Event):
    """``Welcome back.``"""


@dataclass(frozen=True, slots=True)
class AwayList(Event):
    """``The following users are away:`` (any True) / ``None of the users is away.``"""

    any: bool


@dataclass(frozen=True, slots=True)
class Heard(Event):
    """``** <n> users heard you.`` / ``** But nobody heard you.`` (0)."""

    count: int


@dataclass(frozen=True, slots=True)
class Waves(Event):
    """``<player> waves goodbye [again].``"""

    player: str
    again: bool


@dataclass(frozen=True, slots=True)
class Pipcounts(Event):
    """``Pipcounts: You <n>   <opponent> <n>``"""

    pips: int
    opponent: str
    opponent_pips: int


@dataclass(frozen=True, slots=True)
class PanicSaved(Event):
    """``Your game was saved in the panic file.``"""


@dataclass(frozen=True, slots=True)
class MessagesFollow(Event):
    """``There are messages for you:``"""


@dataclass(frozen=True, slots=True)
class AddressSet(Event):
    """``Your email address is '<address>'.`` (reply to ``address``)."""

    address: str


@dataclass(frozen=True, slots=True)
class Error(Event):
    """Any ``** `` line not recognised otherwise; ``text`` without the stars."""

    text: str
