"""A user's profile: rating, experience, toggles and variables, as FIBS keeps them."""

from __future__ import annotations

from dataclasses import dataclass, field

# Listing order of ``toggle`` (the example in FIBS's CLIP documentation) with the notice for on / off.
TOGGLES: dict[str, tuple[str, str]] = {
    "allowpip": ("You allow the use of the server's 'pip' command.",
                 "You don't allow the use of the server's 'pip' command."),
    "autoboard": ("The board will be refreshed after every move.",
                  "The board won't be refreshed after every move."),
    "autodouble": ("You agree that doublets during opening double the cube.",
                   "You don't agree that doublets during opening double the cube."),
    "automove": ("Forced moves will be done automatically.", "Forced moves won't be done automatically."),
    "bell": ("Your terminal will ring the bell if someone talks to you or invites you",
             "Your terminal won't ring the bell if someone talks to you or invites you"),
    "crawford": ("You would like to use the Crawford rule.",
                 "You would like to play without using the Crawford rule."),
    "double": ("You will be asked if you want to double.", "You won't be asked if you want to double."),
    "greedy": ("Will use automatic greedy bearoffs.", "Won't use automatic greedy bearoffs."),
    "moreboards": ("Will send rawboards after rolling.", "Won't send rawboards after rolling."),
    "moves": ("You want a list of moves after this game.", "You won't see a list of moves after this game."),
    "notify": ("You'll be notified when new users log in.", "You won't be notified when new users log in."),
    "ratings": ("You'll see how the rating changes are calculated.",
                "You won't see how the rating changes are calculated."),
    "ready": ("You're now ready to invite or join someone.", "You're now refusing to play with someone."),
    "report": ("You will be informed about starting and ending matches.",
               "You won't be informed about starting and ending matches."),
    "silent": ("You won't hear what other players shout.", "You will hear what other players shout."),
    "telnet": ("You use telnet and don't need extra 'newlines'.",
               "You use a client program and will receive extra 'newlines'."),
    "wrap": ("The server will wrap long lines.", "Your terminal knows how to wrap long lines."),
}

DEFAULT_ON = frozenset({"allowpip", "autoboard", "crawford", "double", "notify", "telnet"})
PER_GAME = {"double": True, "greedy": False, "moves": False}
"""Toggles FIBS resets at every new game, with the value they get."""

DEFAULT_SETTINGS = {"boardstyle": "1", "linelength": "0", "pagelength": "0", "redoubles": "none",
                    "sortwho": "login", "timezone": "UTC"}


def default_toggles() -> dict[str, bool]:
    return {name: name in DEFAULT_ON for name in TOGGLES}


@dataclass
class Account:
    name: str
    rating: float = 1500.0
    experience: int = 0
    email: str | None = None
    toggles: dict[str, bool] = field(default_factory=default_toggles)
    settings: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_SETTINGS))
    last_login: float | None = None
    last_host: str | None = None
    last_logout: float | None = None

    def own_info(self, away: bool) -> str:
        """The CLIP ``2`` line."""
        t = {name: int(value) for name, value in self.toggles.items()}
        redoubles = self.settings["redoubles"]
        return (f"2 {self.name} {t['allowpip']} {t['autoboard']} {t['autodouble']} {t['automove']} {int(away)} "
                f"{t['bell']} {t['crawford']} {t['double']} {self.experience} {t['greedy']} {t['moreboards']} "
                f"{t['moves']} {t['notify']} {self.rating:.2f} {t['ratings']} {t['ready']} "
                f"{0 if redoubles == 'none' else redoubles} {t['report']} {t['silent']} {self.settings['timezone']}")
