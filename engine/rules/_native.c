/* The rules' hot loops in C, each the twin of the numpy code that stays the reference (and the path of an install
 * without a C compiler): backgammon's legal plays (engine/rules/movegen.py), the distinct rows of a batch
 * (engine/rules/groups.py's distinct_rows) and the boards' position classes (engine/rules/board.py's position_class,
 * which every evaluation asks of its batch).
 *
 * Legal plays, one position at a time: the same afterstates, in the same order, with the same play records as
 * movegen.py's batched generator (the only generator of the variants with restrictions, lone checkers holding,
 * checkers off the board or a wild roll).
 *
 * movegen.py plays one step (one die by one checker) on every partial play of a batch at once, level by level;
 * the plays of a level come out grouped by the partial play they grow from, sources in rising order. Here each
 * position's plays are grown depth first, which lists the plays of every level in that same order. Then, as
 * there: compulsory play keeps only the deepest level a position reaches (of two different dice, both; else
 * the larger die alone; else the smaller; else the unchanged board), and of the plays reaching one board the
 * last is kept, where the last of them stood. Doubles play sources that never increase (gnubg's order); two
 * different dice are played larger first, then smaller first only where the other order can miss the play
 * (_not_reached_high_first).
 *
 * A row is movegen.py's 32 bytes: the board (26 cells, engine/rules/board.py's layout), the source of each
 * step (0 unused) and the two dice in the order played.
 *
 * Another compiled module plays positions through the capsule ``plays_api`` (engine/rules/_plays.h): the search
 * kernels of models/_native.c generate and screen a position's plays without numpy arrays between.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_plays.h"

#define CELLS 26
#define ROW PLAY_ROW
#define STEPS 26                                     /* the first step's source; the dice follow the four */
#define DIE1 30
#define DIE2 31
#define BAR 25
#define POINT_BITS (((1u << 26) - 1) & ~1u)         /* bits 1..25: points 1..24 and the bar */
#define TARGET_BITS (((1u << 25) - 1) & ~1u)        /* bits 1..24 */
#define CLASS_CONTACT 0                              /* engine/rules/board.py's CONTACT, CRASHED, RACE */
#define CLASS_CRASHED 1
#define CLASS_RACE 2
#define OUTSIDE_HOME_BITS (((1u << 26) - 1) & ~((1u << 7) - 1))

typedef struct {
    signed char *data;
    Py_ssize_t count, capacity;                      /* in rows */
} Rows;

static int push(Rows *rows, const signed char *row)
{
    if (rows->count == rows->capacity) {
        Py_ssize_t capacity = rows->capacity ? 2 * rows->capacity : 64;
        signed char *data = realloc(rows->data, (size_t)capacity * ROW);
        if (!data)
            return -1;
        rows->data = data;
        rows->capacity = capacity;
    }
    memcpy(rows->data + rows->count++ * ROW, row, ROW);
    return 0;
}

/* Bit mask of the points a checker may move ``die`` from: onto a point with at most one opposing checker,
 * from the bar first while a checker is there, and bearing off (the exact point, else the highest checker
 * when it is below the die) once every checker is home. */
static unsigned sources(const signed char *b, int die)
{
    unsigned occupied = 0, open = 0;
    for (int p = 1; p <= BAR; p++) {
        occupied |= (unsigned)(b[p] > 0) << p;
        open |= (unsigned)(b[p] >= -1) << p;
    }
    occupied &= POINT_BITS;
    open &= TARGET_BITS;
    unsigned ordinary = occupied & (open << die);
    if (b[BAR] > 0)
        ordinary &= 1u << BAR;
    unsigned bear_off = 0;
    if (!(occupied & OUTSIDE_HOME_BITS)) {
        unsigned home = occupied & 0x7Eu;
        int highest = home ? 31 - __builtin_clz(home) : 0;
        int point = (occupied >> die) & 1u ? die : highest < die ? highest : 0;
        bear_off = point > 0 ? 1u << point : 0;
    }
    return (ordinary | bear_off) & POINT_BITS;
}

/* One step played in ``row``: a checker from ``source`` moves ``die`` (hitting a lone opposing checker, or
 * bearing off), recorded as step ``step``. */
static void play_step(signed char *row, int source, int die, int step)
{
    int target = source - die;
    if (target > 0) {
        if (row[target] == -1) {
            row[target] = 1;
            row[0] += 1;                             /* the hit checker goes to the opponent's bar */
        } else {
            row[target] += 1;
        }
    }
    row[source] -= 1;
    row[STEPS + step] = (signed char)source;
}

/* Sources for the larger die after the smaller one whose play the larger-first order may miss: all of them
 * after a step from the bar or bearing off, else the smaller die's landing point and bearing off. */
static unsigned not_reached_high_first(const signed char *once, int from_bar)
{
    int source = once[STEPS], target = source - once[DIE1], high = once[DIE2];
    if (from_bar || target <= 0)
        return POINT_BITS;
    return (1u << target) | ((2u << high) - 2u);
}

/* Plays of a double, depth first: every partial play of each depth into levels[depth]. */
static int grow_double(signed char *row, int depth, int last, int die, Rows *levels)
{
    if (push(&levels[depth], row))
        return -1;
    if (depth == 4)
        return 0;
    for (unsigned mask = sources(row, die) & ((2u << last) - 1u); mask; mask &= mask - 1) {  /* sources rising */
        int p = __builtin_ctz(mask);
        signed char child[ROW];
        memcpy(child, row, ROW);
        play_step(child, p, die, depth);
        if (grow_double(child, depth + 1, p, die, levels))
            return -1;
    }
    return 0;
}

/* One die played from ``row`` in every legal way (step ``step``, sources in ``allowed``), into ``out``. */
static int grow_once(const signed char *row, int die, int step, unsigned allowed, Rows *out)
{
    for (unsigned mask = sources(row, die) & allowed; mask; mask &= mask - 1) {  /* sources rising */
        signed char child[ROW];
        memcpy(child, row, ROW);
        play_step(child, __builtin_ctz(mask), die, step);
        if (push(out, child))
            return -1;
    }
    return 0;
}

/* A position's distinct boards among ``rows``, appended to ``out`` in the order of their last occurrences, each
 * with the play found last: as movegen.py's hash table keeps the row that wrote its slot last. Rows of one hash
 * here (open addressing over row indices) are compared cell by cell. */
typedef struct {
    Py_ssize_t *slots;
    size_t size;
    char *keep;
    Py_ssize_t kept_size;
} Table;

/* A hash of a row's first ``width`` bytes, for both tables below: eight bytes at a time, each word multiplied in
 * (the few steps of a 26-byte board, not one a byte), then mixed whole (MurmurHash3's finaliser), so that boards
 * differing in their last cells spread over the table's low bits too. */
static uint64_t row_hash(const void *row, size_t width)
{
    const unsigned char *bytes = row;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ width, word;
    size_t i = 0;
    for (; i + 8 <= width; i += 8) {
        memcpy(&word, bytes + i, 8);
        h = (h ^ word) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    if (i < width) {
        word = 0;
        memcpy(&word, bytes + i, width - i);
        h = (h ^ word) * 0xFF51AFD7ED558CCDull;
    }
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 33);
}

static int append_distinct(const Rows *rows, Table *table, Rows *out)
{
    size_t size = 16;
    while (size < 2 * (size_t)rows->count)
        size *= 2;
    if (size > table->size) {
        Py_ssize_t *slots = realloc(table->slots, size * sizeof(Py_ssize_t));
        if (!slots)
            return -1;
        table->slots = slots;
        table->size = size;
    }
    if (rows->count > table->kept_size) {
        char *keep = realloc(table->keep, (size_t)rows->count);
        if (!keep)
            return -1;
        table->keep = keep;
        table->kept_size = rows->count;
    }
    memset(table->slots, 0xFF, size * sizeof(Py_ssize_t));  /* -1: empty */
    for (Py_ssize_t k = rows->count - 1; k >= 0; k--) {    /* from the last row: the last of each board stays */
        const signed char *row = rows->data + k * ROW;
        size_t slot = row_hash(row, CELLS) & (size - 1);
        table->keep[k] = 1;
        for (; table->slots[slot] >= 0; slot = (slot + 1) & (size - 1))
            if (!memcmp(rows->data + table->slots[slot] * ROW, row, CELLS)) {
                table->keep[k] = 0;
                break;
            }
        if (table->keep[k])
            table->slots[slot] = k;
    }
    for (Py_ssize_t k = 0; k < rows->count; k++)
        if (table->keep[k] && push(out, rows->data + k * ROW))
            return -1;
    return 0;
}

typedef struct {
    Rows levels[5];                                  /* a double's depths; two dice: unchanged, low, high, both */
    Table table;
} Work;

static void free_work(Work *work)
{
    for (int k = 0; k < 5; k++)
        free(work->levels[k].data);
    free(work->table.slots);
    free(work->table.keep);
}

/* The distinct legal plays of one position and roll, appended to ``out``; the dice they use, or -1. */
static int legal_plays(const signed char *board, int d1, int d2, Work *work, Rows *out)
{
    for (int k = 0; k < 5; k++)
        work->levels[k].count = 0;
    signed char root[ROW] = {0};
    memcpy(root, board, CELLS);
    int level;
    if (d1 == d2) {
        root[DIE1] = root[DIE2] = (signed char)d1;
        if (grow_double(root, 0, BAR, d1, work->levels))
            return -1;
        for (level = 4; level > 0 && !work->levels[level].count; level--)
            ;
        if (append_distinct(&work->levels[level], &work->table, out))
            return -1;
        return level;
    }
    int high = d1 > d2 ? d1 : d2, low = d1 > d2 ? d2 : d1;
    Rows *unchanged = &work->levels[0], *low_alone = &work->levels[1], *high_alone = &work->levels[2];
    Rows *both = &work->levels[3];
    root[DIE1] = (signed char)high;                  /* larger first: every play of both dice */
    root[DIE2] = (signed char)low;
    if (grow_once(root, high, 0, POINT_BITS, high_alone))
        return -1;
    for (Py_ssize_t k = 0; k < high_alone->count; k++)
        if (grow_once(high_alone->data + k * ROW, low, 1, POINT_BITS, both))
            return -1;
    root[DIE1] = (signed char)low;                   /* smaller first: only what that order may add */
    root[DIE2] = (signed char)high;
    if (grow_once(root, low, 0, POINT_BITS, low_alone))
        return -1;
    for (Py_ssize_t k = 0; k < low_alone->count; k++) {
        const signed char *once = low_alone->data + k * ROW;
        if (grow_once(once, high, 1, not_reached_high_first(once, board[BAR] > 0), both))
            return -1;
    }
    if (push(unchanged, root))
        return -1;
    for (level = 3; level > 0 && !work->levels[level].count; level--)
        ;
    if (append_distinct(&work->levels[level], &work->table, out))
        return -1;
    return level == 3 ? 2 : level > 0 ? 1 : 0;
}

static PyObject *plays(PyObject *self, PyObject *args)
{
    Py_buffer boards, dice;
    if (!PyArg_ParseTuple(args, "y*y*", &boards, &dice))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = boards.len / CELLS;
    Rows out = {0};
    Work work = {0};
    int64_t *parent = NULL;
    Py_ssize_t parents = 0;
    PyObject *used = NULL;
    if (boards.len % CELLS || dice.len != 2 * n) {
        PyErr_SetString(PyExc_ValueError, "plays: boards (N, 26) and dice (N, 2) int8, C-contiguous");
        goto done;
    }
    used = PyBytes_FromStringAndSize(NULL, n);
    if (!used)
        goto done;
    char *dice_used = PyBytes_AS_STRING(used);
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    const signed char *b = boards.buf, *d = dice.buf;
    for (Py_ssize_t i = 0; i < n && !failed; i++) {
        Py_ssize_t before = out.count;
        int level = legal_plays(b + i * CELLS, d[2 * i], d[2 * i + 1], &work, &out);
        if (level < 0) {
            failed = 1;
            break;
        }
        dice_used[i] = (char)level;
        if (out.count > parents) {
            Py_ssize_t capacity = out.capacity;
            int64_t *grown = realloc(parent, (size_t)capacity * sizeof(int64_t));
            if (!grown) {
                failed = 1;
                break;
            }
            parent = grown;
            parents = capacity;
        }
        for (Py_ssize_t k = before; k < out.count; k++)
            parent[k] = i;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("(y#y#O)", out.data ? (const char *)out.data : "", out.count * ROW,
                           parent ? (const char *)parent : "", out.count * (Py_ssize_t)sizeof(int64_t), used);
done:
    Py_XDECREF(used);
    free_work(&work);
    free(out.data);
    free(parent);
    PyBuffer_Release(&boards);
    PyBuffer_Release(&dice);
    return result;
}

/* distinct_rows of int8 rows: the first of each distinct row in the order they appear, and each row's distinct
 * row, through a table of first indices by hash (open addressing), rows compared byte for byte. */
static PyObject *distinct(PyObject *self, PyObject *args)
{
    Py_buffer rows;
    Py_ssize_t width;
    if (!PyArg_ParseTuple(args, "y*n", &rows, &width))
        return NULL;
    PyObject *result = NULL, *first = NULL, *inverse = NULL;
    Py_ssize_t *slots = NULL;
    if (width <= 0 || rows.len % width) {
        PyErr_SetString(PyExc_ValueError, "distinct: rows (N, width) int8, C-contiguous");
        goto done;
    }
    Py_ssize_t n = rows.len / width;
    size_t size = 16;
    while (size < 2 * (size_t)n)
        size *= 2;
    slots = malloc(size * sizeof(Py_ssize_t));
    first = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    inverse = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (!slots || !first || !inverse) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    int64_t *firsts = (int64_t *)PyBytes_AS_STRING(first), *which = (int64_t *)PyBytes_AS_STRING(inverse);
    Py_ssize_t count = 0;
    Py_BEGIN_ALLOW_THREADS
    const unsigned char *data = rows.buf;
    memset(slots, 0xFF, size * sizeof(Py_ssize_t));
    for (Py_ssize_t k = 0; k < n; k++) {
        const unsigned char *row = data + k * width;
        size_t slot = row_hash(row, (size_t)width) & (size - 1);
        for (; slots[slot] >= 0; slot = (slot + 1) & (size - 1))
            if (!memcmp(data + firsts[slots[slot]] * width, row, (size_t)width))
                break;
        if (slots[slot] < 0) {                       /* a new row: the next distinct one */
            slots[slot] = count;
            firsts[count++] = k;
        }
        which[k] = slots[slot];
    }
    Py_END_ALLOW_THREADS
    if (_PyBytes_Resize(&first, count * (Py_ssize_t)sizeof(int64_t)) == 0)
        result = PyTuple_Pack(2, first, inverse);
done:
    Py_XDECREF(first);
    Py_XDECREF(inverse);
    free(slots);
    PyBuffer_Release(&rows);
    return result;
}

/* The generator for another compiled module (_plays.h): a Work and the rows of the last position's plays. */
typedef struct {
    Work work;
    Rows out;
} Player;

static void *player_new(void)
{
    return calloc(1, sizeof(Player));
}

static void player_free(void *player)
{
    Player *p = player;
    if (!p)
        return;
    free_work(&p->work);
    free(p->out.data);
    free(p);
}

static Py_ssize_t player_plays(void *player, const signed char *board, int d1, int d2, const signed char **rows)
{
    Player *p = player;
    p->out.count = 0;
    if (legal_plays(board, d1, d2, &p->work, &p->out) < 0)
        return -1;
    *rows = p->out.data;
    return p->out.count;
}

static const PlaysApi plays_api = {player_new, player_free, player_plays};

/* gnubg's crashed-board test of one side (engine/rules/board.py's _crashed): at most six checkers still in play once
 * the dead ones are set aside, all of a piled 1-point (then also all but one of a piled 2-point), else all but one of
 * the 2-point. ``total`` counts the side's checkers on the board and the bar. */
static int crashed(int total, int ace, int deuce)
{
    int piled_ace = ace > 1;
    int in_play = piled_ace ? total - ace : total - (deuce > 1 ? deuce - 1 : 0);
    int both = piled_ace && deuce > 1 && total - ace - deuce + 1 <= 6;
    return total <= 6 || in_play <= 6 || both;
}

/* position_class of backgammon boards (engine/rules/board.py, the reference): a race once the two rearmost checkers
 * (bar 25) add up to 25 or less, crashed where either side has crashed its board, contact otherwise. */
static void classes_of(const signed char *boards, Py_ssize_t n, signed char *out)
{
    for (Py_ssize_t r = 0; r < n; r++) {
        const signed char *b = boards + r * CELLS;
        int mine = b[BAR], theirs = b[0];            /* checkers left on the board, the bars first */
        int my_back = b[BAR] > 0 ? 25 : 0, their_back = b[0] > 0 ? 25 : 0;
        for (int p = 1; p <= 24; p++) {
            if (b[p] > 0) {
                mine += b[p];
                my_back = my_back > p ? my_back : p;
            } else if (b[p] < 0) {
                theirs -= b[p];                      /* the opponent's own point 25 - p */
                their_back = their_back > 25 - p ? their_back : 25 - p;
            }
        }
        int my_ace = b[1] > 0 ? b[1] : 0, my_deuce = b[2] > 0 ? b[2] : 0;
        int their_ace = b[24] < 0 ? -b[24] : 0, their_deuce = b[23] < 0 ? -b[23] : 0;
        out[r] = my_back + their_back <= 25 ? CLASS_RACE
                 : crashed(mine, my_ace, my_deuce) || crashed(theirs, their_ace, their_deuce) ? CLASS_CRASHED
                                                                                             : CLASS_CONTACT;
    }
}

/* classes(boards) -> (N,) int8 as bytes: classes_of. */
static PyObject *classes(PyObject *self, PyObject *args)
{
    Py_buffer boards;
    if (!PyArg_ParseTuple(args, "y*", &boards))
        return NULL;
    PyObject *result = NULL;
    if (boards.len % CELLS) {
        PyErr_SetString(PyExc_ValueError, "classes: boards (N, 26) int8, C-contiguous");
        goto done;
    }
    Py_ssize_t n = boards.len / CELLS;
    result = PyBytes_FromStringAndSize(NULL, n);
    if (result) {
        signed char *out = (signed char *)PyBytes_AS_STRING(result);
        Py_BEGIN_ALLOW_THREADS
        classes_of(boards.buf, n, out);
        Py_END_ALLOW_THREADS
    }
done:
    PyBuffer_Release(&boards);
    return result;
}

static PyMethodDef methods[] = {
    {"plays", plays, METH_VARARGS,
     "plays(boards, dice) -> (rows, parent, dice_used) as bytes: (M, 32) int8 rows of every distinct legal play "
     "grouped by input, (M,) int64 inputs, (N,) int8 dice used."},
    {"classes", classes, METH_VARARGS,
     "classes(boards) -> (N,) int8 as bytes: each board's position class (engine.rules.board.position_class)."},
    {"distinct", distinct, METH_VARARGS,
     "distinct(rows, width) -> (first, inverse) as int64 bytes: the first of each distinct row, each row's one."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", "The rules' hot loops in C: legal plays, distinct rows, position classes.", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void)
{
    PyObject *m = PyModule_Create(&module), *api = PyCapsule_New((void *)&plays_api, PLAYS_CAPSULE, NULL);
    if (m && (!api || PyModule_AddObjectRef(m, "plays_api", api) < 0))
        Py_CLEAR(m);
    Py_XDECREF(api);
    return m;
}
