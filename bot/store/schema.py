"""The tables (SQLAlchemy Core): what is played and what is learned about it.

Players are numbered as in the record (gnubg's 0 and 1); ``matches.us`` is the
bot's number (1 in the records the bot writes). JSON values (settings, results)
are kept as text so that both backends give the same bytes back. Alembic's
migrations (``bot/store/migrations``) create and change these tables; a test
checks that the migrated database equals this metadata.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData(naming_convention={
    "ix": "ix_%(column_0_label)s", "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s", "pk": "pk_%(table_name)s"})

players = Table(
    "players", metadata,
    Column("id", Integer, primary_key=True),
    Column("server", String(100), nullable=False),
    Column("name", String(100), nullable=False),
    Column("first_seen", DateTime),
    Column("last_seen", DateTime),
    Column("rating", Float),
    Column("experience", Integer),
    UniqueConstraint("server", "name"),
)

matches = Table(
    "matches", metadata,
    Column("id", Integer, primary_key=True),
    Column("key", String(255), nullable=False, unique=True),  # the record's file name
    Column("server", String(100), nullable=False),
    Column("us_name", String(100), nullable=False),
    Column("opponent_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("us", SmallInteger, nullable=False),
    Column("length", Integer, nullable=False),
    Column("crawford", Boolean, nullable=False),
    Column("level", String(100)),
    Column("settings", Text),
    Column("started", DateTime),
    Column("ended", DateTime),
    Column("result", String(10)),  # won, lost; null while unfinished
    Column("points_us", Integer, nullable=False),
    Column("points_them", Integer, nullable=False),
    Column("rating_before", Float),
    Column("rating_after", Float),
    Column("record_path", Text, nullable=False),
    Column("record_hash", String(64)),
    Column("ending", String(10)),  # finished, dropped, resigned, saved; null while played
    Index("ix_matches_started", "started"),
    Index("ix_matches_opponent", "opponent_id"),
)

games = Table(
    "games", metadata,
    Column("id", Integer, primary_key=True),
    Column("match_id", Integer, ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
    Column("number", Integer, nullable=False),
    Column("score0", Integer, nullable=False),
    Column("score1", Integer, nullable=False),
    Column("crawford", Boolean, nullable=False),
    Column("winner", SmallInteger),
    Column("points", Integer),
    Column("resigned", Boolean),
    Column("cube", Integer, nullable=False),
    Column("cube_history", Text, nullable=False),  # e.g. "D1 T0 D0 P1": double/take/pass/beaver by player
    UniqueConstraint("match_id", "number"),
)

actions = Table(
    "actions", metadata,
    Column("id", Integer, primary_key=True),
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("player", SmallInteger, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("dice", String(2)),
    Column("move", String(60)),
    Column("value", SmallInteger),
    Column("comment", Text, nullable=False),
    Column("note", Text),  # the playing engine's view of the decision (EngineNote's text), if kept
    Column("position_id", String(14), nullable=False),  # gnubg's IDs of the state before the action,
    Column("gnubg_match_id", String(12), nullable=False),  # seen by the player acting
    Column("at", DateTime),  # when the bot journalled it (live only)
    Column("seconds", Float),  # since the action before it (live only)
    UniqueConstraint("game_id", "idx"),
)

decisions = Table(
    "decisions", metadata,
    Column("id", Integer, primary_key=True),
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("player", SmallInteger, nullable=False),
    Column("judge", String(100), nullable=False),
    Column("kind", String(16), nullable=False),  # move, no double, double, take, pass
    Column("played", String(60), nullable=False),
    Column("best", String(60), nullable=False),
    Column("best_equity", Float),
    Column("error", Float, nullable=False),  # equity lost
    Column("error_class", String(10), nullable=False),  # gnubg's: none, doubtful, bad, very bad
    Column("counted", Boolean, nullable=False),
    Column("luck", Float),
    UniqueConstraint("game_id", "idx", "judge", "kind"),
)

statistics = Table(
    "statistics", metadata,
    Column("id", Integer, primary_key=True),
    Column("match_id", Integer, ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
    Column("game", Integer, nullable=False),  # 0: the whole match
    Column("player", SmallInteger, nullable=False),
    Column("judge", String(100), nullable=False),
    Column("moves", Integer, nullable=False),
    Column("unforced_moves", Integer, nullable=False),
    Column("chequer_error", Float, nullable=False),
    Column("cube_decisions", Integer, nullable=False),
    Column("cube_error", Float, nullable=False),
    Column("error_rate_memg", Float, nullable=False),
    Column("luck", Float, nullable=False),
    Column("rolls", Integer, nullable=False),
    Column("rating_label", String(40), nullable=False),
    Column("fibs_rating", Float),
    UniqueConstraint("match_id", "game", "player", "judge"),
)

tournaments = Table(
    "tournaments", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(255), nullable=False, unique=True),  # its output folder
    Column("fingerprint", String(100), nullable=False),
    Column("settings", Text, nullable=False),
    Column("started", DateTime),
)

tournament_matches = Table(
    "tournament_matches", metadata,
    Column("id", Integer, primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
    Column("key", String(255), nullable=False),
    Column("match_id", Integer, ForeignKey("matches.id")),
    Column("result", Text, nullable=False),
    UniqueConstraint("tournament_id", "key"),
)

calibration_runs = Table(
    "calibration_runs", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(255), nullable=False, unique=True),
    Column("started", DateTime),
    Column("settings", Text, nullable=False),
    Column("result", Text, nullable=False),
)
