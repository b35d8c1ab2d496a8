/* The batch Observation's side of the CPython module dominosim.engine._core (the module itself
 * is _core_glue.c): seat_history and gather_fields, and the SeatSource type, where a batch
 * Observation reads its public fields and its history on first access; and the in-play points
 * of placements (legal_points, points_row, SeatSource.points) read from a batch's fields or a
 * decision's row; and the solver's solve_actions. Arrays arrive through the
 * buffer protocol, checked by _core_glue.c's glue_take; only CPython 3.11's stable ABI is used.
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

/* seat_history(hist, g, seats, face_up_doubles, out): Observation.history per decision
 * (hist [slots, H] uint16, g and seats [n] int64, out [n, W] uint16) */
PyObject *py_seat_history(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 5) return PyErr_Format(PyExc_TypeError, "seat_history takes 5 arguments");
    int face_up = PyObject_IsTrue(args[3]);
    if (face_up < 0) return NULL;
    Buf b[4];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[0], "hist", 2, K_UINT, 2, 0) < 0 ||
        glue_take(&b[1], args[1], "g", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[2], args[2], "seats", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[3], args[4], "out", 2, K_UINT, 2, 1) < 0) {
        glue_release(b, 4);
        return NULL;
    }
    int64_t n = dim(&b[3], 0);
    if (items(&b[1]) != n || items(&b[2]) != n || dim(&b[0], 1) < 1 || dim(&b[3], 1) < 1) {
        glue_release(b, 4);
        return PyErr_Format(PyExc_ValueError, "_core: seat_history's arrays must have one row per decision");
    }
    int err = core_seat_history((const uint16_t *)b[0].view.buf, dim(&b[0], 0), dim(&b[0], 1),
                                (const int64_t *)b[1].view.buf, (const int64_t *)b[2].view.buf,
                                face_up, n, dim(&b[3], 1), (uint16_t *)b[3].view.buf);
    glue_release(b, 4);
    if (err) return PyErr_Format(PyExc_ValueError, "_core: seat_history: a slot, a seat or a count out of range");
    Py_RETURN_NONE;
}

/* gather_fields(records, g, offsets, widths, out): out[i, k] = the int64 (width 8) or int8
 * (width 1) at byte offsets[k] of record g[i] of records ([nrec, size] uint8) */
PyObject *py_gather_fields(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 5) return PyErr_Format(PyExc_TypeError, "gather_fields takes 5 arguments");
    Buf b[5];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[0], "records", 1, K_UINT, 2, 0) < 0 ||
        glue_take(&b[1], args[1], "g", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[2], args[2], "offsets", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[3], args[3], "widths", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[4], args[4], "out", 8, K_INT, 2, 1) < 0) {
        glue_release(b, 5);
        return NULL;
    }
    int64_t n = dim(&b[4], 0), K = dim(&b[4], 1);
    if (items(&b[1]) != n || items(&b[2]) != K || items(&b[3]) != K) {
        glue_release(b, 5);
        return PyErr_Format(PyExc_ValueError, "_core: gather_fields: out must be [len(g), len(offsets)]");
    }
    int err = core_gather_fields((const uint8_t *)b[0].view.buf, dim(&b[0], 0), dim(&b[0], 1),
                                 (const int64_t *)b[1].view.buf, n, (const int64_t *)b[2].view.buf,
                                 (const int64_t *)b[3].view.buf, K, (int64_t *)b[4].view.buf);
    glue_release(b, 5);
    if (err) return PyErr_Format(PyExc_ValueError, "_core: gather_fields: a slot, an offset or a width out of range");
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------------
 * SeatSource: where a batch Observation reads its public fields and its history on first
 * access (observe.py). It holds the engine's slot records and history rows (buffers: no Python
 * reference the garbage collector, or a strategy, can follow), the asked slots and seats, and
 * which fields to gather; it gives out only what the seats may see (a hand only as its tile
 * count, GF_COUNT). Closed (the buffers released) when the strategy's choose returns: after
 * that every read is refused, so no later state is ever read for an earlier decision.
 * ---------------------------------------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    Buf rec;  /* the slot records [nrec, size] uint8 */
    Buf hist; /* the history rows [slots, H] uint16 (held == 0: none kept) */
    int64_t *g, *seats, *offs, *widths; /* [n], [n], [K], [K]: the source's own copies */
    int64_t n, K;
    int face_up, open;
} Source;

static PyTypeObject *SourceType;

static void source_close(Source *s) {
    glue_release(&s->rec, 1);
    glue_release(&s->hist, 1);
    s->rec.held = s->hist.held = 0;
    s->open = 0;
}

static void source_dealloc(PyObject *self) {
    Source *s = (Source *)self;
    source_close(s);
    PyMem_Free(s->g);
    PyMem_Free(s->seats);
    PyMem_Free(s->offs);
    PyMem_Free(s->widths);
    PyTypeObject *tp = Py_TYPE(self);
    freefunc free_self = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    free_self(self);
    Py_DECREF(tp);
}

/* a new closed Source with room for n slots and K fields (its arrays zeroed), or NULL */
static Source *source_new(int64_t n, int64_t K) {
    allocfunc alloc = (allocfunc)PyType_GetSlot(SourceType, Py_tp_alloc);
    Source *s = (Source *)alloc(SourceType, 0);
    if (!s) return NULL;
    s->n = n;
    s->K = K;
    s->g = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int64_t));
    s->seats = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int64_t));
    s->offs = PyMem_Calloc((size_t)(K ? K : 1), sizeof(int64_t));
    s->widths = PyMem_Calloc((size_t)(K ? K : 1), sizeof(int64_t));
    if (!s->g || !s->seats || !s->offs || !s->widths) {
        Py_DECREF(s);
        return (Source *)PyErr_NoMemory();
    }
    return s;
}

/* hold the buffers of records and hist (None: no history) for s; -1 on error */
static int source_hold(Source *s, PyObject *records, PyObject *hist) {
    if (glue_take(&s->rec, records, "records", 1, K_UINT, 2, 0) < 0) return -1;
    if (hist != Py_None && glue_take(&s->hist, hist, "hist", 2, K_UINT, 2, 0) < 0) return -1;
    if (s->hist.held && dim(&s->hist, 1) < 1) return glue_bad("seat_source: hist has no columns");
    s->open = 1;
    return 0;
}

/* the slots, seats and fields are in range (the records' rows; a seat below EV_NO_SEAT; the
 * widths and offsets as core_gather_fields takes them); -1 (an error set) if not */
static int source_check(Source *s) {
    for (int64_t i = 0; i < s->n; i++)
        if (s->g[i] < 0 || s->g[i] >= dim(&s->rec, 0) || s->seats[i] < 0 ||
            s->seats[i] >= EV_NO_SEAT || (s->hist.held && s->g[i] >= dim(&s->hist, 0)))
            return glue_bad("seat_source: a slot or a seat out of range");
    int64_t none = 0;
    if (core_gather_fields((const uint8_t *)s->rec.view.buf, dim(&s->rec, 0), dim(&s->rec, 1),
                           &none, 0, s->offs, s->widths, s->K, NULL))
        return glue_bad("seat_source: an offset or a width out of range");
    return 0;
}

/* copy buffer b's n int64 items into dst */
static void copy_items(int64_t *dst, const Buf *b, int64_t n) {
    if (n) memcpy(dst, b->view.buf, (size_t)n * sizeof(int64_t));
}

/* seat_source(records, g, seats, offsets, widths, hist, face_up_doubles) -> a SeatSource */
PyObject *py_seat_source(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 7) return PyErr_Format(PyExc_TypeError, "seat_source takes 7 arguments");
    int face_up = PyObject_IsTrue(args[6]);
    if (face_up < 0) return NULL;
    Buf b[4];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[1], "g", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[1], args[2], "seats", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[2], args[3], "offsets", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[3], args[4], "widths", 8, K_INT, 1, 0) < 0) {
        glue_release(b, 4);
        return NULL;
    }
    int64_t n = items(&b[0]), K = items(&b[2]);
    Source *s = NULL;
    if (items(&b[1]) != n || items(&b[3]) != K) {
        glue_bad("seat_source: one seat per slot, one width per offset");
    } else if ((s = source_new(n, K)) != NULL) {
        copy_items(s->g, &b[0], n);
        copy_items(s->seats, &b[1], n);
        copy_items(s->offs, &b[2], K);
        copy_items(s->widths, &b[3], K);
        s->face_up = face_up;
        if (source_hold(s, args[0], args[5]) < 0 || source_check(s) < 0) Py_CLEAR(s);
    }
    glue_release(b, 4);
    return (PyObject *)s;
}

static int source_open(Source *s) {
    if (s->open) return 0;
    PyErr_SetString(PyExc_ValueError, "_core: the seat source is closed");
    return -1;
}

/* fields(out): out [n, K] int64, the gathered fields */
static PyObject *source_fields(PyObject *self, PyObject *out_obj) {
    Source *s = (Source *)self;
    if (source_open(s) < 0) return NULL;
    Buf out = {0};
    if (glue_take(&out, out_obj, "out", 8, K_INT, 2, 1) < 0) {
        glue_release(&out, 1);
        return NULL;
    }
    int err = dim(&out, 0) != s->n || dim(&out, 1) != s->K;
    if (!err)
        err = core_gather_fields((const uint8_t *)s->rec.view.buf, dim(&s->rec, 0),
                                 dim(&s->rec, 1), s->g, s->n, s->offs, s->widths, s->K,
                                 (int64_t *)out.view.buf);
    glue_release(&out, 1);
    if (err) return PyErr_Format(PyExc_ValueError, "_core: fields: out must be [n, K]");
    Py_RETURN_NONE;
}

/* history_width() -> the longest history count of the slots (0: none kept) */
static PyObject *source_history_width(PyObject *self, PyObject *unused) {
    (void)unused;
    Source *s = (Source *)self;
    if (source_open(s) < 0) return NULL;
    long long most = 0;
    const uint16_t *h = s->hist.held ? (const uint16_t *)s->hist.view.buf : NULL;
    int64_t H = s->hist.held ? dim(&s->hist, 1) : 0;
    for (int64_t i = 0; h && i < s->n; i++)
        if (h[s->g[i] * H] > most) most = h[s->g[i] * H];
    return PyLong_FromLongLong(most);
}

/* history(out): out [n, W] uint16, each slot's history as its seat sees it (seat_history) */
static PyObject *source_history(PyObject *self, PyObject *out_obj) {
    Source *s = (Source *)self;
    if (source_open(s) < 0) return NULL;
    Buf out = {0};
    if (glue_take(&out, out_obj, "out", 2, K_UINT, 2, 1) < 0) {
        glue_release(&out, 1);
        return NULL;
    }
    int64_t W = dim(&out, 1);
    int err = dim(&out, 0) != s->n || W < 1;
    if (!err && s->hist.held)
        err = core_seat_history((const uint16_t *)s->hist.view.buf, dim(&s->hist, 0),
                                dim(&s->hist, 1), s->g, s->seats, s->face_up, s->n, W,
                                (uint16_t *)out.view.buf);
    else if (!err)
        memset(out.view.buf, 0, (size_t)out.view.len);
    glue_release(&out, 1);
    if (err) return PyErr_Format(PyExc_ValueError, "_core: history: out must be [n, W], W above every count");
    Py_RETURN_NONE;
}

/* take(rows) -> a SeatSource of the slots rows ([m] int64, each below n), open where this one
 * is: the same records, history and fields */
static PyObject *source_take(PyObject *self, PyObject *rows_obj) {
    Source *s = (Source *)self;
    Buf rows = {0};
    if (glue_take(&rows, rows_obj, "rows", 8, K_INT, 1, 0) < 0) {
        glue_release(&rows, 1);
        return NULL;
    }
    int64_t m = items(&rows);
    const int64_t *r = (const int64_t *)rows.view.buf;
    Source *t = NULL;
    for (int64_t i = 0; i < m; i++)
        if (r[i] < 0 || r[i] >= s->n) {
            glue_release(&rows, 1);
            return PyErr_Format(PyExc_IndexError, "_core: take: a row out of range");
        }
    if ((t = source_new(m, s->K)) != NULL) {
        for (int64_t i = 0; i < m; i++) {
            t->g[i] = s->g[r[i]];
            t->seats[i] = s->seats[r[i]];
        }
        if (s->K) memcpy(t->offs, s->offs, (size_t)s->K * sizeof(int64_t));
        if (s->K) memcpy(t->widths, s->widths, (size_t)s->K * sizeof(int64_t));
        t->face_up = s->face_up;
        PyObject *hist = s->hist.held ? s->hist.view.obj : Py_None;
        if (s->open && source_hold(t, s->rec.view.obj, hist) < 0) Py_CLEAR(t);
    }
    glue_release(&rows, 1);
    return (PyObject *)t;
}

#define PT_AHEAD 12 /* the slot whose record is prefetched: this many rows ahead */

/* the lines of the points' fields of the record of row i (a hint only) */
static void prefetch_points(const Source *s, int64_t i, const int64_t *offs, int64_t m) {
    if (i >= s->n || s->g[i] < 0 || s->g[i] >= dim(&s->rec, 0)) return;
    const uint8_t *rec = (const uint8_t *)s->rec.view.buf + s->g[i] * dim(&s->rec, 1);
    for (int64_t k = 0; k < m; k++) DS_PREFETCH(rec + offs[k]);
}

/* LegalArrays.points of each decision (act and out rows of W), its ends gathered from its
 * slot's record: cols, the source's columns of doubles (K), along (K), spinner, covered and
 * table (read only where no position is open: the lead); values its own [n, K]. Returns 1
 * on a column or a value out of range, 2 on a placement off the open ends
 * (core_legal_points). */
static int source_points_rows(Source *s, const int64_t *values, int64_t K, const int64_t *cols,
                              int how, const int64_t *act, int64_t W, int64_t *out) {
    int64_t offs[15], widths[15], got[15], m = 2 * K + 3;
    for (int64_t k = 0; k < m; k++) {
        if (cols[k] < 0 || cols[k] >= s->K) return 1;
        offs[k] = s->offs[cols[k]];
        widths[k] = s->widths[cols[k]];
    }
    const uint8_t *rec = (const uint8_t *)s->rec.view.buf;
    int64_t nrec = dim(&s->rec, 0), size = dim(&s->rec, 1);
    for (int64_t i = 0; i < s->n; i++) {
        const int64_t *v = values + i * K;
        prefetch_points(s, i + PT_AHEAD, offs, m - 1);
        int lead = 1;
        for (int64_t k = 0; k < K; k++) lead &= v[k] < 0;
        got[m - 1] = 1; /* (the table: not empty, unless read below) */
        if (core_gather_fields(rec, nrec, size, &s->g[i], 1, offs, widths, m - 1, got) ||
            (lead && core_gather_fields(rec, nrec, size, &s->g[i], 1, offs + m - 1,
                                        widths + m - 1, 1, got + m - 1)))
            return 1;
        int8_t d[6], a[6];
        for (int64_t k = 0; k < K; k++) {
            d[k] = got[k] != 0;
            a[k] = got[K + k] != 0;
        }
        PointsIn in = {v, d, a, K, &got[2 * K], &got[2 * K + 1], &got[2 * K + 2], how};
        int err = core_legal_points(&in, act + i * W, 1, W, out + i * W);
        if (err) return err;
    }
    return 0;
}

/* points(values, cols, how, act, out): LegalArrays.points read from the records (values
 * [n, K], act and out [n, W] int64; cols [2K + 3] int64, source_points_rows) */
static PyObject *source_points(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Source *s = (Source *)self;
    if (nargs != 5) return PyErr_Format(PyExc_TypeError, "points takes 5 arguments");
    if (source_open(s) < 0) return NULL;
    long how = PyLong_AsLong(args[2]);
    if (how == -1 && PyErr_Occurred()) return NULL;
    Buf b[4];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[0], "values", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[1], args[1], "cols", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[2], args[3], "act", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[3], args[4], "out", 8, K_INT, 2, 1) < 0) {
        glue_release(b, 4);
        return NULL;
    }
    int64_t K = dim(&b[0], 1), W = dim(&b[2], 1);
    int err = dim(&b[0], 0) != s->n || K < 1 || K > 6 || items(&b[1]) != 2 * K + 3 ||
              dim(&b[2], 0) != s->n || dim(&b[3], 0) != s->n || dim(&b[3], 1) != W ||
              how < 0 || how > 0x7fff;
    if (!err)
        err = source_points_rows(s, (const int64_t *)b[0].view.buf, K,
                                 (const int64_t *)b[1].view.buf, (int)how,
                                 (const int64_t *)b[2].view.buf, W, (int64_t *)b[3].view.buf);
    glue_release(b, 4);
    if (err == 2) return PyErr_Format(PyExc_ValueError, "_core: points: a legal placement off the open ends");
    if (err) return PyErr_Format(PyExc_ValueError, "_core: points: a shape, a column or a value out of range");
    Py_RETURN_NONE;
}

static PyObject *source_close_py(PyObject *self, PyObject *unused) {
    (void)unused;
    source_close((Source *)self);
    Py_RETURN_NONE;
}

static PyObject *source_closed(PyObject *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(!((Source *)self)->open);
}

static PyMethodDef source_methods[] = {
    {"fields", source_fields, METH_O, "fields(out): out [n, K] int64, the gathered fields"},
    {"history_width", source_history_width, METH_NOARGS,
     "history_width() -> the longest history count of the slots (0: none kept)"},
    {"history", source_history, METH_O,
     "history(out): out [n, W] uint16, each slot's history as its seat sees it"},
    {"take", source_take, METH_O, "take(rows) -> a SeatSource of these rows"},
    {"points", (PyCFunction)(void (*)(void))source_points, METH_FASTCALL,
     "points(values, cols, how, act, out): LegalArrays.points, the ends read from the records"},
    {"close", source_close_py, METH_NOARGS, "close(): release the engine's arrays; reads refused"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef source_getset[] = {
    {"closed", source_closed, NULL, "whether reads are refused", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot source_slots[] = {
    {Py_tp_dealloc, (void *)source_dealloc},
    {Py_tp_methods, source_methods},
    {Py_tp_getset, source_getset},
    {Py_tp_doc, "Where a batch Observation reads its fields on first access (seat_source)."},
    {0, NULL},
};

static PyType_Spec source_spec = {
    "dominosim.engine._core.SeatSource", sizeof(Source), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, source_slots,
};

int seat_source_init(void) {
    SourceType = (PyTypeObject *)PyType_FromSpec(&source_spec);
    return SourceType ? 0 : -1;
}

int seat_source_add(PyObject *m) {
    Py_INCREF((PyObject *)SourceType);
    /* (PyModule_AddObject steals the reference on success only) */
    if (PyModule_AddObject(m, "SeatSource", (PyObject *)SourceType) < 0) {
        Py_DECREF(SourceType);
        return -1;
    }
    return 0;
}

/* ---- in-play points (scoring.placement_points): legal_points and points_row -------------- */
enum { PI_VALUES, PI_DOUBLES, PI_ALONG, PI_SPINNER, PI_COVERED, PI_TABLE, PI_OUT, PI_COUNT };

/* the decisions' ends (args[0..6): values, doubles, along, spinner, covered, table, how) into
 * in and b[0..6), out (int64) into b[PI_OUT]; n the decisions; -1 with an error set (the
 * buffers held so far are released by the caller) */
static int take_points_in(Buf *b, PyObject *const *args, PyObject *out, PointsIn *in,
                          int64_t *n) {
    long how = PyLong_AsLong(args[6]);
    if (how == -1 && PyErr_Occurred()) return -1;
    if (how < 0 || how > 0x7fff) return glue_bad("points: how out of range");
    if (glue_take(&b[PI_VALUES], args[0], "values", 8, K_INT, 2, 0) < 0 ||
        glue_take(&b[PI_DOUBLES], args[1], "doubles", 1, K_INT, 2, 0) < 0 ||
        glue_take(&b[PI_ALONG], args[2], "along", 1, K_INT, 2, 0) < 0 ||
        glue_take(&b[PI_SPINNER], args[3], "spinner", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[PI_COVERED], args[4], "covered", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[PI_TABLE], args[5], "table", 8, K_INT, 1, 0) < 0 ||
        glue_take(&b[PI_OUT], out, "out", 8, K_INT, 2, 1) < 0)
        return -1;
    *n = dim(&b[PI_VALUES], 0);
    int64_t K = dim(&b[PI_VALUES], 1);
    int shapes = dim(&b[PI_DOUBLES], 0) == *n && dim(&b[PI_DOUBLES], 1) == K &&
                 dim(&b[PI_ALONG], 0) == *n && dim(&b[PI_ALONG], 1) == K &&
                 items(&b[PI_SPINNER]) == *n && items(&b[PI_COVERED]) == *n &&
                 items(&b[PI_TABLE]) == *n && dim(&b[PI_OUT], 0) == *n;
    if (!shapes) return glue_bad("the points' arrays must have one row per decision");
    PointsIn got = {(const int64_t *)b[PI_VALUES].view.buf, (const int8_t *)b[PI_DOUBLES].view.buf,
                    (const int8_t *)b[PI_ALONG].view.buf, K,
                    (const int64_t *)b[PI_SPINNER].view.buf, (const int64_t *)b[PI_COVERED].view.buf,
                    (const int64_t *)b[PI_TABLE].view.buf, (int)how};
    *in = got;
    return 0;
}

/* legal_points(values, doubles, along, spinner, covered, table, how, act, out): LegalArrays.
 * points (values, act and out [n, K] / [n, W] int64; doubles and along [n, K] int8; spinner,
 * covered, table [n] int64; how: the scoring and its options, kernel.points_how) */
PyObject *py_legal_points(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 9) return PyErr_Format(PyExc_TypeError, "legal_points takes 9 arguments");
    Buf b[PI_COUNT + 1];
    memset(b, 0, sizeof b);
    PointsIn in;
    int64_t n = 0;
    if (take_points_in(b, args, args[8], &in, &n) < 0 ||
        glue_take(&b[PI_COUNT], args[7], "act", 8, K_INT, 2, 0) < 0 ||
        ((dim(&b[PI_COUNT], 0) != n || dim(&b[PI_COUNT], 1) != dim(&b[PI_OUT], 1)) &&
         glue_bad("legal_points: act and out must have the same shape"))) {
        glue_release(b, PI_COUNT + 1);
        return NULL;
    }
    int err = core_legal_points(&in, (const int64_t *)b[PI_COUNT].view.buf, n,
                                dim(&b[PI_OUT], 1), (int64_t *)b[PI_OUT].view.buf);
    glue_release(b, PI_COUNT + 1);
    if (err == 2) return PyErr_Format(PyExc_ValueError, "_core: legal_points: a legal placement off the open ends");
    if (err) return PyErr_Format(PyExc_ValueError, "_core: legal_points: a value out of range");
    Py_RETURN_NONE;
}

/* the int64 at column col of a row of `size` bytes (memcpy: the bytes need not be aligned);
 * -1 (an error set) when the column lies past the row */
static int row_int(const char *row, Py_ssize_t size, long long col, int64_t *x) {
    if (col < 0 || col > (long long)(size / 8) - 1) return glue_bad("points_row: a column past the row");
    memcpy(x, row + 8 * col, sizeof *x);
    return 0;
}

enum { PR_HOW, PR_K, PR_VALUES, PR_DOUBLES, PR_ALONG, PR_SPINNER, PR_COVERED, PR_TABLE, PR_ARGS };

/* one decision's ends read from its row (args[1..]: how, K and the columns) into the arrays
 * of in; -1 with an error set */
static int row_points_in(const char *row, Py_ssize_t size, PyObject *const *args,
                         PointsIn *in, int64_t *v, int8_t *d, int8_t *a, int64_t *one) {
    long long x[PR_ARGS];
    for (int k = 0; k < PR_ARGS; k++)
        if ((x[k] = PyLong_AsLongLong(args[1 + k])) == -1 && PyErr_Occurred()) return -1;
    if (x[PR_HOW] < 0 || x[PR_HOW] > 0x7fff || x[PR_K] < 1 || x[PR_K] > 6)
        return glue_bad("points_row: how or K out of range");
    for (long long k = 0; k < x[PR_K]; k++) {
        int64_t dk = 0, ak = 0;
        if (row_int(row, size, x[PR_VALUES] + k, &v[k]) < 0 ||
            row_int(row, size, x[PR_DOUBLES] + k, &dk) < 0 ||
            row_int(row, size, x[PR_ALONG] + k, &ak) < 0)
            return -1;
        d[k] = dk != 0;
        a[k] = ak != 0;
    }
    if (row_int(row, size, x[PR_SPINNER], &one[0]) < 0 ||
        row_int(row, size, x[PR_COVERED], &one[1]) < 0 || row_int(row, size, x[PR_TABLE], &one[2]) < 0)
        return -1;
    PointsIn got = {v, d, a, x[PR_K], &one[0], &one[1], &one[2], (int)x[PR_HOW]};
    *in = got;
    return 0;
}

/* points_row(row, how, K, values, doubles, along, spinner, covered, table) -> bytes: a
 * per-decision Observation's points table (core_points_tables' row) from its row of int64 columns
 * (the column of each field: values, doubles, along the first of K) */
PyObject *py_points_row(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 1 + PR_ARGS) return PyErr_Format(PyExc_TypeError, "points_row takes 9 arguments");
    char *row;
    Py_ssize_t size;
    if (PyBytes_AsStringAndSize(args[0], &row, &size) < 0) return NULL;
    PointsIn in;
    int64_t v[6], one[3];
    int8_t d[6], a[6];
    if (row_points_in(row, size, args, &in, v, d, a, one) < 0) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, A_DRAW);
    if (!out) return NULL;
    if (core_points_tables(&in, 1, (uint8_t *)PyBytes_AsString(out))) {
        Py_DECREF(out);
        return PyErr_Format(PyExc_ValueError, "_core: points_row: a value out of range");
    }
    return out;
}

/* ------------------------------------------------------------------------------------------
 * the solver's actions: solve_actions
 * ---------------------------------------------------------------------------------------- */
/* the solver's policy table (solve_actions): a policy table (check_policy_table) whose
 * policies are ranked (random reads a decision's key, which a search has not) */
static int check_solver_policy(const Buf *b) {
    if (check_policy_table(b) < 0) return -1;
    const int64_t *p = (const int64_t *)b->view.buf;
    for (int s = 0; s < 4; s++)
        if (p[s] == POL_random) return glue_bad("policy: the solver cannot model a seat as random");
    return 0;
}

/* solve_actions(R, st, bst, budget, acts, vals, count, policy): every legal action's value at
 * each position's decision, for the seat to move; acts and vals [n, SV_ACTS], count [n];
 * policy: a policy table (kernel.policy_table) of the seats the search models (Search.policy) */
PyObject *py_solve_actions(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 8) return PyErr_Format(PyExc_TypeError, "solve_actions takes 8 arguments");
    Rules r;
    if (read_rules(args[0], &r) < 0) return NULL;
    int64_t budget = PyLong_AsLongLong(args[3]);
    if (budget == -1 && PyErr_Occurred()) return NULL;
    if (budget < 1) return PyErr_Format(PyExc_ValueError, "_core: solve's budget must be >= 1");
    Buf b[6];
    memset(b, 0, sizeof b);
    if (glue_take(&b[0], args[1], "st", sizeof(Slot), K_RECORD, 1, 0) < 0 ||
        glue_take(&b[1], args[2], "bst", sizeof(BSlot), K_RECORD, 1, 0) < 0 ||
        glue_take(&b[2], args[4], "acts", 8, K_INT, 2, 1) < 0 ||
        glue_take(&b[3], args[5], "vals", 8, K_INT, 2, 1) < 0 ||
        glue_take(&b[4], args[6], "count", 8, K_INT, 1, 1) < 0 ||
        glue_take(&b[5], args[7], "policy", 8, K_INT, 1, 0) < 0 || check_solver_policy(&b[5]) < 0) {
        glue_release(b, 6);
        return NULL;
    }
    int64_t n = items(&b[0]);
    if (items(&b[1]) < (r.blind ? n : 1) || items(&b[4]) != n || dim(&b[2], 0) != n ||
        dim(&b[2], 1) != SV_ACTS || dim(&b[3], 0) != n || dim(&b[3], 1) != SV_ACTS) {
        glue_release(b, 6);
        return PyErr_Format(PyExc_ValueError,
                            "_core: solve_actions' arrays must have one row per position");
    }
    int64_t res;
    Py_BEGIN_ALLOW_THREADS
    res = core_solve_actions(&r, (const Slot *)b[0].view.buf, (const BSlot *)b[1].view.buf, n,
                             budget, (const int64_t *)b[5].view.buf, (int64_t *)b[2].view.buf,
                             (int64_t *)b[3].view.buf, (int64_t *)b[4].view.buf);
    Py_END_ALLOW_THREADS
    glue_release(b, 6);
    if (res == -2) return PyErr_NoMemory();
    if (res >= 0)
        return PyErr_Format(PyExc_ValueError, "_core: solve_actions: position %lld is out of "
                            "range (a seat, tile, value, phase or row)", (long long)res);
    Py_RETURN_NONE;
}
