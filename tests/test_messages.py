"""Messages (issue 45 point 11): a strategy's own BaseException subclass is said to be one (not
taken for a kill); a control character given in a flag is printed escaped, never raw."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import dominosim
from dominosim.base.errors import ConfigError, printable
from dominosim.cli import main

BOOM = """
from dominosim.strategy import Strategy, register

class Boom(BaseException):
    pass

@register
class Booming(Strategy):
    name = "{name}"

    def choose_one(self, obs, legal, key):
        raise Boom("bang")
"""


def invoke(args):
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize("command", ["check-strategy", "run", "trace"])
def test_a_base_exception_of_its_own_is_said_to_be_one(command, tmp_path):
    name = f"boom-{command}"
    path = tmp_path / "boom.py"
    path.write_text(BOOM.format(name=name))
    seats = ["--variant", "fives", "--strategies", f"{name},random", "--strategy-path", str(path)]
    args = {
        "check-strategy": ["check-strategy", str(path), "--variant", "fives", "--deals", "2"],
        "run": ["run", *seats, "--games", "2", "--workers", "1", "--out", str(tmp_path)],
        "trace": ["trace", *seats],
    }[command]
    r = invoke(args)
    assert r.exit_code == 4, r.output
    line = r.stderr.strip().splitlines()[-1]
    assert "raised Boom (a BaseException, not an Exception): bang" in line
    assert "fix the strategy" in line
    assert "os._exit" not in line and "kill" not in line
    if command != "trace":  # (trace's child names no strategy: one is playing)
        assert f"strategy '{name}' raised" in line, line


WEIRD = "ran\x1b[31mdom\x07,gr\u202eeedy"


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--variant", "fives", "--games", "2", "--strategies", WEIRD],
        ["compare", "--variant", "fives", "--games", "2", "--strategies", WEIRD],
        ["trace", "--variant", "fives", "--strategies", WEIRD],
        ["check-strategy", WEIRD],
        ["run", "--variant", "fi\nves\x07", "--games", "2"],
        ["run", "--variant", "fives", "--players", "\x1b"],
    ],
)
def test_a_control_character_is_printed_escaped(args, tmp_path):
    r = invoke([*args, "--out", str(tmp_path)] if args[0] in ("run", "compare") else args)
    assert r.exit_code in (2, 3), r.output  # (a bad value; an unknown variant)
    err = r.stderr
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert err[:-1].isprintable(), repr(err)
    assert "\\x1b" in err or "\\x07" in err, err


def test_an_api_error_is_escaped_too():
    with pytest.raises(ConfigError) as e:
        dominosim.run(variants="fives", strategies=WEIRD, games=2)
    assert str(e.value).isprintable() and "ran\\x1b[31mdom\\x07" in str(e.value)
    assert printable("a\nb\u202ec\x7f") == "a\\nb\\u202ec\\x7f"
    assert printable("plain 'text' é") == "plain 'text' é"


def test_the_summary_time_is_the_commands(tmp_path, monkeypatch):
    """The summary line's time counts from the command's start (the program's process start,
    loading included; an API call's start), the playing time beside it."""
    import re
    import time

    from dominosim.base import session as progress

    assert 0 <= time.monotonic() - progress.process_start() < 24 * 3600  # (this process's age)
    monkeypatch.setattr(progress, "COMMAND_START", [time.monotonic() - 30.0])
    args = ["run", "--variant", "fives", "--games", "4", "--workers", "1", "--no-plots"]
    r = invoke([*args, "--out", str(tmp_path)])
    m = re.search(r"played 4 games \(4 hands\) in ([\d.]+) s \(([\d.]+) s playing, ", r.stderr)
    assert m and float(m[1]) >= 30.0 > float(m[2]) + 25, r.stderr
    monkeypatch.setattr(progress, "COMMAND_START", [])
    lines = []
    dominosim.run(
        variants="fives", games=4, workers=1, plots=False, out=str(tmp_path), echo=lines.append
    )
    m = re.search(r"in ([\d.]+) s \(([\d.]+) s playing", lines[-1])
    assert m and float(m[2]) <= float(m[1]) < 30.0, lines


def test_check_strategy_help_names_every_check():
    from dominosim.check import CHECKS

    text = " ".join(invoke(["check-strategy", "--help"]).stdout.split())
    assert f"{len(CHECKS)} checks" in text.lower().replace("six", "6"), text
    assert all(f"({name})" in text for name in CHECKS), text


def test_the_docs_name_layouts_as_rules_layout_does():
    """``rules.layout`` is 'line', 'spinner' or 'single_end': the docs (but the copy of
    RULES.md, which names its sections so) write those, not LINE or SPINNER."""
    import re
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent / "docs"
    for name in ("strategies.md", "design.md", "trace.md", "example_batch_strategy.py"):
        text = (docs / name).read_text(encoding="utf-8")
        assert not re.search(r"\b(LINE|SPINNER|SINGLE_END)\b", text), name
