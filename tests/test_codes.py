"""The codes C and Python share come from one place: the core's X-macro lists (_core.h)."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

from dominosim.engine import BatchEngine, arrays, batch
from dominosim.engine import kernel as KN
from dominosim.game.variants import make_rules
from dominosim.strategy import get


def test_every_exported_code_is_read_or_checked_at_import():
    """A code the core exports that kernel.py neither reads nor checks fails the import, and
    so does a code kernel.py reads that the core does not export."""
    codes = KN._core.constants()
    assert len(codes) > 100

    class Extra:
        layout = staticmethod(KN._core.layout)

        @staticmethod
        def constants():
            return {**codes, "X_NEW": 1}

    KN.check_layout()
    with pytest.raises(ImportError, match=r"does not read \(X_NEW\).*reinstall"):
        KN.check_layout(Extra)
    with pytest.raises(ImportError, match="does not export the codes X_GONE"):
        KN._codes("LEAD X_GONE")


def test_the_record_columns_are_the_cores():
    assert KN.HREC == tuple(KN._core.HREC) and KN.MREC == tuple(KN._core.MREC)
    assert len(KN.HREC) == KN._core.constants()["HREC_HEAD"]
    assert len(KN.MREC) == KN._core.constants()["MREC_HEAD"]
    assert KN.HREC[0] == KN.MREC[0] == "match_id"  # (the queue position, mapped by the engine)


def test_the_rows_and_sizes_follow_the_codes():
    """The record dtypes, the engine's names of the per-hand and previous-hand rows and the
    phase names are laid out by the core's codes, each row named once."""
    assert KN.SLOT.fields["hb"][0].shape == (KN.H_COUNT,)
    assert KN.BSLOT.fields["buf"][0].shape == (4, KN.RB)
    declared = [f.metadata for f in dataclasses.fields(arrays.SlotArrays)]
    assert sorted(m["key"] for m in declared if m.get("record") == "hb") == list(range(KN.H_COUNT))
    rows = (KN.P_LEADER, KN.P_WINNER, KN.P_OUT, KN.P_FISH)
    assert sorted(m["key"] for m in declared if m.get("record") == "prev") == sorted(rows)
    assert KN.PHASES[KN.PH_PLAY] == "play" and KN.PHASES[KN.PH_AFTER] == "after_draw"
    eng = BatchEngine(make_rules("classic", 2), 1, [get("random")] * 2, range(3))
    assert np.array_equal(eng.state.went_out, eng.state.records["hb"][:, KN.H_OUT])
    assert np.array_equal(eng.state.prev_winner, eng.state.records["prev"][:, KN.P_WINNER])


def test_heaviest_packs_its_score_as_its_compiled_twin():
    """strategies/heaviest.py keeps its readable definition; its packing equals the core's."""
    heaviest = sys.modules[type(get("heaviest")).__module__]
    assert (heaviest._CTRL, heaviest._VOID) == (KN.HV_CTRL, KN.HV_VOID)
    assert heaviest.SCORE_SPAN == 32 * KN.HV_CTRL * KN.HV_VOID


def test_advance_refuses_a_queue_position_out_of_range():
    """advance reads its arrays by name from one object; a queue position outside the queue
    is refused before a slot is played."""
    eng = BatchEngine(make_rules("classic", 2), 1, [get("random")] * 2, range(3))
    adv = batch._advance_arrays(eng, 0)
    for qpos in (-1, 4):
        adv.qpos[0] = qpos
        with pytest.raises(ValueError, match="qpos out of range"):
            KN.advance(adv, eng._policy, 0)
    adv.qpos[0] = 0
    assert KN.advance(adv, eng._policy, 0) == -1


def test_advance_reads_the_declared_arrays():
    """The core's table of the arrays advance reads by name is arrays.AdvanceArrays'
    declaration (checked at import); a core that reads another name, dtype, dimension count or
    writability, or one array more or less, fails the check with one message."""
    table = KN.ADVANCE_ARRAYS
    assert [row[0] for row in table if row[5]] == [
        f.name for f in dataclasses.fields(arrays.AdvanceArrays)
    ]
    arrays.check_advance(table)
    changed = [
        (("hst",) + table[0][1:],) + table[1:],  # a name
        table[:1] + (table[1][:2] + ("i",) + table[1][3:],) + table[2:],  # a kind
        table[:1] + (table[1][:3] + (2,) + table[1][4:],) + table[2:],  # dimensions
        table[:1] + (table[1][:4] + (1,) + table[1][5:],) + table[2:],  # writable
        table[:-1],  # one fewer
    ]
    for other in changed:
        with pytest.raises(ImportError, match="does not read the arrays .* declares for advance"):
            arrays.check_advance(other)


def test_the_slot_arrays_are_views_of_the_records():
    """Every field of the slot records is a declared view of arrays.SlotArrays but the core's
    own (the pending decision, the queue index, blind's turn step); each view shows the rules'
    width of its field and is the records' memory; blind's views exist in blind alone."""
    specs = {name: (record, key) for name, record, key, *_ in arrays._SPECS}
    slot = {key for record, key in specs.values() if record == "slot"} | {"hb", "prev"}
    assert set(KN.SLOT.names) - slot == {"ask", "act", "qidx"}
    blind = {key for record, key in specs.values() if record == "blind"}
    assert set(KN.BSLOT.names) - blind == {"turn_phase", "dtile", "cflag"}
    # (checked at import: a core whose records lack a declared view, or hold one more field)
    renamed = np.dtype([("algx" if n == "alg" else n, KN.SLOT.fields[n][0]) for n in KN.SLOT.names])
    with pytest.raises(ImportError, match=r"field alg \(bool\); slot field algx .*reinstall"):
        arrays.check_views(renamed)
    for variant, players in (("classic", 3), ("blind", 2)):
        rules = make_rules(variant, players)
        st = arrays.SlotArrays.new(rules, 5)
        for name, (record, _) in specs.items():
            view = getattr(st, name)
            if record == "blind" and variant != "blind":
                assert view is None
                continue
            base = st.blind_records if record == "blind" else st.records
            assert len(view) == 5 and np.shares_memory(view, base), name
        assert st.hands.shape == (5, players) and st.vals.shape == (5, 2)
        assert (st.phase == KN.DONE).all() and (st.written == -1).all()
        assert variant != "blind" or (st.buf == -1).all() and st.buf.shape == (5, players, KN.RB)
