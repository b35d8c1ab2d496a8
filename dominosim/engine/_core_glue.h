/* What the two files of the CPython glue share: _core_glue.c (the module dominosim.engine._core,
 * its buffer checks) and _core_seat.c (the batch Observation's functions and SeatSource, the
 * points of placements, the solver's solve_actions).
 * Include after <Python.h> (with Py_LIMITED_API defined) and "_core.h".
 */
#ifndef DOMINOSIM_CORE_GLUE_H
#define DOMINOSIM_CORE_GLUE_H

/* an argument's buffer; held: whether it must be released */
typedef struct {
    Py_buffer view;
    int held;
} Buf;

/* the kinds of items a buffer may hold (K_RECORD: any record of the asked size) */
enum { K_INT = 'i', K_UINT = 'u', K_FLOAT = 'f', K_RECORD = 'V' };

/* Take argument `name` as a C-contiguous buffer of items of `itemsize` bytes and `kind`,
 * `ndim` dimensions (-1: any), writable if asked; -1 (a ValueError set) if it is not one. */
int glue_take(Buf *b, PyObject *obj, const char *name, Py_ssize_t itemsize, int kind, int ndim,
              int writable);
/* release the held buffers of bufs[0..n) */
void glue_release(Buf *bufs, int n);
/* set a ValueError "_core: what"; -1 */
int glue_bad(const char *what);

/* _core_glue.c: the rules' knobs of R into *r; -1 (an error set) if they are not valid */
int read_rules(PyObject *obj, Rules *r);
/* _core_glue.c: a seats' policy table (kernel.policy_table) in range; -1 (a ValueError) if not */
int check_policy_table(const Buf *b);

static inline Py_ssize_t items(const Buf *b) { return b->view.len / b->view.itemsize; }
static inline Py_ssize_t dim(const Buf *b, int k) { return b->view.shape[k]; }

/* _core_seat.c: the module's functions seat_history, gather_fields and seat_source */
PyObject *py_seat_history(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_gather_fields(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_seat_source(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* and the in-play points of placements, legal_points and points_row */
PyObject *py_legal_points(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_points_row(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* the solver's solve_actions (every legal action's value at each position's decision) */
PyObject *py_solve_actions(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* make the SeatSource type (before the module); -1 (an error set) on failure */
int seat_source_init(void);
/* add the SeatSource type to module m; -1 (an error set) on failure */
int seat_source_add(PyObject *m);

#endif
