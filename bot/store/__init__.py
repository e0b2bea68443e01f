"""Every match in a database: SQLite by default, PostgreSQL for a fleet of bots.

- :mod:`~bot.store.schema`: the tables; :mod:`~bot.store.db`: URLs, engines, the schema's
  version (Alembic migrations in ``migrations/``) and the named errors of :mod:`~bot.store.errors`;
- :mod:`~bot.store.writer` and :mod:`~bot.store.rows`: a record into rows, exactly once;
- :mod:`~bot.store.live`: the bot's writer, fed by the recorder after each journal entry;
- :mod:`~bot.store.sync`, :mod:`~bot.store.imports`: ``fibsbot db sync|import|export``;
- :mod:`~bot.store.stats`: ``fibsbot stats`` and ``today_summary(url)`` for the status endpoint;
- :mod:`~bot.store.judge`: the engine's analysis per decision, game and match;
- :mod:`~bot.store.tournaments`: tournaments and calibration runs (``FIBSBOT_STORE``);
- :mod:`~bot.store.cli`: the commands; :mod:`~bot.store.pgcluster`: a throwaway PostgreSQL
  cluster (tests, CI); :mod:`~bot.store.bench`: the speed bars.
"""
