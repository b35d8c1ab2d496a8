"""How strong are the search bots? Decision accuracy and paired hand wins (not run in tests).

    python bench/pimc_study.py accuracy [--variants fives,block,classic] [--deals 150]
        [--strategies random,mc,pimc] [--players 2] [--workers 2] [--seed 5]
        [--opponent random]
    python bench/pimc_study.py speed [--variants all] [--deals 100] [--a pimc]
    python bench/pimc_study.py paired [--variants all] [--deals 2000] [--a pimc] [--b mc]
        [--players 2] [--workers 2] [--seed 2024]
    (every mode: [--set block.block_deal_7_all=on], repeatable: a §15 option for the variants
    that have it; at 4 players partnership is on where the variant allows it)

``accuracy``: each strategy plays ``--deals`` deals against ``random`` (``--opponent``) in both seatings (one
hand per deal, unit hand, as ``dominosim skill`` plays its accuracy tables), and the solver
rates every decision of the strategy's seat with two or more legal actions on the true deal
(``solver.decision_accuracy``): the share rated optimal, with a 95% interval clustered by hand
(``stats.ratio_ci``), the decisions rated, and the strategy's seconds per decision (its
decisions' wall time on one worker, the rating left out). Also the share of the gap from random
to the oracle closed, ``(acc - acc_random) / (1 - acc_random)`` where ``random`` is in the list
(the oracle, rated on the deal it sees, is optimal at every decision: 100%).

``speed``: the strategy (``--a``) plays ``--deals`` deals against ``greedy`` in both seatings on
one worker; its decisions with a choice per second of its own time, its milliseconds per
decision, and for ``pimc`` the share of sampled deals left unsolved and of decisions that fell
back to ``mc``'s playouts, the samples of the ``mc`` it fell back to (— where none), and for
``pimc:extend=N`` the share of decisions found close and given more deals, and how many deals
each was given on average.

``paired``: A and B play the same ``--deals`` deals twice, once in each seat order; per deal A's
wins minus B's wins over the two seatings, halved; the mean with its 95% normal interval
(bench/strength.py's measure). Strategies are written as in ``--strategies``
(``pimc:samples=32``). Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

try:
    import dominosim  # noqa: F401
except ImportError:  # run from a checkout without installing: the children inherit sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from strength import Z95  # bench/ is on the path when run as a script
from strength import _rules as _plain_rules

#: ``--set OPTION=VALUE`` options (``block.block_deal_7_all=on``), applied to every variant
#: that has the option; set in each process (the pool's children get them through the job).
_SETS: dict = {}


def _rules(variant: str, players: int, sets=None):
    """strength's rules (partnership at 4 players where allowed) with ``--set`` options."""
    from dominosim.game.variants import make_rules, options_of

    sets = _SETS if sets is None else dict(sets)
    opts = {k: v for k, v in sets.items() if k in options_of(variant)}
    if not opts:
        return _plain_rules(variant, players)
    if players == 4 and "partnership" in options_of(variant):
        opts.setdefault("partnership", True)
    return make_rules(variant, players, **opts)


def _make(spec: str):
    from dominosim.config import parse_strategy
    from dominosim.strategy import get

    s = parse_strategy(spec)
    return get(s.name, **dict(s.params))


def _timed(inner):
    """``inner`` with its decisions timed (``seconds``, ``calls``: decisions with a choice)."""
    from dominosim.strategy import Strategy

    class Timed(Strategy):
        name = "timed"
        seconds, calls = 0.0, 0

        def choose(self, obs, legal, keys):
            t = time.perf_counter()
            out = inner.choose(obs, legal, keys)
            self.seconds += time.perf_counter() - t
            self.calls += int((legal.counts() >= 2).sum())
            return out

    return Timed()


def _accuracy_job(job):
    """One strategy's rated decisions on deals lo..hi, both seatings against random."""
    variant, players, spec, lo, hi, seed, opponent, sets = job
    from dominosim.engine.solver import decision_accuracy

    rules = _rules(variant, players, sets)
    t = _timed(_make(spec))
    rnd = _make(opponent)
    rows = []
    for parity in (0, 1):
        seats = [t if i % 2 == parity else rnd for i in range(players)]
        watched = [i for i in range(players) if i % 2 == parity]
        acc = decision_accuracy(rules, seed, seats, range(lo, hi), watched)
        rows.append((acc.match * 2 + parity, acc.optimal))
    hand = np.concatenate([r[0] for r in rows])
    opt = np.concatenate([r[1] for r in rows])
    return hand, opt, t.seconds, t.calls


def accuracy(pool, a) -> None:
    from dominosim.analysis.stats import ratio_ci

    print("| variant | strategy | decisions | optimal | 95% CI | gap closed | ms per decision |")
    print("|---|---|---:|---:|---|---:|---:|")
    for variant in a.variants:
        base = None
        for spec in a.strategies.split(","):
            chunk = max(1, math.ceil(a.deals / (2 * a.workers)))
            jobs = [
                (variant, a.players, spec, lo, min(lo + chunk, a.deals), a.seed, a.opponent, a.sets)
                for lo in range(0, a.deals, chunk)
            ]
            parts = pool.map(_accuracy_job, jobs)
            hand = np.concatenate([p[0] for p in parts])
            opt = np.concatenate([p[1] for p in parts])
            ok = opt >= 0
            ones = (opt[ok] == 1).astype(float)
            share, lo_, hi_ = ratio_ci_shares(ratio_ci, hand[ok], ones)
            secs = sum(p[2] for p in parts)
            calls = sum(p[3] for p in parts)
            if spec == "random":
                base = share
            gap = (
                ""
                if base is None or spec == "random"
                else f"{100 * (share - base) / (1 - base):.0f}%"
            )
            ms = 1000 * secs / max(calls, 1)
            print(
                f"| {variant} | {spec} | {ok.sum()} | {100 * share:.1f}% | "
                f"[{100 * lo_:.1f}, {100 * hi_:.1f}] | {gap} | {ms:.2f} |",
                flush=True,
            )


def ratio_ci_shares(ratio_ci, hand, ones):
    """The share of ones with an interval clustered by hand (stats.ratio_ci over hands)."""
    keys, idx = np.unique(hand, return_inverse=True)
    o = np.bincount(idx, weights=ones, minlength=len(keys))
    n = np.bincount(idx, minlength=len(keys)).astype(float)
    return ratio_ci(o.sum(), n.sum(), (o * o).sum(), (o * n).sum(), (n * n).sum(), len(keys))


def _paired_job(job):
    variant, players, spec_a, spec_b, lo, hi, seed, sets = job
    from dominosim.engine import BatchEngine

    rules = _rules(variant, players, sets)
    sa, sb = _make(spec_a), _make(spec_b)
    out = []
    for a_parity in (0, 1):
        seats = [sa if s % 2 == a_parity else sb for s in range(players)]
        a_sides = {rules.side_of(s) for s in range(players) if s % 2 == a_parity}
        b_sides = {rules.side_of(s) for s in range(players) if s % 2 != a_parity}
        hands, _ = BatchEngine(
            rules, seed, seats, range(lo, hi), unit="hand", batch_size=hi - lo
        ).run()
        order = np.argsort(hands["match_id"])
        w = np.asarray(hands["winner"])[order]
        out.append(np.isin(w, list(a_sides)).astype(int) - np.isin(w, list(b_sides)).astype(int))
    return (out[0] + out[1]) / 2


def paired(pool, a) -> None:
    print(f"| variant | deals | {a.a} − {a.b} (pp) | 95% CI | seconds |")
    print("|---|---:|---:|---|---:|")
    for variant in a.variants:
        t = time.time()
        chunk = max(1, math.ceil(a.deals / (4 * a.workers)))
        jobs = [
            (variant, a.players, a.a, a.b, lo, min(lo + chunk, a.deals), a.seed, a.sets)
            for lo in range(0, a.deals, chunk)
        ]
        d = np.concatenate(pool.map(_paired_job, jobs))
        m = d.mean()
        half = Z95 * d.std(ddof=1) / math.sqrt(len(d))
        print(
            f"| {variant} | {len(d)} | {100 * m:+.1f} | [{100 * (m - half):+.1f}, "
            f"{100 * (m + half):+.1f}] | {time.time() - t:.0f} |",
            flush=True,
        )


def speed(a) -> None:
    from dominosim.engine import BatchEngine

    print(
        "| variant | decisions | per second | ms per decision | deals unsolved | fallbacks "
        "| fallback's mc samples | extended | deals added per extended |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for variant in a.variants:
        rules = _rules(variant, a.players)
        inner = _make(a.a)
        t, greedy = _timed(inner), _make("greedy")
        for parity in (0, 1):
            seats = [t if i % 2 == parity else greedy for i in range(a.players)]
            BatchEngine(rules, a.seed, seats, range(a.deals), unit="hand").run()
        samples = getattr(inner, "settings", {}).get("samples", 0)
        unsolved = getattr(inner, "unsolved", 0) / max(1, t.calls * max(samples, 1))
        falls = getattr(inner, "fallbacks", 0) / max(1, t.calls)
        fb = getattr(inner, "_mc", None)  # (pimc's fallback: the mc it built, if it fell back)
        fb = "—" if fb is None else fb.settings["samples"]
        ext = getattr(inner, "extended", 0)  # (pimc:extend: close decisions given more deals)
        per = f"{getattr(inner, 'added', 0) / ext:.0f}" if ext else "—"
        print(
            f"| {variant} | {t.calls} | {t.calls / t.seconds:.0f} | {1000 * t.seconds / t.calls:.1f} "
            f"| {100 * unsolved:.1f}% | {100 * falls:.1f}% | {fb} | {100 * ext / max(1, t.calls):.1f}% "
            f"| {per} |",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=("accuracy", "paired", "speed"))
    ap.add_argument("--variants", default="fives,block,classic")
    ap.add_argument("--deals", type=int, default=None)
    ap.add_argument("--strategies", default="random,mc,pimc")
    ap.add_argument("--a", default="pimc")
    ap.add_argument("--b", default="mc")
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="[VARIANT.]OPTION=VALUE",
        help="a §15 option for every variant that has it (block.block_deal_7_all=on)",
    )
    a = ap.parse_args()
    sets = {}
    for item in a.sets:
        name, eq, value = item.partition("=")
        if not eq:
            ap.error(f"--set {item!r}: write OPTION=VALUE, e.g. block.block_deal_7_all=on")
        sets[name.rpartition(".")[2]] = value
    a.sets = tuple(sorted(sets.items()))
    _SETS.update(sets)
    if a.variants == "all":
        from dominosim.game.variants import VARIANTS

        a.variants = ",".join(VARIANTS)
    a.variants = a.variants.split(",")
    if a.mode == "speed":
        a.deals = a.deals or 100
        a.seed = 7 if a.seed is None else a.seed
        return speed(a)
    if a.deals is None:
        a.deals = 150 if a.mode == "accuracy" else 2000
    if a.seed is None:
        a.seed = 5 if a.mode == "accuracy" else 2024
    import multiprocess as mp

    with mp.get_context("spawn").Pool(a.workers) as pool:
        (accuracy if a.mode == "accuracy" else paired)(pool, a)


if __name__ == "__main__":
    main()
