"""Rendering a report (the data of dominosim.report.build): the text of `dominosim run` and
`report`, the Markdown and the CSV summary of a results folder, the JSON (docs/results.md)."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from dominosim.analysis import analyses
from dominosim.base.errors import printable

if TYPE_CHECKING:
    pass


def mark(data: Mapping, label: str) -> str:
    """A strategy's label in a table or a figure, marked where it plays with perfect
    information, or where its classifier cannot be verified from its file (docs/results.md)."""
    if label in data.get("perfect_information_strategies", ()):
        return f"{label} [perfect information]"
    if label in data.get("unverified_strategies", ()):
        return f"{label} [{UNVERIFIED}]"
    return label


UNVERIFIED = "classifier not verifiable from its file"


def to_json(data: Mapping) -> str:
    """The report object as one JSON document."""
    return json.dumps(data, indent=1, allow_nan=False)


# ---------------------------------------------------------------------------------------------
# presentation


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _ci_text(ci) -> str:
    lo, hi = ci
    if lo is None or hi is None:
        return "-"
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def _f(x, nd=2) -> str:
    return "-" if x is None else f"{x:.{nd}f}"


def _diff(x) -> str:
    return "-" if x is None else f"{100 * x:+.2f} pp"


def _points(x) -> str:
    return "-" if x is None else f"{x:+.3f}"


def _hands(x) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _range(ci, fmt) -> str:
    return "[" + ", ".join(fmt(x) for x in ci) + "]"


def _paired_cells(p: Mapping, unit: str, metric: str | None = None) -> dict:
    """A paired row's cells: the hand win, (unit match) match win and points differences, A − B,
    each with its 95% interval; the points first where they rank (``metric``)."""
    # fmt: off
    wins = {
        "hand win diff": _diff(p["hand_win_diff"]),
        "95% CI": _range(p["hand_win_diff_ci"], _diff),
        **({"match win diff": _diff(p["match_win_diff"]),
            "match 95% CI": _range(p["match_win_diff_ci"], _diff)} if unit == "match" else {}),
    }
    points = {
        "points/hand diff": _points(p.get("points_diff")),
        "points 95% CI": _range(p.get("points_diff_ci", [None, None]), _points),
    }
    # fmt: on
    first, then = (points, wins) if metric == "points" else (wins, points)
    return {"pair": f"{p['a']} - {p['b']}", "deals": p["deals"], **first, **then}


def warning_lines(rows: list) -> list[str]:
    """One line per disagreement (report.disagreements): both figures, with their intervals."""
    show = {
        "hands": lambda x: _diff(x) + " in hand wins",
        "matches": lambda x: _diff(x) + " in match wins",
        "points": lambda x: _points(x) + " points per hand",
    }
    fmt = {"hands": _diff, "matches": _diff, "points": _points}
    out = []
    for d in rows:
        m1, m2 = d["metrics"]
        out.append(
            f"warning: {d['a']} - {d['b']}: the metrics disagree: {show[m1](d[m1])} "
            f"{_range(d[m1 + '_ci'], fmt[m1])} but {show[m2](d[m2])} "
            f"{_range(d[m2 + '_ci'], fmt[m2])}; rank by what decides the game (docs/compare.md)"
        )
    return out


def tables(data: Mapping) -> dict:
    """The tables of the report (:class:`dominosim.table.Table`, printed as pandas prints a
    DataFrame, without pandas): ``groups``, and per group ``strategies``, ``seats``, ``paired``
    (dicts keyed by group label)."""
    from dominosim.analysis.table import Table

    out = {"groups": None, "strategies": {}, "seats": {}, "paired": {}}
    rows = []
    for g in data["groups"]:
        # fmt: off
        rows.append({
            "group": g["label"],
            "hands": g["hands"],
            **({"matches": g["matches"]} if data["unit"] == "match" else {}),
            "blocked": _pct(g["blocked_rate"]),
            "by target": _pct(g["target_rate"]),
            "length mean": _f(g["mean_hand_length"]),
            "median": _f(g["median_hand_length"], 0),
            "p90": _f(g["p90_hand_length"], 0),
            "turns mean": _f(g["mean_turns"]),
            "t.median": _f(g["median_turns"], 0),
            "t.p90": _f(g["p90_turns"], 0),
            "leader wins": _pct(g["leader_win_rate"]),
            "baseline": _pct(g["leader_baseline"]),
        })
        # fmt: on
        label = g["label"]
        # fmt: off
        out["strategies"][label] = Table([
            {
                "strategy": mark(data, s["strategy"]),
                "seats": s["seats"],
                "seat-hands": s["seat_hands"],
                "hand wins": _pct(s["hand_win_rate"]),
                "95% CI": _ci_text(s["hand_win_ci"]),
                **({"seat-matches": s["seat_matches"],
                    "match wins": _pct(s["match_win_rate"]),
                    "match 95% CI": _ci_text(s["match_win_ci"])}
                   if data["unit"] == "match" else {}),
                "mean points": _f(s["mean_points"]),
            }
            for s in g["strategies"]
        ])
        # fmt: on
        out["seats"][label] = _seats_table(g, data["unit"])
        if g["paired"]:
            out["paired"][label] = Table([_paired_cells(p, data["unit"]) for p in g["paired"]])
    out["groups"] = Table(rows)
    return out


def _seats_table(g: Mapping, unit: str):
    """A group's table of seats."""
    from dominosim.analysis.table import Table

    # fmt: off
    return Table([
        {
            "seat": s["seat"],
            "hand wins": _pct(s["hand_win_rate"]),
            "95% CI": _ci_text(s["hand_win_ci"]),
            **({"match wins": _pct(s["match_win_rate"]),
                "match 95% CI": _ci_text(s["match_win_ci"])}
               if unit == "match" else {}),
        }
        for s in g["seats"]
    ])
    # fmt: on


def _sections(data: Mapping):
    """(heading, lines, {title: DataFrame}) per section, shared by text and markdown."""
    T = tables(data)
    rot = len(data["rotations"])
    head = [
        f"run {data['name']}/{data['run_id']} ({data['status']}): seed {data['seed']}, "
        f"{data['players']} players, seats {', '.join(data['seats'])}",
        f"unit {data['unit']}; {data['games_per_group']} games per group "
        f"({rot} seat rotation{'s' if rot != 1 else ''}); {len(data['groups'])} group(s)",
    ]
    for x in data.get("perfect_information_strategies", ()):
        head.append(
            f"{x} [perfect information]: it sees every hand and the stock order, a "
            "cheating reference (the solver's move), not a strategy a player could follow"
        )
    for x in data.get("unverified_strategies", ()):
        head.append(
            f"{x} [{UNVERIFIED}]: its strategy file is not here as the run recorded it, or "
            "does not say its classifier in plain literals, so it is not verified as fair (it "
            "may have seen hidden tiles); dominosim verify with the file checks it"
        )
    row = analyses.of_analysis(data.get("analysis"))
    if not row.verdict_pooled:  # (compare's verdict: in its own section)
        head += _until_decided_lines(data.get("until_decided"))
    yield "Summary", head, {"groups": T["groups"]}
    if data.get("analysis"):
        yield from _analysis_sections(data)
    for g in data["groups"]:
        label = g["label"]
        lines = [
            f"{_games_played(data, g)}; blocked {_pct(g['blocked_rate'])}, "
            f"ended by target {_pct(g['target_rate'])}, domino {_pct(g['domino_rate'])}",
            f"hand length (domino/blocked hands): mean {_f(g['mean_hand_length'])}, median "
            f"{_f(g['median_hand_length'], 0)}, p90 {_f(g['p90_hand_length'], 0)}; turns: mean "
            f"{_f(g['mean_turns'])}, median {_f(g['median_turns'], 0)}, "
            f"p90 {_f(g['p90_turns'], 0)}",
            f"leading side wins {_pct(g['leader_win_rate'])} {_ci_text(g['leader_win_ci'])} "
            f"(baseline {_pct(g['leader_baseline'])})",
            f"mean points per hand by {g['points_per']} ({g['points_sense']} is better): "
            + ", ".join(_f(x) for x in g["mean_points"]),
        ]
        if data["unit"] == "match":
            lines.append(
                f"match length in hands: mean {_f(g['mean_match_length'])}, median "
                f"{_f(g['median_match_length'], 0)}, p90 {_f(g['p90_match_length'], 0)}"
            )
        if row.group_warnings:
            lines += warning_lines(g.get("disagreements", ()))  # (compare's: pooled, above)
        tabs = {"strategies": T["strategies"][label], "seats": T["seats"][label]}
        if label in T["paired"]:
            tabs["paired (same deals)"] = T["paired"][label]
        yield f"Group {g['index']}: {label}", lines, tabs


def _games_played(data: Mapping, g: Mapping) -> str:
    """A group's hands, and its matches where a game is more than one hand (with unit hand,
    or matches of one hand each, they are the hands again)."""
    if data["unit"] == "hand" or g["matches"] == g["hands"]:
        return f"{g['hands']} hands"
    return f"{g['hands']} hands, {g['matches']} matches"


def render_text(data: Mapping) -> str:
    """The report for the terminal."""
    out = io.StringIO()
    for heading, lines, tabs in _sections(data):
        out.write(f"== {printable(heading)} ==\n")
        for line in lines:
            out.write(printable(line) + "\n")
        for title, df in tabs.items():
            if title == "groups" and len(df) <= 1:
                continue
            out.write(f"\n{title}:\n{df.to_string(index=False)}\n")
        out.write("\n")
    return out.getvalue()


def _md_table(df) -> str:
    cols = [printable(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(printable(v) for v in row) + " |")
    return "\n".join(lines)


def render_markdown(data: Mapping) -> str:
    """The report as Markdown (report.md)."""
    out = io.StringIO()
    out.write(f"# {printable(data['name'])} — run {printable(data['run_id'])}\n\n")
    for heading, lines, tabs in _sections(data):
        out.write(f"## {printable(heading)}\n\n")
        for line in lines:
            out.write(f"- {printable(line)}\n")
        for title, df in tabs.items():
            out.write(f"\n**{title}**\n\n{_md_table(df)}\n")
        out.write("\n")
    return out.getvalue()


def summary_csv(data: Mapping) -> str:
    """One row per (group, strategy) with the group's statistics beside it."""
    from dominosim.analysis.table import Table

    rows = []
    for g in data["groups"]:
        # fmt: off
        base = {
            "group": g["index"], "label": g["label"], "variant": g["variant"],
            "options": json.dumps(g["options"], sort_keys=True), "players": g["players"],
            "hands": g["hands"], "matches": g["matches"], "blocked_rate": g["blocked_rate"],
            "target_rate": g["target_rate"], "mean_hand_length": g["mean_hand_length"],
            "mean_turns": g["mean_turns"], "leader_win_rate": g["leader_win_rate"],
            "points_sense": g["points_sense"],
        }
        # fmt: on
        for s in g["strategies"]:
            # fmt: off
            rows.append({
                **base,
                "strategy": s["strategy"],
                "seat_hands": s["seat_hands"],
                "hand_win_rate": s["hand_win_rate"],
                "hand_win_lo": s["hand_win_ci"][0],
                "hand_win_hi": s["hand_win_ci"][1],
                "seat_matches": s["seat_matches"],
                "match_win_rate": s["match_win_rate"],
                "match_win_lo": s["match_win_ci"][0],
                "match_win_hi": s["match_win_ci"][1],
                "mean_points": s["mean_points"],
            })
            # fmt: on
    return Table(rows).to_csv(index=False)


_PAIRED_COLUMNS = ("hand_win_diff", "match_win_diff", "points_diff")


def paired_csv(data: Mapping) -> str:
    """One row per paired comparison (docs/results.md, "paired.csv"): each group's pairs, and
    a round robin's pairs pooled over its tables (``group`` empty, ``label`` "pooled"), each
    difference A − B with its 95% interval."""
    from dominosim.analysis.table import Table

    rows = []
    sources = [(g["index"], g["label"], g["paired"]) for g in data["groups"]]
    a = data.get("analysis") or {}
    if a.get("paired"):
        sources.append(("", "pooled", a["paired"]))
    for index, label, paired in sources:
        for p in paired:
            row = {"group": index, "label": label, "a": p["a"], "b": p["b"], "deals": p["deals"]}
            for key in _PAIRED_COLUMNS:
                lo, hi = p.get(key + "_ci", [None, None])
                row.update({key: p.get(key), key + "_lo": lo, key + "_hi": hi})
            rows.append(row)
    cols = ["group", "label", "a", "b", "deals"]
    cols += [f"{k}{x}" for k in _PAIRED_COLUMNS for x in ("", "_lo", "_hi")]
    return Table(rows, columns=cols).to_csv(index=False)


def skill_sections(data: Mapping, a: Mapping):
    """(heading, lines, tables) of skill's analysis (its registry row's ``render`` hook)."""
    lower = " (lower is better)" if a["points_sense"] == "lower" else ""
    lines = [
        f"luck against skill: {len(a['strategies'])} strategies, every pair at one table on "
        f"the same {data['games_per_group'] // max(1, len(data['seats']))} deals in every "
        "seating, one hand per deal",
        "against random: hand win rate (Wilson 95%), the paired difference from random's on "
        f"the same deals, points per hand{lower} and their paired difference (normal 95%)",
        "decided by the deal: the share of deals whose hand the same side won in every "
        "seating, whoever sat there (Wilson 95%)",
    ]
    metric = a.get("metric", "hands")
    why = " (what decides the game; --metric chooses another)" if a.get("metric_default") else ""
    lines.append(f"ranked by {_METRIC_NAME[metric]}{why}")
    ladder, accuracy, ratings = _skill_tables(data, a)
    if a["best_heuristic"]:
        lines.append(f"best heuristic against random: {a['best_heuristic']}")
    pi = a.get("perfect_information")
    if pi:
        bound = (
            " (the paranoid bound: the leader's seat against all the others together)"
            if pi["paranoid"]
            else ""
        )
        lines.append(
            f"perfect information{bound}: the leader's side wins {_pct(pi['leader_win_rate'])} "
            f"{_ci_text(pi['leader_win_ci'])} of the deals under perfect play, "
            f"{_f(pi['leader_points'], 2)} points per hand {'[' + ', '.join(_f(x, 2) for x in pi['leader_points_ci']) + ']'}; "
            f"{pi['solved']} of {pi['deals']} deals solved within {pi['budget']:,} nodes each"
        )
    tables = {"against random": ladder}
    if len(accuracy):
        bound = " (paranoid objective)" if pi and pi["paranoid"] else ""
        lines.append(
            f"decision accuracy{bound}: the share of each strategy's decisions with a real "
            "choice that the solver rates optimal on the true deal, on its first "
            f"{a['accuracy_deals']} deals against random (95% interval clustered by hand)"
        )
        tables["decision accuracy"] = accuracy
    lines.append(f"ratings: {_RATING_TEXT[metric]}, 95% intervals")
    tables[f"ratings (by {_METRIC_NAME[metric]})"] = ratings
    if "points_matrix" in a:
        tables.update(_matrix_tables(a, metric))
    yield "Luck and skill", lines, tables


def _skill_tables(data: Mapping, a: Mapping):
    """skill's tables: the ladder against random, the decision accuracy, the ratings."""
    import pandas as pd

    # fmt: off
    ladder = pd.DataFrame([
        {"strategy": mark(data, r["strategy"]), "deals": r["deals"],
         "hand wins": f"{_pct(r['hand_win_rate'])} {_ci_text(r['hand_win_ci'])}",
         "vs random": _diff(r["hand_win_diff"]),
         "95% CI": "[" + ", ".join(_diff(x) for x in r["hand_win_diff_ci"]) + "]",
         "points/hand": _f(r["points_per_hand"], 2),
         "points diff": _f(r["points_diff"], 2),
         "points 95% CI": "[" + ", ".join(_f(x, 2) for x in r["points_diff_ci"]) + "]",
         "decided by deal": f"{_pct(r['decided_share'])} {_ci_text(r['decided_ci'])}"}
        for r in a["ladder"]
    ])
    # fmt: on
    if a.get("metric") == "points" and len(ladder):  # (the ranking metric's columns first)
        cols = list(ladder.columns)
        ladder = ladder[cols[:2] + cols[5:8] + cols[2:5] + cols[8:]]
    # fmt: off
    accuracy = pd.DataFrame([
        {"strategy": mark(data, r["strategy"]), "hands": r["hands"],
         "decisions": r["decisions"], "rated": r["rated"],
         "optimal": f"{_pct(r['accuracy'])} {_ci_text(r['accuracy_ci'])}"}
        for r in a.get("accuracy", ())
    ])
    # fmt: on
    return ladder, accuracy, _ratings_table(data, a, a.get("metric", "hands"))


def _analysis_sections(data: Mapping):
    """(heading, lines, {title: DataFrame}) of the analysis, for :func:`_sections`: its
    registry row's ``render`` hook (a kind no row has: none)."""
    a = data["analysis"]
    row = analyses.of_analysis(a)
    if row.render is not None:
        yield from row.render(data, a)


def compare_sections(data: Mapping, a: Mapping):
    """compare's section (its registry row's ``render`` hook)."""
    yield _compare_section(data, a)


def tune_sections(data: Mapping, a: Mapping):
    """tune's section (its registry row's ``render`` hook)."""
    yield _sweep_section(a, target=False)


def tune_target_sections(data: Mapping, a: Mapping):
    """tune-target's section (its registry row's ``render`` hook)."""
    yield _sweep_section(a, target=True)


#: how the ratings of each ranking metric are read (docs/compare.md)
_RATING_TEXT = {
    "hands": "Bradley–Terry on the pairwise hand wins, Elo scale (mean 0)",
    "matches": "Bradley–Terry on the pairwise match wins, Elo scale (mean 0)",
    "points": "points per hand against the average strategy (mean 0), a least-squares fit "
    "of the paired points differences",
}


def _compare_section(data: Mapping, a: Mapping):
    """(heading, lines, tables) of compare's round robin: ratings, matrices, paired
    differences, the ranking metric's first."""
    names = a["strategies"]
    games = "matches" if a["unit"] == "match" else "hands"
    metric = a.get("metric", games)
    what = a.get("matrix_metric", games)  # (the win matrix's: the ranking metric's wins)
    why = (
        " (what decides the game; --metric chooses another)"
        if a.get("metric_default", True)
        else " (chosen with --metric)"
    )
    lines = [
        f"round robin of {len(names)} strategies on duplicate deals: {len(a['legs'])} "
        f"table(s), each in every seating, {data['games_per_group']} {games} per table",
        f"ranked by {_METRIC_NAME[metric]}{why}",
        *(
            [
                "points of ROW against COLUMN: the paired points per hand ROW gains on COLUMN on "
                "the same deals (normal 95%)"
            ]
            if "points_matrix" in a
            else []
        ),
        f"win rate of ROW against COLUMN: share of the {what} that one of the two won, "
        "with both at the table, won by ROW (Wilson 95%)",
        f"ratings: {_RATING_TEXT[metric]}, 95% intervals"
        + (" from the observed information" if metric != "points" else " from the fit's covariance")
        + (" (regularized: +0.5 per pair)" if a["bt_regularized"] else ""),
        *warning_lines(a.get("disagreements", ())),
    ]
    lines += _until_decided_lines(a.get("until_decided"))
    tables = {f"ratings (by {_METRIC_NAME[metric]})": _ratings_table(data, a, metric)}
    tables.update(_matrix_tables(a, metric))
    paired = _frame([_paired_cells(p, a["unit"], metric) for p in a["paired"]])
    tables["paired differences (same deals)"] = paired
    return "Round robin", lines, tables


def _frame(rows: list):
    import pandas as pd

    return pd.DataFrame(rows)


def _ratings_table(data: Mapping, a: Mapping, metric: str):
    """The ratings of a round robin with the ranking metric's columns: wins and losses, or
    (points) the paired deals and the points difference per hand against the others."""
    nd = 3 if metric == "points" else 1
    rows = []
    for r in a["ratings"]:
        row = {
            "rank": r["rank"],
            "strategy": mark(data, r["strategy"]),
            "rating": _f(r["rating"], nd),
            "95% CI": "[" + ", ".join(_f(x, nd) for x in r["rating_ci"]) + "]",
        }
        if "points_diff" in r:
            row.update({"deals": r["deals"], "points/hand diff": _points(r["points_diff"])})
        elif "wins" in r:
            row.update({"wins": r["wins"], "losses": r["losses"]})
        rows.append(row)
    return _frame(rows)


def _matrix_tables(a: Mapping, metric: str) -> dict:
    """The win-rate matrix and (where the report has it) the paired points matrix, the
    ranking metric's first."""
    names = a["strategies"]
    # fmt: off
    wins = _frame([
        {"": x, **{y: ("-" if c is None else f"{_pct(c['win_rate'])} {_ci_text(c['win_ci'])}")
                   for y, c in zip(names, row, strict=True)}}
        for x, row in zip(names, a["matrix"], strict=True)
    ])
    # fmt: on
    out = {"win rates (row vs column)": wins}
    if "points_matrix" in a:
        # fmt: off
        points = _frame([
            {"": x, **{y: ("-" if c is None else
                           f"{_points(c['points_diff'])} {_range(c['points_diff_ci'], _points)}")
                       for y, c in zip(names, row, strict=True)}}
            for x, row in zip(names, a["points_matrix"], strict=True)
        ])
        # fmt: on
        title = "points per hand gained (row vs column)"
        out = {title: points, **out} if metric == "points" else {**out, title: points}
    return out


_METRIC_NAME = {"hands": "hand wins", "matches": "match wins", "points": "points per hand"}


#: the statistics of a sweep's rows after its strategies' (name, the row's text)
_SWEEP_ROWS = (
    ("leading side match wins", lambda r: _pct(r["leading_side_match_win_rate"])),
    ("leading side advantage", lambda r: _diff(r["leading_side_match_advantage"])),
    ("mean match length", lambda r: _f(r["mean_match_length"])),
    ("median match length", lambda r: _f(r["median_match_length"], 0)),
    ("p90 match length", lambda r: _f(r["p90_match_length"], 0)),
    ("blocked hands", lambda r: _pct(r["blocked_rate"])),
    ("mean hand length", lambda r: _f(r["mean_hand_length"])),
)
#: and of a target sweep's rows, after those
_TARGET_ROWS = (
    ("hands to separate", lambda r: _hands(r.get("hands_to_separate"))),
    ("hands 95% CI", lambda r: _range(r.get("hands_to_separate_ci", [None, None]), _hands)),
)


def _sweep_stats(a: Mapping, target: bool) -> dict[str, list]:
    """Each statistic of a sweep (``target``: a target sweep), its text in every row."""
    rows = a["rows"]
    by_stat = {}
    for s_i, x in enumerate(a["strategies"]):
        by_stat[f"{x} match wins"] = [_pct(r["strategies"][s_i]["match_win_rate"]) for r in rows]
        by_stat[f"{x} 95% CI"] = [_ci_text(r["strategies"][s_i]["match_win_ci"]) for r in rows]
    if a["stronger"]:
        by_stat["stronger"] = [a["stronger"] for _ in rows]
    for name, text in _SWEEP_ROWS + (_TARGET_ROWS if target else ()):
        by_stat[name] = [text(r) for r in rows]
    return by_stat


def _target_sweep_lines(a: Mapping, cols: list) -> list[str]:
    """The lines of a target sweep above its table."""
    lines = [f"target sweep ({a['option']}) on common deals: {', '.join(map(str, cols))}"]
    if a["stronger"]:
        lines.append(f"stronger strategy (higher pooled match win rate): {a['stronger']}")
    lines.append(a["sentence"])
    if a.get("fastest_sentence"):
        lines.append(a["fastest_sentence"])
    return lines


def _until_decided_lines(u: Mapping | None) -> list[str]:
    """The lines of ``--until-decided``: where it stopped, and why."""
    if not u:
        return []
    verdict = (
        "every pair decided"
        if u["decided"]
        else f"stopped at the cap with {len(u['undecided'])} pair(s) undecided"
    )
    return [
        f"until decided: {verdict} after {u['looks_taken']} of {u['looks_planned']} looks "
        f"({u['deals']} deals per table); {u['method']}",
        *(f"undecided: {p}" for p in u["undecided"]),
    ]


def _sweep_section(a: Mapping, target: bool):
    """(heading, lines, tables) of tune / tune-target (``target``): the groups side by side."""
    import pandas as pd

    rows = a["rows"]
    cols = [r["value"] for r in rows]
    table = pd.DataFrame(
        [
            {"statistic": k, **dict(zip(cols, v, strict=True))}
            for k, v in _sweep_stats(a, target).items()
        ]
    )
    if target:
        return "Target sweep", _target_sweep_lines(a, cols), {"by target": table}
    lines = [f"option sweep ({', '.join(a['swept'])}) on common deals"]
    if a["stronger"]:
        lines.append(f"stronger strategy (higher pooled match win rate): {a['stronger']}")
    return "Option sweep", lines, {"side by side": table}
