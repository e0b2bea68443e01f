"""Local self-play tournaments: engine against engine, in worker processes or on a
Dask cluster, resumable, with standings, confidence intervals and ratings.

One module per concern: config (YAML settings), schedule (matches and dice),
play (one match), executors (where matches run), results (the results
folder), stats (intervals and ratings), report (tables, JSON, plot), runner
(the whole run), cli (`fibsbot tournament` and `fibsbot analyse`).
"""
