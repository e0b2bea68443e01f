"""Fixed texts: the login banner, the message of the day, the goodbye."""

from __future__ import annotations

import time

BANNER = r"""
          _____ _ _         _           _
         |  ___(_) |__  ___| |__   ___ | |_
         | |_  | | '_ \/ __| '_ \ / _ \| __|
         |  _| | | |_) \__ \ |_) | (_) | |_
         |_|   |_|_.__/|___/_.__/ \___/ \__|

      A FIBS-compatible backgammon server for local play

  This server speaks FIBS's client protocol (CLIP). Log in with
  login <client> 1008 <name> <password>

  LOGIN AS guest IF YOU ARE NEW TO THIS SERVER!
""".strip("\n").split("\n")

MOTD = """\
+--------------------------------------------------------------------+
| Welcome to the fibsbot local server.                               |
| Matches, ratings and saved games live in this server's own file;   |
| nothing here talks to fibs.com.                                    |
+--------------------------------------------------------------------+"""

GUEST = """\
Welcome to FIBS. You just logged in as guest.
Please register before using this server:

Type 'name username' where name is the word 'name' and
username is the login name you want to use.
The username may not contain blanks ' ' or colons ':'.
The system will then ask you for your password twice.
Please make sure that you don't forget your password. All
passwords are encrypted before they are saved. If you forget
your password there is no way to find out what it was.
Please type 'bye' if you don't want to register now.

ONE USERNAME PER PERSON ONLY!!!""".split("\n")

GOODBYE = """\

                  Thank you for playing here.
                  Come back soon.

Goodbye.""".split("\n")

HELP = """\
Commands: accept address away back board bye double help invite join kibitz
leave message move off oldmoves pip rawwho ratings reject resign roll say set
shout show tell time toggle unwatch version watch wave whisper who whois
Abbreviations: b (board), m (move), r (roll).""".split("\n")

VERSION = "** Version fibsbot server 1.0 (CLIP 1008/1009)"


def date_line(when: float | None = None) -> str:
    """``Friday, July 03 16:04:27 UTC   ( Fri Jul  3 16:04:27 2020 UTC )`` (the server runs on UTC)."""
    t = time.gmtime(when)
    return time.strftime("%A, %B %d %H:%M:%S UTC   ( %a %b %e %H:%M:%S %Y UTC )", t)


def whois_date(when: float) -> str:
    """``Friday, January 10 12:12 UTC`` as in whois."""
    return time.strftime("%A, %B %d %H:%M UTC", time.gmtime(when))
