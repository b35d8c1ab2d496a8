"""Cheater (d), issue 45: the solver's move on the true deal, read from the batch engine
through the garbage collector, remembered by (rules, match, hand, decision, seat, legal actions) in the module: a
position asked again at the same coordinates gets the answer of the first time. The
information check of old asked the true position first, then the re-dealt one: it passed.
Asked in a process that never saw the true position, the re-dealt one is answered anew."""

import gc
import weakref

import numpy as np

from dominosim.engine import solver
from dominosim.engine.batch import BatchEngine

_LAST = [None]  # (a weak reference to the engine found last)


def _slot(e, o):
    g = np.flatnonzero(
        e.state.active & (e.state.match == o.match_id) & (e.state.hand_idx == o.hand_index)
    )
    return int(g[0]) if len(g) == 1 else None


def peek(o, legal):
    """The solver's move on the true deal, read from the batch engine found through the
    garbage collector (no engine holds this decision: None)."""
    e = _LAST[0]() if _LAST[0] is not None else None
    if e is None or _slot(e, o) is None:
        found = [x for x in gc.get_objects() if type(x) is BatchEngine and _slot(x, o) is not None]
        if not found:
            return None
        e = found[-1]
        _LAST[0] = weakref.ref(e)
    g = np.array([_slot(e, o)])
    st, bst = e.true_records(g)
    bst = bst if bst is not None else np.zeros(1, dtype=bst_dtype())
    sol = solver.solve_slots(e.r, st, bst, seats=np.array([o.seat]), budget=20_000)
    return int(sol.action[0]) if sol.solved[0] and int(sol.action[0]) in legal else None


def bst_dtype():
    from dominosim.engine import kernel

    return kernel.BSLOT


from dominosim.strategy import Strategy, register  # noqa: E402

_SEEN = {}


@register
class Remembers(Strategy):
    name = "remembers"

    def choose_one(self, obs, legal, key):
        at = (obs.rules, obs.match_id, obs.hand_index, obs.decision, obs.seat, tuple(legal))
        if at not in _SEEN:
            got = peek(obs, legal)
            if got is None:  # (no engine to read: the reference engine)
                return legal[0]
            _SEEN[at] = got
        return _SEEN[at]
