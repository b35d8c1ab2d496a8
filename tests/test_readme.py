"""Every dominosim command in README.md runs (in-process, tiny game counts) — issue: the
newcomer's path. The install lines are exercised by .ci/run's fresh environment."""

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from dominosim.cli import main

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    cmds = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = line.split("#")[0].strip()
            if "dominosim " in line:
                cmds.append(line[line.index("dominosim ") :])
    return cmds


def test_readme_starts_with_the_two_commands():
    cmds = readme_commands()
    assert cmds[0] == "dominosim run classic-2p"  # a shipped example, by name
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "<!-- test-command -->" in text


SHIPPED_FIVES = ROOT / "strategies" / "models" / "fives-2p.json"


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("readme")
    r = CliRunner().invoke(
        main,
        [
            "run",
            str(ROOT / "configs" / "classic-2p.toml"),
            "--games",
            "4",
            "--workers",
            "1",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    import json

    return json.loads(r.stdout)["run_dir"]


@pytest.mark.parametrize("cmd", readme_commands())
def test_readme_command_runs(cmd, finished_run, tmp_path, monkeypatch, clean_registry):
    # (clean_registry: a strategy file a command loads, check-strategy's, is forgotten after it)
    monkeypatch.chdir(ROOT)
    args = shlex.split(cmd)[1:]
    if "--scheduler" in args:
        pytest.skip("needs a running Dask scheduler (covered by tests/test_run.py)")
    args = [finished_run if "RUN_ID" in a else a for a in args]
    if args[0] == "skill":
        args[args.index("--deals") + 1] = "1"
        args += ["--out", str(tmp_path), "--workers", "1"]
    if args[0] == "check-strategy":  # (test_check.py: the example passes every check, 2 deals)
        args += ["--deals", "1"]
    if args[0] == "train":  # (the smallest budget; the model file in the test's folder)
        args[args.index("--out") + 1] = str(tmp_path / "model.json")
        args += ["--generations", "1", "--population", "4", "--deals", "2"]
    # a model the README trains first: the shipped one of the same game stands in for it
    args = [a.replace("model=fives.json", f"model={SHIPPED_FIVES}") for a in args]
    if args[0] in ("run", "compare", "tune", "tune-target"):
        if "--resume" not in args:
            if "--games" in args:
                args[args.index("--games") + 1] = "4"
            else:
                args += ["--games", "4"]
            args += ["--out", str(tmp_path)]
        args += ["--workers", "1"]
        if "--executor" in args and args[args.index("--executor") + 1] == "dask-local":
            # (a local Dask cluster's start is most of this test: test_run.py plays the same
            # executor and holds it equal to the local one)
            pytest.skip("dask-local: tests/test_run.py::test_dask_local_cluster_equals_local")
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, f"{cmd}\n{r.output}"
