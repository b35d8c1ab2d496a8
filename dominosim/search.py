"""Search as building blocks for a strategy of your own: :func:`action_values`.

::

    from dominosim import action_values

    def choose_one(self, obs, legal, key):
        if obs.counts[obs.seat] > 3:
            return my_heuristic(obs, legal)
        values = action_values(obs, key, "pimc:samples=32", legal=legal)
        return max(values, key=lambda av: av[1])[0]   # (ties: the first in canonical order)

Every legal action's value at a decision, by one of three methods (docs/strategies.md,
"Search as building blocks"): ``solver`` (the exact perfect-information value on a deal you
give), ``mc`` (``mc``'s heuristic playouts on sampled deals) and ``pimc`` (the solver on
sampled deals). The searches are the built-in strategies' own (``strategies/mc.py``,
``strategies/pimc.py``), with their options, so a value is what that strategy decides by; the
randomness is the decision's key, so the same (Observation, legal actions, key, method) always
gives the same values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from dominosim.base.budget import SOLVER_BUDGET
from dominosim.base.errors import ConfigError, StrategyError
from dominosim.game import actions, tiles
from dominosim.game.observe import Observation
from dominosim.strategy.spec import parse_strategy

METHODS = ("solver", "mc", "pimc")


class NoDealError(StrategyError):
    """``mc`` or ``pimc`` found no hidden deal consistent with the Observation: their sampler
    deals each sample a few times and keeps the deals that respect every revealed void, and
    where the voids leave few deals every try can fail (``mc`` and ``pimc`` themselves then
    play like ``greedy``). A strategy catches it to decide otherwise."""


#: The options of the ``solver`` method (the others take their strategy's parameters).
SOLVER_OPTIONS = {"budget": SOLVER_BUDGET}
MAX_SOLVER_BUDGET = 50_000_000


def action_values(
    obs: Observation,
    key: int,
    method: str = "pimc",
    *,
    legal: Sequence[int],
    deal: tuple | None = None,
    options: Mapping | None = None,
    **more: object,
) -> tuple[tuple[int, float], ...]:
    """Every legal action's value at the decision of ``obs``, as ``((action, value), ...)``
    in the order of ``legal`` (canonical order), higher better for the seat's side.

    Args:
        obs: the decision's :class:`~dominosim.observe.Observation` (``choose_one``'s ``obs``).
        key: the decision's key (``choose_one``'s ``key``): all the randomness.
        method: ``"solver"``, ``"mc"`` or ``"pimc"``, optionally with options written as in
            ``--strategies`` (``"pimc:samples=32"``, ``"mc:samples=128:policy=greedy"``).
        legal: the decision's legal actions (``choose_one``'s ``legal``).
        deal: ``solver`` only, and required there: the hidden state, ``(hands, stock)``:
            ``hands[s]`` the tiles seat ``s`` holds (its own hand as ``obs.hand``), ``stock``
            the stock's tiles in draw order (the next drawn first), consistent with ``obs``.
        options, **more: more options (a dict, keywords): ``mc``'s and ``pimc``'s
            parameters as their strategies take them, ``budget`` for ``solver``.

    Values, in hand points of the seat's side minus the other sides' (negated where lower is
    better, as the searches count them): ``solver``, the exact value of each action on
    ``deal`` under perfect play (with three or more sides the paranoid bound); ``mc``, the
    mean of its playouts; ``pimc``, the mean solved value over its sampled deals that were
    solved (where fewer than ``min_solved`` were, ``mc``'s playouts on as many deals, as
    ``pimc`` falls back). Raises :class:`~dominosim.errors.StrategyError` (one line, exit code
    4 where it ends a command) for an unknown method or option, a bad value, or a deal that
    does not fit ``obs``; :class:`NoDealError` (one) where ``mc``'s sampler finds no deal.
    """
    name, opts = _method(method, options, more)
    if not isinstance(obs, Observation):
        raise StrategyError(
            "action_values: obs must be the decision's Observation (choose_one's obs; a batch "
            f"strategy: obs.row(i)), not {type(obs).__name__}"
        )
    if isinstance(key, bool) or not isinstance(key, int | np.integer):
        raise StrategyError(
            f"action_values: key must be the decision's key (an integer), not {key!r}"
        )
    legal = _legal(legal)
    _check_legal(obs, legal)
    if name == "solver":
        values = _solver_values(obs, legal, deal, opts)
    else:
        if deal is not None:
            raise StrategyError(
                f"action_values: deal= is for method 'solver'; {name} samples the hidden "
                "deals itself: drop deal="
            )
        values = _strategy_values(name, opts, obs, legal, int(key))
    return tuple((a, float(v)) for a, v in zip(legal, values, strict=True))


def _method(method: object, options: Mapping | None, more: dict) -> tuple[str, dict]:
    """The method's name and its options (those written in ``method``, ``options`` and
    ``more`` together; one given twice is an error)."""
    if not isinstance(method, str):
        raise StrategyError(
            f"action_values: method must be one of {', '.join(METHODS)} (a string), not {method!r}"
        )
    try:
        spec = parse_strategy(method, where="action_values: method")
    except ConfigError as err:  # (a strategy's call: its error)
        raise StrategyError(err.message) from None
    if spec.name not in METHODS:
        raise StrategyError(
            f"action_values: unknown method {spec.name!r}; use one of {', '.join(METHODS)}"
        )
    if options is not None and not isinstance(options, Mapping):
        raise StrategyError(
            f"action_values: options must be a dict such as {{'samples': 32}}, not {options!r}"
        )
    opts = dict(spec.params)
    for k, v in [*(options or {}).items(), *more.items()]:
        if not isinstance(k, str):
            raise StrategyError(f"action_values: an option's name must be a string, not {k!r}")
        if k in opts:
            raise StrategyError(f"action_values: option {k!r} given twice; keep one")
        opts[k] = v
    return spec.name, opts


def _legal(legal: object) -> list[int]:
    ok = isinstance(legal, Sequence | np.ndarray) and not isinstance(legal, str | bytes)
    items = list(legal) if ok else []
    if not items or not all(
        isinstance(a, int | np.integer) and not isinstance(a, bool) and 0 <= a <= actions.STOP
        for a in items
    ):
        raise StrategyError(
            "action_values: legal must be the decision's legal actions (choose_one's legal, "
            f"a non-empty list of action codes), not {legal!r}"
        )
    return [int(a) for a in items]


def _check_legal(obs: Observation, legal: list[int]) -> None:
    """The caller's ``legal`` refused where it cannot be this decision's legal actions: an
    action twice, a tile the seat does not hold, a position that is not open or that the tile
    does not fit (never an error of the playouts' strategies: issue 46)."""
    ends = dict(obs.positions) or {"L": None}  # (an empty table: the lead, on L)
    blind = obs.rules.draw_mode == "blind"  # (a tile decided face down is not in obs.hand)
    for i, a in enumerate(legal):
        why = "it is there twice" if a in legal[:i] else None
        if why is None and actions.is_placement(a):
            t, pos, v = actions.tile_of(a), actions.pos_of(a), ends.get(actions.pos_of(a), -1)
            if not blind and t not in obs.hand:
                why = f"seat {obs.seat} does not hold {tiles.name(t)} (obs.hand)"
            elif v == -1:
                why = f"position {pos} is not open (obs.positions: {sorted(ends)})"
            elif v is not None and not tiles.fits(t, v):
                why = f"{tiles.name(t)} does not fit position {pos}, which shows {v}"
        if why is not None:
            raise StrategyError(
                f"action_values: legal holds {actions.describe(a)}, not a legal action at this "
                f"decision: {why}; pass choose_one's legal"
            )


def _strategy_values(name, opts, obs, legal, key) -> list[float]:
    """``mc``'s or ``pimc``'s values: the strategy built with ``opts`` (its own checks)."""
    from dominosim.strategy import get

    if name == "pimc" and "objective" in opts:
        raise StrategyError(
            "action_values: pimc's objective is how pimc chooses from the values; "
            "action_values gives the mean solved values: drop objective"
        )
    strategy = get(name, **opts)
    try:
        values = strategy.values(obs, legal, key)
    except RuntimeError as e:  # (pimc's solver lists the decision's own legal actions)
        if "legal actions differ" not in str(e):
            raise
        raise StrategyError(
            "action_values: legal is not this decision's legal actions (some are missing: "
            "the solver finds others); pass choose_one's legal"
        ) from None
    if values is None:
        raise NoDealError(
            f"action_values: {name} found no hidden deal that fits the Observation (its "
            "sampler's tries ran out: the revealed voids leave few deals); catch "
            "dominosim.search.NoDealError and decide otherwise, or pass more samples"
        )
    return values


def _solver_values(obs, legal, deal, opts) -> list[float]:
    """Each action's exact value on ``deal`` (the core's solver, ``solver.solve_actions``)."""
    from dominosim.engine.solver import solve_actions
    from dominosim.strategies.mc import positions_of

    budget = _solver_budget(opts)
    packed, stock = _deal_arrays(obs, deal)
    phase = _pending_phase(obs, legal)
    plan = positions_of(obs, legal, 0, packed, stock, phase)
    st, bst = plan.engine(obs.rules, [None] * obs.rules.players).slot_records()
    av = solve_actions(obs.rules, st, bst, budget=budget)
    count = int(av.count[0])
    if count < 0:
        raise StrategyError(
            f"action_values: the solver ran out of its budget ({budget} nodes) on this deal; "
            "pass a larger budget= (or value the decision later in the hand)"
        )
    acts = [int(a) for a in av.action[0, :count]]
    if sorted(acts) != sorted(legal):
        raise StrategyError(
            "action_values: legal is not this decision's legal actions on the given deal "
            f"(the rules give {', '.join(actions.describe(a) for a in acts) or 'none'}); "
            "pass choose_one's legal"
        )
    value = dict(zip(acts, av.value[0, :count].tolist(), strict=True))
    return [value[a] for a in legal]


def _solver_budget(opts: dict) -> int:
    unknown = [k for k in opts if k not in SOLVER_OPTIONS]
    if unknown:
        raise StrategyError(
            f"action_values: unknown option {unknown[0]!r} for method 'solver'; "
            f"it takes {', '.join(SOLVER_OPTIONS)}"
        )
    budget = opts.get("budget", SOLVER_OPTIONS["budget"])
    if (
        isinstance(budget, bool)
        or not isinstance(budget, int)
        or not 1 <= budget <= MAX_SOLVER_BUDGET
    ):
        raise StrategyError(
            f"action_values: budget must be an integer from 1 to {MAX_SOLVER_BUDGET}, "
            f"not {budget!r}"
        )
    return budget


def _pending_phase(obs, legal) -> int:
    from dominosim.engine.batch import pending_state

    return pending_state(obs.rules, obs.phase, legal, False, None)["phase"]


def _deal_arrays(obs, deal) -> tuple[np.ndarray, np.ndarray]:
    """``deal`` as one row of packed hands and stock (mc's sample_arrays' layout), after
    checking that it fits ``obs``: every tile once, the seat's own hand, the counts, the
    stock's size and the revealed voids."""
    from dominosim.engine.tables import PACK

    if obs.row is not None:
        raise StrategyError(
            "action_values: method 'solver' takes a deal of hands and stock, which blind's "
            "rows are not; use method 'mc' or 'pimc' in blind"
        )
    if deal is None:
        raise StrategyError(
            "action_values: method 'solver' needs deal=(hands, stock), the hidden state to "
            "solve (use 'mc' or 'pimc' to sample it)"
        )
    hands, stock = _deal_parts(obs, deal)
    P = obs.rules.players
    if sorted(hands[obs.seat]) != sorted(obs.hand):
        raise StrategyError(
            f"action_values: deal's hand of seat {obs.seat} (the seat to move) must be obs.hand"
        )
    for s in range(P):
        if len(hands[s]) != obs.counts[s]:
            raise StrategyError(
                f"action_values: deal gives seat {s} {len(hands[s])} tiles; it holds "
                f"{obs.counts[s]} (obs.counts)"
            )
        lacking = sorted(v for t in hands[s] for v in _halves(t) if v in obs.voids[s])
        lacking = lacking if s != obs.seat else []  # (its own hand is obs.hand)
        if lacking:
            raise StrategyError(
                f"action_values: deal gives seat {s} a tile with a {lacking[0]}, a value it "
                "has shown it lacks (obs.voids)"
            )
    if len(stock) != obs.stock_size:
        raise StrategyError(
            f"action_values: deal's stock has {len(stock)} tiles; the stock holds "
            f"{obs.stock_size} (obs.stock_size)"
        )
    every = [t for h in hands for t in h] + list(stock) + list(obs.table)
    if sorted(every) != list(range(28)):
        raise StrategyError(
            "action_values: deal's hands and stock with the table must hold every tile 0..27 once"
        )
    packed = np.array([[PACK[hands[s]].sum(dtype=np.uint64) for s in range(P)]], np.uint64)
    row = np.full((1, 28), -1, dtype=np.int8)
    if stock:
        row[0, 28 - len(stock) :] = stock
    return packed, row


def _deal_parts(obs, deal) -> tuple[list[list[int]], list[int]]:
    def tiles_of(x) -> list[int] | None:
        if isinstance(x, str | bytes) or not isinstance(x, Sequence | np.ndarray):
            return None
        out = list(x)
        ok = all(isinstance(t, int | np.integer) and not isinstance(t, bool) for t in out)
        return [int(t) for t in out] if ok and all(0 <= t < 28 for t in out) else None

    parts = list(deal) if isinstance(deal, Sequence | np.ndarray) else []
    hands = parts[0] if len(parts) == 2 else None
    hands = [tiles_of(h) for h in hands] if isinstance(hands, Sequence | np.ndarray) else []
    stock = tiles_of(parts[1]) if len(parts) == 2 else None
    if len(hands) != obs.rules.players or None in hands or stock is None:
        raise StrategyError(
            "action_values: deal must be (hands, stock): one list of tiles (0..27) per seat "
            f"({obs.rules.players}) and the stock's tiles in draw order"
        )
    return hands, stock


def _halves(t: int) -> tuple[int, int]:
    from dominosim.game.tiles import halves

    return halves(t)
