/* The CPython module dominosim.engine._core: a thin glue around the rules engine of _core.c.
 *
 * Arrays arrive through the buffer protocol (no numpy C API): each is checked for its item
 * size, kind, dimensions and, where the core writes it, writability; a mismatch is a
 * ValueError naming the argument. The core runs without the GIL.
 *
 * Only the stable ABI of CPython 3.11 is used (Py_LIMITED_API; the buffer protocol is part of
 * it since 3.11), so one build, a wheel tagged cp311-abi3, loads into every CPython from 3.11.
 */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <string.h>

#include "_core.h"
#include "_core_glue.h"

/* ------------------------------------------------------------------------------------------
 * buffers (glue_take, glue_release and glue_bad are shared with _core_seat.c: _core_glue.h)
 * ---------------------------------------------------------------------------------------- */
/* the kind of a buffer's struct format ('i' signed, 'u' unsigned integer, 'f' float), or 0 */
static int format_kind(const char *fmt) {
    if (fmt == NULL) return K_UINT; /* (bytes: unsigned char) */
    while (*fmt == '@' || *fmt == '=' || *fmt == '<' || *fmt == '!') fmt++;
    if (fmt[0] == '\0' || fmt[1] != '\0') return 0;
    if (strchr("bhilq", fmt[0])) return K_INT;
    if (strchr("BHILQ?", fmt[0])) return K_UINT;
    if (strchr("fd", fmt[0])) return K_FLOAT;
    return 0;
}

/* Take argument `name` as a C-contiguous buffer of items of `itemsize` bytes and `kind`
 * (K_RECORD: any record of that size), `ndim` dimensions (-1: any), writable if asked. */
int glue_take(Buf *b, PyObject *obj, const char *name, Py_ssize_t itemsize, int kind,
              int ndim, int writable) {
    int flags = PyBUF_C_CONTIGUOUS | (kind == K_RECORD ? 0 : PyBUF_FORMAT);
    if (writable) flags |= PyBUF_WRITABLE;
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "_core: %s must be a C-contiguous%s array", name,
                     writable ? " writable" : "");
        return -1;
    }
    b->held = 1;
    int ok = b->view.itemsize == itemsize && (ndim < 0 || b->view.ndim == ndim);
    if (ok && kind != K_RECORD) ok = format_kind(b->view.format) == kind;
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "_core: %s must be %d-dimensional with %s items of %zd bytes",
                     name, ndim, kind == K_RECORD ? "record" : "integer", itemsize);
        return -1;
    }
    return 0;
}

/* a 1-dimensional buffer's items, any stride (a column of a larger array) */
static int take_strided(Buf *b, PyObject *obj, const char *name, Py_ssize_t itemsize, int kind,
                        int ndim) {
    if (PyObject_GetBuffer(obj, &b->view, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "_core: %s must be an array", name);
        return -1;
    }
    b->held = 1;
    if (b->view.itemsize != itemsize || b->view.ndim != ndim ||
        format_kind(b->view.format) != kind) {
        PyErr_Format(PyExc_ValueError, "_core: %s must be %d-dimensional with integer items of %zd bytes",
                     name, ndim, itemsize);
        return -1;
    }
    return 0;
}

void glue_release(Buf *bufs, int n) {
    for (int i = 0; i < n; i++)
        if (bufs[i].held) PyBuffer_Release(&bufs[i].view);
}

int glue_bad(const char *what) {
    PyErr_Format(PyExc_ValueError, "_core: %s", what);
    return -1;
}

int read_rules(PyObject *obj, Rules *r) {
    Buf b = {0};
    if (glue_take(&b, obj, "R", 8, K_INT, 1, 0) < 0 || items(&b) != K_COUNT) {
        if (!PyErr_Occurred()) glue_bad("R must hold one value per knob (kernel._KNOBS)");
        glue_release(&b, 1);
        return -1;
    }
    const char *err = core_rules((const int64_t *)b.view.buf, r);
    glue_release(&b, 1);
    if (err) return glue_bad(err);
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * advance and check_slots
 * ---------------------------------------------------------------------------------------- */
/* advance's arrays, by the names of the attributes of its first argument (the fields of
 * arrays.AdvanceArrays) they are read from; policy is an argument of its own (it changes
 * between calls). The module exports this table (ADVANCE_ARRAYS, add_advance_table), and
 * kernel.py compares it with AdvanceArrays' declaration at import. */
enum { A_R, A_SD, A_PRIO, A_HTMPL, A_QUEUE, A_QPOS, A_POLICY, A_ST, A_BST, A_ND, A_CD, A_CHOSEN,
       A_CVALS, A_CMASKS, A_HDIR, A_HREC, A_MDIR, A_NREC, A_HIST, A_BUFS };

static const struct {
    const char *name;
    Py_ssize_t size;
    int kind, ndim, writable;
} ADVANCE_ARRAYS[A_BUFS] = {
    {"R", 8, K_INT, 1, 0},       {"sd", 8, K_UINT, 1, 0},     {"prio", 8, K_INT, 1, 0},
    {"htmpl", 8, K_INT, 1, 0},   {"queue", 8, K_INT, 1, 0},   {"qpos", 8, K_INT, 1, 1},
    {"policy", 8, K_INT, 1, 0},
    {"st", sizeof(Slot), K_RECORD, 1, 1}, {"bst", sizeof(BSlot), K_RECORD, 1, 1},
    {"nd", 8, K_INT, 1, 1},      {"cd", 8, K_INT, 3, 1},      {"chosen", 8, K_INT, 2, 1},
    {"cvals", 8, K_INT, 2, 1},   {"cmasks", 8, K_INT, 2, 1},  {"hdir", 4, K_INT, 2, 1},
    {"hrec", 4, K_INT, 2, 1},    {"mdir", 4, K_INT, 2, 1},    {"nrec", 8, K_INT, 1, 1},
    {"hist", 2, K_UINT, 2, 1},
};
/* the attribute names as interned strings, made once at import (init_advance_names): no
 * string is built per call */
static PyObject *advance_names[A_BUFS];

static int init_advance_names(void) {
    for (int k = 0; k < A_BUFS; k++)
        if (!advance_names[k] && !(advance_names[k] = PyUnicode_InternFromString(ADVANCE_ARRAYS[k].name)))
            return -1;
    return 0;
}

/* module.ADVANCE_ARRAYS: per entry (name, item size, kind, dimensions, writable, read by
 * name), the kind as numpy spells it ('i', 'u', 'V': a record); -1 on failure */
static int add_advance_table(PyObject *m) {
    PyObject *t = PyTuple_New(A_BUFS);
    for (int k = 0; t && k < A_BUFS; k++) {
        char kind[2] = {(char)ADVANCE_ARRAYS[k].kind, 0};
        PyObject *row = Py_BuildValue("(snsiii)", ADVANCE_ARRAYS[k].name, ADVANCE_ARRAYS[k].size,
                                      kind, ADVANCE_ARRAYS[k].ndim, ADVANCE_ARRAYS[k].writable,
                                      k != A_POLICY);
        if (!row || PyTuple_SetItem(t, k, row) < 0) Py_CLEAR(t); /* (SetItem steals row) */
    }
    if (!t || PyModule_AddObject(m, "ADVANCE_ARRAYS", t) < 0) { /* (steals t on success only) */
        Py_XDECREF(t);
        return -1;
    }
    return 0;
}

static int take_advance_args(PyObject *source, PyObject *policy, Buf *b) {
    for (int k = 0; k < A_BUFS; k++) {
        PyObject *obj = k == A_POLICY ? Py_NewRef(policy) : PyObject_GetAttr(source, advance_names[k]);
        if (!obj) return -1;
        int rc = glue_take(&b[k], obj, ADVANCE_ARRAYS[k].name, ADVANCE_ARRAYS[k].size,
                      ADVANCE_ARRAYS[k].kind, ADVANCE_ARRAYS[k].ndim, ADVANCE_ARRAYS[k].writable);
        Py_DECREF(obj); /* (a taken buffer holds its own reference) */
        if (rc < 0) return -1;
    }
    return 0;
}

/* the seats' policy table (POLICY_TABLE: 4 codes, then the learned policies' weights) */
int check_policy_table(const Buf *b) {
    if (items(b) != POLICY_TABLE) return glue_bad("policy must hold the seats' policy table");
    const int64_t *p = (const int64_t *)b->view.buf;
    for (int s = 0; s < 4; s++)
        if (p[s] < POL_PYTHON || p[s] >= POL_COUNT) return glue_bad("policy holds a code out of range");
    for (int k = 4; k < POLICY_TABLE; k++)
        if (p[k] < -LEARN_WEIGHT_MAX || p[k] > LEARN_WEIGHT_MAX)
            return glue_bad("policy holds a learned weight out of range");
    return 0;
}

/* the shapes advance relies on, checked against the rules */
static int check_shapes(const Rules *r, const Buf *b, int64_t B, int64_t nq) {
    int64_t hcols = HREC_HEAD + r->npoints + r->S + r->P + r->S; /* ... values[S] */
    if (items(&b[A_SD]) != 4) return glue_bad("sd must hold 2 hash prefixes and a 2-word key");
    if (items(&b[A_HTMPL]) != H_COUNT) return glue_bad("htmpl must hold the whole per-hand block");
    for (Py_ssize_t j = 0; j < items(&b[A_PRIO]); j++) {
        int64_t t = ((const int64_t *)b[A_PRIO].view.buf)[j];
        if (t < -1 || t > 27) return glue_bad("prio holds a tile out of range");
    }
    if (check_policy_table(&b[A_POLICY]) < 0) return -1;
    if (items(&b[A_QPOS]) < 1 || items(&b[A_ND]) != 2 || items(&b[A_NREC]) < 1)
        return glue_bad("qpos, nd and nrec must hold 1, 2 and 1 values");
    int64_t qpos = ((const int64_t *)b[A_QPOS].view.buf)[0];
    if (qpos < 0 || qpos > nq) return glue_bad("qpos out of range");
    if (items(&b[A_BST]) < (r->blind ? B : 1)) return glue_bad("bst must hold a record per slot");
    if (dim(&b[A_CD], 0) != 2 || dim(&b[A_CD], 1) != B || dim(&b[A_CD], 2) != CDW)
        return glue_bad("cd must be [2, slots, CDW]");
    if (dim(&b[A_CHOSEN], 0) != 2 || dim(&b[A_CHOSEN], 1) != B)
        return glue_bad("chosen must be [2, slots]");
    for (int k = A_CVALS; k <= A_CMASKS; k++)
        if (dim(&b[k], 0) != B || dim(&b[k], 1) != r->npos)
            return glue_bad("cvals and cmasks must be [slots, open positions]");
    if (dim(&b[A_HDIR], 0) != hcols || dim(&b[A_HREC], 0) != hcols)
        return glue_bad("hdir and hrec must have a row per hand record column");
    if (r->unit_hand ? dim(&b[A_HDIR], 1) != nq : dim(&b[A_HREC], 1) < 1)
        return glue_bad("hdir must have a column per match id, or hrec at least one");
    if (dim(&b[A_MDIR], 0) != MREC_HEAD + r->npoints || dim(&b[A_MDIR], 1) != nq)
        return glue_bad("mdir must be [match record columns, match ids]");
    int64_t *nd = (int64_t *)b[A_ND].view.buf;
    if (nd[0] < 0 || nd[0] > B || nd[1] < 0 || nd[1] > B) return glue_bad("nd out of range");
    int64_t nrec = ((int64_t *)b[A_NREC].view.buf)[0];
    if (nrec < 0 || nrec > dim(&b[A_HREC], 1)) return glue_bad("nrec out of range");
    int64_t hw = dim(&b[A_HIST], 1);
    if (hw > 0 && (dim(&b[A_HIST], 0) != B || hw >= EV_OVERFLOW))
        return glue_bad("hist must be [slots, width below 65535], or [any, 0] for no histories");
    return 0;
}

static PyObject *py_advance(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) return PyErr_Format(PyExc_TypeError, "advance takes 3 arguments");
    Rules r;
    PyObject *knobs = PyObject_GetAttr(args[0], advance_names[A_R]);
    int rc = knobs ? read_rules(knobs, &r) : -1;
    Py_XDECREF(knobs);
    if (rc < 0) return NULL;
    int64_t start = PyLong_AsLongLong(args[2]);
    if (start == -1 && PyErr_Occurred()) return NULL;
    Buf b[A_BUFS];
    memset(b, 0, sizeof b);
    PyObject *result = NULL;
    if (take_advance_args(args[0], args[1], b) < 0) goto done;
    int64_t B = items(&b[A_ST]), nq = items(&b[A_QUEUE]);
    if (check_shapes(&r, b, B, nq) < 0) goto done;
    if (start < 0 || start > B) {
        glue_bad("start out of range");
        goto done;
    }
    Inputs in = {(const uint64_t *)b[A_SD].view.buf, (const int64_t *)b[A_PRIO].view.buf,
                 items(&b[A_PRIO]), (const int64_t *)b[A_HTMPL].view.buf, items(&b[A_HTMPL]),
                 (const int64_t *)b[A_QUEUE].view.buf, nq, (int64_t *)b[A_QPOS].view.buf,
                 (const int64_t *)b[A_POLICY].view.buf, NULL};
    Outputs o = {B, (int64_t *)b[A_ND].view.buf, (int64_t *)b[A_CD].view.buf,
                 (int64_t *)b[A_CHOSEN].view.buf, (int64_t *)b[A_CVALS].view.buf,
                 (int64_t *)b[A_CMASKS].view.buf, (int32_t *)b[A_HDIR].view.buf,
                 (int32_t *)b[A_HREC].view.buf, dim(&b[A_HREC], 1), (int32_t *)b[A_MDIR].view.buf,
                 nq, (int64_t *)b[A_NREC].view.buf, (uint16_t *)b[A_HIST].view.buf,
                 dim(&b[A_HIST], 1)};
    int64_t res;
    Py_BEGIN_ALLOW_THREADS
    res = core_advance(&r, &in, (Slot *)b[A_ST].view.buf, (BSlot *)b[A_BST].view.buf, B, &o,
                       start);
    Py_END_ALLOW_THREADS
    if (res == CORE_BAD_STATE)
        glue_bad("a game slot's state is out of range (a seat, tile, value or queue position)");
    else
        result = PyLong_FromLongLong(res);
done:
    glue_release(b, A_BUFS);
    return result;
}

static PyObject *py_check_slots(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) return PyErr_Format(PyExc_TypeError, "check_slots takes 4 arguments");
    Rules r;
    if (read_rules(args[0], &r) < 0) return NULL;
    int64_t nq = PyLong_AsLongLong(args[3]);
    if (nq == -1 && PyErr_Occurred()) return NULL;
    Buf b[2];
    memset(b, 0, sizeof b);
    PyObject *result = NULL;
    if (glue_take(&b[0], args[1], "st", sizeof(Slot), K_RECORD, 1, 0) < 0 ||
        glue_take(&b[1], args[2], "bst", sizeof(BSlot), K_RECORD, 1, 0) < 0)
        goto done;
    int64_t B = items(&b[0]);
    if (items(&b[1]) < (r.blind ? B : 1)) {
        glue_bad("bst must hold a record per slot");
        goto done;
    }
    result = PyLong_FromLongLong(
        core_check_slots(&r, (const Slot *)b[0].view.buf, (const BSlot *)b[1].view.buf, B, nq));
done:
    glue_release(b, 2);
    return result;
}

/* ------------------------------------------------------------------------------------------
 * the strategies' helpers
 * ---------------------------------------------------------------------------------------- */
static void as_strided1(const Buf *b, StridedU64 *v) {
    v->buf = b->view.buf;
    v->n = b->view.shape[0];
    v->stride = b->view.strides[0];
}

/* decide(R, policy, st, bst, slots, decs, is_lead, lead, masks, flags, out, weights): a
 * compiled policy's choices at decisions posed on the slots (tests compare them with
 * choose_one); weights: the learned policy's (LEARN_FEATURES, read by it alone) */
static PyObject *py_decide(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 12) return PyErr_Format(PyExc_TypeError, "decide takes 12 arguments");
    Rules r;
    if (read_rules(args[0], &r) < 0) return NULL;
    int64_t policy = PyLong_AsLongLong(args[1]);
    if (policy == -1 && PyErr_Occurred()) return NULL;
    int is_lead = PyObject_IsTrue(args[6]);
    if (is_lead < 0) return NULL;
    enum { D_ST, D_BST, D_SLOTS, D_DECS, D_LEAD, D_MASKS, D_FLAGS, D_OUT, D_W, D_COUNT };
    Buf b[D_COUNT];
    memset(b, 0, sizeof b);
    if (glue_take(&b[D_ST], args[2], "st", sizeof(Slot), K_RECORD, 1, 0) < 0 ||
        glue_take(&b[D_BST], args[3], "bst", sizeof(BSlot), K_RECORD, 1, 0) < 0 ||
        glue_take(&b[D_SLOTS], args[4], "slots", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[D_DECS], args[5], "decs", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[D_LEAD], args[7], "lead", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[D_MASKS], args[8], "masks", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[D_FLAGS], args[9], "flags", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[D_OUT], args[10], "out", 8, K_INT, 1, 1) < 0 ||
        glue_take(&b[D_W], args[11], "weights", 8, K_INT, 1, 0) < 0) {
        glue_release(b, D_COUNT);
        return NULL;
    }
    int64_t n = items(&b[D_OUT]), B = items(&b[D_ST]);
    int shapes = items(&b[D_SLOTS]) == n && items(&b[D_DECS]) == n && items(&b[D_FLAGS]) == n &&
                 (is_lead ? items(&b[D_LEAD]) == n
                          : dim(&b[D_MASKS], 0) == n && dim(&b[D_MASKS], 1) == r.npos) &&
                 items(&b[D_BST]) >= (r.blind ? B : 1) && items(&b[D_W]) == LEARN_FEATURES;
    if (!shapes) {
        glue_release(b, D_COUNT);
        return PyErr_Format(PyExc_ValueError, "_core: decide's arrays must have one row per "
                                              "decision (and weights LEARN_FEATURES values)");
    }
    int err = core_decide(&r, policy, (const int64_t *)b[D_W].view.buf,
                          (const Slot *)b[D_ST].view.buf,
                          (const BSlot *)b[D_BST].view.buf, B, (const int64_t *)b[D_SLOTS].view.buf,
                          (const int64_t *)b[D_DECS].view.buf, n, is_lead,
                          (const int64_t *)b[D_LEAD].view.buf, (const int64_t *)b[D_MASKS].view.buf,
                          (const int64_t *)b[D_FLAGS].view.buf, (int64_t *)b[D_OUT].view.buf);
    glue_release(b, D_COUNT);
    if (err) return PyErr_Format(PyExc_ValueError, "_core: decide: an index or mask out of range");
    Py_RETURN_NONE;
}

static PyObject *finish_pick(int err, Buf *b, int n) {
    glue_release(b, n);
    if (err) return PyErr_Format(PyExc_ValueError, "_core: a decision without a legal action or with a value out of range");
    Py_RETURN_NONE;
}

static PyObject *py_uniform_slots(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) return PyErr_Format(PyExc_TypeError, "uniform_slots takes 4 arguments");
    Buf b[4];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[0], "values", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[1], args[1], "masks", 8, K_INT, 2, 0) < 0 ||
        take_strided(&b[2], args[2], "keys", 8, K_UINT, 1) < 0 ||
        glue_take(&b[3], args[3], "out", 8, K_INT, 1, 1) < 0) {
        glue_release(b, 4);
        return NULL;
    }
    int64_t n = items(&b[3]), K = dim(&b[1], 1);
    if (dim(&b[0], 0) != n || dim(&b[1], 0) != n || dim(&b[0], 1) != K || dim(&b[2], 0) != n) {
        glue_release(b, 4);
        return PyErr_Format(PyExc_ValueError, "_core: uniform_slots' arrays must have one row per decision");
    }
    StridedU64 keys;
    as_strided1(&b[2], &keys);
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = core_uniform_slots((const int64_t *)b[0].view.buf, (const int64_t *)b[1].view.buf, K,
                             &keys, n, (int64_t *)b[3].view.buf);
    Py_END_ALLOW_THREADS
    return finish_pick(err, b, 4);
}

static PyObject *py_uniform_lead(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) return PyErr_Format(PyExc_TypeError, "uniform_lead takes 3 arguments");
    Buf b[3];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[0], "lead", 8, K_INT, 1, 0) < 0 ||
        take_strided(&b[1], args[1], "keys", 8, K_UINT, 1) < 0 ||
        glue_take(&b[2], args[2], "out", 8, K_INT, 1, 1) < 0) {
        glue_release(b, 3);
        return NULL;
    }
    int64_t n = items(&b[2]);
    if (items(&b[0]) != n || dim(&b[1], 0) != n) {
        glue_release(b, 3);
        return PyErr_Format(PyExc_ValueError, "_core: uniform_lead's arrays must have one row per decision");
    }
    StridedU64 keys;
    as_strided1(&b[1], &keys);
    int err = core_uniform_lead((const int64_t *)b[0].view.buf, &keys, n, (int64_t *)b[2].view.buf);
    return finish_pick(err, b, 3);
}

/* legal_arrays(values, masks, lead, is_lead, flags, along, act, info): Legal.arrays' padded
 * arrays (act [n, W] int64; info [5, n, W] int8: tile, position, pips, double, along) */
static PyObject *py_legal_arrays(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 8) return PyErr_Format(PyExc_TypeError, "legal_arrays takes 8 arguments");
    int is_lead = PyObject_IsTrue(args[3]), along = PyObject_IsTrue(args[5]);
    if (is_lead < 0 || along < 0) return NULL;
    enum { L_VALUES, L_MASKS, L_LEAD, L_FLAGS, L_ACT, L_INFO, L_COUNT };
    Buf b[L_COUNT];
    memset(b, 0, sizeof b);
    if (glue_take(&b[L_VALUES], args[0], "values", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[L_MASKS], args[1], "masks", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[L_LEAD], args[2], "lead", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[L_FLAGS], args[4], "flags", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[L_ACT], args[6], "act", 8, K_INT, 2, 1) < 0 ||
        glue_take(&b[L_INFO], args[7], "info", 1, K_INT, 3, 1) < 0) {
        glue_release(b, L_COUNT);
        return NULL;
    }
    int64_t n = dim(&b[L_ACT], 0), W = dim(&b[L_ACT], 1), K = dim(&b[L_MASKS], 1);
    int shapes = items(&b[L_FLAGS]) == n && dim(&b[L_INFO], 0) == 5 && dim(&b[L_INFO], 1) == n &&
                 dim(&b[L_INFO], 2) == W &&
                 (is_lead ? items(&b[L_LEAD]) == n
                          : dim(&b[L_MASKS], 0) == n && dim(&b[L_VALUES], 0) == n &&
                                dim(&b[L_VALUES], 1) == K);
    if (!shapes) {
        glue_release(b, L_COUNT);
        return PyErr_Format(PyExc_ValueError, "_core: legal_arrays' arrays must have one row per decision");
    }
    int err = core_legal_arrays((const int64_t *)b[L_VALUES].view.buf,
                                (const int64_t *)b[L_MASKS].view.buf, K,
                                (const int64_t *)b[L_LEAD].view.buf, is_lead,
                                (const int64_t *)b[L_FLAGS].view.buf, along, n, W,
                                (int64_t *)b[L_ACT].view.buf, (int8_t *)b[L_INFO].view.buf);
    glue_release(b, L_COUNT);
    if (err) return PyErr_Format(PyExc_ValueError, "_core: legal_arrays: a value out of range or a row wider than W");
    Py_RETURN_NONE;
}

/* best(score, count, action, out): LegalArrays.best's action per row (score and action
 * [n, W] int64) */
static PyObject *py_best(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) return PyErr_Format(PyExc_TypeError, "best takes 4 arguments");
    Buf b[4];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[0], "score", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[1], args[1], "count", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[2], args[2], "action", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[3], args[3], "out", 8, K_INT, 1, 1) < 0) {
        glue_release(b, 4);
        return NULL;
    }
    int64_t n = dim(&b[0], 0), W = dim(&b[0], 1);
    if (items(&b[1]) != n || items(&b[3]) != n || dim(&b[2], 0) != n || dim(&b[2], 1) != W) {
        glue_release(b, 4);
        return PyErr_Format(PyExc_ValueError, "_core: best's arrays must have one row per decision");
    }
    int err = core_best((const int64_t *)b[0].view.buf, (const int64_t *)b[1].view.buf,
                        (const int64_t *)b[2].view.buf, n, W, (int64_t *)b[3].view.buf);
    glue_release(b, 4);
    if (err) return PyErr_Format(PyExc_ValueError, "_core: best: a count out of range");
    Py_RETURN_NONE;
}

/* heaviest(values, masks, lead, is_lead, hands, voids, seat, partnership, out): hands, voids
 * and seat in any layout (columns of the engine's decision rows); partnership: the partner's
 * voids (seat + 2) do not count */
static PyObject *py_heaviest(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 9) return PyErr_Format(PyExc_TypeError, "heaviest takes 9 arguments");
    int is_lead = PyObject_IsTrue(args[3]), partnership = PyObject_IsTrue(args[7]);
    if (is_lead < 0 || partnership < 0) return NULL;
    Buf b[7];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[0], "values", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[1], args[1], "masks", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[2], args[2], "lead", 8, K_INT, 1, 0) < 0 ||
        take_strided(&b[3], args[4], "hands", 8, K_UINT, 1) < 0 ||
        take_strided(&b[4], args[5], "voids", 8, K_INT, 2) < 0 ||
        take_strided(&b[5], args[6], "seat", 8, K_INT, 1) < 0 ||
        glue_take(&b[6], args[8], "out", 8, K_INT, 1, 1) < 0) {
        glue_release(b, 7);
        return NULL;
    }
    int64_t n = items(&b[6]);
    int shapes = dim(&b[3], 0) == n && dim(&b[4], 0) == n && dim(&b[5], 0) == n &&
                 (is_lead ? items(&b[2]) == n
                          : dim(&b[0], 0) == n && dim(&b[1], 0) == n && dim(&b[0], 1) == 2 &&
                                dim(&b[1], 1) == 2);
    if (!shapes || dim(&b[4], 1) < 1 || dim(&b[4], 1) > 4) {
        glue_release(b, 7);
        return PyErr_Format(PyExc_ValueError, "_core: heaviest's arrays must have one row per decision");
    }
    StridedU64 hands;
    Strided1 seat;
    as_strided1(&b[3], &hands);
    as_strided1(&b[5], &seat);
    Strided2 voids = {b[4].view.buf, dim(&b[4], 0), dim(&b[4], 1), b[4].view.strides[0],
                      b[4].view.strides[1]};
    int err = core_heaviest((const int64_t *)b[0].view.buf, (const int64_t *)b[1].view.buf,
                            (const int64_t *)b[2].view.buf, is_lead, &hands, &voids, &seat,
                            partnership, n, (int64_t *)b[6].view.buf);
    return finish_pick(err, b, 7);
}

/* sample_deals(key, tries, unseen, seats, need, voids, k, hands, stock, ok): mc's hidden
 * deals (core_sample_deals), one row of hands [S, P], stock [S, 28] and ok [S] per sample */
static PyObject *py_sample_deals(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 10) return PyErr_Format(PyExc_TypeError, "sample_deals takes 10 arguments");
    unsigned long long key = PyLong_AsUnsignedLongLongMask(args[0]);
    long long tries = PyLong_AsLongLong(args[1]), k = PyLong_AsLongLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    Buf b[7];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[2], "unseen", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[1], args[3], "seats", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[2], args[4], "need", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[3], args[5], "voids", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[4], args[7], "hands", 8, K_UINT, 2, 1) < 0 ||
        glue_take(&b[5], args[8], "stock", 1, K_INT, 2, 1) < 0 ||
        glue_take(&b[6], args[9], "ok", 1, K_INT, 1, 1) < 0) {
        glue_release(b, 7);
        return NULL;
    }
    int64_t S = items(&b[6]), nseats = items(&b[1]), P = dim(&b[4], 1);
    if (dim(&b[4], 0) != S || dim(&b[5], 0) != S || dim(&b[5], 1) != 28 || nseats > 4 ||
        items(&b[2]) != nseats || items(&b[3]) != nseats || P < 1 || P > 4 || tries < 1) {
        glue_release(b, 7);
        return PyErr_Format(PyExc_ValueError, "_core: sample_deals' arrays do not fit together");
    }
    DealAsk ask = {nseats, k, {0}, {0}, {0}};
    for (int64_t q = 0; q < nseats; q++) {
        ask.seats[q] = ((const int64_t *)b[1].view.buf)[q];
        ask.need[q] = ((const int64_t *)b[2].view.buf)[q];
        ask.voids[q] = ((const int64_t *)b[3].view.buf)[q];
    }
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = core_sample_deals((uint64_t)key, S, tries, (const int64_t *)b[0].view.buf, items(&b[0]),
                            &ask, P, (uint64_t *)b[4].view.buf, (int8_t *)b[5].view.buf,
                            (int8_t *)b[6].view.buf);
    Py_END_ALLOW_THREADS
    glue_release(b, 7);
    if (err) return PyErr_Format(PyExc_ValueError, "_core: sample_deals' values are out of range");
    Py_RETURN_NONE;
}

/* infer_logw(hands, events, weights, out): pimc's inference (core_infer_logw), the
 * log-likelihood of each deal (hands [n, P]) under the events [E, IE_COLS] and their
 * weights [E, 28], into out [n] (float64) */
static PyObject *py_infer_logw(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) return PyErr_Format(PyExc_TypeError, "infer_logw takes 4 arguments");
    Buf b[4];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[0], "hands", 8, K_UINT, 2, 0) < 0 ||
        glue_take(&b[1], args[1], "events", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[2], args[2], "weights", 8, K_FLOAT, 2, 0) < 0 ||
        glue_take(&b[3], args[3], "out", 8, K_FLOAT, 1, 1) < 0) {
        glue_release(b, 4);
        return NULL;
    }
    int64_t n = dim(&b[0], 0), P = dim(&b[0], 1), E = dim(&b[1], 0);
    if (items(&b[3]) != n || dim(&b[1], 1) != IE_COLS || dim(&b[2], 0) != E ||
        dim(&b[2], 1) != 28) {
        glue_release(b, 4);
        return PyErr_Format(PyExc_ValueError, "_core: infer_logw's arrays do not fit together");
    }
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = core_infer_logw((const uint64_t *)b[0].view.buf, n, P, (const int64_t *)b[1].view.buf,
                          E, (const double *)b[2].view.buf, (double *)b[3].view.buf);
    Py_END_ALLOW_THREADS
    glue_release(b, 4);
    if (err) return PyErr_Format(PyExc_ValueError, "_core: infer_logw's values are out of range");
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------
 * the solver
 * ---------------------------------------------------------------------------------------- */
/* deal(R, sd, prio, htmpl, st, bst): the first hand of each slot's match, dealt */
static PyObject *py_deal(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "deal takes 6 arguments");
    Rules r;
    if (read_rules(args[0], &r) < 0) return NULL;
    Buf b[5];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[1], "sd", 8, K_UINT, 1, 0) < 0 ||
        glue_take(&b[1], args[2], "prio", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[2], args[3], "htmpl", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[3], args[4], "st", sizeof(Slot), K_RECORD, 1, 1) < 0 ||
        glue_take(&b[4], args[5], "bst", sizeof(BSlot), K_RECORD, 1, 1) < 0) {
        glue_release(b, 5);
        return NULL;
    }
    int64_t B = items(&b[3]);
    const int64_t *prio = (const int64_t *)b[1].view.buf;
    int ok = items(&b[0]) == 4 && items(&b[2]) == H_COUNT && items(&b[4]) >= (r.blind ? B : 1);
    for (Py_ssize_t j = 0; ok && j < items(&b[1]); j++) ok = prio[j] >= -1 && prio[j] <= 27;
    if (!ok) {
        glue_release(b, 5);
        return PyErr_Format(PyExc_ValueError, "_core: deal's arrays: 2 hash prefixes and a 2-word key, tiles of "
                            "the priority list, the whole per-hand block, a record per slot");
    }
    Inputs in = {(const uint64_t *)b[0].view.buf, prio, items(&b[1]),
                 (const int64_t *)b[2].view.buf, items(&b[2]), NULL, 0, NULL, NULL, &r};
    int64_t res = core_deal(&r, &in, (Slot *)b[3].view.buf, (BSlot *)b[4].view.buf, B);
    glue_release(b, 5);
    if (res >= 0) return PyErr_Format(PyExc_ValueError, "_core: deal: no seat can lead slot %lld",
                                      (long long)res);
    Py_RETURN_NONE;
}

/* solve(R, st, bst, seats, chosen, budget, plain, out): the perfect-information values of
 * the positions st (blind's rows bst), out [n, SV_COLS]; chosen: per position an action whose
 * optimality is asked (-1: none); plain: by a plain minimax (tests) */
static PyObject *py_solve(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 8) return PyErr_Format(PyExc_TypeError, "solve takes 8 arguments");
    Rules r;
    if (read_rules(args[0], &r) < 0) return NULL;
    int64_t budget = PyLong_AsLongLong(args[5]);
    if (budget == -1 && PyErr_Occurred()) return NULL;
    if (budget < 1) return PyErr_Format(PyExc_ValueError, "_core: solve's budget must be >= 1");
    int plain = PyObject_IsTrue(args[6]);
    if (plain < 0) return NULL;
    Buf b[5];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[1], "st", sizeof(Slot), K_RECORD, 1, 0) < 0 ||
        glue_take(&b[1], args[2], "bst", sizeof(BSlot), K_RECORD, 1, 0) < 0 ||
        glue_take(&b[2], args[3], "seats", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[4], args[4], "chosen", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[3], args[7], "out", 8, K_INT, 2, 1) < 0) {
        glue_release(b, 5);
        return NULL;
    }
    int64_t n = items(&b[0]);
    if (items(&b[1]) < (r.blind ? n : 1) || items(&b[2]) != n || items(&b[4]) != n ||
        dim(&b[3], 0) != n || dim(&b[3], 1) != SV_COLS) {
        glue_release(b, 5);
        return PyErr_Format(PyExc_ValueError, "_core: solve's arrays must have one row per position");
    }
    int64_t res;
    Py_BEGIN_ALLOW_THREADS
    res = core_solve(&r, (const Slot *)b[0].view.buf, (const BSlot *)b[1].view.buf, n,
                     (const int64_t *)b[2].view.buf, (const int64_t *)b[4].view.buf, budget,
                     plain, (int64_t *)b[3].view.buf);
    Py_END_ALLOW_THREADS
    glue_release(b, 5);
    if (res == -2) return PyErr_NoMemory();
    if (res >= 0)
        return PyErr_Format(PyExc_ValueError, "_core: solve: position %lld is out of range (a "
                            "seat, tile, value, phase or row)", (long long)res);
    Py_RETURN_NONE;
}

/* leaf_values(R, st, seat, out): out[i] the solver's value 2 d + w for seat's side of the
 * hand over and settled in st[i] (how it values its leaves) */
static PyObject *py_leaf_values(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) return PyErr_Format(PyExc_TypeError, "leaf_values takes 4 arguments");
    Rules r;
    if (read_rules(args[0], &r) < 0) return NULL;
    int64_t seat = PyLong_AsLongLong(args[2]);
    if (seat == -1 && PyErr_Occurred()) return NULL;
    if (seat < 0 || seat >= r.P)
        return PyErr_Format(PyExc_ValueError, "_core: leaf_values' seat is out of range");
    Buf b[2];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[1], "st", sizeof(Slot), K_RECORD, 1, 0) < 0 ||
        glue_take(&b[1], args[3], "out", 8, K_INT, 1, 1) < 0) {
        glue_release(b, 2);
        return NULL;
    }
    int64_t n = items(&b[0]), res = -1;
    if (items(&b[1]) != n) {
        glue_release(b, 2);
        return PyErr_Format(PyExc_ValueError, "_core: leaf_values' out must have a row per slot");
    }
    res = core_leaf_values(&r, (const Slot *)b[0].view.buf, n, seat, (int64_t *)b[1].view.buf);
    glue_release(b, 2);
    if (res >= 0)
        return PyErr_Format(PyExc_ValueError, "_core: leaf_values: slot %lld's points are out "
                            "of range", (long long)res);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------
 * what the Python side checks at import: the records' layout, the knobs and the codes
 * ---------------------------------------------------------------------------------------- */
/* a field's shape as layout() exports it, from its dims (SLOT_DIM0/1/2 in _core.h): the
 * dims are pasted, never expanded, into the names of these */
#define SLOT_SHAPE_SLOT_DIM0 0, 0
#define SLOT_SHAPE_SLOT_DIM1(n) (n), 0
#define SLOT_SHAPE_SLOT_DIM2(n, m) (n), (m)

typedef struct {
    const char *name;
    size_t offset;
    char kind; /* 'i' signed, 'u' unsigned */
    size_t itemsize;
    int64_t rows, cols; /* 0, 0: one value; n, 0: n values; n, m: n rows of m */
} FieldInfo;

#define SLOT_KIND(type) (((type) ~(type)0 > 0) ? 'u' : 'i') /* all bits set: negative if signed */
/* (dims pasted here, in the macro the list calls: an argument passed on is expanded first) */
#define SLOT_INFO_SLOT(type, name, dims)                                                      \
    {#name, offsetof(Slot, name), SLOT_KIND(type), sizeof(type), SLOT_SHAPE_##dims},
#define SLOT_INFO_BSLOT(type, name, dims)                                                     \
    {#name, offsetof(BSlot, name), SLOT_KIND(type), sizeof(type), SLOT_SHAPE_##dims},

static const FieldInfo SLOT_INFOS[] = {SLOT_FIELDS(SLOT_INFO_SLOT)};
static const FieldInfo BSLOT_INFOS[] = {BSLOT_FIELDS(SLOT_INFO_BSLOT)};

/* (size, ((name, offset, kind, itemsize, rows, cols), ...)) of a record's fields */
static PyObject *record_layout(size_t size, const FieldInfo *f, size_t n) {
    PyObject *fields = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; fields && i < n; i++) {
        PyObject *row = Py_BuildValue("(snCnLL)", f[i].name, (Py_ssize_t)f[i].offset,
                                      (int)f[i].kind, (Py_ssize_t)f[i].itemsize,
                                      (long long)f[i].rows, (long long)f[i].cols);
        if (!row) {
            Py_CLEAR(fields);
            break;
        }
        if (PyTuple_SetItem(fields, (Py_ssize_t)i, row) < 0) Py_CLEAR(fields); /* (steals row) */
    }
    if (!fields) return NULL;
    PyObject *out = Py_BuildValue("(nO)", (Py_ssize_t)size, fields);
    Py_DECREF(fields);
    return out;
}

#define N_INFOS(a) (sizeof(a) / sizeof((a)[0]))

/* layout() -> {"slot": (size, fields), "bslot": (...)}: each record's size and its fields
 * (name, offset, item kind, item size, rows, cols), in the order of the struct */
static PyObject *py_layout(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    PyObject *s = record_layout(sizeof(Slot), SLOT_INFOS, N_INFOS(SLOT_INFOS));
    PyObject *b = record_layout(sizeof(BSlot), BSLOT_INFOS, N_INFOS(BSLOT_INFOS));
    PyObject *out = (s && b) ? Py_BuildValue("{s:O,s:O}", "slot", s, "bslot", b) : NULL;
    Py_XDECREF(s);
    Py_XDECREF(b);
    return out;
}

/* constants() -> {name: value} of every code kernel.py shares with the core (SHARED_CODES) */
static PyObject *py_constants(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    static const struct {
        const char *name;
        long long value;
    } codes[] = {
#define CODE_ROW(name) {#name, (long long)(name)},
        SHARED_CODES(CODE_ROW)
#undef CODE_ROW
    };
    PyObject *out = PyDict_New();
    for (size_t k = 0; out && k < sizeof codes / sizeof codes[0]; k++) {
        PyObject *value = PyLong_FromLongLong(codes[k].value);
        if (!value || PyDict_SetItemString(out, codes[k].name, value) < 0) Py_CLEAR(out);
        Py_XDECREF(value);
    }
    return out;
}

static PyObject *name_tuple(const char *const *names, int n) {
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int k = 0; k < n; k++) {
        PyObject *s = PyUnicode_FromString(names[k]);
        if (!s) {
            Py_DECREF(t);
            return NULL;
        }
        if (PyTuple_SetItem(t, k, s) < 0) { /* (steals s, even on failure) */
            Py_DECREF(t);
            return NULL;
        }
    }
    return t;
}

/* siphash24(k0, k1, data) -> SipHash-2-4 of the bytes data under the key (k0, k1) (tests:
 * the reference vectors, and seeding.siphash24) */
static PyObject *py_siphash24(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) return PyErr_Format(PyExc_TypeError, "siphash24 takes 3 arguments");
    unsigned long long k0 = PyLong_AsUnsignedLongLong(args[0]);
    if (k0 == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    unsigned long long k1 = PyLong_AsUnsignedLongLong(args[1]);
    if (k1 == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    char *p;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(args[2], &p, &n) < 0) return NULL;
    uint64_t h = core_siphash24((uint64_t)k0, (uint64_t)k1, (const uint8_t *)p, (size_t)n);
    return PyLong_FromUnsignedLongLong((unsigned long long)h);
}

static PyMethodDef methods[] = {
    {"advance", (PyCFunction)(void (*)(void))py_advance, METH_FASTCALL,
     "advance(arrays, policy, start) -> -1 (every slot at a decision or idle), the slot to resume "
     "from (hand records full), or -2 - i (slot i's chosen action is illegal); arrays: an object "
     "whose attributes (ADVANCE_ARRAYS: arrays.AdvanceArrays) are the rules' knobs and the "
     "arrays the core reads and writes"},
    {"check_slots", (PyCFunction)(void (*)(void))py_check_slots, METH_FASTCALL,
     "check_slots(R, st, bst, nq) -> the first active slot whose state is out of range (nq: "
     "the queue's length), or -1"},
    {"uniform_slots", (PyCFunction)(void (*)(void))py_uniform_slots, METH_FASTCALL,
     "uniform_slots(values, masks, keys, out): Legal.uniform for placements"},
    {"uniform_lead", (PyCFunction)(void (*)(void))py_uniform_lead, METH_FASTCALL,
     "uniform_lead(lead, keys, out): Legal.uniform for leads"},
    {"legal_arrays", (PyCFunction)(void (*)(void))py_legal_arrays, METH_FASTCALL,
     "legal_arrays(values, masks, lead, is_lead, flags, along, act, info): Legal.arrays"},
    {"best", (PyCFunction)(void (*)(void))py_best, METH_FASTCALL,
     "best(score, count, action, out): LegalArrays.best"},
    {"legal_points", (PyCFunction)(void (*)(void))py_legal_points, METH_FASTCALL,
     "legal_points(values, doubles, along, spinner, covered, table, how, act, out): "
     "LegalArrays.points"},
    {"points_row", (PyCFunction)(void (*)(void))py_points_row, METH_FASTCALL,
     "points_row(row, how, K, values, doubles, along, spinner, covered, table) -> bytes: one "
     "decision's points per placement code, from its row of int64 columns"},
    {"gather_fields", (PyCFunction)(void (*)(void))py_gather_fields, METH_FASTCALL,
     "gather_fields(records, g, offsets, widths, out): fields of the asked records, one pass"},
    {"seat_source", (PyCFunction)(void (*)(void))py_seat_source, METH_FASTCALL,
     "seat_source(records, g, seats, offsets, widths, hist, face_up_doubles) -> a SeatSource: "
     "the batch Observation's fields of these slots, read on first access"},
    {"seat_history", (PyCFunction)(void (*)(void))py_seat_history, METH_FASTCALL,
     "seat_history(hist, g, seats, face_up_doubles, out): Observation.history per decision"},
    {"heaviest", (PyCFunction)(void (*)(void))py_heaviest, METH_FASTCALL,
     "heaviest(values, masks, lead, is_lead, hands, voids, seat, partnership, out): heaviest's "
     "line loop"},
    {"sample_deals", (PyCFunction)(void (*)(void))py_sample_deals, METH_FASTCALL,
     "sample_deals(key, tries, unseen, seats, need, voids, k, hands, stock, ok): mc's deals"},
    {"infer_logw", (PyCFunction)(void (*)(void))py_infer_logw, METH_FASTCALL,
     "infer_logw(hands, events, weights, out): pimc's log-likelihood of each deal"},
    {"decide", (PyCFunction)(void (*)(void))py_decide, METH_FASTCALL,
     "decide(R, policy, st, bst, slots, decs, is_lead, lead, masks, flags, out): a compiled "
     "policy's choices at posed decisions"},
    {"deal", (PyCFunction)(void (*)(void))py_deal, METH_FASTCALL,
     "deal(R, sd, prio, htmpl, st, bst): the first hand of each slot's match, dealt as advance "
     "deals it, before its first turn"},
    {"solve", (PyCFunction)(void (*)(void))py_solve, METH_FASTCALL,
     "solve(R, st, bst, seats, chosen, budget, plain, out): the perfect-information values of "
     "positions (out [n, SV_COLS]: value, win, best action, solved, nodes, root seat, whether "
     "the chosen action is optimal)"},
    {"leaf_values", (PyCFunction)(void (*)(void))py_leaf_values, METH_FASTCALL,
     "leaf_values(R, st, seat, out): the solver's value of each hand over, for seat's side"},
    {"solve_actions", (PyCFunction)(void (*)(void))py_solve_actions, METH_FASTCALL,
     "solve_actions(R, st, bst, budget, acts, vals, count, policy): every legal action's "
     "value (policy: the seats the search models as their compiled policy)"},
    {"siphash24", (PyCFunction)(void (*)(void))py_siphash24, METH_FASTCALL,
     "siphash24(k0, k1, data) -> SipHash-2-4 of the bytes data under the key (k0, k1)"},
    {"layout", py_layout, METH_NOARGS, "layout() -> the records' sizes and fields"},
    {"constants", py_constants, METH_NOARGS, "constants() -> the codes shared with kernel.py"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_core", "The compiled core of dominosim's batch engine.", -1, methods,
    NULL, NULL, NULL, NULL,
};

/* module.attr = a tuple of the names; -1 on failure */
static int add_names(PyObject *m, const char *attr, const char *const *names, int n) {
    PyObject *t = name_tuple(names, n);
    if (!t || PyModule_AddObject(m, attr, t) < 0) { /* (steals t on success only) */
        Py_XDECREF(t);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__core(void) {
    core_init_tables();
    if (init_advance_names() < 0) return NULL;
    if (seat_source_init() < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (seat_source_add(m) < 0 ||
        add_names(m, "KNOBS", KNOB_NAMES, K_COUNT) < 0 ||
        add_names(m, "POLICIES", POLICY_NAMES, POL_COUNT) < 0 ||
        add_names(m, "HREC", HREC_NAMES, HREC_HEAD) < 0 ||
        add_names(m, "MREC", MREC_NAMES, MREC_HEAD) < 0 || add_advance_table(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
