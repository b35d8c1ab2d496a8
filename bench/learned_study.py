"""The ``learned`` built-in: strength on paired deals by match wins, and speed (issue 47).

    python bench/learned_study.py paired --a learned --b greedy --variant fives --players 2 \
        --matches 4000 [--set OPT=VALUE] [--seed 47] [--workers 2]
    python bench/learned_study.py speed --variants fives,block,classic --players-list 2,4 \
        [--hands 200000]
    python bench/learned_study.py run --variants fives,block,classic --players-list 2,4 \
        [--hands 500000] [--reps 3]

``paired``: whole matches, each match id played twice, once with A in each side's seats (in
partnership A holds both seats of a side; at 2 players one seat), B in the others; per match
id A's match wins minus B's over the two seatings, halved; the mean with its 95% normal
interval and the match-win share ``50% + diff / 2``. ``speed``: hands per CPU second of
``learned`` (its shipped model) and of the compiled ``heaviest``, every seat the same
strategy, unit hand, and the C limit's random game measured first (``../shared/limit``).
``run``: the same through ``dominosim run`` (``--unit hand --workers 1 --records none``, in
partnership at 4 players), the report's hands per CPU second, ``heaviest`` and ``learned`` in
turn after the C limit's heaviest game in each repetition; the medians and the median ratios.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from batch_speed import c_rate, cpu_model  # bench/ is on the path when run as a script
from multiprocess import Pool

Z95 = 1.959963984540054


def _rules(variant, players, sets):
    from dominosim import config

    return config.rules_from_cli(variant, players, list(sets))


def _job(job):
    from dominosim.engine.batch import BatchEngine

    variant, players, sets, a, b, lo, hi, seed, unit = job
    rules = _rules(variant, players, sets)
    sa, sb = get_spec(a), get_spec(b)
    out = []
    for side in range(rules.sides):
        seats = [sa if rules.side_of(s) == side else sb for s in range(players)]
        hands, matches = BatchEngine(rules, seed, seats, range(lo, hi), unit=unit).run()
        rec = matches if unit == "match" else hands
        order = np.argsort(rec["match_id"], kind="stable")
        w = np.asarray(rec["winner"])[order]
        won, lost = (w == side).astype(float), ((w >= 0) & (w != side)).astype(float)
        out.append(won - lost / max(1, rules.sides - 1))
    return np.mean(out, axis=0)


def get_spec(spec: str):
    from dominosim.strategy import get
    from dominosim.strategy.spec import parse_strategy

    s = parse_strategy(spec)
    return get(s.name, **dict(s.params))


def paired(a) -> None:
    t = time.time()
    n, chunk = a.matches, max(1, math.ceil(a.matches / (4 * a.workers)))
    jobs = [
        (a.variant, a.players, a.sets, a.a, a.b, lo, min(lo + chunk, n), a.seed, a.unit)
        for lo in range(0, n, chunk)
    ]
    with Pool(a.workers) as pool:
        d = np.concatenate(pool.map(_job, jobs))
    m, half = d.mean(), Z95 * d.std(ddof=1) / math.sqrt(len(d))
    print(
        f"{a.variant} {a.players}p {' '.join(a.sets)} {a.unit}es: {a.a} − {a.b} = "
        f"{100 * m:+.1f} pp [{100 * (m - half):+.1f}, {100 * (m + half):+.1f}] over {len(d)} "
        f"paired {a.unit}es; {a.a}'s win share {50 + 50 * m:.1f}% "
        f"[{50 + 50 * (m - half):.1f}, {50 + 50 * (m + half):.1f}]; seed {a.seed}; "
        f"{time.time() - t:.0f} s wall; cpu {cpu_model()}",
        flush=True,
    )


def speed(a) -> None:
    from dominosim.engine.batch import BatchEngine
    from dominosim.game.variants import make_rules
    from dominosim.strategy import get

    c = c_rate(2_000_000, 0)
    print(f"cpu: {cpu_model()}; C limit (random game): {c:,.0f} hands/CPU-s")
    for variant in a.variants.split(","):
        for players in (int(p) for p in a.players_list.split(",")):
            rules = make_rules(variant, players, partnership=players == 4)
            got = {}
            for name in ("heaviest", "learned"):
                strats = [get(name)] * players
                t = time.process_time()
                BatchEngine(rules, 1, strats, range(a.hands), unit="hand").run()
                got[name] = a.hands / (time.process_time() - t)
            print(
                f"{variant:8} {players}p heaviest {got['heaviest']:>10,.0f} "
                f"learned {got['learned']:>10,.0f} hands/CPU-s: learned/heaviest "
                f"{got['learned'] / got['heaviest']:.2f}, learned/C {got['learned'] / c:.3f}x",
                flush=True,
            )


def run_rate(variant: str, players: int, strategy: str, hands: int) -> float:
    import json
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        cmd = [
            "dominosim",
            "run",
            "--variant",
            variant,
            "--players",
            str(players),
            "--strategies",
            strategy,
            "--games",
            str(hands),
            "--unit",
            "hand",
            "--workers",
            "1",
            "--records",
            "none",
            "--seed",
            "1",
            "--out",
            out,
            "--json",
            "--no-plots",
        ]
        if players == 4:
            cmd += ["--set", "partnership=on"]
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
        return float(json.loads(res.stdout)["groups"][0]["hands_per_second"])


def run_speed(a) -> None:
    import statistics

    print(f"cpu: {cpu_model()}")
    for variant in a.variants.split(","):
        for players in (int(p) for p in a.players_list.split(",")):
            rows = []
            for _ in range(a.reps):
                c = c_rate(2_000_000, 1)
                h = run_rate(variant, players, "heaviest", a.hands)
                le = run_rate(variant, players, "learned", a.hands)
                rows.append((c, h, le, le / h, le / c))
            med = [statistics.median(x) for x in zip(*rows, strict=False)]
            print(
                f"{variant:8} {players}p: heaviest {med[1]:>10,.0f}, learned {med[2]:>10,.0f} "
                f"hands/CPU-s; learned/heaviest {med[3]:.3f} "
                f"({', '.join(f'{r[3]:.3f}' for r in rows)}); learned/C heaviest game "
                f"{med[4]:.3f} (C: {med[0]:,.0f})",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("paired", "speed", "run"))
    ap.add_argument("--a", default="learned")
    ap.add_argument("--b", default="greedy")
    ap.add_argument("--variant", default="fives")
    ap.add_argument("--variants", default="fives,block,classic")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--players-list", default="2,4")
    ap.add_argument("--set", dest="sets", action="append", default=[])
    ap.add_argument("--matches", type=int, default=2000)
    ap.add_argument("--unit", choices=("match", "hand"), default="match")
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    {"paired": paired, "speed": speed, "run": run_speed}[a.mode](a)


if __name__ == "__main__":
    main()
