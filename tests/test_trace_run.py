"""`dominosim trace --run RUN_DIR --hand ID` replays a hand recorded by `dominosim run`."""

import json

import pandas as pd
from click.testing import CliRunner

from dominosim.cli import main


def _run(tmp_path, *args):
    r = CliRunner().invoke(main, ["run", *args, "--workers", "1", "--out", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["run_dir"]


def _replay(run_dir, hand_id):
    r = CliRunner().invoke(main, ["trace", "--run", run_dir, "--hand", hand_id, "--json"])
    assert r.exit_code == 0, r.output
    return [json.loads(line) for line in r.stdout.splitlines()]


def test_replayed_hands_equal_their_records(tmp_path):
    run_dir = _run(
        tmp_path,
        "--variant",
        "fives",
        "--strategies",
        "greedy,random",
        "--games",
        "6",
        "--unit",
        "match",
        "--seed",
        "3",
        "--set",
        "fives.target=8",
    )
    recs = pd.concat(pd.read_parquet(p) for p in sorted((tmp_path).rglob("chunks/*.parquet")))
    assert len(recs) > 6
    for row in recs.sample(6, random_state=1).itertuples():
        hid = f"{row.group}:{row.rotation}:{row.match_id}:{row.hand_index}"
        lines = _replay(run_dir, hid)
        end = next(x for x in lines if x["type"] == "hand_end")
        assert end["hand_length"] == row.hand_length if "hand_length" in end else True
        placements = sum(1 for x in lines if x["type"] == "place")
        assert placements == row.hand_length, hid
        assert (end["winner"] if end["winner"] is not None else -1) == row.winner, hid


def test_bad_hand_id_is_one_line(tmp_path):
    run_dir = _run(tmp_path, "--variant", "classic", "--games", "2", "--seed", "1")
    r = CliRunner().invoke(main, ["trace", "--run", run_dir, "--hand", "x:y"])
    assert r.exit_code == 2 and "GROUP:ROTATION:MATCH:HAND" in r.output
    r = CliRunner().invoke(main, ["trace", "--run", run_dir, "--hand", "5:0:0:0"])
    assert r.exit_code == 2 and "no group 5" in r.output
