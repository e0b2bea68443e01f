"""The first schema: players, matches, games, actions, decisions, statistics, tournaments,
calibration runs.

Revision ID: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('calibration_runs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('started', sa.DateTime(), nullable=True),
    sa.Column('settings', sa.Text(), nullable=False),
    sa.Column('result', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_calibration_runs')),
    sa.UniqueConstraint('name', name=op.f('uq_calibration_runs_name'))
    )
    op.create_table('players',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('server', sa.String(length=100), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('first_seen', sa.DateTime(), nullable=True),
    sa.Column('last_seen', sa.DateTime(), nullable=True),
    sa.Column('rating', sa.Float(), nullable=True),
    sa.Column('experience', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_players')),
    sa.UniqueConstraint('server', 'name', name=op.f('uq_players_server'))
    )
    op.create_table('tournaments',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('fingerprint', sa.String(length=100), nullable=False),
    sa.Column('settings', sa.Text(), nullable=False),
    sa.Column('started', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tournaments')),
    sa.UniqueConstraint('name', name=op.f('uq_tournaments_name'))
    )
    op.create_table('matches',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=255), nullable=False),
    sa.Column('server', sa.String(length=100), nullable=False),
    sa.Column('us_name', sa.String(length=100), nullable=False),
    sa.Column('opponent_id', sa.Integer(), nullable=False),
    sa.Column('us', sa.SmallInteger(), nullable=False),
    sa.Column('length', sa.Integer(), nullable=False),
    sa.Column('crawford', sa.Boolean(), nullable=False),
    sa.Column('level', sa.String(length=100), nullable=True),
    sa.Column('settings', sa.Text(), nullable=True),
    sa.Column('started', sa.DateTime(), nullable=True),
    sa.Column('ended', sa.DateTime(), nullable=True),
    sa.Column('result', sa.String(length=10), nullable=True),
    sa.Column('points_us', sa.Integer(), nullable=False),
    sa.Column('points_them', sa.Integer(), nullable=False),
    sa.Column('rating_before', sa.Float(), nullable=True),
    sa.Column('rating_after', sa.Float(), nullable=True),
    sa.Column('record_path', sa.Text(), nullable=False),
    sa.Column('record_hash', sa.String(length=64), nullable=True),
    sa.Column('ending', sa.String(length=10), nullable=True),
    sa.ForeignKeyConstraint(['opponent_id'], ['players.id'], name=op.f('fk_matches_opponent_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_matches')),
    sa.UniqueConstraint('key', name=op.f('uq_matches_key'))
    )
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.create_index('ix_matches_opponent', ['opponent_id'], unique=False)
        batch_op.create_index('ix_matches_started', ['started'], unique=False)

    op.create_table('games',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('score0', sa.Integer(), nullable=False),
    sa.Column('score1', sa.Integer(), nullable=False),
    sa.Column('crawford', sa.Boolean(), nullable=False),
    sa.Column('winner', sa.SmallInteger(), nullable=True),
    sa.Column('points', sa.Integer(), nullable=True),
    sa.Column('resigned', sa.Boolean(), nullable=True),
    sa.Column('cube', sa.Integer(), nullable=False),
    sa.Column('cube_history', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_games_match_id_matches'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_games')),
    sa.UniqueConstraint('match_id', 'number', name=op.f('uq_games_match_id'))
    )
    op.create_table('statistics',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=False),
    sa.Column('game', sa.Integer(), nullable=False),
    sa.Column('player', sa.SmallInteger(), nullable=False),
    sa.Column('judge', sa.String(length=100), nullable=False),
    sa.Column('moves', sa.Integer(), nullable=False),
    sa.Column('unforced_moves', sa.Integer(), nullable=False),
    sa.Column('chequer_error', sa.Float(), nullable=False),
    sa.Column('cube_decisions', sa.Integer(), nullable=False),
    sa.Column('cube_error', sa.Float(), nullable=False),
    sa.Column('error_rate_memg', sa.Float(), nullable=False),
    sa.Column('luck', sa.Float(), nullable=False),
    sa.Column('rolls', sa.Integer(), nullable=False),
    sa.Column('rating_label', sa.String(length=40), nullable=False),
    sa.Column('fibs_rating', sa.Float(), nullable=True),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_statistics_match_id_matches'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_statistics')),
    sa.UniqueConstraint('match_id', 'game', 'player', 'judge', name=op.f('uq_statistics_match_id'))
    )
    op.create_table('tournament_matches',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('tournament_id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=255), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=True),
    sa.Column('result', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_tournament_matches_match_id_matches')),
    sa.ForeignKeyConstraint(['tournament_id'], ['tournaments.id'],
                            name=op.f('fk_tournament_matches_tournament_id_tournaments'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tournament_matches')),
    sa.UniqueConstraint('tournament_id', 'key', name=op.f('uq_tournament_matches_tournament_id'))
    )
    op.create_table('actions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('idx', sa.Integer(), nullable=False),
    sa.Column('player', sa.SmallInteger(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('dice', sa.String(length=2), nullable=True),
    sa.Column('move', sa.String(length=60), nullable=True),
    sa.Column('value', sa.SmallInteger(), nullable=True),
    sa.Column('comment', sa.Text(), nullable=False),
    sa.Column('note', sa.Text(), nullable=True),
    sa.Column('position_id', sa.String(length=14), nullable=False),
    sa.Column('gnubg_match_id', sa.String(length=12), nullable=False),
    sa.Column('at', sa.DateTime(), nullable=True),
    sa.Column('seconds', sa.Float(), nullable=True),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_actions_game_id_games'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_actions')),
    sa.UniqueConstraint('game_id', 'idx', name=op.f('uq_actions_game_id'))
    )
    op.create_table('decisions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('idx', sa.Integer(), nullable=False),
    sa.Column('player', sa.SmallInteger(), nullable=False),
    sa.Column('judge', sa.String(length=100), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('played', sa.String(length=60), nullable=False),
    sa.Column('best', sa.String(length=60), nullable=False),
    sa.Column('best_equity', sa.Float(), nullable=True),
    sa.Column('error', sa.Float(), nullable=False),
    sa.Column('error_class', sa.String(length=10), nullable=False),
    sa.Column('counted', sa.Boolean(), nullable=False),
    sa.Column('luck', sa.Float(), nullable=True),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_decisions_game_id_games'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_decisions')),
    sa.UniqueConstraint('game_id', 'idx', 'judge', 'kind', name=op.f('uq_decisions_game_id'))
    )


def downgrade() -> None:
    op.drop_table('decisions')
    op.drop_table('actions')
    op.drop_table('tournament_matches')
    op.drop_table('statistics')
    op.drop_table('games')
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_index('ix_matches_started')
        batch_op.drop_index('ix_matches_opponent')

    op.drop_table('matches')
    op.drop_table('tournaments')
    op.drop_table('players')
    op.drop_table('calibration_runs')
