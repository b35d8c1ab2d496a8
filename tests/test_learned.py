"""The ``learned`` built-in (strategies/learned.py, docs/strategies.md "learned"): its model
files (dominosim/strategy/models.py), its features, the compiled twin's weights, the shipped
models, ``dominosim train`` (dominosim/analysis/training.py) and the manifest's record of the
model a run played. (The twin decides as the file does: tests/test_policies.py, with a model
of random weights in every rule set; the checks of check-strategy: test_strategy_conformance.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dominosim import run
from dominosim.analysis import training
from dominosim.base.errors import OutputError, StrategyError
from dominosim.cli import main as cli
from dominosim.engine.batch import BatchEngine
from dominosim.game import actions as A
from dominosim.game import tiles
from dominosim.game.variants import make_rules
from dominosim.runner.files import recorded_files
from dominosim.storage.store import RunDir
from dominosim.strategy import Strategy, classify, get
from dominosim.strategy.models import (
    FEATURES,
    Model,
    parse_model,
    shipped_dir,
    shipped_for,
    shipped_name,
)

LEARNED = get("learned")
TINY = training.Budget(generations=2, population=4, deals=6)


def write_model(path, rules, weights):
    m = Model(rules.variant, rules.players, bool(rules.partnership), tuple(weights))
    path.write_text(m.to_json())
    return path


# ---------------------------------------------------------------------------------------------
# model files


def test_a_model_file_round_trips(tmp_path):
    rules = make_rules("fives", 2)
    path = write_model(tmp_path / "m.json", rules, range(len(FEATURES)))
    m = get("learned", model=str(path)).model(rules)
    assert m.weights == tuple(range(len(FEATURES)))
    assert (m.variant, m.players, m.partnership) == ("fives", 2, False)
    assert json.loads(path.read_text())["features"] == list(FEATURES)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: "not json", "is not JSON"),
        (lambda d: {**d, "format": "x"}, "is not a dominosim-learned-model file"),
        (lambda d: {**d, "version": 9}, "this dominosim reads version 1"),
        (lambda d: {**d, "features": d["features"][::-1]}, "has features"),
        (lambda d: {**d, "weights": d["weights"][:-1]}, "integer weights"),
        (lambda d: {**d, "weights": [2**25] + d["weights"][1:]}, "integer weights"),
        (lambda d: {**d, "weights": [1.5] + d["weights"][1:]}, "integer weights"),
        (lambda d: {**d, "weights": [True] + d["weights"][1:]}, "integer weights"),
        (lambda d: {**d, "players": "2"}, "must name its variant"),
        (lambda d: {**d, "options": []}, "not objects"),
    ],
)
def test_a_bad_model_file_is_one_line_naming_the_fix(tmp_path, change, says):
    good = json.loads(Model("fives", 2, False, (1,) * len(FEATURES)).to_json())
    bad = change(good)
    data = (bad if isinstance(bad, str) else json.dumps(bad)).encode()
    with pytest.raises(StrategyError, match=says) as e:
        parse_model(data, "m.json")
    assert "\n" not in str(e.value) and "dominosim train" in str(e.value)


def test_a_model_that_is_not_a_small_regular_file_is_refused(tmp_path):
    big = tmp_path / "big.json"
    big.write_text(" " * (1 << 17))
    rules = make_rules("fives", 2)
    for path, says in (
        (big, "more than"),
        (tmp_path, "not a regular file"),
        (tmp_path / "none.json", "cannot be read"),
    ):
        with pytest.raises(StrategyError, match=says):
            get("learned", model=str(path)).model(rules)


# ---------------------------------------------------------------------------------------------
# the shipped models


@pytest.mark.parametrize(
    "game",
    ["fives-2p", "block-2p", "classic-2p", "fives-4p-teams", "block-4p-teams", "classic-4p-teams"],
)
def test_a_model_is_shipped_for_fives_block_and_classic_at_2_and_4(game):
    variant, players = game.split("-")[:2]
    rules = make_rules(variant, int(players[0]), partnership=game.endswith("teams"))
    m = LEARNED.model(rules)
    assert m.source == f"shipped:{game}.json"
    assert (m.variant, m.players, m.partnership) == (
        rules.variant,
        rules.players,
        rules.partnership,
    )
    assert m.training["seed"] == 47 and m.training["method"] == "cross-entropy"


def test_a_game_without_a_model_of_its_own_plays_the_nearest():
    """docs/strategies.md: its variant's (the same player count first), else fives 2p."""
    assert shipped_for(make_rules("block", 3)) == "block-2p.json"
    assert shipped_for(make_rules("fives", 4)) == "fives-4p-teams.json"
    assert shipped_for(make_rules("sniff", 2)) == "fives-2p.json"
    assert shipped_name("block", 4, True) == "block-4p-teams.json"


# ---------------------------------------------------------------------------------------------
# the features (docs/strategies.md, "learned"), on a position


@classify
class _Features(Strategy):
    """Keeps the features of every legal placement at its first decision, then plays first."""

    name = "features-test"

    def __init__(self):
        super().__init__()
        self.seen = None

    def choose_one(self, obs, legal, key):
        from dominosim.strategies.learned import _longest_suit, features

        if self.seen is None:
            suit = _longest_suit(obs.hand)
            self.seen = {
                A.describe(a): dict(zip(FEATURES, features(obs, a, suit), strict=False))
                for a in legal
                if A.is_placement(a)
            }
        return legal[0]


def _features_at(variant, hands, ends, voids=None):
    rules = make_rules(variant, 2)
    me = _Features()
    position = {"hands": hands, "stock": [], "ends": ends, "to_move": 0}
    eng = BatchEngine.from_positions(rules, 1, [me, get("random")], [position])
    for seat, mask in (voids or {}).items():
        eng.state.voids[0, seat] = mask
    eng.run()
    return me.seen


def test_the_features_of_a_fives_placement():
    """RULES §5.8: 5-5 on R=5 with L=0 leaves L=0, R=5-5 (count 10: 2 points). The threat:
    the most the next seat scores answering with a tile it may hold (0-5 on L: 5 + 10)."""
    T = tiles.parse
    seen = _features_at(
        "fives",
        [[T("5-5"), T("5-1"), T("3-2")], [T("6-6"), T("4-4")]],
        {"L": 0, "R": 5},
        voids={1: (1 << 0) | (1 << 5)},  # the opponent is known to lack 0 and 5
    )
    f = seen["5-5@R"]
    assert f["pips"] == 10 and f["double"] == 1 and f["points"] == 2
    assert f["control"] == 1  # 5-1 fits the 5 left open
    assert f["void_hits"] == 2 and f["blocked"] == 1 and f["next_blocked"] == 1
    assert f["partner_blocked"] == 0 and f["keeps_suit"] == 1  # (a double of the suit keeps it)
    assert f["pips_held"] == 30  # 10 pips, 3 tiles held
    # unseen: not in hand, not on the table (none here), not 5-5: those with a 0 or a 5
    assert f["unseen_fit"] == sum(
        1
        for x in range(28)
        if x not in (T("5-5"), T("5-1"), T("3-2")) and {0, 5} & set(tiles.halves(x))
    )
    # the answer 0-5 on L leaves 5 + 5-5 (10 + 5 = 15: 3 points); 5-0 on R: 0 + 0... the best
    assert f["threat"] == 3
    g = seen["5-1@R"]
    assert g["points"] == 0 and g["keeps_suit"] == 0  # it spends a tile of the 5s
    # 0-4 on L leaves 4 + 1 = 5 (1 point); on R only 1-5 would score, and it is this tile
    assert g["threat"] == 1


def test_the_threat_is_zero_without_in_play_points():
    T = tiles.parse
    seen = _features_at("block", [[T("5-5"), T("5-1")], [T("6-6"), T("4-4")]], {"L": 0, "R": 5})
    assert all(f["threat"] == 0 and f["points"] == 0 for f in seen.values())


# ---------------------------------------------------------------------------------------------
# the compiled twin takes any model's weights, and only weights within range


def test_the_learned_seat_decides_in_the_core_with_its_own_weights(tmp_path):
    rules = make_rules("fives", 2)
    a = get("learned", model=str(write_model(tmp_path / "a.json", rules, [1] * len(FEATURES))))
    b = get("learned", model=str(write_model(tmp_path / "b.json", rules, [-1] * len(FEATURES))))
    eng = BatchEngine(rules, 3, [a, b], range(50), unit="hand")
    table = eng._policy
    k = len(FEATURES)
    assert list(table[:2]) == [6, 6] and list(table[4 : 4 + k]) == [1] * k
    assert list(table[4 + k : 4 + 2 * k]) == [-1] * k
    compiled, _ = eng.run()
    python, _ = BatchEngine(rules, 3, [a, b], range(50), unit="hand", compiled=False).run()
    assert all(np.array_equal(compiled[c], python[c]) for c in compiled)


def test_the_core_refuses_a_weight_out_of_range(tmp_path):
    rules = make_rules("fives", 2)
    p = get("learned", model=str(write_model(tmp_path / "m.json", rules, [1] * len(FEATURES))))
    eng = BatchEngine(rules, 3, [p, p], range(4), unit="hand")
    eng._policy[4] = 2**40
    with pytest.raises(ValueError, match="learned weight out of range"):
        eng.run()


# ---------------------------------------------------------------------------------------------
# dominosim train


def test_training_is_a_function_of_the_seed():
    rules = make_rules("block", 2)
    seen = []
    one = training.train(rules, 5, TINY, ["heaviest"], lambda g, best, mean: seen.append(g))
    assert seen == [0, 1]
    assert one == training.train(rules, 5, TINY, ["heaviest"])
    assert one.training["best_per_generation"] and one.training["opponents"] == ["heaviest"]
    other = training.train(rules, 6, TINY, ["heaviest"])
    assert other.weights != one.weights


def test_the_train_command_writes_a_model_that_plays(tmp_path):
    out = tmp_path / "m.json"
    args = [
        "train",
        "--variant",
        "fives",
        "--seed",
        "3",
        "--generations",
        "1",
        "--population",
        "4",
        "--deals",
        "4",
        "--opponents",
        "greedy",
        "--out",
        str(out),
    ]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    assert f"wrote {out}: learned:model={out}" in r.output
    m = get("learned", model=str(out)).model(make_rules("fives", 2))
    assert m.training["seed"] == 3 and m.training["generations"] == 1


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--population", "2"], "--population must be at least 4"),
        (["--generations", "0"], "--generations must be an integer from 1"),
        (["--opponents", "mc"], "'mc' is not a compiled heuristic"),
        (["--out", "/nonexistent-folder/m.json"], "does not exist; create it first"),
    ],
)
def test_the_train_command_refuses_bad_input_in_one_line(tmp_path, extra, says):
    args = ["train", "--variant", "fives", "--out", str(tmp_path / "m.json"), *extra]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2, r.output
    assert says in r.output and "Traceback" not in r.output


# ---------------------------------------------------------------------------------------------
# the manifest records the model a run played, and a changed model stops its resumption


def test_a_run_records_its_model_and_refuses_to_resume_on_a_changed_one(tmp_path):
    rules = make_rules("fives", 2)
    model = write_model(tmp_path / "m.json", rules, [3] * len(FEATURES))
    report = run(
        variants=["fives"],
        strategies=f"learned:model={model},greedy",
        games=8,
        seed=2,
        out=str(tmp_path / "results"),
        workers=1,
        plots=False,
    )
    folder = Path(report["run_dir"])
    rd = RunDir(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    files = recorded_files(manifest["inputs"])
    kinds = {(k, ref) for k, ref, _ in files if k == "model"}
    assert ("model", str(model.resolve())) in kinds
    assert ("model", "shipped:fives-2p.json") in kinds
    write_model(model, rules, [4] * len(FEATURES))
    from dominosim.runner.session import check_inputs

    with pytest.raises(OutputError, match="changed since the run"):
        check_inputs(rd, manifest, [], "verify")


def test_a_run_without_learned_records_no_model():
    assert not [f for f in recorded_files({"strategy_files": []}) if f[0] == "model"]
    from dominosim.runner.files import model_files

    assert model_files(["greedy", "mc:samples=3"]) == []
    assert [e["model"] for e in model_files(["learned"])] == [
        f"shipped:{p.name}" for p in sorted(shipped_dir().glob("*.json"))
    ]


@pytest.mark.parametrize("ref", ["m.json", "/x/m.py", "shipped:../x.json", "shipped:none.json"])
def test_a_forged_model_entry_is_refused(ref):
    with pytest.raises(ValueError):
        recorded_files({"strategy_files": [{"model": ref, "sha256": "0" * 64}]})


def test_check_strategy_passes_a_model_named_by_its_path(tmp_path):
    """issue 47 point 4: check-strategy passes learned:model=FILE (a path inside the spec)."""
    from dominosim.check import check_strategy

    path = write_model(tmp_path / "m.json", make_rules("fives", 2), [5, -3] * 6)
    result = check_strategy(f"learned:model={path}", deals=2, variants=["fives"])
    assert not result, [text for text, _ in result.lines()]


def test_a_folder_from_before_learned_still_verifies(tmp_path):
    """A manifest records every built-in heuristic of the install that wrote it; one written
    before ``learned`` existed lists none of it, and verify holds only the seated ones."""
    report = run(
        variants=["block"],
        strategies="greedy,heaviest",
        games=4,
        seed=3,
        out=str(tmp_path / "r"),
        workers=1,
        plots=False,
    )
    folder = Path(report["run_dir"])
    path = folder / "manifest.json"
    m = json.loads(path.read_text())
    assert "learned" in m["classes"]["heuristics"]
    m["classes"]["heuristics"].remove("learned")
    path.write_text(json.dumps(m, indent=1))
    r = CliRunner().invoke(cli, ["verify", str(folder)])
    assert r.exit_code == 0, r.output
    m["classes"]["heuristics"].remove("greedy")  # (a seated heuristic left out: edited)
    path.write_text(json.dumps(m, indent=1))
    r = CliRunner().invoke(cli, ["verify", str(folder)])
    assert r.exit_code != 0 and "classes field" in r.output
