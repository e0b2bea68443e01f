"""The parser table: one rule per server message, numbered CLIP lines by code, text lines in order.

One place to add a new server message: define its event in the family module, export it
from :mod:`bot.clip`, and add its rule to :data:`_CLIP` (numbered) or :data:`_TEXT_RULES` (text).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bot.clip.event import YOU, Blank, Event, Steps, Unknown
from bot.clip.info import (
    AddressSet,
    Alert,
    AlreadyLoggedIn,
    AwayList,
    AwayReminder,
    ConnectionTimedOut,
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
from bot.clip.notice import NOTICE_RULES, game_error
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
    UserAway,
    WaitingForJoin,
    YourTurn,
)

Builder = Callable[[re.Match[str]], Event]
Rule = tuple[re.Pattern[str], Builder]

_D = r"\d{1,15}"  # bounded: int() of a huge digit run would raise
_STEP = r"(?:bar|\d{1,2})-(?:off|\d{1,2})"
_STEPS = rf"((?: +{_STEP})*) *\.?"
_N = rf"({_D})"
_LEN = rf"an? (?:({_D}) point|unlimited) match"  # group: length or None (unlimited)
_PTS = rf"({_D}) points?\."


def _steps(text: str) -> Steps:
    return tuple((a, b) for a, b in (token.split("-") for token in text.split()))


def _length(text: str | None) -> int:
    """A match length group; None when the text said ``unlimited``."""
    return int(text) if text else 0


def _bool(text: str) -> bool:
    return text in ("1", "YES")


def _opt(text: str) -> str | None:
    return None if text == "-" else text


_B = r"([01])"


def _own_info(m: re.Match[str]) -> OwnInfo:
    b = [_bool(m[i]) for i in range(21)]
    return OwnInfo(
        name=m[1], allowpip=b[2], autoboard=b[3], autodouble=b[4], automove=b[5], away=b[6], bell=b[7],
        crawford=b[8], double=b[9], experience=int(m[10]), greedy=b[11], moreboards=b[12], moves=b[13],
        notify=b[14], rating=float(m[15]), ratings=b[16], ready=b[17],
        redoubles=None if m[18] == "unlimited" else int(m[18]), report=b[19], silent=b[20], timezone=m[21])


# Numbered CLIP lines, keyed by their code.
_CLIP: dict[str, tuple[re.Pattern[str], Builder]] = {
    code: (re.compile(pattern), builder) for code, pattern, builder in [
        ("1", r"1 (\S+) (-?\d{1,15}) (\S+)", lambda m: Welcome(m[1], int(m[2]), m[3])),
        ("2", rf"2 (\S+) {_B} {_B} {_B} {_B} {_B} {_B} {_B} {_B} ({_D}) {_B} {_B} {_B} {_B} "
              rf"(-?{_D}(?:\.{_D})?) {_B} {_B} ({_D}|unlimited) {_B} {_B} (\S+)",
         lambda m: _own_info(m)),
        ("3", r"3", lambda m: MotdStart()),
        ("4", r"4", lambda m: MotdEnd()),
        ("5", r"5 (\S+) (\S+) (\S+) ([01]) ([01]) (-?\d{1,15}(?:\.\d{1,15})?) "
              r"(\d{1,15}) (\d{1,15}) (\d{1,15}) (\S+) (\S+) (.+)",
         lambda m: WhoInfo(m[1], _opt(m[2]), _opt(m[3]), _bool(m[4]), _bool(m[5]), float(m[6]), int(m[7]),
                           int(m[8]), int(m[9]), m[10], _opt(m[11]), _opt(m[12]))),
        ("6", r"6", lambda m: WhoEnd()),
        ("7", r"7 (\S+) (.*)", lambda m: UserLogin(m[1], m[2])),
        ("8", r"8 (\S+) (.*)", lambda m: UserLogout(m[1], m[2])),
        ("9", r"9 (\S+) (-?\d{1,15}) (.*)", lambda m: StoredMessage(m[1], int(m[2]), m[3])),
        ("10", r"10 (\S+)", lambda m: MessageDelivered(m[1])),
        ("11", r"11 (\S+)", lambda m: MessageSaved(m[1])),
        ("12", r"12 (\S+)(?: (.*))?", lambda m: Says(m[1], m[2] or "")),
        ("13", r"13 (\S+)(?: (.*))?", lambda m: Shouts(m[1], m[2] or "")),
        ("14", r"14 (\S+)(?: (.*))?", lambda m: Whispers(m[1], m[2] or "")),
        ("15", r"15 (\S+)(?: (.*))?", lambda m: Kibitzes(m[1], m[2] or "")),
        ("16", r"16 (\S+)(?: (.*))?", lambda m: YouSay(m[1], m[2] or "")),
        ("17", r"17(?: (.*))?", lambda m: YouShout(m[1] or "")),
        ("18", r"18(?: (.*))?", lambda m: YouWhisper(m[1] or "")),
        ("19", r"19(?: (.*))?", lambda m: YouKibitz(m[1] or "")),
        ("20", r"20 (\S+)(?: (.*))?", lambda m: Alert(m[1], m[2] or "")),
    ]
}

# ``** `` notices that report a changed toggle.
_TOGGLED: dict[str, tuple[str, bool]] = {
    "You're now ready to invite or join someone.": ("ready", True),
    "You're now refusing to play with someone.": ("ready", False),
    "You'll be notified when new users log in.": ("notify", True),
    "You won't be notified when new users log in.": ("notify", False),
    "The board will be refreshed after every move.": ("autoboard", True),
    "The board won't be refreshed after every move.": ("autoboard", False),
    "Will send rawboards after rolling.": ("moreboards", True),
    "Won't send rawboards after rolling.": ("moreboards", False),
}

_RATING_CALC = (
    r"rating calculation:|rating difference D=|match length +N=|Experience: \S+ \d{1,15} - \S+ \d{1,15}$"
    r"|Probability that underdog wins: |P=\S+ is 1-Pu if underdog wins|K=max\(1 , -Experience/100\+5\) for "
    r"|change for \S+: "
)

# Text messages, tried in order (specific ``** `` lines before the generic Error).
_TEXT_RULES: list[tuple[str, Builder]] = [
    # game flow, most frequent first
    (rf"(\S+) moves{_STEPS}", lambda m: Moves(m[1], _steps(m[2]))),
    (r"You roll (\d) and (\d)\.", lambda m: Roll(YOU, (int(m[1]), int(m[2])))),
    (r"(\S+) rolls (\d) and (\d)\.", lambda m: Roll(m[1], (int(m[2]), int(m[3])))),
    (r"Please move (\d) pieces?\.", lambda m: PleaseMove(int(m[1]))),
    (r"It's your turn(?:\. Please roll or double| to roll or double)\.?", lambda m: YourTurn()),
    (r"(\S+) can't move\.", lambda m: CantMove(m[1])),
    (rf"The only possible move is{_STEPS}", lambda m: OnlyMove(_steps(m[1]))),
    (r"Bear(?:ing)? off:(?: (.*))?", lambda m: BearingOff(m[1] or "")),
    (r"Starting a new game with (\S+)\.", lambda m: GameStart(m[1])),
    (r"(\S+) rolled (\d), (\S+) rolled (\d)\.?", lambda m: OpeningRoll(m[1], int(m[2]), m[3], int(m[4]))),
    (r"It's your turn to move\.", lambda m: FirstMove(YOU)),
    (r"(\S+) makes the first move\.", lambda m: FirstMove(m[1])),
    (rf"The number on the doubling cube is now {_N}\.?", lambda m: AutoDouble(int(m[1]))),
    # cube and resignation
    (r"You double\. Please wait for \S+ to accept(?: or reject|, reject or redouble)\.", lambda m: Doubles(YOU)),
    (r"(\S+) doubles\.(?: Type 'accept' or 'reject'\.)?", lambda m: Doubles(m[1])),
    (rf"You accept the (?:re)?double\.\s+The cube shows {_N}\.", lambda m: DoubleAccepted(YOU, int(m[1]))),
    (rf"(\S+) accepts the double\.(?:\s+The cube shows {_N}\.)?",
     lambda m: DoubleAccepted(m[1], int(m[2]) if m[2] else None)),
    (rf"(\S+) redoubles to {_N}\. Type 'accept', 'reject' or 'redouble'\.", lambda m: Redoubles(m[1], int(m[2]))),
    (rf"You accept the double to {_N} and redouble\.", lambda m: AcceptAndRedouble(int(m[1]))),
    (rf"(\S+) wants to resign\. (\S+) will win {_PTS}(?: Type 'accept' or 'reject'\.)?",
     lambda m: ResignOffer(m[1], m[2], int(m[3]))),
    (rf"You want to resign\. (\S+) will win {_PTS}", lambda m: ResignOffer(YOU, m[1], int(m[2]))),
    (r"(\S+) rejects?\. The game continues\.", lambda m: ResignRejected(m[1])),
    # end of game and match
    (rf"You win the game and get {_PTS} Congratulations!", lambda m: GameWon(YOU, int(m[1]))),
    (rf"(\S+) wins the game and gets {_PTS}(?: Sorry\.)?", lambda m: GameWon(m[1], int(m[2]))),
    # "win" after a third person appears in Gibbon's data
    (rf"(\S+) gives? up\. (\S+) wins? {_PTS}", lambda m: GiveUp(m[1], m[2], int(m[3]))),
    (rf"(\S+) accepts? and wins? {_PTS}", lambda m: ResignAccepted(m[1], int(m[2]))),
    (r"score in (?:(\d{1,15}) point|unlimited) match: (\S+)-(\d{1,15}) (\S+)-(\d{1,15})",
     lambda m: MatchScore(_length(m[1]), m[2], int(m[3]), m[4], int(m[5]))),
    (r"Type 'join' if you want to play the next game, type 'leave' if you don't\.", lambda m: JoinNextGame()),
    (r"\*\* Please wait for (\S+) to join too\.", lambda m: WaitingForJoin(m[1])),
    (r"You win the (\d{1,15}) point match (\d{1,15})-(\d{1,15}) ?\.",
     lambda m: MatchWon(YOU, int(m[1]), (int(m[2]), int(m[3])))),
    (r"(\S+) wins the (\d{1,15}) point match (\d{1,15})-(\d{1,15}) ?\.",
     lambda m: MatchWon(m[1], int(m[2]), (int(m[3]), int(m[4])))),
    # interruptions
    (r"\*\* You terminated the game\. The game was saved\.", lambda m: GameSaved(YOU, "leave")),
    (r"\*\* (?:Player )?(\S+) (?:has left|terminated) the game\. The game was saved\.",
     lambda m: GameSaved(m[1], "leave")),
    (r"(\S+) logs out\. The game was saved\.", lambda m: GameSaved(m[1], "logout")),
    (r"(\S+) drops connection\. The game was saved\.", lambda m: GameSaved(m[1], "drop")),
    (r"Connection with (\S+) timed out\. The game was saved\.", lambda m: GameSaved(m[1], "timeout")),
    (r"Your game with \S+ was saved\.", lambda m: GameSaved(YOU, "logout")),
    (r"Connection timed out\.", lambda m: ConnectionTimedOut()),
    # invitations and joining
    (rf"(\S+) wants to play {_LEN} with you\.", lambda m: Invitation(m[1], _length(m[2]))),
    (r"(\S+) wants to resume a saved match with you\.", lambda m: Invitation(m[1], None)),
    (r"Type 'join (\S+)' to accept\.", lambda m: JoinHint(m[1])),
    (r"(?:\*\* )?WARNING: Don't accept if you want to continue the saved (?:(\d{1,15}) point|unlimited) match!",
     lambda m: SavedMatchWarning(_length(m[1]))),
    (rf"\*\* You invited (\S+) to (?:{_LEN}|(resume) a saved match)\.",
     lambda m: InviteSent(m[1], None if m[3] else _length(m[2]))),
    (rf"\*\* You are now playing {_LEN} with (\S+)", lambda m: NewMatch(m[2], _length(m[1]))),
    (rf"(?:\*\* )?Player (\S+) has joined you for {_LEN}\.", lambda m: NewMatch(m[1], _length(m[2]))),
    (r"You are now playing with (\S+)\. Your running match was loaded\.", lambda m: MatchResumed(m[1])),
    (r"(\S+) has joined you\. Your running match was loaded\.", lambda m: MatchResumed(m[1])),
    (r"turn: (\S+?)\.?", lambda m: ResumeTurn(m[1])),
    (r"match length: (\d{1,15})", lambda m: ResumeLength(int(m[1]))),
    (r"unlimited match(?:length)?", lambda m: ResumeLength(0)),
    (r"points for (?:user )?(\S+): (\d{1,15})", lambda m: ResumePoints(m[1], int(m[2]))),
    # report lines about other matches
    (rf"(\S+) and (\S+) start {_LEN}\.", lambda m: ReportMatchStart(m[1], m[2], _length(m[3]))),
    (r"(\S+) and (\S+) are resuming their (?:(\d{1,15})-point|unlimited) match\.",
     lambda m: ReportMatchResume(m[1], m[2], _length(m[3]))),
    (r"(\S+) wins an? (\d{1,15}) point match against (\S+)\s+(\d{1,15})-(\d{1,15}) ?\.",
     lambda m: ReportMatchWin(m[1], m[3], int(m[2]), (int(m[4]), int(m[5])))),
    (r"(\S+) has left the game with (\S+)\.", lambda m: LeftGame(m[1], m[2])),
    # login
    (r"login:", lambda m: LoginPrompt()),
    (r"Please give your password:", lambda m: PasswordPrompt()),
    (r"\*\* Warning: You are already logged in\.", lambda m: AlreadyLoggedIn()),
    # watching
    (r"You're now watching (\S+)\.", lambda m: Watching(m[1])),
    (r"You stop watching (\S+)\.", lambda m: StopWatching(m[1])),
    (r"(\S+) logs out\.\. You're not watching anymore\.", lambda m: StopWatching(m[1])),
    (r"(\S+) bans you from watching\.", lambda m: StopWatching(m[1])),
    (r"(\S+) is not doing anything interesting\.", lambda m: WatchIdle(m[1])),
    (r"(\S+) is watching you\.", lambda m: Watcher(m[1], YOU, True)),
    (r"(\S+) stops watching you\.", lambda m: Watcher(m[1], YOU, False)),
    (r"(\S+) (starts|stops) watching (\S+)\.", lambda m: Watcher(m[1], m[3], m[2] == "starts")),
    # away, chat replies, misc
    (r"You're away\. Please type 'back'", lambda m: AwayReminder()),
    (r"Welcome back\.", lambda m: WelcomeBack()),
    (r"The following users are away:", lambda m: AwayList(True)),
    (r"None of the users is away\.", lambda m: AwayList(False)),
    (r"(\S+) is away: (.*)", lambda m: UserAway(m[1], m[2])),
    (r"\*\* (?:(\d{1,15}) users?|But nobody) heard you\.", lambda m: Heard(int(m[1] or 0))),
    (r"You say to yourself: (.*)", lambda m: YouSay(YOU, m[1])),
    (r"You wave goodbye( again and log out)?\.", lambda m: Waves(YOU, bool(m[1]))),
    (r"(\S+) waves goodbye( again)?\.", lambda m: Waves(m[1], bool(m[2]))),
    (r"Pipcounts: You (\d{1,15})\s+(\S+) (\d{1,15})", lambda m: Pipcounts(int(m[1]), m[2], int(m[3]))),
    (r"Your game was saved in the panic file\.", lambda m: PanicSaved()),
    (r"There are messages for you:", lambda m: MessagesFollow()),
    (r"Your email address is '(\S*)'\.", lambda m: AddressSet(m[1])),
    # whois
    (r"Information about (\S+):", lambda m: WhoisHeader(m[1])),
    (r"  Last login:\s+(.*?) from (\S+)", lambda m: WhoisLogin(m[1], m[2])),
    (r"  Last logout:\s+(.*)", lambda m: WhoisLogout(m[1])),
    (r"  Still logged in\. (.*) idle\.", lambda m: WhoisPresence(True, m[1])),
    (r"  Not logged in right now\.", lambda m: WhoisPresence(False, None)),
    (r"  Rating: (-?\d{1,15}(?:\.\d{1,15})?) Experience: (\d{1,15})", lambda m: WhoisRating(float(m[1]), int(m[2]))),
    (r"  No email address\.", lambda m: WhoisEmail(None)),
    (r"  Email address: (\S+)", lambda m: WhoisEmail(m[1])),
    (r"  (\S+) is away: (.*)", lambda m: WhoisAway(m[1], m[2])),
    (r"  (\S+) is (.*)\.", lambda m: WhoisStatus(m[1], m[2])),
    (r"No information found on user (\S+)\.", lambda m: WhoisNotFound(m[1])),
    # saved matches, games list
    (r"  opponent\s+matchlength\s+score \(your points first\)", lambda m: SavedHeader()),
    (r"( \*|\*\*|  )(\S+)\s+(\d{1,15}|unlimited)\s+(\d{1,15})\s*-\s*(\d{1,15})",
     lambda m: SavedMatch(m[2], 0 if m[3] == "unlimited" else int(m[3]), (int(m[4]), int(m[5])), m[1] != "  ")),
    (r"no saved games\.", lambda m: NoSavedGames()),
    (r"(\S+) has (no|\d{1,15}) saved games?\.", lambda m: SavedCount(m[1], 0 if m[2] == "no" else int(m[2]))),
    (r"List of games:", lambda m: GamesHeader()),
    (r"(\S+) - (\S+) \((?:(\d{1,15}) point|unlimited) match (\d{1,15})-(\d{1,15})\)",
     lambda m: GameListing(m[1], m[2], _length(m[3]), (int(m[4]), int(m[5])))),
    # toggles and settings
    (r"The current settings are:", lambda m: ToggleHeader()),
    (r"([a-z]+)\s+(YES|NO)", lambda m: ToggleValue(m[1], _bool(m[2]))),
    (r"Settings of variables:", lambda m: SettingsHeader()),
    (r"(boardstyle|linelength|pagelength|redoubles|sortwho|timezone):\s*(.*)", lambda m: SettingValue(m[1], m[2])),
    (r"Value of '(\w+)' set to (.*)\.", lambda m: SettingChanged(m[1], m[2])),
    # oldmoves, ratings
    (r"Score is (\d{1,15})-(\d{1,15}) in (?:a (\d{1,15}) point|an unlimited) match\.",
     lambda m: OldmovesScore((int(m[1]), int(m[2])), _length(m[3]))),
    (r"\s*(\S+) is X - (\S+) is O", lambda m: OldmovesPlayers(m[1], m[2])),
    (r"([XO]): (?:\((\d) (\d)\) )?(.+)",
     lambda m: OldmovesLine("X" if m[1] == "X" else "O", (int(m[2]), int(m[3])) if m[2] else None, m[4])),
    (rf"(?:{_RATING_CALC}).*", lambda m: RatingCalculation(m[0])),
    (r" rank name\s+rating\s+Experience", lambda m: RatingsHeader()),
    (r"\s*(\d{1,15}) (\S+)\s+(-?\d{1,15}\.\d{1,15})\s+(\d{1,15})",
     lambda m: RatingsRow(int(m[1]), m[2], float(m[3]), int(m[4]))),
    # last: any other server notice or error
    (r"\*\* (.*)", lambda m: _stars(m[1])),
]
_COMPILED = [(re.compile(pattern), builder) for pattern, builder in _TEXT_RULES]
_NOTICES = [(re.compile(pattern), builder) for pattern, builder in NOTICE_RULES]


def _stars(text: str) -> Event:
    toggled = _TOGGLED.get(text)
    if toggled:
        return Toggled(*toggled)
    for pattern, builder in _NOTICES:
        m = pattern.fullmatch(text)
        if m:
            return builder(m)
    return game_error(text)


_MAX_TEXT_LINE = 4096
"""Server sentences are short; only chat (CLIP 12-20, matched by code) may be longer."""


def parse_one(line: str, first: Sequence[Rule] = ()) -> Event:
    """One line's event; ``first``: a dialect's rules, tried before the shared table."""
    if not line:
        return Blank()
    if line.startswith("board:"):
        return Board(line)
    code, _, _ = line.partition(" ")
    clip = _CLIP.get(code)
    if clip:
        m = clip[0].fullmatch(line)
        if m:
            return clip[1](m)
    if len(line) > _MAX_TEXT_LINE:
        return Unknown(line)  # longer than any server sentence: the text rules would only cost time
    for pattern, builder in (*first, *_COMPILED) if first else _COMPILED:
        m = pattern.fullmatch(line)
        if m:
            return builder(m)
    return Unknown(line)
