"""`dominosim variants`, --version, --help and the one-line error wrapper, run in-process."""

import click
import pytest
from click.testing import CliRunner

from dominosim import __version__
from dominosim.base.errors import ConfigError, OutputError
from dominosim.cli import main
from dominosim.game.variants import VARIANTS


@pytest.fixture
def runner():
    return CliRunner()


def test_variants_lists_all_twelve(runner):
    r = runner.invoke(main, ["variants"])
    assert r.exit_code == 0, r.output
    for v in VARIANTS:
        assert f"\n{v} " in r.output
    assert "Козёл" in r.output and "Пятёрки" in r.output
    assert "25 / 20 / 20" in r.output and "5/5/6" in r.output


def test_variants_kozel_lists_options(runner):
    r = runner.invoke(main, ["variants", "kozel"])
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if x.startswith("kozel_target"))
    assert " 101 " in line and "§14.11" in line
    assert "lone_00_value" in r.output and "10, 25" in r.output


def test_variants_player_dependent_default(runner):
    r = runner.invoke(main, ["variants", "fives"])
    line = next(x for x in r.output.splitlines() if x.startswith("target"))
    assert "25 / 20 / 20" in line and "§5.11" in line


def test_unknown_variant_is_one_line_exit_3(runner):
    r = runner.invoke(main, ["variants", "kozl"])
    assert r.exit_code == 3
    assert r.stdout == ""
    assert r.stderr.startswith("error: unknown variant 'kozl' (did you mean 'kozel'?)")
    assert r.stderr.count("\n") == 1
    assert "Traceback" not in r.output


def test_version(runner):
    r = runner.invoke(main, ["--version"])
    assert r.exit_code == 0
    assert r.output.strip().startswith("dominosim ")
    assert __version__ == "0.1.0"


def test_help_lists_commands(runner):
    r = runner.invoke(main, ["--help"])
    assert r.exit_code == 0
    assert "variants" in r.output and "Commands:" in r.output
    r = runner.invoke(main, ["variants", "--help"])
    assert r.exit_code == 0 and "VARIANT" in r.output


@pytest.mark.parametrize(
    ("exc", "code", "text"),
    [
        (ConfigError("bad thing; fix it"), 2, "error: bad thing; fix it\n"),
        (OutputError("two\nlines"), 5, "error: two\\nlines\n"),  # (escaped: one line)
        (KeyboardInterrupt(), 130, "error: interrupted; finished work is kept\n"),
    ],
)
def test_error_wrapper_covers_every_command(runner, exc, code, text):
    @main.command("_raise_for_test", hidden=True)
    def _raise():
        raise exc

    try:
        r = runner.invoke(main, ["_raise_for_test"])
    finally:
        main.commands.pop("_raise_for_test")
    assert r.exit_code == code
    assert r.stderr == text
    assert isinstance(r.exception, SystemExit)


def test_main_is_a_click_group():
    assert isinstance(main, click.Group)


def test_shared_option_decorators(runner):
    from dominosim.cli import rules_options, seed_option, strategies_option
    from dominosim.config import parse_strategies, rules_from_cli

    @main.command("_opts_for_test", hidden=True)
    @rules_options
    @strategies_option
    @seed_option
    def _opts(variant, players, sets, strategies, seed):
        r = rules_from_cli(variant, players, sets)
        click.echo(f"{r.label} {players} {[s.label for s in parse_strategies(strategies)]} {seed}")

    try:
        ok = runner.invoke(
            main,
            [
                "_opts_for_test",
                "--variant",
                "fives",
                "-p",
                "3",
                "--set",
                "reserve_k=2",
                "--seed",
                "5",
            ],
        )
        bad = runner.invoke(main, ["_opts_for_test", "--variant", "fives", "--set", "reserv_k=2"])
    finally:
        main.commands.pop("_opts_for_test")
    assert ok.exit_code == 0, ok.output
    assert ok.stdout == "fives[reserve_k=2] 3 ['random'] 5\n"
    assert bad.exit_code == 2 and bad.stderr.startswith("error: --set 'reserv_k=2'")
