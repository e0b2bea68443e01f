"""FIBS client protocol (CLIP): one server line -> one typed, immutable event.

Pure and I/O-free. The rooms:

- :mod:`bot.clip.lines`: :class:`LineSplitter` cuts the byte stream into lines (and surfaces
  the unterminated login prompt);
- :mod:`bot.clip.glue`: :func:`parse_all` turns one line into its events (a message glued to a
  ``board:`` line or to ``... The cube shows n.`` is split off), :func:`parse` gives the first;
- :mod:`bot.clip.rules`: the parser table, one rule per server message (the one place to add one);
- :mod:`bot.clip.notice`: the ``**`` answers the bot reacts to (refusals, "not now", no such
  user or saved match), typed, and their wording rules;
- :mod:`bot.clip.dialect`: what other servers (JIBS, BaldLies, ...) say differently, one table
  each, chosen by what the server says before login (:class:`Parser`);
- the event types, value objects grouped by family (a section each): :mod:`~bot.clip.event` (the
  base, ``Unknown``), :mod:`~bot.clip.info` (login, own info, who, messages and chat, watching,
  away, errors, whois, saved matches, games, toggles, settings, oldmoves, ratings) and
  :mod:`~bot.clip.play` (invitations, match start, resume and end, turns, cube, resignation, end
  of game, interruptions, boards);
- :mod:`bot.clip.stats`: ``python -m bot.clip --stats FILE``.

Nothing here raises on server input: a line that matches no documented message becomes
:class:`Unknown`; an unrecognised ``** `` line becomes :class:`Error`. The bot itself is called
``You`` by FIBS; events use the same word (:data:`YOU`) wherever a player name stands, as
``board:`` lines do. Everything is re-exported here:

>>> from bot import clip
>>> clip.parse("GammonBot_VII rolls 3 and 1.")
Roll(player='GammonBot_VII', dice=(3, 1))
"""

from __future__ import annotations

from bot.clip.dialect import ANY, BALDLIES, DIALECTS, FIBS, JIBS, LOCAL, Dialect, Parser
from bot.clip.event import YOU, Blank, Event, Steps, Unknown
from bot.clip.glue import clean, parse, parse_all
from bot.clip.info import (
    AddressSet,
    Alert,
    AlreadyLoggedIn,
    AwayList,
    AwayReminder,
    ConnectionTimedOut,
    Error,
    GameListing,
    GamesHeader,
    Heard,
    Kibitzes,
    LoginPrompt,
    MessageDelivered,
    MessageSaved,
    MessagesFollow,
    MotdEnd,
    MotdStart,
    NoSavedGames,
    OldmovesLine,
    OldmovesPlayers,
    OldmovesScore,
    OwnInfo,
    PanicSaved,
    PasswordPrompt,
    Pipcounts,
    RatingCalculation,
    RatingsHeader,
    RatingsRow,
    SavedCount,
    SavedHeader,
    SavedMatch,
    Says,
    SettingChanged,
    SettingsHeader,
    SettingValue,
    Shouts,
    StopWatching,
    StoredMessage,
    Toggled,
    ToggleHeader,
    ToggleValue,
    UserLogin,
    UserLogout,
    Watcher,
    WatchIdle,
    Watching,
    Waves,
    Welcome,
    WelcomeBack,
    Whispers,
    WhoEnd,
    WhoInfo,
    WhoisAway,
    WhoisEmail,
    WhoisHeader,
    WhoisLogin,
    WhoisLogout,
    WhoisNotFound,
    WhoisPresence,
    WhoisRating,
    WhoisStatus,
    YouKibitz,
    YouSay,
    YouShout,
    YouWhisper,
)
from bot.clip.lines import LineSplitter
from bot.clip.notice import (
    Busy,
    GameError,
    MoveRefused,
    NoSavedMatch,
    NoSuchUser,
    NotPlaying,
    NotYourTurn,
    ResignPending,
    UnknownCommand,
)
from bot.clip.play import (
    AcceptAndRedouble,
    AutoDouble,
    BearingOff,
    Board,
    CantMove,
    DoubleAccepted,
    Doubles,
    FirstMove,
    GameSaved,
    GameStart,
    GameWon,
    GiveUp,
    Invitation,
    InviteSent,
    JoinHint,
    JoinNextGame,
    LeftGame,
    MatchResumed,
    MatchScore,
    MatchWon,
    Moves,
    NewMatch,
    OnlyMove,
    OpeningRoll,
    PleaseMove,
    Redoubles,
    ReportMatchResume,
    ReportMatchStart,
    ReportMatchWin,
    ResignAccepted,
    ResignOffer,
    ResignRejected,
    ResumeLength,
    ResumePoints,
    ResumeTurn,
    Roll,
    SavedMatchWarning,
    SaveReason,
    UserAway,
    WaitingForJoin,
    YourTurn,
)
from bot.clip.stats import event_counts, main

__all__ = [
    "YOU", "Steps", "Event", "Blank", "Unknown", "LoginPrompt", "PasswordPrompt", "AlreadyLoggedIn",
    "ConnectionTimedOut", "Welcome", "OwnInfo", "MotdStart", "MotdEnd", "WhoInfo", "WhoEnd", "UserLogin",
    "UserLogout", "StoredMessage", "MessageDelivered", "MessageSaved", "Says", "Shouts", "Whispers", "Kibitzes",
    "YouSay", "YouShout", "YouWhisper", "YouKibitz", "Alert", "Watching", "StopWatching", "WatchIdle",
    "Watcher", "AwayReminder", "WelcomeBack", "AwayList", "Heard", "Waves", "Pipcounts", "PanicSaved",
    "MessagesFollow", "AddressSet", "Error", "Invitation", "JoinHint", "SavedMatchWarning", "InviteSent",
    "UserAway", "NewMatch", "MatchResumed", "ResumeTurn", "ResumeLength", "ResumePoints", "GameStart",
    "OpeningRoll", "FirstMove", "AutoDouble", "MatchScore", "JoinNextGame", "WaitingForJoin", "MatchWon",
    "ReportMatchStart", "ReportMatchResume", "ReportMatchWin", "LeftGame", "SaveReason", "GameSaved",
    "YourTurn", "Roll", "PleaseMove", "CantMove", "Moves", "OnlyMove", "BearingOff", "Doubles",
    "DoubleAccepted", "Redoubles", "AcceptAndRedouble", "ResignOffer", "ResignRejected", "GameWon", "GiveUp",
    "ResignAccepted", "Board", "WhoisHeader", "WhoisLogin", "WhoisLogout", "WhoisPresence", "WhoisStatus",
    "WhoisAway", "WhoisRating", "WhoisEmail", "WhoisNotFound", "SavedHeader", "SavedMatch", "NoSavedGames",
    "SavedCount", "GamesHeader", "GameListing", "ToggleHeader", "ToggleValue", "Toggled", "SettingsHeader",
    "SettingValue", "SettingChanged", "OldmovesScore", "OldmovesPlayers", "OldmovesLine", "RatingCalculation",
    "RatingsHeader", "RatingsRow", "GameError", "MoveRefused", "NotYourTurn", "ResignPending", "NotPlaying",
    "Busy", "NoSuchUser", "NoSavedMatch", "UnknownCommand", "ANY", "BALDLIES", "DIALECTS", "FIBS", "JIBS", "LOCAL",
    "Dialect", "Parser", "clean", "parse_all", "parse", "LineSplitter", "event_counts", "main",
]
