"""``compare --equal-time MS`` (issue 47 point 5): each search's budget knob calibrated to MS
milliseconds per decision before the run, the chosen entries played and recorded, never
calibrated again by ``--resume`` or ``verify``. No test reads a real clock: the measurement is
a cost model handed in (or patched in), so every choice here is exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dominosim import api
from dominosim.analysis import equal_time as et
from dominosim.base.errors import ConfigError, StrategyError
from dominosim.cli import main
from dominosim.game.variants import make_rules
from tests.runs import stop_after

KNOB = et.Knob("samples", 1, 4096)


def linear(a: float, b: float, seen: list | None = None):
    """A cost model: ``a + b * value`` ms per decision, noting each value measured."""

    def measure(value: int) -> float:
        if seen is not None:
            seen.append(value)
        return a + b * value

    return measure


def test_the_choice_reaches_the_target_along_the_cost_line():
    seen: list[int] = []
    value, ms, tried = et.choose_value(linear(0.5, 0.01, seen), 10.0, 256, KNOB)
    # proportional from 256 (3.06 ms): 837 (8.87 ms); then the line through both: 950
    assert seen == [256, 837, 950]
    assert (value, round(ms, 6)) == (950, 10.0)
    assert [v for v, _ in tried] == seen


def test_the_choice_stops_at_the_first_measurement_within_tolerance():
    seen: list[int] = []
    value, _, _ = et.choose_value(linear(0.0, 0.1, seen), 10.0, 105, KNOB)
    assert (value, seen) == (105, [105])


def test_the_choice_keeps_the_nearest_measurement_after_its_tries():
    costs = {64: 30.0, 21: 11.5, 18: 12.0}  # (noisy: fewer samples measured slower)
    value, ms, tried = et.choose_value(costs.__getitem__, 10.0, 64, KNOB)
    assert (value, ms) == (21, 11.5)
    assert len(tried) == et.TRIES


@pytest.mark.parametrize(
    ("model", "target", "bound"),
    [(linear(5.0, 0.01), 1.0, 1), (linear(0.0, 0.001), 100.0, 4096)],
    ids=["too slow at its least", "too fast at its most"],
)
def test_the_choice_stays_in_the_knobs_range(model, target, bound):
    seen: list[int] = []
    value, _, _ = et.choose_value(lambda v: (seen.append(v), model(v))[1], target, 64, KNOB)
    assert value == bound
    assert all(1 <= v <= 4096 for v in seen) and len(seen) == len(set(seen))
    row = {"value": value, "ms_per_decision": model(value), "spec": "x", "tried": [[value, 1]]}
    assert "out of reach" in et._note("x", row, KNOB, target)


@pytest.mark.parametrize("bad", ["0", "-3", "x", "nan", "inf", "5000", "", 0, True, 1e9])
def test_a_bad_ms_is_one_line_naming_the_fix(bad):
    with pytest.raises(ConfigError) as e:
        et.parse_ms(bad)
    msg = e.value.message
    assert msg.startswith("--equal-time must be a number of milliseconds per decision")
    assert "e.g. --equal-time 10" in msg and "\n" not in msg


def test_ms_accepts_numbers_and_their_strings():
    assert et.parse_ms("10") == et.parse_ms(10) == 10.0
    assert et.parse_ms(" 2.5 ") == 2.5


def fake(per_sample: dict[str, float], calls: list | None = None, offset: float = 0.2):
    """``ms_per_decision`` by a cost model per strategy name (no clock, no play): ``offset``
    plus a cost per sample."""

    def measure(make, batches):
        s = make()
        if calls is not None:
            calls.append(s.label)
        assert batches, "the calibration set is empty"
        return offset + per_sample[s.name] * s.settings["samples"]

    return measure


def test_calibrate_sets_each_search_and_leaves_the_rest():
    rules = make_rules("fives", 2)
    model = fake({"mc": 0.002, "pimc": 0.2})
    cal = et.calibrate(rules, ["pimc", "mc:infer=off", "greedy"], 5.0, measure=model)
    # pimc: 64 (13 ms), then 25 (5.2 ms: within 10%); mc: 256, 1798, then 2400 (5 ms)
    assert cal.labels == ["pimc:samples=25", "mc:infer=off:samples=2400", "greedy"]
    rows = cal.record["strategies"]
    assert [r["calibrated"] for r in rows] == [True, True, False]
    assert rows[0]["strategy"] == "pimc" and rows[0]["value"] == 25
    assert rows[0]["ms_per_decision"] == pytest.approx(5.2)
    assert rows[1]["tried"] == [[256, 0.712], [1798, 3.796], [2400, 5.0]]
    assert cal.record["ms"] == 5.0 and cal.record["decisions"] > 0
    assert cal.notes[0].startswith("equal time: pimc -> pimc:samples=25, 5.2 ms per decision")
    assert cal.notes[2] == "equal time: greedy is not a search: it plays as it is"


def test_a_calibration_with_no_search_plays_nothing():
    calls: list = []
    cal = et.calibrate(make_rules("block", 2), ["random", "greedy"], 3, measure=fake({}, calls))
    assert cal.labels == ["random", "greedy"] and calls == []
    assert cal.record["decisions"] == 0


def test_two_entries_that_calibrate_alike_are_refused():
    with pytest.raises(ConfigError, match="makes 'mc' and 'mc:samples=9' the same strategy"):
        et.calibrate(
            make_rules("fives", 2), ["mc", "mc:samples=9"], 5, measure=fake({"mc": 0.01}, offset=0)
        )


def test_a_bad_parameter_is_the_runs_error_before_any_measurement():
    with pytest.raises(StrategyError, match="unknown parameter 'samplez'"):
        et.calibrate(make_rules("fives", 2), ["mc:samplez=3", "greedy"], 5, measure=fake({}))


USER = """
from dominosim.strategy import Strategy, register


@register
class Deep(Strategy):
    name = "{name}"
    classifier = "{kind}"

    def choose_one(self, obs, legal, key):
        return legal[0]
"""


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        (
            "search",
            "'deep-search' is a search with none it knows \\(only mc:samples, pimc:samples\\)",
        ),
        ("heuristic", None),
    ],
)
def test_a_users_strategy_is_read_from_its_file(tmp_path, kind, error):
    name = f"deep-{kind}"
    (tmp_path / "deep.py").write_text(USER.format(name=name, kind=kind))
    calls: list = []
    run = lambda: et.calibrate(  # noqa: E731
        make_rules("fives", 2), ["mc", name], 5, [str(tmp_path)], measure=fake({"mc": 1}, calls)
    )
    if error is None:
        assert run().labels == ["mc:samples=5", name]
    else:
        with pytest.raises(ConfigError, match=error):
            run()
        assert calls == []  # (refused before any search was timed)


def test_a_user_file_whose_classifier_cannot_be_read_is_refused(tmp_path):
    src = USER.format(name="opaque", kind="heuristic") + "setattr(Deep, 'classifier', 'search')\n"
    (tmp_path / "opaque.py").write_text(src)
    with pytest.raises(ConfigError, match="cannot tell whether 'opaque' is a search"):
        et.calibrate(make_rules("fives", 2), ["opaque", "greedy"], 5, [str(tmp_path)])


def test_the_calibration_set_is_fixed_and_asked_again():
    """The same decisions every time, and a search answers them after the engine is done."""
    from dominosim.strategy import get

    rules = make_rules("block", 2)
    a, b = et.calibration_set(rules), et.calibration_set(rules)
    assert [k.tolist() for _, _, k in a] == [k.tolist() for _, _, k in b]
    mc = get("mc", samples=2)
    for obs, legal, keys in a[:3]:
        assert len(mc.choose(obs, legal, keys)) == len(keys)


# ---- a run: recorded, resumed and verified with the recorded entries ------------------------


def test_compare_records_the_calibrated_entries_and_resume_and_verify_keep_them(
    tmp_path, monkeypatch
):
    from dominosim import runner

    monkeypatch.setattr(et, "ms_per_decision", fake({"mc": 0.05}))
    args = ["--variant", "fives", "--strategies", "mc,greedy", "--equal-time", "1.2"]
    args += ["--games", "16", "--seed", "3", "--chunk-size", "4", "--workers", "1", "--no-plots"]
    stop_after(monkeypatch, 1)
    r = CliRunner().invoke(main, ["compare", *args, "--out", str(tmp_path)])
    assert r.exit_code == 130, r.output
    assert "equal time: mc -> mc:samples=20, 1.2 ms per decision" in r.stderr
    assert "equal time: greedy is not a search: it plays as it is" in r.stderr
    run_dir = Path(r.stderr.split("kept in ")[1].split(";")[0])
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["analysis"]["strategies"] == ["mc:samples=20", "greedy"]
    assert m["analysis"]["legs"] == [["mc:samples=20", "greedy"]]
    assert m["analysis"]["equal_time"]["strategies"][0]["spec"] == "mc:samples=20"

    def no_clock(*a, **k):
        raise AssertionError("calibrated again")

    stop_after(monkeypatch, None)
    monkeypatch.setattr(et, "ms_per_decision", no_clock)
    monkeypatch.setattr(et, "calibration_set", no_clock)
    r = CliRunner().invoke(main, ["compare", "--resume", str(run_dir), "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["analysis"]["strategies"] == ["mc:samples=20", "greedy"]
    assert "equal time" not in r.stderr
    v = runner.verify_run(run_dir)
    assert v.replayed == v.equal == v.chunks > 0 and not v.lines


def test_resume_refuses_equal_time(tmp_path):
    r = CliRunner().invoke(main, ["compare", "--resume", str(tmp_path), "--equal-time", "5"])
    assert r.exit_code == 2 and "--equal-time" in r.stderr and "Traceback" not in r.output


def test_the_api_takes_equal_time_and_echoes_the_calibration(tmp_path, monkeypatch):
    monkeypatch.setattr(et, "ms_per_decision", fake({"pimc": 0.5}))
    lines: list[str] = []
    rep = api.compare(
        variant="block",
        strategies="random,pimc",
        equal_time=4.2,
        games=2,
        seed=1,
        workers=1,
        plots=False,
        out=str(tmp_path),
        echo=lines.append,
    )
    assert rep["analysis"]["strategies"] == ["random", "pimc:samples=8"]
    assert lines[0] == "equal time: random is not a search: it plays as it is"
    assert lines[1].startswith("equal time: pimc -> pimc:samples=8, 4.2 ms per decision")
    with pytest.raises(ConfigError, match="--equal-time must be a number"):
        api.compare(variant="block", strategies="random,pimc", equal_time=-1, out=str(tmp_path))
