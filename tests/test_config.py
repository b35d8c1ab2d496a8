"""The configuration grammar: --set, --strategies, TOML experiment files, validation messages."""

import textwrap

import pytest

from dominosim.base.errors import ConfigError, RulesError, StrategyError
from dominosim.config import (
    Experiment,
    StrategySpec,
    apply_sets,
    build_experiment,
    expand_groups,
    experiment_from_cli,
    load_experiment,
    parse_scalar,
    parse_set,
    parse_strategies,
    parse_strategy,
    resolve_rules,
)
from dominosim.game.variants import make_rules


def write(tmp_path, text, name="exp.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


# --- --set --------------------------------------------------------------------------------------


def test_parse_set_forms():
    assert parse_set("fives.reserve_k=2") == ("fives", "reserve_k", ["2"])
    assert parse_set("two-lane.cumulative_hands=3") == ("two-lane", "cumulative_hands", ["3"])
    assert parse_set("reserve_k=0,2") == (None, "reserve_k", ["0", "2"])
    assert parse_set(" fives.partnership = on ") == ("fives", "partnership", ["on"])


@pytest.mark.parametrize("text", ["fives.reserve_k", "=2", ".reserve_k=2", "fives.=2", "a=1,,2"])
def test_parse_set_errors(text):
    with pytest.raises(ConfigError, match="--set"):
        parse_set(text)


def test_apply_sets_types_values():
    out = apply_sets(
        ["fives.reserve_k=0,2", "fives.partnership=on", "kozel_target=51"], ["fives", "kozel"]
    )
    assert out == {
        "fives": {"reserve_k": [0, 2], "partnership": [True]},
        "kozel": {"kozel_target": [51]},
    }


@pytest.mark.parametrize("word", ["on", "off", "true", "false", "True", "OFF"])
def test_booleans_accept_on_off_true_false(word):
    out = apply_sets([f"fives.inline_double_counts_single={word}"], ["fives"])
    assert out["fives"]["inline_double_counts_single"] == [word.lower() in ("on", "true")]


def test_bare_option_goes_to_the_only_variant_that_has_it():
    assert apply_sets(["reserve_k=2"], ["fives", "classic"]) == {"fives": {"reserve_k": [2]}}


def test_bare_option_ambiguity_lists_candidates():
    with pytest.raises(ConfigError) as info:
        apply_sets(["reserve_k=2"], ["fives", "threes", "classic"])
    msg = str(info.value)
    assert "ambiguous" in msg and "fives.reserve_k" in msg and "threes.reserve_k" in msg
    assert "classic" not in msg.split("write one of:")[1]
    assert "\n" not in msg


def test_bare_option_nobody_has_suggests():
    with pytest.raises(ConfigError, match=r"did you mean 'reserve_k'"):
        apply_sets(["reserv_k=2"], ["fives"])


def test_set_for_a_variant_not_in_the_experiment():
    with pytest.raises(ConfigError, match="not in this experiment.*--variant threes"):
        apply_sets(["threes.reserve_k=2"], ["fives"])


def test_set_unknown_variant_and_option_and_value():
    with pytest.raises(RulesError, match="did you mean 'fives'"):
        apply_sets(["fivs.reserve_k=2"], ["fives"])
    with pytest.raises(RulesError, match="did you mean 'reserve_k'"):
        apply_sets(["fives.reserv_k=2"], ["fives"])
    with pytest.raises(RulesError, match="bad value '3' for fives.reserve_k; allowed: 0, 2"):
        apply_sets(["fives.reserve_k=3"], ["fives"])
    with pytest.raises(RulesError, match="use on/off"):
        apply_sets(["fives.partnership=maybe"], ["fives"])


def test_value_lists_expand_to_cartesian_product():
    assert expand_groups({}) == [{}]
    assert expand_groups({"a": [1, 2], "b": [True, False]}) == [
        {"a": 1, "b": True},
        {"a": 1, "b": False},
        {"a": 2, "b": True},
        {"a": 2, "b": False},
    ]
    e = experiment_from_cli(
        variants=["fives"], players=4, sets=["fives.reserve_k=0,2", "fives.partnership=off,on"]
    )
    assert e.variants[0].option_dicts() == [
        {"reserve_k": 0, "partnership": False},
        {"reserve_k": 0, "partnership": True},
        {"reserve_k": 2, "partnership": False},
        {"reserve_k": 2, "partnership": True},
    ]
    rules = resolve_rules(e)
    assert len(rules) == 4 == len(set(rules))
    assert rules[0] == make_rules("fives", 4)
    assert rules[3] == make_rules("fives", 4, reserve_k=2, partnership=True)


def test_resolve_rules_over_several_variants():
    e = experiment_from_cli(variants="fives,kozel", sets=["kozel_target=51,101"])
    assert [r.label for r in resolve_rules(e)] == ["fives", "kozel[kozel_target=51]", "kozel"]
    assert e.rules == resolve_rules(e)


def test_every_group_is_validated():
    with pytest.raises(RulesError, match="partnership needs 4 players"):
        experiment_from_cli(variants="fives", sets=["partnership=off,on"])


# --- --strategies -------------------------------------------------------------------------------


def test_parse_scalar():
    assert parse_scalar("3") == 3 and parse_scalar("-2") == -2
    assert parse_scalar("0.5") == 0.5 and parse_scalar("1e3") == 1000.0
    assert parse_scalar("on") is True and parse_scalar("False") is False
    assert parse_scalar("nan") == "nan" and parse_scalar("abc") == "abc"


def test_parse_strategy_with_params():
    s = parse_strategy("greedy:depth=2:eps=0.1:fast=on:mode=max")
    assert s == StrategySpec(
        "greedy", (("depth", 2), ("eps", 0.1), ("fast", True), ("mode", "max"))
    )
    assert s.kwargs == {"depth": 2, "eps": 0.1, "fast": True, "mode": "max"}
    assert parse_strategy(s.label) == s
    assert parse_strategy("random") == StrategySpec("random")


@pytest.mark.parametrize(
    "entry", ["", ":x=1", "greedy:depth", "greedy:=2", "gr eedy", "greedy:d=1:d=2"]
)
def test_parse_strategy_errors(entry):
    with pytest.raises(ConfigError, match="--strategies"):
        parse_strategy(entry)


def test_strategies_by_seat():
    assert [s.name for s in parse_strategies("a,b:k=1")] == ["a", "b"]
    with pytest.raises(ConfigError, match="empty strategy entry"):
        parse_strategies("a,,b")
    e = experiment_from_cli(variants="fives", players=3, strategies="random")
    assert e.seats == (StrategySpec("random"),) * 3
    e = experiment_from_cli(variants="fives", players=2, strategies="random,greedy:depth=2")
    assert e.seats[1].kwargs == {"depth": 2}
    e = experiment_from_cli(variants="fives", players=4, strategies="a,b")
    assert [s.name for s in e.seats] == ["a", "b", "a", "b"]
    with pytest.raises(ConfigError, match="names 2 strategies for 3 players"):
        experiment_from_cli(variants="fives", players=3, strategies="a,b")


def test_known_strategies_check():
    with pytest.raises(StrategyError, match="did you mean 'greedy'"):
        experiment_from_cli(variants="fives", strategies="gready", known_strategies=["greedy"])


# --- flags --------------------------------------------------------------------------------------


def test_cli_defaults():
    e = experiment_from_cli(variants="fives")
    assert isinstance(e, Experiment)
    assert (e.name, e.players, e.games, e.unit, e.seed) == ("fives", 2, 1000, "hand", 0)
    assert e.workers is None and e.rotate and e.records
    assert hash(e) == hash(experiment_from_cli(variants=["fives"]))


@pytest.mark.parametrize(
    ("kw", "pattern"),
    [
        ({"games": 0}, "--games must be an integer >= 1, not 0"),
        ({"games": -1}, "--games must be an integer >= 1, not -1"),
        ({"games": "abc"}, "--games must be an integer >= 1, not 'abc'"),
        ({"seed": "abc"}, "--seed must be an integer, not 'abc'"),
        ({"workers": 0}, "--workers must be an integer >= 1"),
        ({"chunk_size": 0}, "--chunk-size must be an integer >= 1"),
        ({"unit": "hands"}, "--unit must be 'hand' or 'match'.*did you mean 'hand'"),
        ({"name": "a/b"}, "--name must be a folder-safe name"),
    ],
)
def test_cli_bad_values(kw, pattern):
    with pytest.raises(ConfigError, match=pattern):
        experiment_from_cli(variants="fives", **kw)


def test_cli_string_integers_are_accepted():
    assert experiment_from_cli(variants="fives", seed="42", games="10").seed == 42


@pytest.mark.parametrize("players", [1, 5])
def test_players_out_of_range(players):
    with pytest.raises(ConfigError, match="--players must be an integer from 2 to 4"):
        experiment_from_cli(variants="fives", players=players)


def test_no_variants():
    with pytest.raises(ConfigError, match="no variants"):
        experiment_from_cli()


# --- TOML ---------------------------------------------------------------------------------------

FULL = """
name = "fives-sweep"
variants = ["fives", { variant = "kozel", kozel_target = [51, 101] }]
players = 2
seats = ["random", "greedy:depth=3"]
games = 200
unit = "hand"
seed = 7
chunk_size = 50
workers = 2
out = "out"
rotate = false
records = false
strategy_path = "my_strategies"

[options.fives]
reserve_k = [0, 2]
inline_double_counts_single = "on"

[strategy.greedy]
depth = 2
eps = 0.25
"""


def test_load_full_experiment(tmp_path):
    e = load_experiment(write(tmp_path, FULL))
    assert e.name == "fives-sweep" and e.games == 200 and e.unit == "hand" and e.seed == 7
    assert (e.chunk_size, e.workers, e.out, e.rotate, e.records) == (50, 2, "out", False, False)
    assert e.strategy_path == ("my_strategies",)
    assert e.seats[0] == StrategySpec("random")
    assert e.seats[1].kwargs == {"depth": 3, "eps": 0.25}  # the seat's own value wins
    labels = [r.label for r in resolve_rules(e)]
    assert labels == [
        "fives[inline_double_counts_single=on]",
        "fives[reserve_k=2,inline_double_counts_single=on]",
        "kozel[kozel_target=51]",
        "kozel",
    ]
    hash(e)


def test_minimal_experiment_takes_its_name_from_the_file(tmp_path):
    e = load_experiment(write(tmp_path, 'variants = ["classic"]\n', "my-exp.toml"))
    assert e.name == "my-exp" and e.seats == (StrategySpec("random"),) * 2


def test_cli_flags_override_the_file(tmp_path):
    p = write(tmp_path, FULL)
    e = experiment_from_cli(p, games=5, sets=["fives.reserve_k=2"], strategies="random")
    assert e.games == 5 and e.name == "fives-sweep" and e.source == str(p)
    assert e.variants[0].option_dicts() == [{"reserve_k": 2, "inline_double_counts_single": True}]
    assert e.seats == (StrategySpec("random"),) * 2


def test_unknown_top_key_suggests(tmp_path):
    p = write(tmp_path, 'variants = ["fives"]\ngame = 10\n')
    with pytest.raises(
        ConfigError, match=r"unknown key 'game' in .*exp.toml \(did you mean 'games'\?\)"
    ):
        load_experiment(p)


def test_unknown_option_in_table_suggests(tmp_path):
    p = write(tmp_path, 'variants = ["fives"]\n[options.fives]\nreserv_k = 2\n')
    with pytest.raises(RulesError, match="did you mean 'reserve_k'"):
        load_experiment(p)


def test_options_for_a_variant_not_listed(tmp_path):
    p = write(tmp_path, 'variants = ["fives"]\n[options.threes]\nreserve_k = 2\n')
    with pytest.raises(ConfigError, match=r"\[options.threes\].*not in variants"):
        load_experiment(p)


def test_strategy_table_for_no_seat(tmp_path):
    p = write(tmp_path, 'variants = ["fives"]\nseats = ["greedy"]\n[strategy.gredy]\nx = 1\n')
    with pytest.raises(ConfigError, match=r"no seat plays gredy \(did you mean 'greedy'\?\)"):
        load_experiment(p)


@pytest.mark.parametrize(
    ("line", "pattern"),
    [
        ("games = 0", "'games' in .* must be an integer >= 1, not 0"),
        ("games = -1", "'games' in .* must be an integer >= 1, not -1"),
        ("games = 1.5", "'games' in .* must be an integer >= 1, not 1.5"),
        ("games = true", "'games' in .* must be an integer >= 1, not true"),
        ('seed = "abc"', "'seed' in .* must be an integer, not 'abc'"),
        ("players = 5", "'players' in .* must be an integer from 2 to 4, not 5"),
        ("workers = 0", "'workers' in .* must be an integer >= 1, not 0"),
        ('rotate = "yes"', "'rotate' in .* must be true or false"),
        ('unit = "game"', "'unit' in .* must be 'hand' or 'match'"),
        ("out = 3", "'out' in .* must be a non-empty string"),
        ("seats = []", "'seats' in .* must be a non-empty list"),
        ("strategy_path = [1]", "'strategy_path' in .* must be a string or a list of strings"),
    ],
)
def test_wrong_types_name_the_key(tmp_path, line, pattern):
    p = write(tmp_path, f'variants = ["fives"]\n{line}\n')
    with pytest.raises(ConfigError, match=pattern) as info:
        load_experiment(p)
    assert "\n" not in str(info.value)


def test_bad_variant_entries(tmp_path):
    with pytest.raises(ConfigError, match="needs a 'variant' key"):
        load_experiment(write(tmp_path, "variants = [{ reserve_k = 2 }]\n"))
    with pytest.raises(ConfigError, match="non-empty list"):
        load_experiment(write(tmp_path, "variants = []\n"))
    with pytest.raises(RulesError, match="did you mean 'kozel'"):
        load_experiment(write(tmp_path, 'variants = ["kozl"]\n'))


def test_invalid_combination_names_the_file(tmp_path):
    p = write(
        tmp_path,
        'variants = ["block"]\n[options.block]\nfish_score_sum_only = true\n'
        "fish_difference_per_opponent = true\n",
    )
    with pytest.raises(RulesError, match=r"invalid combination: .* \(in .*exp.toml\)"):
        load_experiment(p)


def test_bad_toml_names_file_and_line(tmp_path):
    p = write(tmp_path, 'variants = ["fives"]\ngames = \n')
    with pytest.raises(ConfigError, match=r"^not valid TOML: .*exp.toml:2: ") as info:
        load_experiment(p)
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="experiment file not found: .*nope.toml"):
        load_experiment(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match="is a folder"):
        load_experiment(tmp_path)


def test_build_experiment_from_a_dict():
    e = build_experiment({"variants": ["basic"], "players": 3}, source="inline")
    assert e.players == 3 and e.name == "inline"
    assert e.to_dict()["variants"] == [{"variant": "basic", "groups": [{}]}]


def test_rules_from_cli_gives_one_rules():
    from dominosim.config import rules_from_cli

    assert rules_from_cli("fives", 3, ["reserve_k=2"]) == make_rules("fives", 3, reserve_k=2)
    assert rules_from_cli("kozel", "4") == make_rules("kozel", 4)
    with pytest.raises(ConfigError, match="gives 2 rule sets"):
        rules_from_cli("fives", 2, ["fives.reserve_k=0,2"])
