"""Everything a user sees, byte for byte, at two revisions (issue 48 point 7).

    python bench/same_outputs.py --base REV [--head REV] [--out DIR] [--allow FILE] [--jobs N]

Each revision is unpacked into DIR/src/LABEL (``git archive``; ``--head`` left out: the working
tree this is run from, uncommitted and untracked files included), its compiled core built
there (``python setup.py build_ext --inplace -q``; the built ``.so`` cached in DIR/cache by
the sha256 of ``setup.py`` and ``dominosim/engine/*.c, *.h``, so an unchanged core is built
once), and a fixed set of commands is run against it: ``PYTHONPATH=<checkout> python -m
dominosim ...``, with HOME an empty folder (DIR/home), the working folder DIR/work (the same
path for both revisions, emptied first), ``COLUMNS=100``, no terminal (no progress bars), no
``DOMINOSIM_*`` variable. The commands (``CASES`` and the functions that build it):

- every command's and subcommand's ``--help`` (the click group walked at that revision),
  ``--version``, ``variants`` and ``variants V`` of each variant, ``strategies``, ``configs``;
- runs: ``dominosim run`` of each shipped experiment file (small ``--games``), with
  ``--records all``, whole matches, ``--json``, figures, two workers and small chunks, option
  groups, a shipped name, ``--until-decided``; ``compare`` (also ``--json``,
  ``--until-decided``, a search), ``skill``, ``tune``, ``tune-target``; then ``verify``,
  ``report`` (text and ``--json``), ``--resume`` of finished runs, ``trace --run``;
- ``trace`` of each variant at 2 players (text and ``--json``), and a few more traces;
- user mistakes of docs/errors.md (files, flags, ``--set``, strategies, ``--resume`` ...);
- the Python API (``dominosim.run``, ``api.compare``, ``load``, a bad keyword).

Every command's stdout, stderr and exit code is kept, and every file of every run folder it
made (reports, CSV, JSON, ``manifest.json``, ``chunks/*.agg.json``; Parquet and PNG files
compared as bytes), one file per output under DIR/LABEL/. Text is masked first (``mask``): the
checkout's and DIR's paths, run ids, dates and times, durations, speeds and the JSON fields
that hold them (and a chunk's ``checksum``, which covers its timing) - only what differs from
one run to the next (``--base X --head X`` gives no difference: the tool's own test).

Then the two sides are compared: identical files, files that differ (their first differing
lines, a unified diff capped), files on one side only. A difference listed in ``ALLOWED`` (or
an ``--allow`` file: lines ``PATH<TAB>REASON``, PATH relative to DIR/LABEL) is a documented
deliberate change, reported as such. Exit code 0 when nothing else differs, 1 otherwise. The
comparison is written to DIR/comparison.txt too.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VARIANTS = (
    "blind bergen fives threes sniff basic two-lane ladder muggins block classic kozel".split()
)
BINARY = (".parquet", ".png", ".so")
CASE_TIMEOUT = 600
DIFF_LINES = 40
# Deliberate differences between a6946a3 (before issue 48) and its end: a whole output, by its
# path under DIR/LABEL (ALLOWED), or a part of any output (ALLOWED_PARTS: a pattern whose matches
# are masked on both sides; the file is allowed only when nothing else differs).
RESUME_FLAGS = "issue 48 point 2 (8e13f28): the --resume error names every session flag"
PIMC_OPTIONS = (
    "issue 47 point 3: pimc's options alphamu (e243fd0), alphamu_value (da473dd), partner (2a9d583)"
)
ALLOWED: dict[str, str] = {
    "errors/resume-with-games/stderr": RESUME_FLAGS,
    "errors/resume-with-config/stderr": RESUME_FLAGS,
    "list/strategies/stdout": PIMC_OPTIONS + " (the parameters column)",
    "errors/pimc-partner-random/stderr": PIMC_OPTIONS + " (pimc:partner is a parameter now)",
}
BUILTIN_FILES = (
    "the built-in strategy files' contents: issue 48 point 5 (a0e8678, the built-ins import "
    "the current module paths), issue 48 point 3 (3f4db10, mc.py), issue 47 point 3 and its "
    "merge (pimc.py: e243fd0, 2a9d583, da473dd, 28bb680, b5dc3c4, 771005f), issue 48 point 2 "
    "(a6de737: random.py and pimc.py read spec.RANDOM, pimc.py the solver's leaf value): "
    "their sha256 in the manifest, and the run's fingerprint that covers them (the manifest's "
    "'fingerprint', a chunk's 'run')"
)
ALLOWED_PARTS: list[tuple[re.Pattern, str]] = [
    (
        re.compile(
            r"""(["']builtin["']:\s*["'][\w.]+["'],\s*["']sha256["']:\s*)["'][0-9a-f]{64}["']"""
        ),
        BUILTIN_FILES,
    ),
    (re.compile(r"""(["'](fingerprint|run)["']:\s*)["'][0-9a-f]{64}["']"""), BUILTIN_FILES),
]


# ---------------------------------------------------------------------------------------------
# masking


TIME_KEYS = (
    "cpu_seconds|wall_seconds|hands_per_second|games_per_second|seconds|started|ended|created"
    "|run_id|checksum|ms_per_decision|elapsed"
)
JSON_VALUE = r"""(-?\d[\d.eE+-]*|null|None|"[^"]*"|'[^']*')"""
MASKS = [
    (re.compile(r"\b\d{8}-\d{6}-[0-9a-f]{4}\b"), "<RUN-ID>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:?\d{2}|Z)?"), "<TIME>"),
    (re.compile(r"""(["'](""" + TIME_KEYS + r""")["']\s*:\s*)""" + JSON_VALUE), r"\1<MASKED>"),
    (re.compile(r"\b\d[\d,]*(\.\d+)? s\b"), "<N> s"),
    (re.compile(r"\b\d[\d,]*(\.\d+)? (games|hands|decisions)/s\b"), r"<N> \2/s"),
    (re.compile(r"\b0x[0-9a-f]{6,}\b"), "0x<ADDR>"),
    # (said once a run has lasted progress.DELAY seconds, bar or no bar: timing, not output)
    (re.compile(r"^run folder: \S+\n", re.M), ""),
]


def mask(text: str, paths: dict[str, str]) -> str:
    """``text`` with what differs from one run to the next replaced by a placeholder: each
    path of ``paths`` (longest first) by its name, then run ids, times, durations, speeds and
    the JSON fields holding them (``MASKS``)."""
    for path in sorted(paths, key=len, reverse=True):
        text = text.replace(path, paths[path])
    for pattern, repl in MASKS:
        text = pattern.sub(repl, text)
    return text


# ---------------------------------------------------------------------------------------------
# the cases: (name, argv, run folder it uses or None); argv[0] "python" runs a script


BAD_FILES = {
    "syntax.toml": "games = = 3\n",
    "unknown-key.toml": 'game = 10\nvariants = ["fives"]\n',
    "no-variants.toml": "games = 10\n",
    "seats-string.toml": 'variants = ["fives"]\nseats = "greedy,random"\n',
    "options-other.toml": 'variants = ["fives"]\n[options.threes]\ntarget = [30]\n',
    "players.toml": 'variants = ["fives"]\nplayers = 5\n',
    "games-zero.toml": 'variants = ["fives"]\ngames = 0\n',
    "unit.toml": 'variants = ["fives"]\nunit = "hands"\n',
    "partnership3.toml": 'variants = ["fives"]\nplayers = 3\n[options.fives]\npartnership = true\n',
    "empty-list.toml": 'variants = ["fives"]\n[options.fives]\nreserve_k = []\n',
    "name.toml": 'variants = ["fives"]\nname = "a/b"\n',
}
# (a string is split at spaces: ``argv``; ``{NAME}`` is the run folder case NAME made)
R = "run --variant fives --games 10 --workers 1 --out res/err"
ERRORS: dict[str, str | list[str]] = {
    "file-missing": "run nosuch.toml",
    "file-bare-name": "run nosuch",
    "file-folder": "run bad",
    "file-not-utf8": "run bad/latin1.toml",
    **{f"file-{n.removesuffix('.toml')}": f"run bad/{n}" for n in BAD_FILES},
    "games-zero": f"{R} --games 0",
    "games-negative": f"{R} --games -3",
    "games-fraction": f"{R} --games 1.5",
    "workers-zero": f"{R} --workers 0",
    "seed-word": f"{R} --seed abc",
    "seed-negative": f"{R} --seed -1",
    "seed-too-large": f"{R} --seed 18446744073709551616",
    "players-5": f"{R} --players 5",
    "unit-hands": f"{R} --unit hands",
    "chunk-size-large": f"{R} --chunk-size 10000000000",
    "set-no-equals": f"{R} --set fives",
    "set-empty": f"{R} --set fives.reserve_k=",
    "set-bare-unknown": f"{R} --set foo=1",
    "set-ambiguous": f"{R} --variant threes --set target=30",
    "set-other-variant": f"{R} --set threes.target=30",
    "set-control-char": [*R.split(), "--set", "fives.reserve_k=2\n"],
    "variant-unknown": f"{R} --variant fivs",
    "option-unknown": f"{R} --set fives.reserv_k=2",
    "option-value": f"{R} --set fives.reserve_k=3",
    "option-boolean": f"{R} --set fives.partnership=maybe",
    "option-too-large": f"{R} --set fives.target=99999999999999999999",
    "partnership-3": f"{R} --players 3 --set fives.partnership=on",
    "target-zero": f"{R} --set fives.target=0",
    "target-none-match": f"{R} --set fives.target=none --unit match",
    "strategy-unknown": f"{R} --strategies gready",
    "strategy-parameter": f"{R} --strategies random:depth=2",
    "strategy-grammar": f"{R} --strategies greedy:depth",
    "strategy-empty": f"{R} --strategies random,,greedy",
    "strategy-twice": f"{R} --strategies mc:samples=2:samples=3,random",
    "strategy-seats": f"{R} --players 3 --strategies greedy,random",
    "strategy-path": f"{R} --strategy-path nosuch",
    "mc-samples": f"{R} --strategies mc:samples=1000000000,random",
    "pimc-objective": f"{R} --strategies pimc:objective=best,random",
    "pimc-temp": f"{R} --strategies pimc:temp=0,random",
    "pimc-partner-random": f"{R} --strategies pimc:partner=random,random",
    "strategy-timeout": f"{R} --strategy-timeout soon",
    "strategy-timeout-range": f"{R} --strategy-timeout 1e10",
    "metric-alone": f"{R} --strategies greedy,random --metric points",
    "until-decided-one": f"{R} --until-decided",
    "executor-dask": f"{R} --executor dask",
    "scheduler-tls": f"{R} --executor dask --scheduler tls://10.0.0.5:8786",
    "scheduler-port": f"{R} --executor dask --scheduler tcp://:99999",
    "out-no-user": f"{R} --out ~nosuchuser/x",
    "resume-not-run": "run --resume bad",
    "compare-one": "compare --variant fives --strategies greedy",
    "compare-twice": "compare --variant fives --strategies greedy,greedy",
    "compare-no-variant": "compare --strategies greedy,random",
    "compare-3p-two": "compare --variant fives --players 3 --strategies greedy,random",
    "compare-matches-hand": "compare --variant fives --strategies greedy,random --metric matches",
    "compare-equal-time": "compare --variant fives --strategies greedy,random --equal-time 0",
    "skill-no-random": "skill --variant fives --strategies greedy,heaviest",
    "skill-budget": "skill --variant fives --budget lots",
    "skill-accuracy": "skill --variant fives --accuracy-deals -3",
    "tune-no-list": "tune --variant sniff --set sniff.reserve_k=2",
    "tune-no-variant": "tune --set sniff.reserve_k=0,2",
    "tune-target-none": "tune-target --variant muggins",
    "tune-target-zero": "tune-target --variant muggins --targets 0,50",
    "tune-target-twice": "tune-target --variant muggins --targets 50,50",
    "tune-target-share": "tune-target --variant muggins --targets 50 --share 2",
    "tune-target-two-lane": "tune-target --variant two-lane --targets 50",
    "tune-target-set": "tune-target --variant muggins --targets 50 --set muggins.target=70",
    "trace-no-variant": "trace",
    "trace-players": "trace --variant fives -p 5",
    "trace-decision": "trace --variant fives --seed 1 --decision 999",
    "trace-match-id": "trace --variant fives --match-id 18446744073709551616",
    "trace-set-list": "trace --variant fives --set fives.reserve_k=0,2",
    "train-population": "train --variant fives --population 2 --out m.json",
    "command-unknown": "frobnicate",
    "flag-unknown": "run --frob",
    "report-no-arg": "report",
    "report-not-run": "report bad",
    "check-strategy-missing": "check-strategy nosuch.py",
    "check-strategy-check": "check-strategy ex/example_strategy.py --check legl",
    "variants-unknown": "variants fivs",
    "resume-with-games": "run --resume {config-match-fives} --games 5",
    "resume-with-config": "run configs/match-fives.toml --resume {config-match-fives}",
    "resume-other-kind": "compare --resume {config-match-fives}",
    "trace-run-match": "trace --run {run-records-all} --hand 0:0:999:0",
}

SMALL = "--workers 1 --seed 7 --no-plots"
G = "--strategies greedy,heaviest,random --variant fives"
RUNS = {
    "run-records-all": f"run configs/match-fives.toml --games 20 --records all {SMALL}",
    "run-unit-match": f"run --variant threes --unit match --games 10 {SMALL}",
    "run-json": f"run configs/classic-2p.toml --games 20 --json {SMALL}",
    "run-plots": "run --variant block --games 30 --workers 1 --seed 7",
    "run-chunks": "run --variant bergen --games 60 --chunk-size 10 --workers 2 --seed 7 "
    "--no-plots --strategies greedy,random",
    "run-groups": "run --variant fives,threes --players 3 --strategies greedy,heaviest,random "
    f"--set fives.reserve_k=0,2 --games 30 {SMALL}",
    "run-partnership": "run --variant fives --players 4 --set fives.partnership=on "
    f"--strategies greedy,random --games 20 {SMALL}",
    "run-shipped-name": f"run classic-2p --games 10 {SMALL}",
    "run-until-decided": "run --variant fives --strategies greedy,random --games 600 "
    f"--until-decided {SMALL}",
    "compare": f"compare {G} --games 60 {SMALL}",
    "compare-json": f"compare {G} --games 30 --json --unit match {SMALL}",
    "compare-until-decided": "compare --variant block --strategies greedy,random --games 600 "
    f"--until-decided --metric points {SMALL}",
    "compare-search": "compare --variant block --strategies mc:samples=8,pimc:samples=4,greedy "
    f"--games 12 {SMALL}",
    "skill": "skill --variant fives --strategies random,greedy --deals 8 --budget 2000 "
    f"--accuracy-deals 2 {SMALL}",
    "tune": f"tune --variant sniff --set sniff.reserve_k=0,2 --games 10 {SMALL}",
    "tune-target": "tune-target --variant muggins --targets 50,100 --games 10 "
    f"--strategies greedy,random {SMALL}",
}
LATER = {  # (commands on the folders of RUNS)
    "verify": "verify {run-records-all} --workers 1",
    "verify-compare": "verify {compare} --workers 1",
    "report": "report {run-groups}",
    "report-json": "report {compare} --json",
    "report-skill": "report {skill}",
    "resume-run": "run --resume {run-chunks} --workers 1",
    "resume-compare": "compare --resume {compare} --workers 1",
    "resume-tune-target": "tune-target --resume {tune-target} --workers 1",
    "trace-run": "trace --run {run-records-all} --hand 0:0:3:1",
}
CROSS = {  # (this revision's commands on the base revision's folders)
    "verify": "verify {base:run-records-all} --workers 1",
    "verify-compare": "verify {base:compare} --workers 1",
    "verify-search": "verify {base:compare-search} --workers 1",
    "verify-skill": "verify {base:skill} --workers 1",
    "report": "report {base:run-groups}",
    "report-json": "report {base:tune-target} --json",
    "resume-run": "run --resume {base:run-chunks} --workers 1",
    "resume-compare": "compare --resume {base:compare-until-decided} --workers 1",
    "trace-run": "trace --run {base:run-records-all} --hand 0:0:3:1",
}


def argv(command: str | list[str]) -> list[str]:
    return command.split() if isinstance(command, str) else command


API = """
import json
import dominosim
from dominosim import api
from dominosim.base.errors import DominosimError

def show(title, obj):
    print("==", title)
    print(json.dumps(obj, default=repr, indent=1, ensure_ascii=False))

show("run", dominosim.run(variants=["fives"], strategies="greedy,random", games=20, seed=5,
                          workers=1, out="res/api-run", plots=False, echo=print))
show("compare", api.compare(variant="block", strategies="greedy,heaviest", games=20, seed=5,
                            workers=1, out="res/api-compare", plots=False, echo=print))
for call in (lambda: api.compare(variant="fives", game=3), lambda: dominosim.run(sets=3),
             lambda: dominosim.load(5), lambda: dominosim.run(strategy_timeout="soon")):
    try:
        call()
    except DominosimError as e:
        print(type(e).__name__, e)
import glob
data = dominosim.load(glob.glob("res/api-run/*/*")[0])
print(sorted(vars(data)) if hasattr(data, "__dict__") else data)
"""


def help_walk() -> str:
    """A script that prints the command paths of the click group, one a line."""
    return (
        "import click\nfrom dominosim.cli import main\n"
        "def walk(cmd, path):\n    print(' '.join(path))\n"
        "    for name, sub in sorted(getattr(cmd, 'commands', {}).items()):\n"
        "        walk(sub, path + [name])\nwalk(main, [])\n"
    )


TRACES = {
    **{v: f"trace --variant {v} --seed 3" for v in VARIANTS},
    **{f"{v}-json": f"trace --variant {v} --seed 3 --json" for v in VARIANTS},
    "fives-match": "trace --variant fives --seed 4 --match",
    "block-4p": "trace --variant block -p 4 --seed 5",
    "sniff-decision": "trace --variant sniff --seed 6 --decision 2",
    "fives-search": "trace --variant fives --strategies greedy,mc:samples=8",
}
OTHERS = {
    "check/example": "check-strategy ex/example_strategy.py --deals 2 --probe-seed 1 "
    "--variant fives",
    "api/python": "python api.py",
}


def cases(commands: list[str], configs: list[str]) -> list[tuple[str, list[str]]]:
    """The first phase's cases: name (the folder of its outputs) and argv."""
    out = [(f"help/{'-'.join(c.split()) or 'main'}", [*c.split(), "--help"]) for c in commands]
    lists = {"version": "--version", "variants": "variants", "strategies": "strategies"}
    lists |= {f"variants-{v}": f"variants {v}" for v in VARIANTS}
    lists["configs"] = "configs --files"
    out += [(f"list/{k}", argv(v)) for k, v in lists.items()]
    out += [(f"runs/config-{c}", argv(f"run configs/{c}.toml --games 12 {SMALL}")) for c in configs]
    out += [(f"runs/{k}", argv(v)) for k, v in RUNS.items()]
    out += [(f"trace/{k}", argv(v)) for k, v in TRACES.items()]
    out += [(k, argv(v)) for k, v in OTHERS.items()]
    return out + [(f"errors/{k}", argv(v)) for k, v in ERRORS.items() if "{" not in str(v)]


def later_cases() -> list[tuple[str, list[str]]]:
    """The second phase's cases: those on the run folders of the first."""
    out = [(f"later/{k}", argv(v)) for k, v in LATER.items()]
    return out + [(f"errors/{k}", argv(v)) for k, v in ERRORS.items() if "{" in str(v)]


def cross_cases() -> list[tuple[str, list[str]]]:
    """The third phase's cases: those on the base revision's run folders."""
    return [(f"cross/{k}", argv(v)) for k, v in CROSS.items()]


# ---------------------------------------------------------------------------------------------
# checkouts


def git(*args: str, cwd: Path = REPO) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def checkout(rev: str | None, dest: Path) -> str:
    """Unpack ``rev`` (None: the working tree, uncommitted files included) into ``dest``;
    returns a description of what was unpacked."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    if rev is None:
        names = git("ls-files", "-co", "--exclude-standard", "-z").split("\0")
        for name in filter(None, names):
            src = REPO / name
            if src.is_file():
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / name)
        dirty = git("status", "--porcelain")
        return f"working tree at {git('rev-parse', '--short', 'HEAD')}" + (
            " with uncommitted changes" if dirty else ""
        )
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    archive = dest.parent / f"{dest.name}.tar"
    subprocess.run(["git", "archive", "-o", str(archive), sha], cwd=REPO, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    archive.unlink()
    return f"{rev} = {sha[:10]}"


def core_key(root: Path) -> str:
    """The sha256 of what the compiled core is built from."""
    h = hashlib.sha256()
    files = sorted([*(root / "dominosim/engine").glob("*.[ch]"), root / "setup.py"])
    for f in files:
        h.update(f"{f.relative_to(root)}\0".encode() + f.read_bytes() + b"\0")
    return h.hexdigest()


def build(root: Path, cache: Path) -> str:
    """Build the core in ``root``, or copy it from ``cache``; returns what was done."""
    key = core_key(root)
    cached = cache / key
    if not cached.is_dir():
        t0 = time.time()
        subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace", "-q"],
            cwd=root,
            check=True,
            capture_output=True,
        )
        tmp = cache / f"{key}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        for so in (root / "dominosim").rglob("*.so"):
            (tmp / so.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(so, tmp / so.relative_to(root))
        tmp.rename(cached)
        return f"core {key[:12]} built in {time.time() - t0:.0f} s"
    for so in cached.rglob("*.so"):
        shutil.copy2(so, root / so.relative_to(cached))
    return f"core {key[:12]} from the cache"


def link_packages(root: Path, env: dict) -> None:
    """Make the packages pyproject maps from other folders (``dominosim.configs`` is
    configs/, ...) import from the checkout, not from an editable install elsewhere."""
    import tomllib

    table = tomllib.loads((root / "pyproject.toml").read_text())
    mapped = table.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    for package, folder in mapped.items():
        link = root / package.replace(".", "/")
        if not link.exists():
            link.symlink_to(os.path.relpath(root / folder, link.parent))
    names = ["dominosim", *mapped]
    code = f"import importlib\nfor n in {names!r}: print(n, *importlib.import_module(n).__path__)"
    shown = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=root.parent, capture_output=True, text=True
    )
    for line in shown.stdout.splitlines():
        name, path = line.split(" ", 1)
        if not Path(path).resolve().is_relative_to(root.resolve()):
            sys.exit(f"{name} imports from {path}, not from the checkout {root}")
    if shown.returncode:
        sys.exit(f"cannot import the checkout {root}: {shown.stderr}")


# ---------------------------------------------------------------------------------------------
# running one revision


def environment(root: Path, home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOMINOSIM_", "PYTHON"))}
    env.pop("COLUMNS", None)
    return {
        **env,
        "PYTHONPATH": str(root),
        "HOME": str(home),
        "COLUMNS": "100",
        "LINES": "40",
        "PYTHONHASHSEED": "0",
    }


def prepare_work(root: Path, work: Path) -> None:
    """The working folder: the experiment files, an example strategy, the bad inputs."""
    shutil.rmtree(work, ignore_errors=True)
    (work / "bad").mkdir(parents=True)
    shutil.copytree(root / "configs", work / "configs")
    (work / "ex").mkdir()
    shutil.copy2(root / "docs/example_strategy.py", work / "ex")
    for name, text in BAD_FILES.items():
        (work / "bad" / name).write_text(text)
    (work / "bad/latin1.toml").write_bytes(b'variants = ["f\xeaves"]\n')
    (work / "api.py").write_text(API)


def run_case(name: str, argv: list[str], env: dict, work: Path, folders: dict) -> dict:
    """Run one case in ``work``; its outputs go to ``res/NAME`` (a run) there."""
    template = argv
    missing = [a for a in argv if a.startswith("{") and a.strip("{}") not in folders]
    if missing:  # (the case that makes it failed at this revision: its own outputs say how)
        note = f"not run: no run folder {missing[0]}\n".encode()
        return {
            "name": name,
            "argv": argv,
            "template": template,
            "exit": "-",
            "stdout": b"",
            "stderr": note,
            "seconds": 0.0,
        }
    argv = [folders[a.strip("{}")] if a.startswith("{") else a for a in argv]
    short = name.split("/", 1)[1]
    if argv[0] in ("run", "compare", "skill", "tune", "tune-target") and "--out" not in argv:
        if "--resume" not in argv:
            argv = [*argv, "--out", f"res/{short}"]
    cmd = (
        [sys.executable, *argv[1:]]
        if argv[0] == "python"
        else [sys.executable, "-m", "dominosim", *argv]
    )
    t0 = time.time()
    p = subprocess.run(
        cmd,
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=CASE_TIMEOUT,
    )
    return {
        "name": name,
        "argv": argv,
        "template": template,
        "exit": p.returncode,
        "stdout": p.stdout,
        "stderr": p.stderr,
        "seconds": time.time() - t0,
    }


def run_folder(work: Path, short: str) -> str | None:
    found = sorted((work / "res" / short).glob("*/*/manifest.json"))
    return str(found[0].parent.relative_to(work)) if found else None


def keep(dest: Path, name: str, data: bytes, paths: dict) -> None:
    """Write one output, masked where it is text."""
    target = dest / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if not name.endswith(BINARY):
        try:
            data = mask(data.decode("utf-8"), paths).encode("utf-8")
        except UnicodeDecodeError:
            pass
    target.write_bytes(data)


def keep_case(dest: Path, result: dict, paths: dict) -> None:
    name = result["name"]
    keep(dest, f"{name}/argv", (" ".join(result["argv"]) + "\n").encode(), paths)
    keep(dest, f"{name}/exit", f"{result['exit']}\n".encode(), paths)
    keep(dest, f"{name}/stdout", result["stdout"], paths)
    keep(dest, f"{name}/stderr", result["stderr"], paths)


def keep_folder(dest: Path, name: str, folder: Path, paths: dict) -> int:
    """Keep every file of a run folder under ``NAME/folder/``; returns how many."""
    files = sorted(f for f in folder.rglob("*") if f.is_file())
    for f in files:
        keep(
            dest, f"{name}/folder/{mask(str(f.relative_to(folder)), paths)}", f.read_bytes(), paths
        )
    return len(files)


def run_phase(phase, env, work, folders, dest, paths, counts) -> set[str]:
    """Run a phase's cases, keep their outputs, note the run folders they made in
    ``folders``; returns the names of the folders they used."""
    with concurrent.futures.ThreadPoolExecutor(counts["jobs"]) as pool:
        results = list(pool.map(lambda c: run_case(*c, env, work, folders), phase))
    for r in results:
        keep_case(dest, r, paths)
        kind = r["name"].split("/")[0]
        counts[kind] = counts.get(kind, 0) + 1
        short = r["name"].split("/", 1)[1]
        found = run_folder(work, short)
        if found:
            folders[short] = found
    return {a.strip("{}") for r in results for a in r["template"] if a.startswith("{")}


def run_revision(label: str, rev: str | None, out: Path, jobs: int) -> dict:
    """Unpack, build and run every case at one revision; returns counts and times."""
    t0 = time.time()
    root, dest = out / "src" / label, out / label
    work, home = out / "work", out / "home"
    what = checkout(rev, root)
    built = build(root, out / "cache")
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir()
    env = environment(root, home)
    link_packages(root, env)
    prepare_work(root, work)
    shutil.rmtree(dest, ignore_errors=True)
    paths = {
        str(root): "<CHECKOUT>",
        str(root.resolve()): "<CHECKOUT>",
        str(out): "<OUT>",
        str(out.resolve()): "<OUT>",
        str(home): "<HOME>",
    }
    walked = subprocess.run(
        [sys.executable, "-c", help_walk()],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    keep(dest, "help/commands", walked.encode(), paths)
    configs = sorted(p.stem for p in (root / "configs").glob("*.toml"))
    counts = {"jobs": jobs, "folders": 0, "folder files": 0}
    folders: dict[str, str] = {}
    t1 = time.time()
    for n, phase in enumerate((cases(walked.splitlines(), configs), later_cases())):
        used = run_phase(phase, env, work, folders, dest, paths, counts)
        for short, folder in sorted(folders.items()):  # all after the first phase, then used
            if n == 0 or short in used:
                where = "folders" if n == 0 else "folders-later"
                counts["folder files"] += keep_folder(
                    dest, f"{where}/{short}", work / folder, paths
                )
    if label == "base":  # (the base's folders, for the cross phase of both revisions)
        shutil.rmtree(out / "base-res.orig", ignore_errors=True)
        shutil.copytree(work / "res", out / "base-res.orig", symlinks=True)
        (out / "base-folders.json").write_text(json.dumps(folders, indent=1))
    base_folders = json.loads((out / "base-folders.json").read_text())
    shutil.rmtree(out / "base-res", ignore_errors=True)
    shutil.copytree(out / "base-res.orig", out / "base-res", symlinks=True)
    cross = {f"base:{k}": "../base-res/" + v.removeprefix("res/") for k, v in base_folders.items()}
    used = run_phase(cross_cases(), env, work, cross, dest, paths, counts)
    for short in sorted(used):
        counts["folder files"] += keep_folder(
            dest, f"folders-cross/{short.removeprefix('base:')}", work / cross[short], paths
        )
    for api_run in ("api-run", "api-compare"):
        found = run_folder(work, api_run)
        if found:
            folders[api_run] = found
            counts["folder files"] += keep_folder(dest, f"folders/{api_run}", work / found, paths)
    counts["folders"] = len(folders)
    del counts["jobs"]
    info = {
        "label": label,
        "revision": what,
        "build": built,
        "counts": counts,
        "checkout and build seconds": round(t1 - t0),
        "cases seconds": round(time.time() - t1),
    }
    (out / f"{label}.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


# ---------------------------------------------------------------------------------------------
# the comparison


def files_of(root: Path) -> dict[str, Path]:
    return {str(f.relative_to(root)): f for f in sorted(root.rglob("*")) if f.is_file()}


def content(path: Path) -> bytes:
    """A kept output as compared: masked again (the masks may have grown since it was kept)."""
    data = path.read_bytes()
    if path.name.endswith(BINARY):
        return data
    try:
        return mask(data.decode("utf-8"), {}).encode("utf-8")
    except UnicodeDecodeError:
        return data


def difference(a: Path, b: Path, name: str) -> list[str]:
    """The first differing lines of two files, as a unified diff of at most DIFF_LINES."""
    x, y = content(a), content(b)
    if name.endswith(BINARY):
        return [
            f"  binary: {len(x)} bytes sha256 {hashlib.sha256(x).hexdigest()[:16]} -> "
            f"{len(y)} bytes sha256 {hashlib.sha256(y).hexdigest()[:16]}"
        ]
    lines = difflib.unified_diff(
        x.decode(errors="replace").splitlines(),
        y.decode(errors="replace").splitlines(),
        "base/" + name,
        "head/" + name,
        n=1,
        lineterm="",
    )
    out = [f"  {line[:400]}" + (" ..." if len(line) > 400 else "") for line in lines]
    return out[:DIFF_LINES] + (
        [f"  ... ({len(out) - DIFF_LINES} more lines)"] if len(out) > DIFF_LINES else []
    )


def allowed_parts(x: bytes, y: bytes) -> tuple[str, str, list[str]]:
    """Two texts with the ALLOWED_PARTS masked, and the reasons of the parts that differed."""
    a, b = x.decode(errors="replace"), y.decode(errors="replace")
    reasons = []
    for pattern, reason in ALLOWED_PARTS:
        if [m.group(0) for m in pattern.finditer(a)] != [m.group(0) for m in pattern.finditer(b)]:
            reasons.append(reason)
        a, b = pattern.sub(r"\1<ALLOWED>", a), pattern.sub(r"\1<ALLOWED>", b)
    return a, b, list(dict.fromkeys(reasons))


def compare(out: Path, allowed: dict[str, str]) -> tuple[list[str], bool]:
    """Compare DIR/base and DIR/head: the report's lines and whether they are the same but
    for the allowed differences."""
    a, b = files_of(out / "base"), files_of(out / "head")
    same = [n for n in a if n in b and content(a[n]) == content(b[n])]
    changed = [n for n in a if n in b and n not in same]
    only = [("base", n) for n in a if n not in b] + [("head", n) for n in b if n not in a]
    report, unexplained, parts = [], [], {}
    for n in changed:
        x, y = content(a[n]), content(b[n])
        reason = allowed.get(n)
        if reason is None and not n.endswith(BINARY):
            ex, ey, reasons = allowed_parts(x, y)
            if ex == ey:
                parts.setdefault("; ".join(reasons), []).append(n)
                continue
        report.append(f"DIFFERS {n}" + (f"  [allowed: {reason}]" if reason else ""))
        report += difference(a[n], b[n], n)
        unexplained += [n] if reason is None else []
    for side, n in only:
        reason = allowed.get(n)
        unexplained += [n] if reason is None else []
        report.append(f"ONLY IN {side}: {n}" + (f"  [allowed: {reason}]" if reason else ""))
    for reason, names in parts.items():
        report.append(f"DIFFER ONLY IN ALLOWED PARTS ({len(names)} files) [allowed: {reason}]:")
        report += [f"  {n}" for n in names]
    head = (
        f"{len(same)} files identical, {len(changed)} differ "
        f"({sum(map(len, parts.values()))} only in allowed parts), "
        f"{len(only)} on one side; {len(unexplained)} differences not allowed"
    )
    return [head, *report, *(f"NOT ALLOWED: {n}" for n in unexplained)], not unexplained


def read_allowed(path: str | None) -> dict[str, str]:
    allowed = dict(ALLOWED)
    if path:
        for line in Path(path).read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, _, reason = line.partition("\t")
                allowed[name.strip()] = reason.strip() or "listed in " + path
    return allowed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the revision before")
    ap.add_argument("--head", help="the revision after (default: the working tree)")
    ap.add_argument(
        "--out",
        help="the folder of the outputs and the core cache (default: a "
        "folder under the temporary folder)",
    )
    ap.add_argument("--allow", help="a file of allowed differences: PATH<TAB>REASON lines")
    ap.add_argument(
        "--compare-only", action="store_true", help="compare the outputs already in --out again"
    )
    ap.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    args = ap.parse_args()
    out = Path(args.out or Path(tempfile.gettempdir()) / "dominosim-same-outputs").absolute()
    (out / "cache").mkdir(parents=True, exist_ok=True)
    for label, rev in () if args.compare_only else (("base", args.base), ("head", args.head)):
        info = run_revision(label, rev, out, args.jobs)
        print(json.dumps(info), flush=True)
    report, ok = compare(out, read_allowed(args.allow))
    text = "\n".join(report) + "\n"
    (out / "comparison.txt").write_text(text)
    print(text, end="")
    print(f"outputs in {out}; " + ("the same" if ok else "DIFFERENT (see above)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
