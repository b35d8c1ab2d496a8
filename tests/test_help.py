"""The help a newcomer reads: every command and option explains itself, ``--version`` works."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from dominosim.cli import main


def walk(cmd: click.Command, path: tuple[str, ...] = ("dominosim",)):
    yield path, cmd
    if isinstance(cmd, click.Group):
        for name, sub in cmd.commands.items():
            yield from walk(sub, (*path, name))


COMMANDS = list(walk(main))
IDS = [" ".join(p) for p, _ in COMMANDS]


def invoke(args):
    return CliRunner().invoke(main, args, prog_name="dominosim", terminal_width=100)


@pytest.mark.parametrize(("path", "cmd"), COMMANDS, ids=IDS)
def test_every_command_and_option_has_help(path, cmd):
    assert (cmd.help or "").strip(), f"{' '.join(path)} has no help text"
    assert cmd.get_short_help_str(limit=80).strip()
    for p in cmd.params:
        if isinstance(p, click.Option):
            assert (p.help or "").strip(), f"{' '.join(path)} {p.opts[0]} has no help text"
        else:  # an argument: its name is explained in the command's help
            assert p.human_readable_name in cmd.help, (path, p.name)


@pytest.mark.parametrize(("path", "cmd"), COMMANDS, ids=IDS)
def test_every_help_page_prints(path, cmd):
    r = invoke([*path[1:], "--help"])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith(f"Usage: {' '.join(path)} ")
    for p in cmd.params:
        if isinstance(p, click.Option) and not p.hidden:
            assert p.opts[0] in r.stdout, p.opts[0]
    assert invoke([*path[1:], "-h"]).stdout == r.stdout


def test_main_help_lists_every_command_on_one_line():
    r = invoke(["--help"])
    assert r.exit_code == 0
    listed = r.stdout.split("\nCommands:\n", 1)[1].splitlines()
    rows = {}
    for line in listed:
        m = re.fullmatch(r"  (\S+)\s{2,}(\S.*)", line)
        assert m, f"not one line per command: {line!r}"
        rows[m.group(1)] = m.group(2)
    assert sorted(rows) == sorted(main.commands)


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(flag):
    r = invoke([flag])
    assert r.exit_code == 0
    assert re.fullmatch(r"dominosim \d+\.\d+\.\d+\S*\n", r.stdout), r.stdout


def test_bare_command_prints_the_help():
    r = invoke([])
    assert "Commands:" in r.output and "Traceback" not in r.output


def test_tests_readme_budgets_every_test_file():
    """tests/README.md's time budget table has a row for every test file of the folder."""
    from fnmatch import fnmatch
    from pathlib import Path

    here = Path(__file__).resolve().parent
    text = (here / "README.md").read_text(encoding="utf-8").split("## Time budget", 1)[1]
    rows = "\n".join(x for x in text.splitlines() if x.startswith("|"))  # (the table only)
    patterns = [re.sub(r"<[^>]*>", "*", x) for x in re.findall(r"`(test_[^`]*\.py)`", rows)]
    files = sorted(p.name for p in here.glob("test_*.py"))
    missing = [f for f in files if not any(fnmatch(f, pat) for pat in patterns)]
    assert missing == [], "add these files to a row of tests/README.md's time budget"


def test_run_help_tells_the_real_unit_default(tmp_path):
    """`run --help` says the default the runner uses (a flag run plays hands), and how to play
    hands without a target."""
    from dominosim.config import experiment_from_cli

    text = " ".join(invoke(["run", "--help"]).output.split())
    real = experiment_from_cli(variants=["fives"]).unit
    assert f"(default {real}, or the file's unit)" in text
    assert "V.target=none" in text
    for cmd in ("compare", "tune"):  # their own defaults, as setup_compare / setup_tune use
        text = " ".join(invoke([cmd, "--help"]).output.split())
        want = "hand" if cmd == "compare" else "match"
        assert f"What a game is (default {want})" in text
