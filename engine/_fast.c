/* engine._fast: the per-position calls of the Python API (decode an ID,
 * evaluate, decide) as plain CPython functions.
 *
 * Why a second extension: a cffi call costs ~0.25 us plus ~0.05 us per
 * argument and per output read back, as much as the C work of one 0-ply
 * evaluation. These functions take Python objects and return Python objects
 * in one call. They hold no engine code: engine/native.py hands them the
 * addresses of engine._core's functions (bind), so there is one engine.
 * Built against the stable ABI (3.11), like engine._core. */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLAYS 4096
#define MOVE_SIZE 13 /* bg_move: src[4], dst[4], hit[4], n_steps (checked in bind) */

typedef int (*ids_fn)(const char *ids, int n, char *boards8);
typedef int (*eval_fn)(const void *engine, void *cache, const char *boards, int n, float *out,
                       int *classes);
typedef int (*cube_fn)(const void *engine, void *cache, const char *board8, const void *settings,
                       const void *ci, float *out4, float *probs, float *precheck, float *info3);
typedef int (*best_fn)(const void *engine, void *cache, const char *board8, int die1, int die2,
                       const void *settings, const void *ci, void *moves, unsigned int *results,
                       float *equity, float *equity2, float *probs, int *plies, int max);

static ids_fn decode_ids;
static eval_fn evaluate_boards;
static cube_fn cube_decide;
static best_fn best_move;
/* the named tuples returned: engine.probabilities.Probabilities, engine.cube.CubeEquities */
static PyObject *probabilities_type, *equities_type;
static allocfunc probabilities_alloc, equities_alloc;

static void *address(PyObject *o) { return PyLong_AsVoidPtr(o); }

/* bind(ids, evaluate, cube, best, Probabilities, CubeEquities, move_size) */
static PyObject *bind(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    (void)self;
    if (n != 7)
        return PyErr_Format(PyExc_TypeError, "bind takes 7 arguments");
    if (PyLong_AsLong(args[6]) != MOVE_SIZE)
        return PyErr_Format(PyExc_RuntimeError, "bg_move is not %d bytes", MOVE_SIZE);
    decode_ids = (ids_fn)address(args[0]);
    evaluate_boards = (eval_fn)address(args[1]);
    cube_decide = (cube_fn)address(args[2]);
    best_move = (best_fn)address(args[3]);
    if (PyErr_Occurred())
        return NULL;
    Py_XDECREF(probabilities_type);
    Py_XDECREF(equities_type);
    probabilities_type = Py_NewRef(args[4]);
    equities_type = Py_NewRef(args[5]);
    probabilities_alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)args[4], Py_tp_alloc);
    equities_alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)args[5], Py_tp_alloc);
    Py_RETURN_NONE;
}

/* The 50-byte key of a bytes argument, or NULL (TypeError/ValueError set). */
static const char *key_arg(PyObject *o)
{
    char *s;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(o, &s, &len) < 0)
        return NULL;
    if (len != 50) {
        PyErr_SetString(PyExc_ValueError, "a board key is 50 bytes");
        return NULL;
    }
    return s;
}

/* key_from_id(id) -> the 50-byte key of a valid 14-character position ID, else None */
static PyObject *key_from_id(PyObject *self, PyObject *id)
{
    (void)self;
    Py_ssize_t len;
    const char *s = PyUnicode_Check(id) ? PyUnicode_AsUTF8AndSize(id, &len) : NULL;
    if (!s) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    char key[50];
    if (len != 14 || decode_ids(s, 1, key))
        Py_RETURN_NONE;
    return PyBytes_FromStringAndSize(key, 50);
}

/* n floats as an instance of a tuple subclass (a named tuple). */
static PyObject *floats(PyObject *type, allocfunc alloc, const float *p, int n)
{
    PyObject *t = alloc((PyTypeObject *)type, n);
    if (!t)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *f = PyFloat_FromDouble(p[i]);
        if (!f || PyTuple_SetItem(t, i, f) < 0) {
            Py_DECREF(t);
            return NULL;
        }
    }
    return t;
}

/* The arguments every engine call starts with: (engine, cache, key, ...), want of
 * them in all. Returns the key, or NULL with the error set. */
static const char *engine_args(PyObject *const *args, Py_ssize_t n, Py_ssize_t want, const char *name,
                               void **engine, void **cache)
{
    if (n != want) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments", name, want);
        return NULL;
    }
    *engine = address(args[0]);
    *cache = address(args[1]);
    const char *key = key_arg(args[2]);
    return key && !PyErr_Occurred() ? key : NULL;
}

/* evaluate(engine, cache, key) -> Probabilities, or None if a side has over 15 chequers */
static PyObject *evaluate(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    (void)self;
    void *engine, *cache;
    const char *key = engine_args(args, n, 3, "evaluate", &engine, &cache);
    if (!key)
        return NULL;
    float out[5];
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = evaluate_boards(engine, cache, key, 1, out, NULL);
    Py_END_ALLOW_THREADS
    if (rc)
        Py_RETURN_NONE;
    return floats(probabilities_type, probabilities_alloc, out, 5);
}

/* cube(engine, cache, key, settings, cubeinfo) -> (code, optimal, CubeEquities(no
 * double, double/take, double/pass), precheck win, available, double point,
 * beavers); a negative code (an error) with None for the rest */
static PyObject *cube(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    (void)self;
    void *engine, *cache;
    const char *key = engine_args(args, n, 5, "cube", &engine, &cache);
    if (!key)
        return NULL;
    void *settings = address(args[3]), *ci = address(args[4]);
    if (PyErr_Occurred())
        return NULL;
    float out[4], probs[5], pre[5], info[3];
    int code;
    Py_BEGIN_ALLOW_THREADS
    code = cube_decide(engine, cache, key, settings, ci, out, probs, pre, info);
    Py_END_ALLOW_THREADS
    if (code < 0)
        return Py_BuildValue("(iOOOOOO)", code, Py_None, Py_None, Py_None, Py_None, Py_None, Py_None);
    PyObject *equities = floats(equities_type, equities_alloc, out + 1, 3);
    PyObject *r = equities ? PyTuple_New(7) : NULL;
    if (!r) {
        Py_XDECREF(equities);
        return NULL;
    }
    const double rest[5] = {out[0], pre[0], info[0], info[1], info[2]};
    PyTuple_SetItem(r, 0, PyLong_FromLong(code));
    PyTuple_SetItem(r, 1, PyFloat_FromDouble(rest[0]));
    PyTuple_SetItem(r, 2, equities);
    for (int i = 1; i < 5; i++)
        PyTuple_SetItem(r, 2 + i, PyFloat_FromDouble(rest[i]));
    return r;
}

/* This thread's output arrays of a search (a search keeps up to MAX_PLAYS). */
typedef struct {
    unsigned char moves[MAX_PLAYS * MOVE_SIZE];
    unsigned int results[MAX_PLAYS * 50];
    float equity[MAX_PLAYS], equity2[MAX_PLAYS], probs[MAX_PLAYS * 5];
    int plies[MAX_PLAYS];
} search_out;

/* One per thread, freed when the thread ends (a bot may start many threads). */
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_key_init(void) { (void)pthread_key_create(&scratch_key, free); }

static search_out *thread_scratch(void)
{
    pthread_once(&scratch_once, scratch_key_init);
    search_out *s = pthread_getspecific(scratch_key);
    if (!s && (s = malloc(sizeof *s)) && pthread_setspecific(scratch_key, s)) {
        free(s);
        s = NULL;
    }
    return s;
}

/* best(engine, cache, key, die1, die2, settings, cubeinfo, limit) -> (count or
 * a negative error, blob): blob holds the ranked candidates' arrays end to end
 * (moves, results, equity, equity2, probs, plies), as engine.search reads them. */
static PyObject *best(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    (void)self;
    void *engine, *cache;
    const char *key = engine_args(args, n, 8, "best", &engine, &cache);
    if (!key)
        return NULL;
    long d1 = PyLong_AsLong(args[3]), d2 = PyLong_AsLong(args[4]), limit = PyLong_AsLong(args[7]);
    void *settings = address(args[5]), *ci = address(args[6]);
    if (PyErr_Occurred())
        return NULL;
    limit = limit < 1 ? 1 : limit > MAX_PLAYS ? MAX_PLAYS : limit; /* the ranked list kept */
    search_out *s = thread_scratch();
    if (!s)
        return PyErr_NoMemory();
    int count;
    Py_BEGIN_ALLOW_THREADS
    count = best_move(engine, cache, key, (int)d1, (int)d2, settings, ci, s->moves, s->results,
                      s->equity, s->equity2, s->probs, s->plies, (int)limit);
    Py_END_ALLOW_THREADS
    size_t k = count > 0 ? (size_t)count : 0;
    size_t sizes[6] = {k * MOVE_SIZE, k * 200, k * 4, k * 4, k * 20, k * 4};
    const void *parts[6] = {s->moves, s->results, s->equity, s->equity2, s->probs, s->plies};
    PyObject *blob = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(k * (MOVE_SIZE + 232)));
    if (!blob)
        return NULL;
    char *p = PyBytes_AsString(blob);
    for (int i = 0; i < 6; i++) {
        memcpy(p, parts[i], sizes[i]);
        p += sizes[i];
    }
    return Py_BuildValue("(iN)", count, blob);
}

static PyMethodDef methods[] = {
    {"bind", (PyCFunction)(void (*)(void))bind, METH_FASTCALL, "Binds engine._core's functions."},
    {"key_from_id", key_from_id, METH_O, "The 50-byte key of a position ID, or None."},
    {"evaluate", (PyCFunction)(void (*)(void))evaluate, METH_FASTCALL, "0-ply evaluation of a key."},
    {"cube", (PyCFunction)(void (*)(void))cube, METH_FASTCALL, "A cube decision of a key."},
    {"best", (PyCFunction)(void (*)(void))best, METH_FASTCALL, "A chequer-play search of a key."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "engine._fast", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fast(void) { return PyModule_Create(&module); }
