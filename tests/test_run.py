"""`dominosim run` / `dominosim report` and the runner, in-process through click's test runner.

Metamorphic checks (in the manner of Axelrod's): 1 worker equals 2 workers, chunk size does not
matter, an interrupted run resumed equals an uninterrupted one, Dask equals the local pool.
"""

import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import dominosim
from dominosim.analysis.aggregates import seating
from dominosim.base.errors import OutputError
from dominosim.cli import main
from dominosim.runner import rotations_of

from runs import aggregates, stop_after, strip

BASE = ["--variant", "fives", "--strategies", "random,heaviest", "--games", "40", "--seed", "5"]


def invoke(args, **kw):
    r = CliRunner().invoke(main, args, **kw)
    return r


def run_json(tmp_path, *extra, base=BASE, sub="r"):
    r = invoke(["run", *base, "--out", str(tmp_path / sub), "--json", *extra])
    assert r.exit_code == 0, r.output + r.stderr
    data = json.loads(r.stdout)
    return data, Path(data["run_dir"])


def test_rotations():
    assert rotations_of(("a", "b"), True) == (0, 1)
    assert rotations_of(("a", "a"), True) == (0,)
    assert rotations_of(("a", "b"), False) == (0,)
    assert rotations_of(("a", "b", "a", "b"), True) == (0, 1)
    assert rotations_of(("a", "a", "b"), True) == (0, 1, 2)
    assert seating(("a", "b", "c"), 1) == ("c", "a", "b")


def test_workers_and_chunk_size_do_not_change_results(tmp_path):
    one, d1 = run_json(tmp_path, "--workers", "1", "--chunk-size", "6", sub="a")
    two, d2 = run_json(tmp_path, "--workers", "2", "--chunk-size", "6", sub="b")
    big, d3 = run_json(tmp_path, "--workers", "1", "--chunk-size", "1000", sub="c")
    assert one["chunks"] == 7 and big["chunks"] == 1
    assert strip(one) == strip(two) == strip(big)
    a = aggregates(d1)
    pd.testing.assert_frame_equal(a, aggregates(d2))
    pd.testing.assert_frame_equal(a, aggregates(d3))
    assert a["value"].dtype == "int64"
    # the records are the same too, chunk by chunk or all at once
    r1 = dominosim.load(d1).records
    r3 = dominosim.load(d3).records
    key = ["group", "rotation", "match_id", "hand_index"]
    r1 = r1.sort_values(key, ignore_index=True)
    r3 = r3.sort_values(key, ignore_index=True)
    pd.testing.assert_frame_equal(r1, r3, check_categorical=False)
    assert len(r1) == one["groups"][0]["hands"]
    assert one["games_per_group"] == 40 and one["groups"][0]["matches"] == 40


def test_resume_after_interrupt_equals_uninterrupted(tmp_path, monkeypatch):
    full, dfull = run_json(tmp_path, "--workers", "1", "--chunk-size", "8", sub="full")
    stop_after(monkeypatch, 2)
    r = invoke(
        ["run", *BASE, "--workers", "2", "--chunk-size", "8", "--out", str(tmp_path / "cut")]
    )
    assert r.exit_code == 130, r.output + r.stderr
    err = r.stderr.strip().splitlines()[-1]
    assert err.startswith("error: interrupted: 2 of 5 chunks kept in ")
    assert "Traceback" not in r.output
    run_dir = Path(err.split("kept in ")[1].split(";")[0])
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    assert len(list((run_dir / "chunks").glob("*.agg.json"))) == 2
    stop_after(monkeypatch, None)
    r = invoke(["run", "--resume", str(run_dir), "--json", "--workers", "2"])
    assert r.exit_code == 0, r.output + r.stderr
    resumed = json.loads(r.stdout)
    assert strip(resumed) == strip(full)
    pd.testing.assert_frame_equal(aggregates(run_dir), aggregates(dfull))
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "done"
    # a finished run: --resume prints the report again, and so does `report`
    again = invoke(["run", "--resume", str(run_dir), "--json"])
    assert again.exit_code == 0
    assert strip(json.loads(again.stdout)) == strip(full)
    rep = invoke(["report", str(run_dir), "--json"])
    assert rep.exit_code == 0
    assert json.loads(rep.stdout) == json.loads(again.stdout)


# fmt: off
GROUP_KEYS = {"variant", "options", "players", "hands", "matches", "blocked_rate",
              "mean_hand_length", "mean_turns", "leader_win_rate", "points_sense",
              "hands_per_second", "wall_seconds", "strategies"}
# fmt: on
STRATEGY_KEYS = {
    "strategy",
    "hand_win_rate",
    "hand_win_ci",
    "match_win_rate",
    "match_win_ci",
    "mean_points",
}


def test_report_json_keys_files_and_text(tmp_path):
    data, run_dir = run_json(tmp_path, "--workers", "1", "--set", "fives.reserve_k=0,2")
    assert {"groups", "run_id", "seed", "games_per_group"} <= set(data)
    assert [g["label"] for g in data["groups"]] == ["fives", "fives[reserve_k=2]"]
    for g in data["groups"]:
        assert GROUP_KEYS <= set(g)
        assert g["points_sense"] == "higher" and g["options"] in ({}, {"reserve_k": 2})
        assert g["hands_per_second"] > 0
        assert [s["strategy"] for s in g["strategies"]] == ["random", "heaviest"]
        for s in g["strategies"]:
            assert STRATEGY_KEYS <= set(s)
            lo, hi = s["hand_win_ci"]
            assert 0 <= lo <= s["hand_win_rate"] <= hi <= 1
        assert g["paired"] and g["paired"][0]["deals"] == 20
    # same deals in both option groups (paired option groups): hand 0 of every match is dealt
    # identically, so the leader of hand 0 is the same
    rec = dominosim.load(run_dir).records
    h0 = rec[rec.hand_index == 0].sort_values(["rotation", "match_id"])
    assert (h0[h0.group == 0].leader.to_numpy() == h0[h0.group == 1].leader.to_numpy()).all()
    for name in (
        "manifest.json",
        "aggregates.parquet",
        "summary.csv",
        "report.md",
        "plots/win_rates.png",
        "plots/hand_length.png",
    ):
        assert (run_dir / name).is_file(), name
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["seed"] == 5 and manifest["status"] == "done"
    assert manifest["groups"][1]["rules"]["reserve_k"] == 2
    text = invoke(["report", str(run_dir)])
    assert text.exit_code == 0 and "paired" in text.stdout and "fives[reserve_k=2]" in text.stdout


def test_seed_drawn_when_absent_and_records_none(tmp_path):
    r = invoke(
        [
            "run",
            "--variant",
            "classic",
            "--games",
            "4",
            "--records",
            "none",
            "--workers",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    assert r.exit_code == 0, r.output + r.stderr
    assert "seed: " in r.stderr and "drawn" in r.stderr
    run_dir = next((tmp_path / "classic").iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["seed_drawn"] is True and isinstance(manifest["seed"], int)
    assert not list((run_dir / "chunks").glob("*.parquet"))
    assert list((run_dir / "chunks").glob("*.agg.json"))
    assert "played 4 games" in r.stderr


def test_blind_runs(tmp_path):
    data, _ = run_json(
        tmp_path, "--workers", "1", base=["--variant", "blind", "--games", "6", "--seed", "1"]
    )
    g = data["groups"][0]
    assert g["matches"] == 6 and g["hands"] >= 6


def test_api_run_and_load(tmp_path):
    rep = dominosim.run(
        variants=["fives"],
        strategies="random,heaviest",
        games=10,
        seed=2,
        workers=1,
        out=str(tmp_path),
        unit="hand",
        echo=lambda s: None,
    )
    g = rep["groups"][0]
    assert g["hands"] == g["matches"] == 10
    data = dominosim.load(rep["run_dir"])
    assert len(data.records) == 10
    assert set(data.aggregates.columns) == {
        "group",
        "metric",
        "rotation",
        "seat",
        "bin",
        "pair",
        "value",
    }
    assert data.report["groups"][0]["hands"] == 10
    # the report is built once, when the run finishes; the folder gives the same one back,
    # with the run's wall time
    assert data.report == rep
    assert rep["status"] == "done"
    assert rep["wall_seconds"] == data.manifest["timings"]["wall_seconds"] > 0


@pytest.mark.parametrize(
    ("args", "code", "start"),
    [
        (["--variant", "fivs"], 3, "error: unknown variant 'fivs'"),
        (["--variant", "fives", "--strategies", "gready"], 4, "error: unknown strategy 'gready'"),
        (["--variant", "fives", "--games", "0"], 2, "error: --games must be an integer >= 1"),
        (["--variant", "fives", "--executor", "dask"], 2, "error: --executor dask needs"),
    ],
)
def test_bad_input_is_one_line(tmp_path, args, code, start):
    r = invoke(["run", *args, "--workers", "1", "--out", str(tmp_path)])
    assert r.exit_code == code, r.output + r.stderr
    assert r.stdout == ""
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(start), r.stderr
    assert "Traceback" not in r.output


def test_unwritable_out_is_output_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = invoke(
        [
            "run",
            "--variant",
            "fives",
            "--games",
            "2",
            "--seed",
            "1",
            "--workers",
            "1",
            "--out",
            str(blocker / "sub"),
        ]
    )
    assert r.exit_code == 5, r.output + r.stderr
    assert r.stderr.startswith("error: cannot write ") and r.stderr.count("\n") == 1


def test_report_of_a_folder_that_is_not_a_run(tmp_path):
    r = invoke(["report", str(tmp_path)])
    assert r.exit_code == 5
    assert "is not a run folder" in r.stderr


USER_STRATEGY = '''"""first-legal: the first legal action (a test strategy)."""

import numpy as np

from dominosim.strategy import Strategy, register


@register
class FirstLegal(Strategy):
    name = "first-legal"
    params = {}

    def choose_one(self, obs, legal, key):
        return legal[0]

    def choose(self, obs, legal, keys):
        return legal.action_at(np.zeros(len(keys), dtype=np.int64))
'''


def test_dask_local_cluster_equals_local(tmp_path):
    """Dask workers (separate processes) load the user strategy file by its path."""
    pytest.importorskip("dask.distributed")
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "first_legal.py").write_text(USER_STRATEGY)
    base = [
        "--variant",
        "fives",
        "--strategies",
        "first-legal,random",
        "--games",
        "20",
        "--seed",
        "4",
        "--chunk-size",
        "6",
        "--strategy-path",
        str(folder),
    ]
    local, _ = run_json(tmp_path, "--workers", "2", base=base, sub="l")
    dask, _ = run_json(tmp_path, "--executor", "dask-local", "--workers", "2", base=base, sub="d")
    assert strip(dask) == strip(local)
    assert [s["strategy"] for s in local["groups"][0]["strategies"]] == ["first-legal", "random"]


def test_dask_scheduler_address(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    local, _ = run_json(tmp_path, "--workers", "1", "--chunk-size", "10", sub="l")
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=":0",
    ) as cluster:
        dask, _ = run_json(
            tmp_path,
            "--executor",
            "dask",
            "--scheduler",
            cluster.scheduler_address,
            "--chunk-size",
            "10",
            sub="d",
        )
    assert strip(dask) == strip(local)


def test_resume_takes_no_experiment_flags(tmp_path):
    r = invoke(["run", "--resume", str(tmp_path), "--games", "10"])
    assert r.exit_code == 2
    assert r.stderr.startswith("error: --resume continues a run") and r.stderr.count("\n") == 1


# ---------------------------------------------------------------------------------------------
# a newcomer's first hour (issue 19): progress, counts, records


def test_progress_slices_tick_and_give_the_same_records(monkeypatch):
    """With a progress callback a chunk is played in slices that tick as they finish; the
    results are those of the chunk played at once."""
    from dominosim import runner as RN
    from dominosim.config import experiment_from_cli

    exp = experiment_from_cli(
        variants=["fives"], strategies="random,heaviest", games=60, seed=3, unit="match"
    )
    (item,) = RN.Plan.from_experiment(exp, 3).items
    whole = RN.play_item(item)
    monkeypatch.setattr(RN.worker, "SLICE_FIRST_IDS", 7)
    monkeypatch.setattr(RN.worker, "SLICE_SECONDS", 0.0)  # (slices never grow)
    ticks = []
    sliced = RN.play_item(item, ticks.append)
    assert sum(ticks) == item.games == 60 and len(ticks) > 2
    assert sliced.result.rows == whole.result.rows
    assert sliced.result.hands == whole.result.hands
    for k, v in whole.records.items():
        assert np.array_equal(v, sliced.records[k]), k


def test_progress_bar_goes_to_stderr_only(tmp_path, capsys, monkeypatch):
    """The bar (forced on) says what the run does and never reaches stdout; a run shorter
    than the bar's delay prints one summary line and nothing else."""
    from dominosim import runner as RN

    monkeypatch.setattr(RN.progress.Progress, "DELAY", 0.0)
    rep = dominosim.run(
        variants=["fives"],
        strategies="random,heaviest",
        games=40,
        seed=1,
        out=str(tmp_path / "a"),
        workers=1,
        progress=True,
    )
    out, err = capsys.readouterr()
    assert out == ""
    assert "game" in err and "40/40" in err and rep["games_played"] == 40
    monkeypatch.setattr(RN.progress.Progress, "DELAY", 60.0)
    dominosim.run(
        variants=["fives"],
        strategies="random,heaviest",
        games=40,
        seed=1,
        out=str(tmp_path / "b"),
        workers=1,
        progress=True,
    )
    out, err = capsys.readouterr()
    assert out == "" and err.strip().count("\n") == 0 and err.startswith("played 40 games")


def test_json_run_keeps_stdout_to_the_report(tmp_path):
    r = invoke(["run", *BASE, "--games", "41", "--out", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    json.loads(r.stdout)  # nothing else on stdout
    assert (
        "games: 41 rounded up to 42 hands per option group (21 deals x 2 seat rotations)"
        in r.stderr
    )


def test_a_small_run_is_cut_for_every_worker():
    """The README's first experiment (2,000 matches, 2 rotations, default chunk size) gives
    each of two workers a chunk; tiny runs stay whole."""
    from dominosim import runner as RN
    from dominosim.config import load_experiment

    exp = load_experiment(str(Path(__file__).resolve().parents[1] / "configs/classic-2p.toml"))
    plan = RN.Plan.from_experiment(exp, 1)
    assert len(plan.items) == 1
    assert [it.games for it in RN.split_for_workers(plan, 2).items] == [1000, 1000]
    assert RN.Plan.from_experiment(exp, 1, workers=2) == RN.split_for_workers(plan, 2)
    small = RN.Plan.from_experiment(exp.__class__(**{**exp.__dict__, "games": 100}), 1)
    assert len(RN.split_for_workers(small, 2).items) == 1


def test_target_none_plays_hands_without_a_target(tmp_path):
    data, d = run_json(tmp_path, "--set", "fives.target=none", "--unit", "hand")
    (g,) = data["groups"]
    assert g["label"] == "fives[target=none]" and g["target_rate"] == 0
    r = invoke(
        [
            "run",
            *BASE,
            "--set",
            "fives.target=none",
            "--unit",
            "match",
            "--out",
            str(tmp_path / "m"),
        ]
    )
    assert r.exit_code == 3 and "no match end" in r.stderr


def test_kozel_records_hold_pip_totals_and_hand_values(tmp_path):
    """pips_* are the pips left per side (docs/results.md); values_* are §14.12's hand values
    (a lone 0-0 counts 10): both equal the reference engine's, hand by hand."""
    from dominosim.game.reference import play_match
    from dominosim.game.variants import make_rules
    from dominosim.strategy import get

    base = [
        "--variant",
        "kozel",
        "--players",
        "4",
        "--strategies",
        "random",
        "--games",
        "30",
        "--seed",
        "2",
        "--unit",
        "match",
    ]
    _, d = run_json(tmp_path, base=base)
    recs = dominosim.load(d).records
    rules = make_rules("kozel", 4)
    for m in range(3):
        ref = play_match(rules, 2, m, [get("random")] * 4, unit="match")
        rows = recs[recs["match_id"] == m].sort_values("hand_index")
        assert len(rows) == len(ref.hands)
        for h, (_, row) in zip(ref.hands, rows.iterrows(), strict=True):
            assert [row["pips_0"], row["pips_1"]] == h.pips
            assert [row["values_0"], row["values_1"]] == h.values


def test_the_suite_keeps_out_of_the_users_home():
    """conftest.py gives the test run a home and caches of its own (a temporary folder)."""
    import os
    import tempfile

    tmp = os.path.realpath(tempfile.gettempdir())
    for var in ("HOME", "XDG_CACHE_HOME"):
        assert os.path.realpath(os.environ[var]).startswith(tmp), var
    assert os.path.realpath(os.path.expanduser("~")).startswith(tmp)


def test_a_partnership_win_counts_once_in_its_interval(tmp_path):
    """RULES §15: in partnership a hand won by a side is won at both of its seats. The win
    rate per seat-hand is the side's, and its 95% interval counts each hand once: Wilson over
    the side's hands, not over its seat-hands (which would be narrower by about √2)."""
    from dominosim.analysis.stats import wilson

    data, _ = run_json(
        tmp_path,
        "--workers",
        "1",
        "--set",
        "classic.partnership=on",
        base=[
            "--variant",
            "classic",
            "--players",
            "4",
            "--games",
            "60",
            "--strategies",
            "random,heaviest,random,heaviest",
            "--seed",
            "3",
        ],
    )
    g = data["groups"][0]
    for s in g["strategies"]:
        assert s["hand_wins"] % 2 == 0 and s["seat_hands"] % 2 == 0
        assert s["hand_win_rate"] == s["hand_wins"] / s["seat_hands"]
        want = wilson(s["hand_wins"] // 2, s["seat_hands"] // 2)
        assert s["hand_win_ci"] == pytest.approx(list(want))
        assert s["hand_win_ci"] != pytest.approx(list(wilson(s["hand_wins"], s["seat_hands"])))


@pytest.mark.usefixtures("clean_registry")
def test_api_takes_a_string_as_one_item_and_a_path_as_a_path(tmp_path, monkeypatch):
    """``strategy_path="./bots"`` is one folder (not one path per character: a stray ``.py``
    of the current folder is never imported), ``sets="fives.reserve_k=2"`` one --set,
    ``strategies`` the comma grammar, and ``out`` a pathlib.Path."""
    from helpers import BOT

    monkeypatch.chdir(tmp_path)
    (tmp_path / "stray.py").write_text("raise SystemExit('imported the current folder')\n")
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "b.py").write_text(BOT.format(name="first", body="return legal[0]"))
    rep = dominosim.run(
        variants="fives",
        strategies="first,random",
        sets="fives.reserve_k=2",
        strategy_path="./bots",
        games=4,
        seed=1,
        workers=1,
        out=tmp_path / "o",
        echo=lambda s: None,
    )
    (group,) = rep["groups"]
    assert group["label"] == "fives[reserve_k=2]"
    assert {s["strategy"] for s in group["strategies"]} == {"first", "random"}
    assert Path(rep["run_dir"]).parent.parent == tmp_path / "o"
    listed = dominosim.run(
        variants=["fives"],
        strategies=["first", "random"],
        sets=["fives.reserve_k=2"],
        strategy_path=[Path("bots")],
        games=4,
        seed=1,
        workers=1,
        out=str(tmp_path / "p"),
        echo=lambda s: None,
    )
    assert strip(listed)["groups"] == strip(rep)["groups"]


def test_load_reads_only_the_planned_chunks_that_check_out(tmp_path):
    """Stray and copied files in chunks/ (``x.parquet``, ``0-0 copy.parquet``, a chunk the
    plan does not have) leave the records as they are; a planned chunk whose records file was
    swapped is left out."""
    import shutil

    rep = dominosim.run(
        variants=["fives"],
        strategies="random,heaviest",
        games=12,
        seed=2,
        chunk_size=4,
        workers=1,
        out=tmp_path,
        echo=lambda s: None,
    )
    run_dir = Path(rep["run_dir"])
    chunks = run_dir / "chunks"
    before = dominosim.load(run_dir).records
    assert len(before) == 12 and len(list(chunks.glob("*.parquet"))) == 3
    for stray in ("x.parquet", "0-0 copy.parquet", "99-0.parquet", "0-99.parquet"):
        shutil.copy(chunks / "0-1.parquet", chunks / stray)
    shutil.copy(chunks / "0-1.agg.json", chunks / "99-0.agg.json")
    pd.testing.assert_frame_equal(dominosim.load(run_dir).records, before)
    n0 = len(pd.read_parquet(chunks / "0-0.parquet"))
    shutil.copy(chunks / "0-1.parquet", chunks / "0-0.parquet")  # (swapped: left out of an
    with pytest.raises(OutputError, match="chunk 0-0 of the finished run"):  # unfinished run;
        dominosim.load(run_dir)  # a finished one is refused, never read as the whole)
    m = json.loads((run_dir / "manifest.json").read_text())
    m["status"] = "interrupted"
    (run_dir / "manifest.json").write_text(json.dumps(m))
    part = dominosim.load(run_dir).records
    assert 0 < len(part) == len(before) - n0


@pytest.mark.usefixtures("clean_registry")
def test_a_strategy_named_in_another_alphabet_runs_everywhere(tmp_path):
    """A strategy registered as ``жадный`` (or ``贪心``) is named in --strategies and shows in
    the report, the records, the run's trace and the plots (no font warning on stderr)."""
    from helpers import BOT

    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "a.py").write_text(BOT.format(name="жадный", body="return legal[-1]"), "utf-8")
    (bots / "b.py").write_text(BOT.format(name="贪心", body="return legal[0]"), "utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # fmt: off
        r = invoke(["compare", "--variant", "fives", "--strategies", "жадный,贪心,random",
                    "--games", "12", "--seed", "1", "--workers", "1", "--strategy-path",
                    str(bots), "--out", str(tmp_path / "o"), "--json"])
        # fmt: on
    assert r.exit_code == 0, r.output + r.stderr
    assert not [w for w in caught if "Glyph" in str(w.message)]
    assert all(x.startswith(("seed: ", "run folder: ", "played ")) for x in r.stderr.splitlines())
    data = json.loads(r.stdout)
    assert data["analysis"]["strategies"] == ["жадный", "贪心", "random"]
    run_dir = Path(data["run_dir"])
    rec = dominosim.load(run_dir).records
    assert {"жадный", "贪心"} <= set(rec["strategy_0"]) | set(rec["strategy_1"])
    assert "жадный" in invoke(["report", str(run_dir)]).stdout
    assert "жадный" in (run_dir / "report.md").read_text("utf-8")
    t = invoke(
        [
            "trace",
            "--run",
            str(run_dir),
            "--hand",
            "0:0:0:0",
            "--json",
            "--strategy-path",
            str(bots),
        ]
    )
    assert t.exit_code == 0 and json.loads(t.stdout.splitlines()[0])["strategies"] == [
        "жадный",
        "贪心",
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_processes_a_strategy_starts_end_with_the_run(tmp_path, clean_registry):
    """Issue 40, point 8: a strategy's child process (here a `sleep`) ends with the run: each
    worker leads a process group of its own, killed when the run ends."""
    import subprocess as sp

    pid_file = tmp_path / "child.pid"
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "forker.py").write_text(
        "import subprocess, sys\n"
        "from dominosim.strategy import Strategy, register\n"
        "@register\n"
        "class Forker(Strategy):\n"
        "    name = 'forker'\n"
        "    def choose_one(self, obs, legal, key):\n"
        f"        p = {str(pid_file)!r}\n"
        "        import os\n"
        "        if not os.path.exists(p):\n"
        "            c = subprocess.Popen(['sleep', '600'])\n"
        "            open(p, 'w').write(str(c.pid))\n"
        "        return legal[0]\n"
    )
    log = tmp_path / "log.txt"
    out = open(log, "w")  # (a file, not a pipe: the sleep would hold a pipe open)
    r = sp.run(
        [
            sys.executable,
            "-m",
            "dominosim",
            "run",
            "--variant",
            "fives",
            "--strategies",
            "forker,random",
            "--games",
            "4",
            "--seed",
            "1",
            "--workers",
            "1",
            "--strategy-path",
            str(bots),
            "--out",
            str(tmp_path / "o"),
        ],
        stdout=out,
        stderr=out,
        timeout=300,
    )
    out.close()
    assert r.returncode == 0, log.read_text()
    pid = int(pid_file.read_text())

    def alive() -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        return state != "Z"

    for _ in range(300):  # (the kill is sent before the run exits; reaping may take a moment)
        if not alive():
            break
        time.sleep(0.1)
    if alive():
        os.kill(pid, 9)
        raise AssertionError("the strategy's child process outlived the run")
