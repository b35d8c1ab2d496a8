"""The luck-against-skill table of docs/skill.md: `dominosim skill` for every variant at 2
players and at 4 (in partnership where RULES §15 allows it; kozel: its teams; else each for
itself, the solver's paranoid bound).

    python bench/skill_table.py [--seed 2026] [--deals 4500] [--accuracy-deals 800]
        [--strong pimc,oracle] [--strong-deals 300] [--strong-accuracy-deals 100] [--write]

Each cell is one `dominosim skill --against-random` run (api.skill) of the ladder random, the
five heuristics and mc (``--mc``, default ``mc``: its default budget), ``--deals`` deals per
table in every seating, the deals solved with ``--budget`` nodes each and each strategy's
decisions rated on its first ``--accuracy-deals`` deals; then a second run, against random as
well, of the strong players (``--strong``: ``pimc`` and the ``oracle``, whose hand win rate
against random is the ceiling of what skill can do on those deals) on ``--strong-deals`` deals,
``--strong-accuracy-deals`` of them rated: their own precision, which the table states (they
cost a solver search per sampled deal, or per decision, where the others cost microseconds). The defaults give every interval a half-width
under 1.5 pp: the decided share is a share of deals (4,500 deals: at most 1.46 pp), and
the decision accuracy needs up to about 720 rated deals (blind and ladder, few decisions a
hand). It prints the table in Markdown with every interval's largest half-width and the time
of each cell; ``--write`` puts it into docs/skill.md (between the table markers) and the
figures into bench/skill_table.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from dominosim import api
from dominosim.game.variants import OPTIONS, VARIANTS
from dominosim.strategy import builtins

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- skill table: begin -->", "<!-- skill table: end -->"


def cells(variants, players):
    for v in variants:
        for p in players:
            if p == 2:
                yield v, 2, []
            elif v == "kozel" or (v, "partnership") in OPTIONS:
                yield v, 4, [] if v == "kozel" else [f"{v}.partnership=on"]
            else:
                yield v, 4, []


def run_cell(v, p, sets, a, out) -> tuple[dict, float]:
    t = time.perf_counter()
    data = api.skill(
        variant=v,
        players=p,
        sets=sets,
        deals=a.deals,
        seed=a.seed,
        workers=a.workers,
        strategies=",".join([*builtins("random"), *builtins("heuristic"), a.mc]),
        round_robin=False,
        budget=a.budget,
        out=out,
        records=False,
        accuracy_deals=a.accuracy_deals,
    )
    return data["analysis"], time.perf_counter() - t


def run_strong(v, p, sets, a, out) -> tuple[dict, float]:
    """The strong players against random, at their own precision."""
    t = time.perf_counter()
    data = api.skill(
        variant=v,
        players=p,
        sets=sets,
        deals=a.strong_deals,
        seed=a.seed,
        workers=a.workers,
        strategies=",".join(["random", *a.strong.split(",")]),
        round_robin=False,
        budget=a.budget,
        out=out,
        records=False,
        accuracy_deals=a.strong_accuracy_deals,
    )
    return data["analysis"], time.perf_counter() - t


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _cell(x, ci) -> str:
    return f"{_pct(x)} [{_pct(ci[0])}, {_pct(ci[1])}]"


def _half(ci) -> float:
    return 0.0 if None in ci else 100 * (ci[1] - ci[0]) / 2


def row_of(v, p, sets, an, secs, mc, strong=None) -> tuple[dict, list[float]]:
    pi = an["perfect_information"]
    lad = {r["strategy"]: r for r in an["ladder"]}
    acc = {r["strategy"]: r for r in an["accuracy"]}
    best = an["best_heuristic"]
    who = "2" if p == 2 else ("4 teams" if sets or v == "kozel" else "4")
    # fmt: off
    halves = [_half(pi["leader_win_ci"]), _half(lad[best]["hand_win_ci"]),
              _half(lad[mc]["hand_win_ci"]), _half(lad[best]["decided_ci"]),
              *(_half(acc[x]["accuracy_ci"]) for x in ("random", best, mc))]
    # fmt: on
    # fmt: off
    row = {
        "variant": v, "players": who, "sets": sets,
        "perfect_information": pi, "paranoid": pi["paranoid"],
        "best_heuristic": best, "best": lad[best], "mc": lad[mc],
        "accuracy": {x: acc[x] for x in ("random", best, mc)},
        "seconds": round(secs, 1), "largest_half_width_pp": round(max(halves), 2),
    }
    # fmt: on
    if strong is not None:
        san, ssecs = strong
        slad = {r["strategy"]: r for r in san["ladder"]}
        sacc = {r["strategy"]: r for r in san["accuracy"]}
        row["strong"] = {x: slad[x] for x in slad if x != "random"}
        row["strong_accuracy"] = sacc
        row["strong_seconds"] = round(ssecs, 1)
        sh = [_half(r["hand_win_ci"]) for r in row["strong"].values()]
        sh += [_half(r["accuracy_ci"]) for x, r in sacc.items() if x not in ("oracle",)]
        row["strong_largest_half_width_pp"] = round(max(sh), 2)
    return row, halves


def _gap(acc, x) -> str:
    """The share of the accuracy gap from random to the oracle's 100% that x closes."""
    r = acc["random"]["accuracy"]
    if x not in acc or r is None or acc[x]["accuracy"] is None or r >= 1:
        return "–"
    return f"{100 * (acc[x]['accuracy'] - r) / (1 - r):.0f}%"


def markdown(rows, a) -> str:
    strong = a.strong.split(",") if a.strong else []
    search = [x for x in strong if x != "oracle"]
    head = (
        "| variant | players | leader wins, perfect play | solved | best heuristic | "
        "its hand wins vs random | mc hand wins vs random | decided by the deal (best / "
        "random) | accuracy: random | best heuristic | mc |"
    )
    head += "".join(f" {x} hand wins vs random ‡ |" for x in strong)
    head += "".join(f" accuracy: {x} ‡ | gap closed by {x} ‡ |" for x in search)
    cols = 11 + len(strong) + 2 * len(search)
    out = [head, "|---|---|---|---:|---|---|---|---|---|---|---|" + "---|" * (cols - 11)]
    for r in rows:
        pi, acc, best = r["perfect_information"], r["accuracy"], r["best_heuristic"]
        mark = " †" if r["paranoid"] else ""
        line = (
            f"| {r['variant']} | {r['players']} | {_cell(pi['leader_win_rate'], pi['leader_win_ci'])}{mark} "
            f"| {pi['solved']}/{pi['deals']} | {best} "
            f"| {_cell(r['best']['hand_win_rate'], r['best']['hand_win_ci'])} "
            f"| {_cell(r['mc']['hand_win_rate'], r['mc']['hand_win_ci'])} "
            f"| {_cell(r['best']['decided_share'], r['best']['decided_ci'])} | "
            + " | ".join(
                _cell(acc[x]["accuracy"], acc[x]["accuracy_ci"]) for x in ("random", best, a.mc)
            )
            + " |"
        )
        if strong:
            st, sacc = r["strong"], r["strong_accuracy"]
            line += "".join(
                f" {_cell(st[x]['hand_win_rate'], st[x]['hand_win_ci'])} |" for x in strong
            )
            line += "".join(
                f" {_cell(sacc[x]['accuracy'], sacc[x]['accuracy_ci'])} | {_gap(sacc, x)} |"
                for x in search
            )
        out.append(line)
    return "\n".join(out)


SBEGIN, SEND = "<!-- strong table: begin -->", "<!-- strong table: end -->"


def strong_row(v, p, sets, an, secs) -> dict:
    """A cell of the strong players' table: each against random on the same deals."""
    who = "2" if p == 2 else ("4 teams" if sets or v == "kozel" else "4")
    lad = {r["strategy"]: r for r in an["ladder"]}
    acc = {r["strategy"]: r for r in an["accuracy"]}
    halves = [_half(r["hand_win_ci"]) for x, r in lad.items() if x != "random"]
    halves += [_half(r["accuracy_ci"]) for x, r in acc.items() if x != "oracle"]
    # fmt: off
    return {
        "variant": v, "players": who, "sets": sets, "paranoid": an["perfect_information"]["paranoid"],
        "ladder": lad, "accuracy": acc, "seconds": round(secs, 1),
        "largest_half_width_pp": round(max(halves), 2),
    }
    # fmt: on


def strong_markdown(rows, a) -> str:
    names = a.strong.split(",")
    search = [x for x in names if x != "oracle"]
    head = "| variant | players |" + "".join(f" {x} hand wins vs random |" for x in names)
    head += " accuracy: random |" + "".join(f" {x} |" for x in search)
    head += "".join(f" gap closed by {x} |" for x in search)
    out = [head, "|---|---|" + "---|" * (len(names) + 1 + 2 * len(search))]
    for r in rows:
        lad, acc = r["ladder"], r["accuracy"]
        mark = " †" if r["paranoid"] else ""
        line = f"| {r['variant']} | {r['players']}{mark} |"
        line += "".join(
            f" {_cell(lad[x]['hand_win_rate'], lad[x]['hand_win_ci'])} |" for x in names
        )
        line += "".join(
            f" {_cell(acc[x]['accuracy'], acc[x]['accuracy_ci'])} |" for x in ["random", *search]
        )
        line += "".join(f" {_gap(acc, x)} |" for x in search)
        out.append(line)
    return "\n".join(out)


def publish(table, rows, a, total, markers, json_name) -> None:
    """Print ``table`` and its time; with ``--write`` put it into docs/skill.md between
    ``markers`` and the figures into bench/``json_name``."""
    print(table)
    print(
        f"whole table: {total:.0f} s; largest half-width "
        f"{max(r['largest_half_width_pp'] for r in rows):.2f} pp"
    )
    if a.write:
        doc = ROOT / "docs" / "skill.md"
        text = doc.read_text()
        begin, end = markers
        i, j = text.index(begin) + len(begin), text.index(end)
        doc.write_text(text[:i] + "\n" + table + "\n" + text[j:])
        (ROOT / "bench" / json_name).write_text(
            json.dumps({"args": vars(a), "seconds": round(total, 1), "rows": rows}, indent=1) + "\n"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--deals", type=int, default=4500)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--mc", default="mc")
    ap.add_argument("--strong", default="pimc,oracle")
    ap.add_argument("--strong-deals", type=int, default=300)
    ap.add_argument("--strong-accuracy-deals", type=int, default=100)
    ap.add_argument("--budget", type=int, default=2_000_000)
    ap.add_argument("--accuracy-deals", type=int, default=800)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--players", default="2,4")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--partial", default=None, help="a JSON file rewritten after every cell")
    ap.add_argument(
        "--strong-only",
        action="store_true",
        help="only the strong players' runs: their own table (docs/skill.md, bench/skill_strong.json)",
    )
    a = ap.parse_args()
    rows, t0 = [], time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        for v, p, sets in cells(a.variants.split(","), [int(x) for x in a.players.split(",")]):
            if a.strong_only:
                rows.append(strong_row(v, p, sets, *run_strong(v, p, sets, a, out)))
                print(f"{v} {rows[-1]['players']}: {rows[-1]['seconds']:.1f} s", flush=True)
                if a.partial:
                    Path(a.partial).write_text(json.dumps({"args": vars(a), "rows": rows}) + "\n")
                continue
            an, secs = run_cell(v, p, sets, a, out)
            strong = run_strong(v, p, sets, a, out) if a.strong else None
            row, halves = row_of(v, p, sets, an, secs, a.mc, strong)
            rows.append(row)
            if a.partial:  # (every cell as it is done: a cut run keeps what it measured)
                Path(a.partial).write_text(json.dumps({"args": vars(a), "rows": rows}) + "\n")
            print(
                f"{v} {row['players']}: {secs:.1f} s, largest half-width {max(halves):.2f} pp"
                + (
                    f"; {a.strong}: {strong[1]:.1f} s, largest half-width "
                    f"{row['strong_largest_half_width_pp']:.2f} pp"
                    if strong
                    else ""
                ),
                flush=True,
            )
    total = time.perf_counter() - t0
    if a.strong_only:
        publish(strong_markdown(rows, a), rows, a, total, (SBEGIN, SEND), "skill_strong.json")
    else:
        publish(markdown(rows, a), rows, a, total, (BEGIN, END), "skill_table.json")


if __name__ == "__main__":
    main()
