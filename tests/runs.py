"""Helpers for tests of finished runs (`dominosim run`, `compare`, `tune`...)."""

from pathlib import Path

import pandas as pd

# report keys that may differ between two runs of the same experiment (docs/results.md)
VOLATILE = ("run_id", "run_dir", "hands_per_second", "chunks")


def strip(d):
    """The report without what may differ between two runs of the same experiment."""
    if isinstance(d, dict):
        return {
            k: strip(v) for k, v in d.items() if not k.endswith("_seconds") and k not in VOLATILE
        }
    if isinstance(d, list):
        return [strip(x) for x in d]
    return d


def aggregates(run_dir: Path) -> pd.DataFrame:
    """A run's merged integer aggregates."""
    return pd.read_parquet(Path(run_dir) / "aggregates.parquet")


def refingerprint(m: dict) -> dict:
    """A manifest edited on purpose, with the fingerprint its plan now has (as a deliberate
    editor would recompute it: the fingerprint detects damage, not a consistent edit)."""
    from dominosim.runner import Plan

    m = {k: v for k, v in m.items() if k != "fingerprint"}
    m["fingerprint"] = Plan.from_manifest(m).fingerprint()
    return m


def stop_after(monkeypatch, k: int | None) -> None:
    """Ctrl-C, deterministically: the parent of a run raises KeyboardInterrupt once it has
    written ``k`` chunks in a session, where a signal would land (``None``: no more). The
    runner has no hook for it: the test patches what a session counts its chunks with."""
    from dominosim.runner import session

    real = getattr(session.Played.add, "real", session.Played.add)
    if k is None:
        monkeypatch.setattr(session.Played, "add", real)
        return

    def add(self, res: dict) -> None:
        real(self, res)
        if self.written == k:
            raise KeyboardInterrupt

    add.real = real
    monkeypatch.setattr(session.Played, "add", add)
