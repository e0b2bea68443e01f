"""The Dask executor against a real in-process cluster: finished futures are released
at once (a lost worker must not recompute them), and a cluster without workers is reported."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bot.tournament import config as tconfig
from bot.tournament.schedule import schedule

distributed = pytest.importorskip("distributed")
from bot.tournament.executors import DaskExecutor  # noqa: E402  (after the skip)


def _config(output: Path) -> tconfig.TournamentConfig:
    return tconfig.TournamentConfig.model_validate(
        {"players": [{"name": "expert", "level": "expert"}, {"name": "beginner", "level": "beginner"}],
         "match_length": 1, "matches": 3, "seed": 5, "output": output})


def test_each_future_is_released_once_its_result_is_taken(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    specs = schedule([p.name for p in cfg.players], cfg.format, cfg.gauntlet_player, cfg.matches,
                     seed=cfg.seed, duplicate=cfg.duplicate_dice)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        executor = DaskExecutor(cluster.scheduler_address)
        results = executor.run(cfg, specs)
        held = []
        for _ in specs:
            next(results)
            held.append(len(executor._client.refcount))
        # a result is released when the runner, having saved it, asks for the next
        assert held == list(range(len(specs), 0, -1)), held
        assert list(results) == [] and not executor._futures


def test_a_cluster_without_workers_is_reported(tmp_path: Path) -> None:
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        executor = DaskExecutor(cluster.scheduler_address)
        executor.check_workers_s, executor.no_workers_warn_s = 0.05, 0.2
        done = threading.Event()
        watcher = threading.Thread(target=executor._watch_workers, args=(done,))
        watcher.start()
        try:
            for _ in range(600):
                if executor.warnings or done.wait(0.05):
                    break
        finally:
            done.set()
            watcher.join()
            executor._client.close()
    assert executor.warnings and "no workers" in executor.warnings[0]
