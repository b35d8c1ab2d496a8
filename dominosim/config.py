"""The configuration grammar shared by every command: TOML experiment files and command-line flags.

One implementation serves both: a TOML file is read into a plain dict, command-line flags are
laid over that dict, and :func:`build_experiment` validates the result into a frozen
:class:`Experiment`. ``docs/config.md`` describes the grammar; ``docs/errors.md`` the messages.

Grammar in brief:

* variant options: ``--set VARIANT.OPTION=VALUE`` (repeatable), or a bare ``OPTION=VALUE`` when
  exactly one variant of the experiment has that option. ``VALUE`` may be a comma-separated list
  (``--set fives.reserve_k=0,2``): every value becomes its own option group, and several lists
  expand to their cartesian product. In TOML the same is an ``[options.VARIANT]`` table whose
  values may be lists.
* strategies by seat: ``--strategies a,b`` where each entry is ``name:key=value:key2=value2``;
  one entry alone means every seat. In TOML ``seats = [...]`` with the same entries, and
  ``[strategy.NAME]`` tables for parameters shared by every seat playing ``NAME``.

Every mistake raises a :mod:`dominosim.errors` class with a one-line message naming the problem
and the fix.
"""

from __future__ import annotations

import os
import re
import tomllib
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dominosim.base.errors import ConfigError, RulesError, StrategyError, did_you_mean
from dominosim.game import seeding
from dominosim.game.rules import PLAYERS, UNITS, Rules
from dominosim.game.variants import (
    apply_sets,
    check_variant,
    expand_groups,
    format_value,
    make_rules,
    no_control,
    options_of,
    parse_set,
    parse_value,
)
from dominosim.strategy.spec import (
    RANDOM,
    StrategySpec,
    expand_home,
    is_strategy_name,
    parse_scalar,
    parse_strategies,
    parse_strategy,
)
from dominosim.strategy.spec import show as _show

# the default games per work item: about 100,000 hands either way (a chunk's fixed costs, the
# engine's set-up and the chunk's files, then stay a few percent of its time)
CHUNK_GAMES = {"hand": 100_000, "match": 10_000}

MAX_CHUNK_SIZE = 10_000_000  # games per work item
# (\Z, not $: '$' also matches before a final newline, and a name ends up in folder names)
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")


# ---------------------------------------------------------------------------------------------
# values


@dataclass(frozen=True)
class VariantSpec:
    """One variant of an experiment and its option groups.

    ``groups`` holds one entry per combination of option values (the cartesian product of the
    value lists), each a tuple of ``(option, value)`` pairs with typed values. A variant without
    options has one empty group.
    """

    variant: str
    groups: tuple[tuple[tuple[str, object], ...], ...] = ((),)

    def option_dicts(self) -> list[dict[str, object]]:
        """The option groups as dicts, ready for ``make_rules(variant, players, **group)``."""
        return [dict(g) for g in self.groups]


# ---------------------------------------------------------------------------------------------
# the experiment's settings: one table, in the manner of variants.OPTIONS. The file's keys
# (TOP_KEYS), their defaults (DEFAULTS), their checks (build_experiment), the Experiment's
# attributes and to_dict, the flags experiment_from_cli takes, the Python API's keywords and
# their type checks (api.py) and the command line's options (cli.py) are all made from it.


def _seed_in_range(seed: int, where: str) -> None:
    seeding.check_seed(seed, where)


def _chunk_in_memory(size: int, where: str) -> None:
    if size > MAX_CHUNK_SIZE:  # (a chunk is held in memory)
        raise ConfigError(
            f"{where} must be at most {MAX_CHUNK_SIZE} (a chunk is held in memory), not {size}"
        )


@dataclass(frozen=True, kw_only=True)
class Field:
    """One setting of an experiment: how an experiment file, the command line and the Python
    API spell it, its default, its range, its help.

    ``kind`` says how a value is checked: ``int`` (within ``lo``..``hi``, then ``check``),
    ``bool``, ``choice`` (one of ``choices``), ``path``, ``paths``; ``name``, ``variants``,
    ``options``, ``seats`` and ``strategy`` have checks of their own (build_experiment).
    ``into``: the Experiment attribute a key is folded into ("" for an attribute of its own):
    the ``options`` tables into ``variants``' option groups, the ``strategy`` tables into
    ``seats``. ``flag``: click's declarations of the command-line option (its spelling and
    destination; empty for a key only files have), with ``metavar``, ``help`` (the run
    command's; other commands may reword it), ``repeat`` (given several times),
    ``flag_values`` (what the flag takes when it is not the value: ``--records all|none``) and
    ``flag_int`` (click parses it as an integer; else the config does, naming the flag).
    ``keyword``: the Python API's keyword (None: none), ``takes``: what a list keyword takes,
    for its type error. ``session``: how, not what, a run plays (``--resume`` takes it; it
    refuses every other flag)."""

    key: str
    kind: str
    default: object = None
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] = ()
    check: Callable[[Any, str], None] | None = None
    into: str = ""
    flag: tuple[str, ...] = ()
    metavar: str | None = None
    help: str = ""
    repeat: bool = False
    flag_values: tuple[str, ...] = ()
    flag_int: bool = False
    keyword: str | None = None
    takes: str = ""
    session: bool = False

    @property
    def flag_name(self) -> str:
        """The option as messages name it (``--rotate`` of ``--rotate/--no-rotate``)."""
        return self.flag[0].split("/")[0]


#: The phrases of help several options share, each written once (every option's help is its
#: own sentence around them; docs/design.md, "Where a fact lives").
HELP_SET = "Set a RULES §15 option (repeatable)"
HELP_PLAYERS = f"Number of players, {PLAYERS[0]} to {PLAYERS[-1]}"
HELP_UNIT = "What a game is"
HELP_STRATEGY_PATH = "Extra strategy file or folder (repeatable)"

# fmt: off
FIELDS: tuple[Field, ...] = (
    Field(key="name", kind="name", flag=("--name",), keyword="name",
          help="Experiment name; results go to OUT/NAME/."),
    Field(key="variants", kind="variants", flag=("--variant", "variants"), metavar="VARIANT",
          repeat=True, keyword="variants",
          takes="a string (variant names separated by commas) or a list of variant names",
          help="Variant (repeatable or comma-separated); replaces the file's list."),
    Field(key="players", kind="int", default=2, lo=PLAYERS[0], hi=PLAYERS[-1],
          flag=("--players", "-p"), flag_int=True, keyword="players",
          help=f"{HELP_PLAYERS}."),
    Field(key="options", kind="options", default={}, into="variants", flag=("--set", "sets"),
          metavar="VARIANT.OPTION=VALUE[,VALUE...]", repeat=True, keyword="sets",
          takes="a string VARIANT.OPTION=VALUE (one --set) or a list of them",
          help=f"{HELP_SET}; a value list makes option groups."),
    Field(key="seats", kind="seats", default=(RANDOM,), flag=("--strategies", "strategies"),
          metavar="SPEC", keyword="strategies",
          takes="a string such as 'random,greedy:depth=2' or a list of such entries",
          help="Strategies by seat, NAME[:KEY=VALUE...] comma-separated; one for all."),
    Field(key="strategy", kind="strategy", default={}, into="seats"),
    Field(key="games", kind="int", default=1000, lo=1, flag=("--games",), metavar="N",
          keyword="games",
          help="Games per option group, over all seat rotations (default 1000)."),
    Field(key="unit", kind="choice", default="hand", choices=UNITS,
          flag=("--unit",), keyword="unit",
          help=f"{HELP_UNIT} (default hand, or the file's unit). A hand still ends when a "
               "side reaches the match target; --set V.target=none plays hands without one."),
    Field(key="seed", kind="int", default=0, check=_seed_in_range, flag=("--seed",),
          metavar="N", keyword="seed",
          help="Root of every random stream; drawn (and printed) when not given."),
    # (None: CHUNK_GAMES of the unit)
    Field(key="chunk_size", kind="int", lo=1, check=_chunk_in_memory,
          flag=("--chunk-size", "chunk_size"), metavar="N", keyword="chunk_size",
          help="Games per work item (default 100000 hands or 10000 matches; smaller when that "
               "leaves a worker idle)."),
    # (None: one worker per CPU core)
    Field(key="workers", kind="int", lo=1, flag=("--workers",), metavar="N",
          keyword="workers", session=True,
          help="Worker processes (default: all cores); with 1, built-in strategies alone play "
               "in this process (a strategy file always plays in a worker)."),
    Field(key="out", kind="path", default="results", flag=("--out",), metavar="DIR",
          keyword="out", help="Results root folder (default results)."),
    Field(key="rotate", kind="bool", default=True, flag=("--rotate/--no-rotate",),
          keyword="rotate", help="Play every seat rotation of the strategies (default on)."),
    Field(key="records", kind="bool", default=True, flag=("--records",),
          flag_values=("all", "none"), keyword="records",
          help="Write per-hand records (all) or only aggregates (none)."),
    Field(key="plots", kind="bool", default=True, flag=("--plots/--no-plots",),
          keyword="plots",
          help="Draw the figures of plots/ when the run is done (default on; matplotlib takes "
               "about a second, so a small run is several times quicker without)."),
    Field(key="strategy_path", kind="paths", default=(), flag=("--strategy-path",
          "strategy_path"), metavar="PATH", repeat=True, keyword="strategy_path", session=True,
          takes="a path (a string or pathlib.Path) or a list of paths",
          help=f"{HELP_STRATEGY_PATH}."),
)
# fmt: on

#: The table's rows by key.
FIELD = {f.key: f for f in FIELDS}
#: Top-level keys of an experiment file, in the order ``docs/config.md`` lists them.
TOP_KEYS = tuple(FIELD)
DEFAULTS = {f.key: f.default for f in FIELDS if f.default is not None}
_OF_KIND = {kind: [f for f in FIELDS if f.kind == kind] for kind in {f.kind for f in FIELDS}}
#: The table's rows by their Python API keyword (experiment_from_cli's flags).
KEYWORDS = {f.keyword: f for f in FIELDS if f.keyword}


@dataclass(frozen=True)
class Experiment:
    """Resolved settings of one experiment (TOML file, command-line flags, or both): one
    attribute per row of :data:`FIELDS` that is not folded into another (``to_dict`` gives
    them in that order; ``tests/test_config.py`` holds the two together), the rules they
    give and where they came from. Made by :func:`build_experiment` alone.

    Attributes:
        name: experiment name, also the results folder name ``<out>/<name>/``.
        variants: the variants with their option groups.
        players: seats at the table, 2..4.
        seats: one :class:`StrategySpec` per seat (length ``players``).
        games: number of games per (rules, seating); a game is a hand or a match (``unit``).
        unit: ``"hand"`` or ``"match"``.
        seed: the root of every random stream (docs/design.md, "Randomness").
        chunk_size: games per work item.
        workers: worker processes; ``None`` means one per CPU core.
        out: the results root folder.
        rotate: play every seat rotation of the strategies (duplicate deals).
        records: write per-hand records besides the integer aggregates.
        plots: draw the figures of plots/ when the run is done (matplotlib: about a second).
        strategy_path: extra files or folders searched for strategies.
        rule_sets: one Rules per (variant x option group), in order, without duplicates
            (made once, when the settings are checked); :attr:`rules` lists them.
        source: where the settings came from (a file path, or ``"command line"``).
    """

    name: str
    variants: tuple[VariantSpec, ...]
    players: int
    seats: tuple[StrategySpec, ...]
    games: int
    unit: str
    seed: int
    chunk_size: int
    workers: int | None
    out: str
    rotate: bool
    records: bool
    plots: bool
    strategy_path: tuple[str, ...]
    #: the rules of the option groups (see :attr:`rules`), made once by build_experiment
    rule_sets: tuple[Rules, ...] = field(compare=False, repr=False)
    source: str = field(default="command line", compare=False)

    @property
    def rules(self) -> list[Rules]:
        return list(self.rule_sets)

    @property
    def strategy_names(self) -> tuple[str, ...]:
        """The distinct strategy names, in seat order."""
        return tuple(dict.fromkeys(s.name for s in self.seats))

    def to_dict(self) -> dict:
        """A JSON-ready dict of the resolved settings (for manifests), in the table's order."""
        return {f.key: _json_value(f, getattr(self, f.key)) for f in FIELDS if not f.into}


def _json_value(f: Field, value: object) -> object:
    if f.kind == "variants":
        return [{"variant": v.variant, "groups": [dict(g) for g in v.groups]} for v in value]
    if f.kind == "seats":
        return [s.label for s in value]
    return list(value) if f.kind == "paths" else value


def resolve_rules(experiment: Experiment) -> list[Rules]:
    """One Rules per (variant × option-value combination), in order, without duplicates."""
    return experiment.rules


def rules_from_cli(variant: str, players: int | str, sets: Sequence[str] = ()) -> Rules:
    """The one Rules of ``--variant V --players N --set ...`` (for commands such as ``trace``).

    Same grammar as experiments; a value list that expands to several option groups is a
    ConfigError, since such a command plays one rule set.
    """
    e = experiment_from_cli(variants=[variant], players=players, sets=sets)
    rules = resolve_rules(e)
    if len(rules) != 1:
        labels = ", ".join(r.label for r in rules)
        raise ConfigError(
            f"--set gives {len(rules)} rule sets ({labels}); this command plays one, "
            f"so give one value per option"
        )
    return rules[0]


# ---------------------------------------------------------------------------------------------
# loading


def shipped_configs() -> dict[str, Path]:
    """The example experiment files the package ships (a clone's configs/), by name (the
    file's name without .toml), in name order."""
    from importlib.resources import files

    found = [Path(str(x)) for x in files("dominosim.configs").iterdir()]
    return {p.stem: p for p in sorted(found) if p.suffix == ".toml" and p.is_file()}


def describe_config(path: Path) -> str:
    """An experiment file's description: its first comment line."""
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
        if line.strip():
            break
    return "-"


def resolve_config(path: str | Path) -> Path:
    """The experiment file ``path`` names: the file itself where it exists, else the shipped
    example of that name (``classic-2p`` or ``classic-2p.toml``, no folder in it)."""
    p = Path(path)
    if p.exists() or len(p.parts) != 1:
        return p
    return shipped_configs().get(p.name.removesuffix(".toml"), p)


#: The most bytes an experiment file may have, and the deepest its tables and arrays may nest
#: (docs/config.md: a few kilobytes, three levels; anything past these is not an experiment)
CONFIG_MAX = 1 << 20
CONFIG_DEPTH = 32


def read_toml(path: str | Path) -> dict:
    """Read a TOML file (or a shipped example by name: resolve_config); a missing, unreadable
    or invalid file is a ConfigError. Only a regular file is read (a link is followed to
    one: a FIFO, a device, a folder is refused without being opened for reading), of at
    most :data:`CONFIG_MAX` bytes, nesting at most :data:`CONFIG_DEPTH` levels."""
    from dominosim.base import bounded

    p = resolve_config(path)
    if not p.exists():
        bare = len(Path(path).parts) == 1  # (a bare name may be a shipped example's)
        fix = ", or name a shipped example (dominosim configs lists them)" if bare else ""
        raise ConfigError(f"experiment file not found: {p}; check the path{fix}")
    if p.is_dir():
        raise ConfigError(f"experiment file is a folder: {p}; give a .toml file")
    try:
        data = bounded.read(os.path.realpath(p), CONFIG_MAX)
        text = data.decode("utf-8-sig")  # (a byte order mark is allowed)
    except UnicodeDecodeError:
        raise ConfigError(f"not valid TOML: {p}: not UTF-8 text; save the file as UTF-8") from None
    except (bounded.NotRegular, bounded.TooLarge) as e:
        raise ConfigError(f"experiment file {p} {e}; give a .toml file") from None
    except OSError as e:
        raise ConfigError(f"cannot read {p}: {e.strerror or e}; check its permissions") from None
    try:
        out = tomllib.loads(text)
    except RecursionError:
        out = None
    except tomllib.TOMLDecodeError as e:
        raise _toml_error(p, text, str(e)) from None
    if out is None or _depth(out) > CONFIG_DEPTH:
        raise ConfigError(
            f"experiment file {p} nests tables or arrays more than {CONFIG_DEPTH} deep; an "
            "experiment file needs a few levels at most (docs/config.md)"
        )
    return out


def _depth(value: object) -> int:
    """How deep tables and arrays nest in ``value`` (walked without recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, dict | list):
            deepest = max(deepest, d)
            if d <= CONFIG_DEPTH:
                todo.extend((y, d + 1) for y in (x.values() if isinstance(x, dict) else x))
    return deepest


def _toml_error(p: Path, text: str, msg: str) -> ConfigError:
    """The one line of a TOML syntax error, at its line."""
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)\s*$", msg)
    if m:
        line, msg = m.group(1), msg[: m.start()]
    elif "end of document" in msg:
        line = str(text.count("\n") + 1)
        msg = re.sub(r"\s*\(at end of document\)\s*$", "", msg)
    else:
        line = "?"
    return ConfigError(f"not valid TOML: {p}:{line}: {msg.strip()}; fix the file at that line")


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate an experiment file."""
    return build_experiment(read_toml(path), source=str(path))


def experiment_from_cli(
    config: str | Path | None = None,
    *,
    settings: Mapping | None = None,
    known_strategies: Iterable[str] | None = None,
    option_values: Mapping[str, Mapping[str, Sequence[object]]] | None = None,
    **flags: Any,
) -> Experiment:
    """Build an Experiment from command-line flags, optionally on top of an experiment file.

    ``flags`` are the keywords of :data:`FIELDS` (``variants``, ``players``, ``sets``,
    ``strategies``, ``games``, ``unit``, ``seed``, ``chunk_size``, ``workers``, ``out``,
    ``rotate``, ``records``, ``plots``, ``strategy_path``, ``name``); a flag left at ``None``
    keeps the file's value (or the default). ``variants`` replaces the file's variant list;
    ``sets`` are applied after the file's ``[options.*]`` tables and win over them. Integer
    flags may be given as strings (``"42"``). ``settings``: the file ``config`` already read
    (:func:`read_toml`), so that it is read once. ``known_strategies``, when given, checks
    every seat's strategy name against it (StrategyError with a suggestion).
    ``option_values`` (``{variant: {option: [values]}}``, values as ``--set`` parses them) is
    applied after ``sets``: a command that sweeps an option gives its values directly.
    """
    if settings is None:
        settings = read_toml(config) if config is not None else {}
    raw = dict(settings)
    source = str(config) if config is not None else "command line"
    unknown = next((k for k in flags if k not in KEYWORDS), None)
    if unknown is not None:
        raise TypeError(f"experiment_from_cli() got an unexpected keyword argument '{unknown}'")
    for f in FIELDS:
        value = flags.get(f.keyword)
        if value is None or f.kind == "options" or (f.kind == "paths" and not value):
            continue
        raw[f.key] = _flag_value(f, value)
    if flags.get("name") is None and config is None and "variants" in raw:
        raw.setdefault("name", "-".join(_variant_slug(v) for v in raw["variants"]))
    return build_experiment(
        raw,
        source=source,
        sets=flags.get("sets") or (),
        flags=True,
        known_strategies=known_strategies,
        seats_overridden=flags.get("strategies") is not None,
        option_values=option_values,
    )


def _flag_value(f: Field, value: Any) -> object:
    """A flag's value as a file would give it."""
    if f.kind == "variants":
        vs = value.split(",") if isinstance(value, str) else list(value)
        vs = [x.strip() for v in vs for x in v.split(",")]
        if not vs or any(not v for v in vs):
            raise ConfigError("--variant: empty variant name; write e.g. --variant fives")
        return vs
    if f.kind == "seats":
        return [s.label for s in parse_strategies(value)]
    if f.kind == "paths":
        return list(value)
    if f.kind == "int" and isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return value  # the type check names the flag
    return value


def build_experiment(
    raw: Mapping,
    *,
    source: str = "command line",
    sets: Sequence[str] = (),
    flags: bool = False,
    known_strategies: Iterable[str] | None = None,
    seats_overridden: bool = False,
    option_values: Mapping[str, Mapping[str, Sequence[object]]] | None = None,
) -> Experiment:
    """Validate a settings dict (the shape of an experiment file) into an Experiment.

    ``seats_overridden`` (set when ``--strategies`` replaces a file's seats) lets
    ``[strategy.NAME]`` tables name strategies that no seat plays. ``option_values``: see
    :func:`experiment_from_cli`.
    """
    w = _Where(source, flags)
    unknown = [k for k in raw if k not in TOP_KEYS]
    if unknown:
        k = unknown[0]
        raise ConfigError(
            f"unknown key '{k}' in {source}{did_you_mean(k, TOP_KEYS)}; "
            f"allowed keys: {', '.join(TOP_KEYS)}"
        )
    settings = _run_settings(raw, w)
    players = settings["players"]
    specs, rules = _variant_specs(raw, players, w, source, sets, option_values)
    seats = _seats(raw, players, w, known_strategies, strict_tables=not seats_overridden)
    name = _experiment_name(raw, w, source)
    return Experiment(
        name=name,
        variants=tuple(specs),
        seats=seats,
        rule_sets=tuple(rules),
        source=source,
        **settings,
    )


def _run_settings(raw: Mapping, w: _Where) -> dict:
    """The keys of a run's size and shape, each checked by its kind (the rows of
    :data:`FIELDS` with a plain kind), kind by kind in :data:`_CHECKS`' order, each kind's in
    the table's: players, games, seed, chunk size, workers, unit, output folder, rotation,
    records, plots, strategy paths."""
    out = {f.key: check(raw, f, w) for kind, check in _CHECKS.items() for f in _OF_KIND[kind]}
    if out["chunk_size"] is None:  # about 100,000 hands of work per chunk either way
        out["chunk_size"] = CHUNK_GAMES[out["unit"]]
    return out


def _variant_specs(
    raw: Mapping, players: int, w: _Where, source: str, sets: Sequence[str], option_values
) -> tuple[list[VariantSpec], list[Rules]]:
    """The variants and their option groups: the file's ``variants`` and ``options`` tables,
    then ``--set``, then the values given by the caller, each layer over the one before; and
    the rules of every group, made once (so a bad value fails here), in order, without
    duplicates."""
    if "variants" not in raw:
        raise ConfigError(
            f'no variants in {source}; add e.g. variants = ["fives"] or --variant fives'
        )
    entries = _variant_entries(raw["variants"], w)
    names = [v for v, _ in entries]
    table_opts = _options_tables(raw.get("options", {}), names, w)
    cli_opts = apply_sets(sets, names)
    given = {
        v: {o: list(xs) for o, xs in opts.items()} for v, opts in (option_values or {}).items()
    }
    for variant, opts in given.items():
        if variant not in names:
            raise ConfigError(f"variant '{variant}' is not in this experiment ({', '.join(names)})")
        for option in opts:
            if option not in options_of(variant):
                raise RulesError(f"unknown option '{option}' for {variant}")
    specs, rules = [], {}
    for variant, own in entries:
        merged: dict[str, list[object]] = {}
        for layer in (
            table_opts.get(variant, {}),
            own,
            cli_opts.get(variant, {}),
            given.get(variant, {}),
        ):
            merged.update(layer)
        groups = []
        for g in expand_groups(merged):
            try:
                rules[make_rules(variant, players, **g)] = None
            except RulesError as e:
                if source == "command line":
                    raise
                raise RulesError(f"{e.message} (in {source})") from None
            groups.append(tuple(g.items()))
        specs.append(VariantSpec(variant, tuple(dict.fromkeys(groups)) or ((),)))
    return specs, list(rules)


def _experiment_name(raw: Mapping, w: _Where, source: str) -> str:
    """The run's name: the ``name`` key, else the file's name made folder-safe
    ('my runs.toml' -> my-runs), else ``experiment``."""
    name = raw.get("name")
    if name is None:
        name = "experiment"
        if source != "command line":
            stem = unicodedata.normalize("NFKD", Path(source).stem)
            stem = stem.encode("ascii", "ignore").decode("ascii")  # über -> uber
            name = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.") or name
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ConfigError(
            f"{w('name')} must be a folder-safe name (letters, digits, '.', '_', '-'), "
            f"not {_show(name)}"
        )
    return name


# ---------------------------------------------------------------------------------------------
# helpers


class _Where:
    """Names a setting in messages: ``--games`` for flags, ``key 'games' in exp.toml`` for files."""

    def __init__(self, source: str, flags: bool):
        self.source = source
        self.flags = flags and source == "command line"

    def __call__(self, key: str) -> str:
        if self.flags:
            return FIELD[key].flag_name
        return f"'{key}' in {self.source}"


def _fmt(v) -> str:
    return format_value(v)


def _frozen(table: Mapping) -> dict:
    """Parameters with TOML lists made into tuples, so a StrategySpec hashes."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}


def _variant_slug(v) -> str:
    if isinstance(v, Mapping):
        return str(v.get("variant", "variant"))
    return str(v)


def _int(raw: Mapping, f: Field, w: _Where) -> int | None:
    """An integer row: within ``lo``..``hi`` (None, where the row's default is None: not
    given), then the row's own ``check``."""
    value = raw.get(f.key, f.default)
    if value is None and f.default is None:
        return None
    expected = "an integer"
    if f.lo is not None and f.hi is not None:
        expected = f"an integer from {f.lo} to {f.hi}"
    elif f.lo is not None:
        expected = f"an integer >= {f.lo}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{w(f.key)} must be {expected}, not {_show(value)}")
    if (f.lo is not None and value < f.lo) or (f.hi is not None and value > f.hi):
        raise ConfigError(f"{w(f.key)} must be {expected}, not {value}")
    if f.check is not None:
        f.check(value, w(f.key))
    return value


def _choice(raw: Mapping, f: Field, w: _Where) -> str:
    value = _str(raw, f.key, w)
    if value not in f.choices:
        *most, last = (f"'{c}'" for c in f.choices)
        raise ConfigError(
            f"{w(f.key)} must be {', '.join(most)} or {last}, not {_show(value)}"
            f"{did_you_mean(value, f.choices)}"
        )
    return value


def _path(raw: Mapping, f: Field, w: _Where) -> str:
    path = expand_home(_str(raw, f.key, w), w(f.key))
    no_control(path, w(f.key))
    return path


def _paths(raw: Mapping, f: Field, w: _Where) -> tuple[str, ...]:
    return tuple(expand_home(p, w(f.key)) for p in _str_list(raw, f.key, w))


def _str(raw, key, w):
    value = raw.get(key, FIELD[key].default)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{w(key)} must be a non-empty string, not {_show(value)}")
    return value


def _bool(raw, f: Field, w) -> bool:
    key = f.key
    value = raw.get(key, f.default)
    if not isinstance(value, bool):
        raise ConfigError(f"{w(key)} must be true or false, not {_show(value)}")
    return value


def _str_list(raw, key, w) -> tuple[str, ...]:
    value = raw.get(key, FIELD[key].default)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(x, str) and x for x in value):
        raise ConfigError(f"{w(key)} must be a string or a list of strings, not {_show(value)}")
    return tuple(value)


#: The check of each plain kind of :data:`FIELDS` (the others have checks of their own), in
#: the order the kinds are checked (the first mistake of a file with several is named).
_CHECKS: dict[str, Callable[[Mapping, Field, _Where], Any]] = {
    "int": _int,
    "choice": _choice,
    "path": _path,
    "bool": _bool,
    "paths": _paths,
}


def _values(variant: str, option: str, value, where: str) -> list[object]:
    """Typed value list of one option (a TOML list or a scalar)."""
    opts = options_of(variant)
    if option not in opts:
        raise RulesError(
            f"unknown option '{option}' for {variant} ({where}){did_you_mean(option, opts)}; "
            f"its options are: {', '.join(opts) or 'none'}"
        )
    items = value if isinstance(value, list) else [value]
    if not items:
        raise ConfigError(f"{variant}.{option} ({where}) is an empty list; give at least one value")
    for x in items:
        if isinstance(x, list | dict):
            raise ConfigError(
                f"{variant}.{option} ({where}) must be a value or a list of values, not {_show(x)}"
            )
    return [parse_value(opts[option], x) for x in items]


def _variant_entries(value, w) -> list[tuple[str, dict[str, list[object]]]]:
    """``variants`` as (slug, {option: [values]}) pairs; entries are strings or tables."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not value:
        raise ConfigError(
            f"{w('variants')} must be a non-empty list of variant names or tables, "
            f"not {_show(value)}"
        )
    entries = []
    for item in value:
        if isinstance(item, str):
            entries.append((check_variant(item.strip()), {}))
        elif isinstance(item, Mapping):
            if "variant" not in item:
                raise ConfigError(
                    f"a table in {w('variants')} needs a 'variant' key, e.g. "
                    f'{{ variant = "fives", reserve_k = [0, 2] }}'
                )
            slug = item["variant"]
            if not isinstance(slug, str):
                raise ConfigError(
                    f"'variant' in {w('variants')} must be a string, not {_show(slug)}"
                )
            check_variant(slug)
            own = {k: _values(slug, k, v, w("variants")) for k, v in item.items() if k != "variant"}
            entries.append((slug, own))
        else:
            raise ConfigError(
                f"{w('variants')} entries must be variant names or tables, not {_show(item)}"
            )
    return entries


def _options_tables(value, names, w) -> dict[str, dict[str, list[object]]]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{w('options')} must be a table of [options.VARIANT] tables")
    out = {}
    for variant, table in value.items():
        check_variant(variant)
        if variant not in names:
            raise ConfigError(
                f"[options.{variant}] in {w.source} but {variant} is not in variants "
                f"({', '.join(dict.fromkeys(names))}); add it to variants or remove the table"
            )
        if not isinstance(table, Mapping):
            raise ConfigError(
                f"options.{variant} in {w.source} must be a table, not {_show(table)}; "
                f"write [options.{variant}] with option = value lines"
            )
        where = f"[options.{variant}] in {w.source}"
        out[variant] = {k: _values(variant, k, v, where) for k, v in table.items()}
    return out


def _seats(raw, players, w, known_strategies, strict_tables=True) -> tuple[StrategySpec, ...]:
    seats_raw = raw.get("seats", FIELD["seats"].default)
    if isinstance(seats_raw, str) and "," in seats_raw:  # (the --strategies grammar, in a file)
        listed = ", ".join(f'"{x.strip()}"' for x in seats_raw.split(","))
        raise ConfigError(
            f"{w('seats')} is one string {_show(seats_raw)}; write a list, one entry per "
            f"seat: seats = [{listed}]"
        )
    if isinstance(seats_raw, str):
        seats_raw = [seats_raw]
    if not isinstance(seats_raw, list | tuple) or not seats_raw:
        raise ConfigError(
            f"{w('seats')} must be a non-empty list of strategy entries, not {_show(seats_raw)}"
        )
    specs = parse_strategies(list(seats_raw), where=w("seats"))
    if players % len(specs) == 0:
        specs = specs * (players // len(specs))  # a,b with 4 players: a,b,a,b (teams 0-2, 1-3)
    if len(specs) != players:
        raise ConfigError(
            f"{w('seats')} names {len(specs)} strategies for {players} players; "
            f"give one per seat, or one name for every seat"
        )
    specs = _with_tables(raw, specs, w, strict_tables)
    for s in specs:  # (a label is written into reports, manifests and messages)
        if not s.label.isprintable():
            raise ConfigError(
                f"{w('seats')}: the strategy entry {s.label!r} holds a control character "
                "(a newline, a tab, ...); write its parameters on one line"
            )
    if known_strategies is not None:
        known = list(known_strategies)
        for s in specs:
            if s.name not in known:
                raise StrategyError(
                    f"unknown strategy '{s.name}'{did_you_mean(s.name, known)}; "
                    f"known strategies: {', '.join(sorted(known))}"
                )
    return tuple(specs)


def _with_tables(raw, specs: list, w, strict_tables: bool) -> list:
    """The seats' specs with the parameters of the file's ``[strategy.NAME]`` tables (a
    seat's own parameters win), each table checked."""
    tables = raw.get("strategy", {})
    if not isinstance(tables, Mapping):
        raise ConfigError(
            f"'strategy' in {w.source} must be [strategy.NAME] tables, not {_show(tables)}"
        )
    used = [s.name for s in specs]
    for sname, table in tables.items():
        if sname not in used and strict_tables:
            raise ConfigError(
                f"[strategy.{sname}] in {w.source} but no seat plays {sname}"
                f"{did_you_mean(sname, used)}; seats play: {', '.join(dict.fromkeys(used))}"
            )
        if not isinstance(table, Mapping):
            raise ConfigError(
                f"strategy.{sname} in {w.source} must be a table of parameters, not {_show(table)}"
            )
        for k, v in table.items():
            if isinstance(v, dict):
                raise ConfigError(
                    f"[strategy.{sname}] {k} in {w.source} must be a value, not a table"
                )
    if tables:
        specs = [
            StrategySpec(
                s.name,
                tuple(sorted({**_frozen(tables.get(s.name, {})), **s.kwargs}.items())),
            )
            for s in specs
        ]
    return specs


__all__ = [
    "DEFAULTS",
    "TOP_KEYS",
    "UNITS",
    "Experiment",
    "StrategySpec",
    "VariantSpec",
    "apply_sets",
    "build_experiment",
    "expand_groups",
    "expand_home",
    "is_strategy_name",
    "experiment_from_cli",
    "load_experiment",
    "parse_scalar",
    "parse_set",
    "parse_strategies",
    "parse_strategy",
    "read_toml",
    "resolve_rules",
    "rules_from_cli",
]
