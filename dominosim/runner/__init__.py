"""Running an experiment: the plan of work items, the workers, the executors, resume.

Flow (docs/design.md, "The runner")::

    Experiment --plan--> WorkItems (plain, picklable) --executor--> play_item() in workers
      --> parent: write chunk files, merge integer aggregates, progress bar --> report

* A work item is ``(group, chunk, [start, stop))``: option group ``group`` (one ``Rules``),
  match ids ``start..stop-1``, and it plays **every seat rotation** of those ids, so paired
  per-deal comparisons are computed inside the item.
* Rotation ``r`` seats the strategy of seat ``(s - r) mod P`` of the seat list at seat ``s``
  (seat 0's strategy moves to seat ``r``); only distinct seatings are played, and only when
  ``rotate`` is on and the seats differ.
* Every group uses the same match ids, hence the same deals (docs/design.md, "Randomness"):
  option groups are paired too.
* Legs (``compare``): a plan may give each group its own seat list (``Plan.legs``), so one run
  holds a round robin: group ``g`` plays rules ``rules[g]`` with seats ``legs[g]`` on the same
  match ids as every other group (dominosim/analysis/tournament.py).
* Executors: in-process (``workers == 1``), a local ``multiprocess`` pool, or Dask
  (``dask.distributed``). Workers load strategies by name and by the file paths the item
  carries, so user strategy files reach remote workers that can see the same paths.

The modules, each importing only those above it:

* :mod:`.files`: a run's strategy files, listed with their hashes, checked, loaded;
* :mod:`.isolated`: ``--isolate``, a user's strategy in a fresh process of its own;
* :mod:`.plan`: ``Plan``, ``WorkItem``, the chunking, the plan in the manifest;
* :mod:`.worker`: strategies in workers (the timeout, the guard) and playing one work item;
* :mod:`.executors`: in-process, the watched pool, Dask;
* :mod:`.progress`: a session's options (``Session``), its status lines and progress bar;
* :mod:`.results`: the finished chunks merged and checked, a run folder's report read back;
* :mod:`.session`: start, resume, execute, finish;
* :mod:`.verify`: a run folder checked by replay (``dominosim verify``).
"""

from dominosim.runner.executors import check_executor
from dominosim.runner.files import load_run_files
from dominosim.runner.plan import Plan, WorkItem, rotations_of, split_for_workers
from dominosim.runner.progress import Session
from dominosim.runner.results import load_report, merge_finished, merged_differs, read_chunks
from dominosim.runner.session import check_inputs, load_inputs, resume_run, start_run
from dominosim.runner.verify import verify_run
from dominosim.runner.worker import StrategyTimeout, make_strategy, play, play_item

__all__ = [
    "Plan",
    "Session",
    "StrategyTimeout",
    "WorkItem",
    "check_executor",
    "check_inputs",
    "load_report",
    "load_inputs",
    "load_run_files",
    "make_strategy",
    "merge_finished",
    "read_chunks",
    "merged_differs",
    "play",
    "play_item",
    "resume_run",
    "rotations_of",
    "split_for_workers",
    "start_run",
    "verify_run",
]
