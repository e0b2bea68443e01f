"""bot.clip against real server lines, CLIP documentation dialogues, byte-stream quirks and fuzzing."""

from __future__ import annotations

import dataclasses
import doctest
import random
from collections.abc import Sequence
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import clip, commands, fibsboard, fuzz
from bot.clip import YOU, glue
from bot.clip.rules import Rule
from engine.errors import BoardParseError
from engine.match import CENTRED

DATA = fuzz.DATA / "fibs-lines"  # real server lines, shipped as the fuzzer's corpus
FILES = ("07-gibbon-clip-reader-test-lines.txt", "08-gibbon-board-lines-with-decoding.txt",
         "09-spec-example-outputs.txt")

# Every non-comment, non-blank line of the sample files, in file order, with the
# event type(s) it must give ("A+B" = a glued line). "Unknown" rows are free
# text, not messages: MOTD bodies, the CLIP document's "..." elisions, telnet-mode
# guest prose, the ASCII board and its author's explanations.
TABLE = """
### 07-gibbon-clip-reader-test-lines.txt
Welcome            | 1 GibbonTestA 1306865048 gibbon.example.com
Welcome            | 1 GibbonTestB 1306865049 127.128.129.130
OwnInfo            | 2 GibbonTestA 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 0 0 0 Europe/Sofia
OwnInfo            | 2 GibbonTestB 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 2 0 0 Europe/Sofia
OwnInfo            | 2 GibbonTestC 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 unlimited 0 0 Europe/Sofia
MotdStart          | 3
Unknown            | +------------------------------+
Unknown            | | This is the motto of the day. |
MotdEnd            | 4
WhoEnd             | 6
UserLogin          | 7 gflohr gflohr logs in.
UserLogout         | 8 gflohr gflohr drops connection.
StoredMessage      | 9 gflohr -1306935184    Be back at 20 p.m.
MessageDelivered   | 10 gflohr
MessageSaved       | 11 gflohr
Says               | 12 gflohr    Hello world.
Shouts             | 13 gflohr    Hello world.
Whispers           | 14 gflohr    Hello world.
Kibitzes           | 15 gflohr    Hello world.
YouSay             | 16 gflohr    Hello world.
YouShout           | 17    Hello world.
YouWhisper         | 18    Hello world.
YouKibitz          | 19    Hello world.
Alert              | 20 gflohr    Mad world!
WhoInfo            | 5 GibbonTestA barrack - 0 0 1418.61 1914 23 1306926526 173.223.48.110 Gibbon_0.1.1 president@whitehouse.gov
WhoInfo            | 5 GibbonTestB - - 0 0 -35.67 914 23 1306926526 44.55.66.77 Gibbon_0.1.1 foo@bar.baz
WhoInfo            | 5 GibbonTestC barrack - 0 0 1418.61 1914 23 1306926526 173.223.48.110* Gibbon_0.1.1 president@whitehouse.gov
Error              | ** Funny new message!
Error              | ** Error: something new went wrong!
Error              | ** You see a funny new message!
NoSuchUser         | ** There is no one called anonymous.
Roll               | gflohr rolls 3 and 1.
Roll               | You roll 6 and 4.
Moves              | gflohr moves 8-5 6-5 .
Moves              | gflohr moves 17-20 19-20 .
Moves              | gflohr moves 17-20 17-20 19-20 19-20 .
Moves              | gflohr moves bar-24 bar-22 .
Moves              | gflohr moves bar-1 bar-3 .
Moves              | gflohr moves 24-off 22-off .
Moves              | gflohr moves 1-off 3-off .
Moves              | GibbonTestB moves 2-off
GameStart          | Starting a new game with gflohr.
GameSaved          | ** You terminated the game. The game was saved.
GameSaved          | ** Player GibbonTestA terminated the game. The game was saved.
GameSaved          | GibbonTestA logs out. The game was saved.
GameSaved          | GibbonTestA drops connection. The game was saved.
GameSaved          | Connection with GibbonTestA timed out. The game was saved.
CantMove           | You can't move.
CantMove           | GibbonTestA can't move.
Doubles            | You double. Please wait for GibbonTestA to accept or reject.
Doubles            | GibbonTestA doubles. Type 'accept' or 'reject'.
DoubleAccepted     | You accept the double.  The cube shows 2.
DoubleAccepted     | GibbonTestA accepts the double.  The cube shows 4.
ResignOffer        | GibbonTestA wants to resign. You will win 1 point. Type 'accept' or 'reject'.
ResignOffer        | GibbonTestA wants to resign. You will win 6 points. Type 'accept' or 'reject'.
ResignOffer        | You want to resign. GibbonTestA will win 1 point.
ResignOffer        | You want to resign. GibbonTestA will win 4 points.
ResignRejected     | You reject. The game continues.
ResignRejected     | GibbonTestA rejects. The game continues.
Invitation         | GibbonTestA wants to play a 5 point match with you.
Invitation         | GibbonTestA wants to play an unlimited match with you.
Invitation         | GibbonTestA wants to resume a saved match with you.
JoinHint           | Type 'join GibbonTestA' to accept.
Watching           | You're now watching gflohr.
NewMatch           | ** You are now playing a 5 point match with gflohr
NewMatch           | ** You are now playing an unlimited match with gflohr
Busy               | ** gflohr is refusing games.
Busy               | ** Error: gflohr is already playing with someone else.
Busy               | ** gflohr didn't invite you.
NoSuchUser         | ** Error: can't find player gflohr
Busy               | ** You can't play two games at once
NewMatch           | ** Player gflohr has joined you for a 5 point match.
NewMatch           | Player gflohr has joined you for an unlimited match.
JoinNextGame       | Type 'join' if you want to play the next game, type 'leave' if you don't.
GameWon            | You win the game and get 1 point. Congratulations!
GameWon            | You win the game and get 4 points. Congratulations!
GameWon            | GibbonTestA wins the game and gets 1 point. Sorry.
GameWon            | GibbonTestA wins the game and gets 4 points. Sorry.
GiveUp             | GibbonTestA gives up. You win 1 point.
GiveUp             | GibbonTestA gives up. You win 2 points.
GiveUp             | You give up. GibbonTestA wins 1 point.
GiveUp             | You give up. GibbonTestA wins 2 points.
ResignAccepted     | You accept and win 1 point.
ResignAccepted     | You accept and win 2 points.
ResignAccepted     | GibbonTestA accepts and wins 1 point.
ResignAccepted     | GibbonTestA accepts and wins 2 points.
GameWon            | GibbonTestA wins the game and gets 1 point.
GameWon            | GibbonTestA wins the game and gets 4 points.
GiveUp             | GibbonTestB gives up. GibbonTestA wins 1 point.
GiveUp             | GibbonTestB gives up. GibbonTestA win 2 points.
MatchScore         | score in 7 point match: GibbonTestA-3 GibbonTestB-5
MatchScore         | score in unlimited match: GibbonTestA-3 GibbonTestB-5
WaitingForJoin     | ** Please wait for GibbonTestA to join too.
InviteSent         | ** You invited GibbonTestA to a 3 point match.
InviteSent         | ** You invited GibbonTestA to an unlimited match.
InviteSent         | ** You invited GibbonTestA to resume a saved match.
MatchWon           | You win the 7 point match 8-4.
MatchWon           | GibbonTestA wins the 7 point match 8-4.
StopWatching       | You stop watching gflohr.
MatchResumed       | You are now playing with gflohr. Your running match was loaded.
MatchResumed       | gflohr has joined you. Your running match was loaded.
ResumeTurn         | turn: gflohr
ResumeLength       | match length: 42
ResumeLength       | unlimited match
ResumePoints       | points for user gflohr: 3
ReportMatchStart   | gflohr and GibbonTestA start a 7 point match.
ReportMatchStart   | gflohr and GibbonTestA start an unlimited match.
ReportMatchWin     | gflohr wins a 7 point match against GibbonTestA  8-3 .
ReportMatchWin     | gflohr wins a 1 point match against GibbonTestA  1-0 .
ReportMatchResume  | gflohr and GibbonTestA are resuming their 7-point match.
ReportMatchResume  | gflohr and GibbonTestA are resuming their unlimited match.
SettingsHeader     | Settings of variables:
SettingValue       | boardstyle: 3
SettingValue       | linelength: 0
SettingValue       | pagelength: 0
SettingValue       | redoubles: none
SettingValue       | sortwho: login
SettingValue       | timezone: UTC
SettingChanged     | Value of 'boardstyle' set to 3.
SettingChanged     | Value of 'linelength' set to 0.
SettingChanged     | Value of 'pagelength' set to 0.
SettingChanged     | Value of 'redoubles' set to none.
SettingChanged     | Value of 'sortwho' set to login.
SettingChanged     | Value of 'timezone' set to UTC.
ToggleHeader       | The current settings are:
ToggleValue        | allowpip   YES
ToggleValue        | autoboard   YES
ToggleValue        | autodouble   NO
ToggleValue        | automove   YES
ToggleValue        | bell   NO
ToggleValue        | crawford   YES
ToggleValue        | double   YES
ToggleValue        | greedy   NO
ToggleValue        | moreboards   YES
ToggleValue        | moves   NO
ToggleValue        | notify  YES
ToggleValue        | ratings   NO
ToggleValue        | ready   NO
ToggleValue        | report   NO
ToggleValue        | silent   NO
ToggleValue        | telnet  YES
ToggleValue        | wrap   NO
Toggled            | ** You're now ready to invite or join someone.
Toggled            | ** You're now refusing to play with someone.
Toggled            | ** You won't be notified when new users log in.
Toggled            | ** You'll be notified when new users log in.
Toggled            | ** The board will be refreshed after every move.
Toggled            | ** The board won't be refreshed after every move.
SavedHeader        |   opponent          matchlength   score (your points first)
SavedMatch         |   GammonBot_VII           5                0 -  0
SavedMatch         |  *BlunderBot_VI           3                1 -  0
SavedMatch         | **bonehead                3                1 -  2
SavedMatch         | **bonehead                unlimited                1 -  2
SavedMatch         |   deadbeef                unlimited         1 -  2
NoSavedGames       | no saved games.
SavedCount         | deadbeef has no saved games.
SavedCount         | deadbeef has 12 saved games.
SavedCount         | deadbeef has 1 saved game.
AddressSet         | Your email address is 'gibbon@example.com'.
Error              | ** 'http://foobar' is not an email address.
NoSavedMatch       | ** ERROR: Saved match is corrupt. Please start another one.
Heard              | ** 1 user heard you.
Heard              | ** 42 users heard you.
### 08-gibbon-board-lines-with-decoding.txt
Board              | board:joe_white:black_jack:7:5:0:0:0:2:-1:0:-1:4:0:2:0:0:0:-2:4:0:0:0:-3:-2:-4:3:-2:0:0:0:0:-1:0:0:6:6:1:1:1:0:1:-1:0:25:0:0:0:0:2:6:0:0
Board              | board:joe_white:black_jack:1:0:0:0:6:2:0:2:0:0:0:0:0:-1:0:0:-2:0:0:0:0:0:0:-3:-1:-3:-1:-4:0:1:0:0:6:2:1:1:1:0:-1:1:25:0:0:5:0:0:2:4:0:0
Board              | board:joe_white:black_jack:2:1:1:0:0:0:-1:3:3:2:0:3:0:0:2:0:2:0:0:0:-1:-1:-2:-2:-2:-4:-2:0:0:1:5:1:0:0:2:0:1:0:1:-1:0:25:0:0:0:0:2:0:1:0
Board              | board:You:GibbonTestA:2:0:1:0:0:0:-1:0:-1:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:1:0:0:0:1:0:1:0:0:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:2:0:0:0
### 09-spec-example-outputs.txt
AlreadyLoggedIn    | ** Warning: You are already logged in.
Welcome            | 1 myself 1041253132 192.168.1.308
OwnInfo            | 2 myself 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 0 0 0 Australia/Melbourne
MotdStart          | 3
Unknown            | +--------------------------------------------------------------------+
Unknown            | | It was a dark and stormy night in Oakland.  Outside, the rain      |
Unknown            | | came down in torrents.  Winds of 40MPH+ pounded at the windows,    |
Unknown            | ...
Unknown            | | Thanks to all of the generous FIBSters who bought the UPS and      |
Unknown            | | made this possible!                                                |
Unknown            | +--------------------------------------------------------------------+
MotdEnd            | 4
StoredMessage      | 9 someplayer 1041253132 I'll log in at 10pm if you want to finish that game.
WhoInfo            | 5 mgnu_advanced someplayer - 1 0 1912.15 827 8 1040515752 192.168.143.5 3DFiBs -
WhoInfo            | 5 someplayer mgnu_advanced - 0 0 1418.61 23 1914 1041272421 192.168.40.3 MacFIBS someplayer@somewhere.com
Unknown            | ...
WhoInfo            | 5 anotherplayer - - 0 0 1439.79 1262 410 1041251697 somehost.com - -
WhoInfo            | 5 myself - - 0 0 3457.85 2396 12 1041253132 192.168.1.308 MyClient_v0.1 -
WhoEnd             | 6
Unknown            | Welcome to FIBS. You just logged in as guest.
Unknown            | Please register before using this server:
Unknown            | Type 'name username' where name is the word 'name' and
Unknown            | username is the login name you want to use.
Unknown            | The username may not contain blanks ' ' or colons ':'.
Unknown            | The system will then ask you for your password twice.
Unknown            | Please make sure that you don't forget your password. All
Unknown            | passwords are encrypted before they are saved. If you forget
Unknown            | your password there is no way to find out what it was.
Unknown            | Please type 'bye' if you don't want to register now.
Unknown            | ONE USERNAME PER PERSON ONLY!!!
ToggleHeader       | The current settings are:
ToggleValue        | allowpip        YES
ToggleValue        | autoboard       YES
ToggleValue        | autodouble      NO
ToggleValue        | automove        YES
ToggleValue        | bell            NO
ToggleValue        | crawford        YES
ToggleValue        | double          YES
ToggleValue        | greedy          NO
ToggleValue        | moreboards      YES
ToggleValue        | moves           NO
ToggleValue        | notify          YES
ToggleValue        | ratings         NO
ToggleValue        | ready           NO
ToggleValue        | report          NO
ToggleValue        | silent          NO
ToggleValue        | telnet          YES
ToggleValue        | wrap            NO
SettingsHeader     | Settings of variables:
SettingValue       | boardstyle: 3
SettingValue       | linelength: 0
SettingValue       | pagelength: 0
SettingValue       | redoubles:  none
SettingValue       | sortwho:    login
SettingValue       | timezone:   Australia/Melbourne
Toggled            | ** You're now ready to invite or join someone.
Unknown            | When toggled off:
Toggled            | ** You're now refusing to play with someone.
Unknown            | In reality, after the ** line you'll receive a
Unknown            | CLIP Who Info line to signal the status change.
Unknown            | So what you'll really see coming back from the server will look more like
Unknown            | this:
Toggled            | ** You're now ready to invite or join someone.
WhoInfo            | 5 myself - - 1 0 1418.61 23 21 1042191690 192.168.43.186 3DFiBs -
WhoEnd             | 6
WhoInfo            | 5 mgnu_advanced someplayer - 1 0 1912.15 77827 8 1040515752 192.168.143.5 3DFiBs -
WhoInfo            | 5 someplayer mgnu_advanced - 0 0 1418.61 23 1914 1041272421 192.168.40.3 MacFIBS someplayer@somewhere.com
WhoInfo            | 5 anotherplayer - - 0 0 1439.79 1262 410 1041251697 somehost.com - -
WhoEnd             | 6
OldmovesScore      | Score is 2-2 in a 3 point match.
OldmovesPlayers    | someplayer is X - myself is O
OldmovesLine       | O: (5 1) 13-8 24-23
OldmovesLine       | X: (6 5) 1-7 12-17
OldmovesLine       | O: (5 3) 8-3 6-3
OldmovesLine       | X: (5 4) 1-5 19-24
OldmovesLine       | O: (5 5) bar-20 6-1 6-1 23-18
OldmovesLine       | X: (4 5) 19-24 17-21
Unknown            | ...
OldmovesLine       | X: (1 5) 9-14 9-10
OldmovesLine       | O: (4 4) can't move
OldmovesLine       | X: (3 2) 12-14 12-15
Unknown            | ...
OldmovesLine       | O: (5 2) 21-16 16-14
OldmovesLine       | X: doubles
OldmovesLine       | O: accepts
OldmovesLine       | X: (2 1) 1-2 19-21
Unknown            | ...
OldmovesLine       | X: (6 4) 21-off 21-off
OldmovesLine       | O: (6 2) 1-off 1-off
OldmovesLine       | O: wins
Board              | board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0
Unknown            | Which represents the board:
Unknown            | +13-14-15-16-17-18-------19-20-21-22-23-24-+ X: someplayer - score: 0
Unknown            |   | O           X    |   |  X              O |
Unknown            |   | O           X    |   |  X              O |
Unknown            |   | O           X    |   |  X                |
Unknown            |   | O                |   |  X                |
Unknown            |   | O                |   |  X                |
Unknown            |  v|                  |BAR|                   |    3-point match
Unknown            |   | X                |   |  O                |
Unknown            |   | X                |   |  O                |
Unknown            |   | X           O    |   |  O                |
Unknown            |   | X           O    |   |  O              X |
Unknown            |   | X           O    |   |  O              X |
Unknown            |   +12-11-10--9--8--7--------6--5--4--3--2--1-+ O: myself - score: 0
Unknown            |   BAR: O-0 X-0   OFF: O-0 X-0   Cube: 1  You rolled 6 2.
GameWon+OldmovesScore | You win the game and get 1 point. Congratulations!Score is 1-0 in a 3 point match.
OldmovesPlayers    | someplayer is X - myself is O
OldmovesLine       | O: (5 1) 13-8 24-23
OldmovesLine       | X: (6 5) 1-7 12-17
OldmovesLine       | O: (5 3) 8-3 6-3
OldmovesLine       | X: (5 4) 1-5 19-24
Unknown            | ...
OldmovesLine       | X: (6 4) 21-off 21-off
OldmovesLine       | O: (6 2) 1-off 1-off
OldmovesLine       | O: wins
MatchScore         | score in 3 point match: myself-1 someplayer-0
JoinNextGame       | Type 'join' if you want to play the next game, type 'leave' if you don't.
RatingCalculation  | rating calculation:
RatingCalculation  | rating difference D=155.634835
RatingCalculation  | match length      N=3
RatingCalculation  | Experience: myself 2761 - someplayer 187
RatingCalculation  | Probability that underdog wins: Pu=1/(10^(D*sqrt(N)/2000)+1)=0.423029
RatingCalculation  | P=0.423029 is 1-Pu if underdog wins and Pu if favorite wins
RatingCalculation  | K=max(1 , -Experience/100+5) for myself: 1.000000
RatingCalculation  | change for myself: 4*K*sqrt(N)*P=2.930831
RatingCalculation  | K=max(1 , -Experience/100+5) for someplayer: 3.130000
RatingCalculation  | change for someplayer: -4*K*sqrt(N)*P=-9.173502
MatchWon           | myself wins the 3 point match 3-0 .
Board+WhoInfo      | board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:05 anotherplayer - - 0 0 1439.79 1262 410 1041251697 somehost.com - -
DoubleAccepted+Shouts | someplayer accepts the double. The cube shows 2.13 anotherplayer Anybody for a 5 point match?
WhoisHeader        | Information about someplayer:
WhoisLogin         |   Last login:  Friday, January 10 12:12 EST from 192.168.143.5
WhoisLogout        |   Last logout: Friday, January 10 13:15 EST
WhoisPresence      |   Not logged in right now.
WhoisRating        |   Rating: 1912.15 Experience: 827
WhoisEmail         |   Email address: someplayer@somewhere.com
WhoisHeader        | Information about anotherplayer:
WhoisLogin         |   Last login:  Tuesday, January 14 20:14 EST from 192.168.40.3
WhoisPresence      |   Still logged in. 4 seconds idle.
WhoisStatus        |   anotherplayer is not ready to play, watching mgnu_advanced, not playing.
WhoisRating        |   Rating: 1418.61 Experience: 23
WhoisEmail         |   No email address.
RatingsHeader      |  rank name            rating    Experience
RatingsRow         |     1 NIHILIST        2295.11     7274
RatingsRow         |     2 sue             2223.18    15625
RatingsRow         |     3 Biggles         2201.53    11720
RatingsRow         |     4 otaku           2180.23     1533
RatingsRow         |     5 loner           2128.04    16818
RatingsRow         |     6 Kraftwerk       2055.30     1286
RatingsRow         |     7 grepster        2054.96     4328
RatingsRow         |     8 mloner          2054.22    97764
RatingsRow         |     9 reno            2027.95     2221
RatingsRow         |    10 garyKay         2021.00    14096
RatingsRow         |    11 mloner_II       2010.78    140276
RatingsRow         |    12 melzi           2007.19     6543
RatingsRow         |    13 dage            2006.96     5275
RatingsRow         |    14 mgnu_zp         2001.41    329354
RatingsRow         |    15 LeSinge         1990.50     2753
RatingsRow         |    16 Zorgtwo         1989.92      236
RatingsRow         |    17 MariosSoup      1988.94    17264
RatingsRow         |    18 erick           1982.49     5096
RatingsRow         |    19 themaz          1979.74    29816
RatingsRow         |    20 alydar          1977.11    29132
"""


def _table() -> dict[str, list[tuple[str, str]]]:
    rows: dict[str, list[tuple[str, str]]] = {}
    for row in TABLE.strip("\n").split("\n"):
        if row.startswith("### "):
            current = rows.setdefault(row[4:], [])
        else:
            names, line = row.split(" | ", 1)
            current.append((names.strip(), line))
    return rows


def _sample_lines(name: str) -> list[str]:
    text = (DATA / name).read_text(encoding="ascii")
    return [line for line in text.split("\n") if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("name", FILES)
def test_every_sample_line_has_its_table_type(name: str) -> None:
    table = _table()[name]
    assert [line for _, line in table] == _sample_lines(name)
    for names, line in table:
        assert "+".join(type(e).__name__ for e in clip.parse_all(line)) == names, line


def test_no_documented_message_is_unknown() -> None:
    unknown = [line for rows in _table().values() for names, line in rows if "Unknown" in names]
    # Free text only: MOTD boxes, elisions, ASCII board rows and prose sentences.
    for line in unknown:
        assert (line.lstrip()[:1] in "+|.v" or line.startswith("  ")
                or line in _PROSE), line


_PROSE = {
    "Welcome to FIBS. You just logged in as guest.", "Please register before using this server:",
    "Type 'name username' where name is the word 'name' and", "username is the login name you want to use.",
    "The username may not contain blanks ' ' or colons ':'.",
    "The system will then ask you for your password twice.",
    "Please make sure that you don't forget your password. All",
    "passwords are encrypted before they are saved. If you forget",
    "your password there is no way to find out what it was.",
    "Please type 'bye' if you don't want to register now.", "ONE USERNAME PER PERSON ONLY!!!",
    "When toggled off:", "In reality, after the ** line you'll receive a",
    "CLIP Who Info line to signal the status change.",
    "So what you'll really see coming back from the server will look more like", "this:",
    "Which represents the board:",
}


@pytest.mark.parametrize("module", [clip, fibsboard, commands])
def test_doctests(module: ModuleType) -> None:
    # pytest's --doctest-modules only sees bot/ when bot/ is on the command line
    failures, tried = doctest.testmod(module)
    assert tried and not failures


# -- field values -------------------------------------------------------------

VALUES = [
    ("1 GibbonTestB 1306865049 127.128.129.130", clip.Welcome("GibbonTestB", 1306865049, "127.128.129.130")),
    ("2 GibbonTestC 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 unlimited 0 0 Europe/Sofia",
     clip.OwnInfo("GibbonTestC", allowpip=True, autoboard=True, autodouble=False, automove=False, away=False,
                  bell=False, crawford=True, double=True, experience=2396, greedy=False, moreboards=True,
                  moves=False, notify=True, rating=3457.85, ratings=False, ready=False, redoubles=None,
                  report=False, silent=False, timezone="Europe/Sofia")),
    ("2 myself 1 0 1 0 1 0 1 0 7 1 0 1 0 1500.00 1 0 2 1 0 UTC",
     clip.OwnInfo("myself", allowpip=True, autoboard=False, autodouble=True, automove=False, away=True,
                  bell=False, crawford=True, double=False, experience=7, greedy=True, moreboards=False,
                  moves=True, notify=False, rating=1500.0, ratings=True, ready=False, redoubles=2,
                  report=True, silent=False, timezone="UTC")),
    ("5 GibbonTestB - - 0 0 -35.67 914 23 1306926526 44.55.66.77 Gibbon_0.1.1 foo@bar.baz",
     clip.WhoInfo("GibbonTestB", None, None, False, False, -35.67, 914, 23, 1306926526, "44.55.66.77",
                  "Gibbon_0.1.1", "foo@bar.baz")),
    ("5 mgnu_advanced someplayer - 1 0 1912.15 827 8 1040515752 192.168.143.5 3DFiBs -",
     clip.WhoInfo("mgnu_advanced", "someplayer", None, True, False, 1912.15, 827, 8, 1040515752,
                  "192.168.143.5", "3DFiBs", None)),
    ("9 gflohr -1306935184    Be back at 20 p.m.", clip.StoredMessage("gflohr", -1306935184, "   Be back at 20 p.m.")),
    ("12 gflohr    Hello world.", clip.Says("gflohr", "   Hello world.")),
    ("17    Hello world.", clip.YouShout("   Hello world.")),
    ("gflohr moves bar-24 bar-22 .", clip.Moves("gflohr", (("bar", "24"), ("bar", "22")))),
    ("GibbonTestB moves 2-off", clip.Moves("GibbonTestB", (("2", "off"),))),
    ("bob moves  .", clip.Moves("bob", ())),
    ("The only possible move is 24-18 18-13 .", clip.OnlyMove((("24", "18"), ("18", "13")))),
    ("You roll 6 and 4.", clip.Roll(YOU, (6, 4))),
    ("You rolled 5, bob rolled 2", clip.OpeningRoll(YOU, 5, "bob", 2)),
    ("It's your turn to move.", clip.FirstMove(YOU)),
    ("bob makes the first move.", clip.FirstMove("bob")),
    ("It's your turn. Please roll or double", clip.YourTurn()),
    ("It's your turn to roll or double.", clip.YourTurn()),
    ("Please move 1 piece.", clip.PleaseMove(1)),
    ("Please move 4 pieces.", clip.PleaseMove(4)),
    ("GibbonTestA accepts the double.  The cube shows 4.", clip.DoubleAccepted("GibbonTestA", 4)),
    ("pipcat accepts the double.", clip.DoubleAccepted("pipcat", None)),
    ("You accept the redouble. The cube shows 8.", clip.DoubleAccepted(YOU, 8)),
    ("bob redoubles to 4. Type 'accept', 'reject' or 'redouble'.", clip.Redoubles("bob", 4)),
    ("GibbonTestA wants to resign. You will win 6 points. Type 'accept' or 'reject'.",
     clip.ResignOffer("GibbonTestA", YOU, 6)),
    ("pipcat wants to resign. GammonBot_VII will win 4 points.", clip.ResignOffer("pipcat", "GammonBot_VII", 4)),
    ("You want to resign. GibbonTestA will win 1 point.", clip.ResignOffer(YOU, "GibbonTestA", 1)),
    ("GibbonTestB gives up. GibbonTestA win 2 points.", clip.GiveUp("GibbonTestB", "GibbonTestA", 2)),
    ("You give up. bob wins 1 point.", clip.GiveUp(YOU, "bob", 1)),
    ("GammonBot_VII accepts and wins 4 points.", clip.ResignAccepted("GammonBot_VII", 4)),
    ("GibbonTestA wins the game and gets 4 points. Sorry.", clip.GameWon("GibbonTestA", 4)),
    ("score in 7 point match: GibbonTestA-3 GibbonTestB-5", clip.MatchScore(7, "GibbonTestA", 3, "GibbonTestB", 5)),
    ("You win the 7 point match 8-4.", clip.MatchWon(YOU, 7, (8, 4))),
    ("myself wins the 3 point match 3-0 .", clip.MatchWon("myself", 3, (3, 0))),
    ("Davies wins a 5 point match against GammonBot_XVIII  6-1 .",
     clip.ReportMatchWin("Davies", "GammonBot_XVIII", 5, (6, 1))),
    ("gflohr and GibbonTestA are resuming their 7-point match.", clip.ReportMatchResume("gflohr", "GibbonTestA", 7)),
    ("GammonBot_XX has left the game with HALIS.", clip.LeftGame("GammonBot_XX", "HALIS")),
    ("GibbonTestA wants to play an unlimited match with you.", clip.Invitation("GibbonTestA", 0)),
    ("GibbonTestA wants to resume a saved match with you.", clip.Invitation("GibbonTestA", None)),
    ("WARNING: Don't accept if you want to continue the saved 5 point match!", clip.SavedMatchWarning(5)),
    ("** WARNING: Don't accept if you want to continue the saved unlimited match!", clip.SavedMatchWarning(0)),
    ("** You invited GibbonTestA to resume a saved match.", clip.InviteSent("GibbonTestA", None)),
    ("** You invited GibbonTestA to a 3 point match.", clip.InviteSent("GibbonTestA", 3)),
    ("** Player gflohr has joined you for a 5 point match.", clip.NewMatch("gflohr", 5)),
    ("** You are now playing an unlimited match with gflohr", clip.NewMatch("gflohr", 0)),
    ("gflohr has joined you. Your running match was loaded.", clip.MatchResumed("gflohr")),
    ("turn: gflohr.", clip.ResumeTurn("gflohr")),
    ("unlimited matchlength", clip.ResumeLength(0)),
    ("points for user gflohr: 3", clip.ResumePoints("gflohr", 3)),
    ("points for bob: 0", clip.ResumePoints("bob", 0)),
    ("** Player bob has left the game. The game was saved.", clip.GameSaved("bob", "leave")),
    ("Connection with GibbonTestA timed out. The game was saved.", clip.GameSaved("GibbonTestA", "timeout")),
    ("Your game with bob was saved.", clip.GameSaved(YOU, "logout")),
    ("**bonehead                unlimited                1 -  2", clip.SavedMatch("bonehead", 0, (1, 2), True)),
    ("  GammonBot_VII           5                0 -  0", clip.SavedMatch("GammonBot_VII", 5, (0, 0), False)),
    ("deadbeef has no saved games.", clip.SavedCount("deadbeef", 0)),
    ("deadbeef has 12 saved games.", clip.SavedCount("deadbeef", 12)),
    ("notify  YES", clip.ToggleValue("notify", True)),
    ("** Will send rawboards after rolling.", clip.Toggled("moreboards", True)),
    ("Value of 'redoubles' set to none.", clip.SettingChanged("redoubles", "none")),
    ("redoubles:  none", clip.SettingValue("redoubles", "none")),
    ("** But nobody heard you.", clip.Heard(0)),
    ("** 42 users heard you.", clip.Heard(42)),
    ("  Still logged in. 4 seconds idle.", clip.WhoisPresence(True, "4 seconds")),
    ("  anotherplayer is not ready to play, watching mgnu_advanced, not playing.",
     clip.WhoisStatus("anotherplayer", "not ready to play, watching mgnu_advanced, not playing")),
    ("  bob is away: lunch", clip.WhoisAway("bob", "lunch")),
    ("bob is away: lunch", clip.UserAway("bob", "lunch")),
    ("No information found on user nobody.", clip.WhoisNotFound("nobody")),
    ("O: (5 5) bar-20 6-1 6-1 23-18", clip.OldmovesLine("O", (5, 5), "bar-20 6-1 6-1 23-18")),
    ("X: doubles", clip.OldmovesLine("X", None, "doubles")),
    ("Score is 2-2 in a 3 point match.", clip.OldmovesScore((2, 2), 3)),
    ("  alice is X - bob is O", clip.OldmovesPlayers("alice", "bob")),
    ("   10 garyKay         2021.00    14096", clip.RatingsRow(10, "garyKay", 2021.0, 14096)),
    ("bob - alice (5 point match 2-1)", clip.GameListing("bob", "alice", 5, (2, 1))),
    ("Pipcounts: You 167   bob 155", clip.Pipcounts(167, "bob", 155)),
    ("bob is watching you.", clip.Watcher("bob", YOU, True)),
    ("bob stops watching alice.", clip.Watcher("bob", "alice", False)),
    ("bob logs out.. You're not watching anymore.", clip.StopWatching("bob")),
    ("The number on the doubling cube is now 2", clip.AutoDouble(2)),
    ("Bearing off: 3 o 1 o", clip.BearingOff("3 o 1 o")),
    ("login:", clip.LoginPrompt()),
    ("login: ", clip.LoginPrompt()),
    ("Connection timed out.", clip.ConnectionTimedOut()),
    ("You wave goodbye again and log out.", clip.Waves(YOU, True)),
    ("** You can't move 5 points in your second move.", clip.MoveRefused("You can't move 5 points in your second move.")),
    ("", clip.Blank()),
    ("   ", clip.Blank()),
    ("5 bob", clip.Unknown("5 bob")),
    ("2 myself 1 1 0", clip.Unknown("2 myself 1 1 0")),
]


@pytest.mark.parametrize(("line", "event"), VALUES)
def test_field_values(line: str, event: clip.Event) -> None:
    assert clip.parse(line) == event


def test_events_are_frozen_and_hashable() -> None:
    event = clip.parse("You roll 6 and 4.")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.player = "bob"
    assert len({event, clip.parse("You roll 6 and 4.")}) == 1


def test_moves_text() -> None:
    event = clip.parse("pipcat moves bar-21 6-5 .")
    assert isinstance(event, clip.Moves) and event.text == "bar-21 6-5"


# -- decoded board lines (08-gibbon-board-lines-with-decoding.txt) ---------------

def _boards() -> list[fibsboard.FibsBoard]:
    return [fibsboard.parse(line) for line in _sample_lines(FILES[1])]


def test_gibbon_board00_watched_game() -> None:
    b = _boards()[0]
    assert (b.player, b.opponent, b.colour, b.direction) == ("joe_white", "black_jack", 1, -1)
    assert (b.match.length, b.match.score, b.turn, b.dice, b.cube) == (7, (0, 5), -1, (6, 6), 1)
    assert not b.player_on_turn and b.match.cube_owner == CENTRED
    assert b.position.pip_counts() == (156, 138)


def test_gibbon_board01_x_player_and_borne_off() -> None:
    b = _boards()[1]
    assert (b.colour, b.direction, b.home, b.bar) == (-1, 1, 25, 0)
    assert (b.match.length, b.match.score, b.turn, b.dice) == (1, (0, 0), 1, (6, 2))
    assert not b.player_on_turn and b.position.off() == (0, 5)
    assert b.position.pip_counts() == (73, 18)


def test_gibbon_board02_cube_owned_post_crawford() -> None:
    b = _boards()[2]
    assert (b.match.length, b.match.score, b.cube, b.match.cube_owner) == (2, (1, 1), 2, 0)
    assert b.player_on_turn and b.dice == (5, 1) and b.colour == 1
    assert b.match.post_crawford and not b.match.crawford_game


def test_gibbon_board03_crawford_game() -> None:
    b = _boards()[3]
    assert (b.player, b.opponent, b.colour, b.turn) == ("You", "GibbonTestA", -1, 1)
    assert not b.player_on_turn and b.dice is None
    assert b.match.score == (1, 0) and b.match.crawford_game and b.match.on_roll == 0


def test_spec_worked_example_2_bar_checker() -> None:
    b = fibsboard.parse("board:GammonBot_VII:pipcat:5:0:0:-1:-1:0:0:0:1:4:0:3:0:0:0:-4:5:0:0:0:-3:-1:-5:0:1:0"
                        ":0:1:0:-1:0:0:0:0:1:1:1:0:-1:1:25:0:0:0:1:0:2:1:0:0")
    mine, theirs = b.position.board[1], b.position.board[0]
    assert {i + 1: n for i, n in enumerate(mine[:24]) if n} == {24: 1, 13: 4, 8: 3, 7: 1, 6: 5}
    assert mine[24] == 1 and theirs[24] == 0
    assert {i + 1: n for i, n in enumerate(theirs[:24]) if n} == {24: 1, 21: 1, 13: 5, 8: 3, 6: 4, 5: 1}
    assert b.player_on_turn and b.dice is None


# -- scripted dialogues from the CLIP document -------------------------------------

OPENING = "board:You:bob:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"

DIALOGUES = [
    (  # login, who burst
        "** Warning: You are already logged in.\r\n1 myself 1041253132 192.168.1.308\r\n"
        "2 myself 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 0 0 0 Australia/Melbourne\r\n3\r\n| motd |\r\n4\r\n"
        "9 someplayer 1041253132 I'll log in at 10pm.\r\n"
        "5 myself - - 0 0 3457.85 2396 12 1041253132 192.168.1.308 MyClient_v0.1 -\r\n6\r\n",
        [clip.AlreadyLoggedIn, clip.Welcome, clip.OwnInfo, clip.MotdStart, clip.Unknown, clip.MotdEnd,
         clip.StoredMessage, clip.WhoInfo, clip.WhoEnd]),
    (  # invitation and join
        "bob wants to play a 3 point match with you.\x07\r\nType 'join bob' to accept.\r\n"
        "** You are now playing a 3 point match with bob\r\nStarting a new game with bob.\r\n"
        "You rolled 1, bob rolled 1\r\nYou rolled 6, bob rolled 2\r\nIt's your turn to move.\r\n" + OPENING + "\r\n",
        [clip.Invitation, clip.JoinHint, clip.NewMatch, clip.GameStart, clip.OpeningRoll, clip.OpeningRoll,
         clip.FirstMove, clip.Board]),
    (  # our turn, doubling, opponent's turn
        "It's your turn. Please roll or double\r\nYou double. Please wait for bob to accept or reject.\r\n"
        "bob accepts the double. The cube shows 2.\r\nYou roll 3 and 1.\r\n" + OPENING + "\r\n"
        "Please move 2 pieces.\r\n" + OPENING + "\r\nbob rolls 6 and 5.\r\nbob moves 1-7 7-12 .\r\n"
        "bob doubles. Type 'accept' or 'reject'.\r\nYou accept the double.  The cube shows 4.\r\n"
        "bob rolls 2 and 2.\r\nbob can't move.\r\n",
        [clip.YourTurn, clip.Doubles, clip.DoubleAccepted, clip.Roll, clip.Board, clip.PleaseMove, clip.Board,
         clip.Roll, clip.Moves, clip.Doubles, clip.DoubleAccepted, clip.Roll, clip.CantMove]),
    (  # resignation, game and match end
        "bob wants to resign. You will win 2 points. Type 'accept' or 'reject'.\r\nYou accept and win 2 points.\r\n"
        "score in 3 point match: You-2 bob-0\r\n"
        "Type 'join' if you want to play the next game, type 'leave' if you don't.\r\n"
        "** Please wait for bob to join too.\r\nStarting a new game with bob.\r\n"
        "You win the game and get 1 point. Congratulations!\r\nYou win the 3 point match 3-0 .\r\n",
        [clip.ResignOffer, clip.ResignAccepted, clip.MatchScore, clip.JoinNextGame, clip.WaitingForJoin,
         clip.GameStart, clip.GameWon, clip.MatchWon]),
    (  # interruption and resume
        "bob drops connection. The game was saved.\r\n7 bob bob logs in.\r\n"
        "bob wants to resume a saved match with you.\r\nType 'join bob' to accept.\r\n"
        "You are now playing with bob. Your running match was loaded.\r\nturn: bob.\r\nmatch length: 3\r\n"
        "points for You: 2\r\npoints for bob: 0\r\n",
        [clip.GameSaved, clip.UserLogin, clip.Invitation, clip.JoinHint, clip.MatchResumed, clip.ResumeTurn,
         clip.ResumeLength, clip.ResumePoints, clip.ResumePoints]),
    (  # glued lines and the moves toggle
        OPENING + "5 anotherplayer - - 0 0 1439.79 1262 410 1041251697 somehost.com - -\r\n"
        "someplayer accepts the double. The cube shows 2.13 anotherplayer Anybody for a 5 point match?\r\n"
        "You win the game and get 1 point. Congratulations!Score is 1-0 in a 3 point match.\r\n",
        [clip.Board, clip.WhoInfo, clip.DoubleAccepted, clip.Shouts, clip.GameWon, clip.OldmovesScore]),
]


def _events(stream: bytes, chunks: list[int]) -> list[clip.Event]:
    splitter = clip.LineSplitter()
    lines: list[str] = []
    start = 0
    for size in chunks + [len(stream)]:
        lines += splitter.feed(stream[start:start + size])
        start += size
    lines += splitter.flush()
    return [event for line in lines for event in clip.parse_all(line)]


@pytest.mark.parametrize(("text", "types"), DIALOGUES)
def test_dialogue_events(text: str, types: list[type[clip.Event]]) -> None:
    assert [type(e) for e in _events(text.encode(), [])] == types


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(DIALOGUES), st.lists(st.integers(0, 40), max_size=30),
       st.sampled_from(["\n", "\r", "\r\n", "\r\n\r\n"]))
def test_dialogue_survives_chunking_and_any_line_end(dialogue: tuple[str, list[type[clip.Event]]],
                                                     chunks: list[int], end: str) -> None:
    text, types = dialogue
    data = text.replace("\r\n", end).encode()
    events = [e for e in _events(data, chunks) if not isinstance(e, clip.Blank)]
    assert [type(e) for e in events] == types
    assert events == [e for e in _events(text.encode(), []) if not isinstance(e, clip.Blank)]


def test_dialogue_values() -> None:
    events = _events(DIALOGUES[1][0].encode(), [7, 3])
    assert events[0] == clip.Invitation("bob", 3) and events[2] == clip.NewMatch("bob", 3)
    assert events[5] == clip.OpeningRoll(YOU, 6, "bob", 2)
    assert isinstance(events[-1], clip.Board) and events[-1].line == OPENING


# -- line handling ----------------------------------------------------------------

def test_line_splitter_prompts_and_line_ends_split_between_chunks() -> None:
    s = clip.LineSplitter()
    assert s.feed(b"Friday, July 03 18:04:27 MEST\r") == ["Friday, July 03 18:04:27 MEST"]
    assert s.feed(b"\n") == []  # the LF of that CR LF, not an empty line
    assert s.feed(b"login: ") == ["login: "]
    assert clip.parse("login: ") == clip.LoginPrompt()
    assert s.feed(b"log") == [] and s.feed(b"in: ") == ["login: "]
    assert s.feed(b"> 12 bob hi\r\n") == ["> 12 bob hi"]
    assert s.feed(b"tail") == [] and s.flush() == ["tail"] and s.flush() == []


def test_line_splitter_cuts_endless_lines() -> None:
    s = clip.LineSplitter()
    assert s.feed(b"x" * (clip.LineSplitter.MAX_LINE + 1)) == ["x" * (clip.LineSplitter.MAX_LINE + 1)]


def test_clean_drops_bell_cr_and_trailing_blanks() -> None:
    assert clip.parse("bob wants to play a 1 point match with you.\x07\x07\x07  \r") == clip.Invitation("bob", 1)


def test_bare_cr_ends_a_line_and_text_is_utf8_or_latin1() -> None:
    s = clip.LineSplitter()
    assert s.feed(b"12 b\xc3\xb6b h\xc3\xa9llo\r12 bob caf\xe9\r\n3\r\x004\n") == [
        "12 böb héllo", "12 bob café", "3", "4"]
    assert clip.parse_all("12 böb héllo") == [clip.Says("böb", "héllo")]


def test_glued_lines_are_split_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to 64 KiB glued lines: the text the parser looks at grows with the line, not
    faster (the old splitter re-parsed the rest at every cut: quadratic)."""
    looked_at = []
    parse_one = glue.parse_one

    def counting(line: str, first: Sequence[Rule] = ()) -> clip.Event:
        looked_at.append(len(line))
        return parse_one(line, first)
    monkeypatch.setattr(glue, "parse_one", counting)
    head = OPENING[:-1]
    kinds = [lambda n: head + "1" * n + "12 bob hi", lambda n: (OPENING + "0") * (n // 120) + "12 bob hi",
             lambda n: "bob accepts the double. The cube shows 2." * (n // 40), lambda n: "." * n]
    for kind in kinds:
        work = []
        for size in (1 << 15, 1 << 16):
            looked_at.clear()
            events = clip.parse_all(kind(size))
            assert events and all(isinstance(e, clip.Event) for e in events)
            work.append(sum(looked_at))
        assert work[1] <= 2.2 * work[0], work
    assert clip.parse_all(head + "1" * 65_000 + "12 bob hi")[1] == clip.Unknown(" bob hi")  # only short redoubles are tried


def test_chat_mentioning_the_cube_is_not_split() -> None:
    line = "12 bob The cube shows 2.5 is odd"
    assert clip.parse_all(line) == [clip.Says("bob", "The cube shows 2.5 is odd")]


# -- fuzzing ---------------------------------------------------------------------

def _mutate(rng: random.Random, line: str) -> str:
    chars = list(line)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        i = rng.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op == 1:
            chars.insert(i, rng.choice(":-. 0123456789*'\x07\xff\r\n\t" + "abcXYZ"))
        elif op == 2 and chars:
            chars[min(i, len(chars) - 1)] = chr(rng.randrange(0, 256))
        elif op == 3:
            chars[i:i] = "9" * (5000 if rng.random() < 0.01 else 12)  # int() refuses over 4300 digits
        else:
            cut = rng.randrange(len(chars) + 1)
            chars = chars[:cut] + chars[rng.randrange(len(chars) + 1):]
    return "".join(chars)


def test_fuzz_never_raises_undocumented_errors() -> None:
    rng = random.Random(20240521)
    corpus = [line for name in FILES for line in _sample_lines(name)] + [v[0] for v in VALUES]
    boards = [line for line in corpus if line.startswith("board:")]
    count = 0
    for i in range(110_000):
        kind = i % 4
        if kind == 0:
            line = "".join(chr(rng.randrange(0, 256)) for _ in range(rng.randrange(0, 80)))
        elif kind == 1:
            line = _mutate(rng, rng.choice(boards))
        elif kind == 2:
            fields = rng.choice(boards).split(":")
            fields[rng.randrange(1, len(fields))] = rng.choice(["-1", "16", "7", "99999", "", "x", "2", "-0"])
            line = ":".join(fields)
        else:
            line = _mutate(rng, rng.choice(corpus))
        events = clip.parse_all(line)
        assert events and all(isinstance(e, clip.Event) for e in events)
        try:
            board = fibsboard.parse(line)
        except BoardParseError:
            continue
        count += 1
        assert fibsboard.parse(board.format()) == board
        try:
            _ = board.position, board.match  # each property decodes the board
        except BoardParseError:
            pass
    assert count > 1000  # the mutations keep many boards valid


def test_stats_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert clip.main(["--stats", str(DATA / FILES[1]), "--unknown"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "      4 Board" in out and "      6 Unknown" in out
    assert "     14 events from 14 lines, 6 Unknown" in out
    assert sum(line.startswith("Unknown: # test_board") for line in out) == 4
