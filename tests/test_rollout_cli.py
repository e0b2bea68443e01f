"""`fibsbot rollout` and `fibsbot hint --rollout`."""

import json

import pytest

from bot.cli import main

RACE = "trsbAADs7jkAAA"


def run_json(capsys, *args):
    assert main(["rollout", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_of_a_position(capsys):
    out = run_json(capsys, RACE, "--trials", "36", "--seed", "1", "--cubeless")
    [c] = out["candidates"]
    assert out["trials"] == 36 and out["seconds"] >= 0
    assert set(c) >= {"move", "probabilities", "equity", "cubeful_equity", "stderr"}
    assert set(c["stderr"]) == {"probabilities", "equity", "cubeful_equity"}
    # example (b) of test_rollout_parity: gnubg prints W 0.330018, CL -0.339962
    assert round(c["probabilities"][0], 6) == 0.330018 and round(c["equity"], 6) == -0.339962
    assert c["cubeful_equity"] is None


def test_json_of_plays_and_cube_at_a_match_score(capsys):
    out = run_json(capsys, "4HPwATDgc/ABMA:cAmgAAAAAAAE", "--dice", "31", "--plays", "2", "--trials", "6",
                   "--truncate", "4")
    assert [c["move"] for c in out["candidates"]] == ["8/5 6/5", "24/23 13/10"]
    assert all("mwc" in c and "mwc" in c["stderr"] for c in out["candidates"])
    out = run_json(capsys, "trvDAAC2uzMAAA:cAmgAAAAAAAE", "--cube", "--trials", "6")
    assert [c["move"] for c in out["candidates"]] == ["no double", "double, take", "double, pass"]
    assert out["action"] == "No double, take"


def test_save_resumes_and_extends(tmp_path, capsys):
    save = tmp_path / "r.json"
    args = ["4HPwATDgc/ABMA", "--trials", "10", "--truncate", "6", "--seed", "4"]
    first = run_json(capsys, *args, "--save", str(save))
    again = run_json(capsys, *args, "--save", str(save))  # nothing left to do: the same numbers
    assert again["candidates"] == first["candidates"]
    args[2] = "20"
    extended = run_json(capsys, *args, "--save", str(save))
    whole = run_json(capsys, *args)
    assert extended["candidates"] == whole["candidates"] and extended["trials"] == 20


@pytest.mark.parametrize("content", ["not json", '{"format": "fibsbot-rollout/1"}', "[1, 2]",
                                     '{"format": "fibsbot-rollout/1", "job": {"position_id": "x", "match_id": null, '
                                     '"candidates": null, "settings": {"trials": "many"}}, "values": []}'])
def test_a_bad_save_file_is_an_error_not_a_crash(tmp_path, capsys, content):
    save = tmp_path / "r.json"
    save.write_text(content)
    assert main(["rollout", RACE, "--trials", "6", "--save", str(save)]) == 2
    assert "fibsbot rollout:" in capsys.readouterr().err
    assert save.read_text() == content  # never overwritten


def test_another_rollouts_save_file_is_refused(tmp_path, capsys):
    save = tmp_path / "r.json"
    run_json(capsys, RACE, "--trials", "6", "--save", str(save))
    assert main(["rollout", RACE, "--trials", "6", "--seed", "9", "--save", str(save)]) == 2
    assert "another rollout" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--trials", "0"], ["--level", "nonsense"], ["--truncate", "-1"],
                                  ["--plays", "0", "--dice", "31"], ["--executor", "dask"]])
def test_bad_settings_exit_2(capsys, args):
    assert main(["rollout", RACE, *args]) == 2
    assert "fibsbot rollout:" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--cube", "--dice", "31"], ["--dice", "77"]])
def test_bad_flags_are_usage_errors(args):
    with pytest.raises(SystemExit) as exc:
        main(["rollout", RACE, *args])
    assert exc.value.code == 2


def test_cube_rollout_prints_gnubgs_cubeless_equity(capsys):
    # gnubg's analyse rollout cube of K (its rollout spec's example e), then hint: "Rollout
    # cubeless equity +0.379422" (no double's CL); the double/take row's CL, +0.757516, is
    # printed with the cube doubled, in units of the current cube
    assert main(["rollout", "trvDAAC2uzMAAA:cAkAAAAAAAAA", "--cube", "--trials", "36", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Rollout cubeless equity +0.379422\nProper cube action: No double, take" in out
    assert "+0.7575" in out and "with the cube doubled" in out
    out = run_json(capsys, "trvDAAC2uzMAAA:cAkAAAAAAAAA", "--cube", "--trials", "36", "--seed", "1")
    assert round(out["cubeless_equity"], 6) == 0.379422 == round(out["candidates"][0]["equity"], 6)


def test_hint_rollout(capsys):
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--rollout", "--trials", "6", "--truncate", "2"]) == 0
    out = capsys.readouterr().out
    assert "8/5 6/5" in out and "cubeful ± SE" in out


def test_dask_executor_equals_a_local_run(capsys):
    distributed = pytest.importorskip("distributed")
    args = ["4HPwATDgc/ABMA", "--dice", "31", "--plays", "2", "--trials", "12", "--truncate", "6"]
    local = run_json(capsys, *args)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        remote = run_json(capsys, *args, "--executor", "dask", "--scheduler", cluster.scheduler_address)
    assert remote["candidates"] == local["candidates"]
