/* The first layer of a net whose inputs open with Tesauro's units, summed straight from the boards, and a
 * pruning net's whole screen (models/inference.py's Screen) built on it.
 *
 * models/encoding.py defines the inputs; models/inference.py calls this where the extension was built and
 * keeps the numpy path (encode, then a matrix product) where it was not. Tesauro's units are mostly zero:
 * a board of a search sets about 40 of the 204, so adding the weight rows of those alone is a fifth of the
 * dense product's work, and the encoded rows are never written out at all. A wide layer adds each point's
 * units as one row of a table summed when the weights are read (set_point below): a dozen rows or so a board.
 * The screen of a search's plays starts from the board they were played from: its sums once for all its rolls'
 * plays, then each play's few changed inputs (screen_moves_layer, called by screen with the starting boards).
 * Last, a one-sided race net's two sides combined into a race's probabilities (race_rows): numpy's gathers of each
 * row's tails cost a search's races more than the net does.
 *
 * Boards are the engine's layout (engine/rules/board.py): 26 int8 cells seen from the side on roll, [0] the
 * opponent's bar, [1..24] the points (> 0 the mover's, < 0 the opponent's, whose own point q is the mover's
 * 25 - q), [25] the mover's bar. The columns, as models/encoding.py writes them:
 *   0..95     the mover's points 1..24, four units each: n >= 1, n >= 2, n >= 3, (n - 3) / 2 for n > 3
 *   96..191   the opponent's points 1..24 in its own numbering, the same four units
 *   192, 193  checkers on the bar / 2, the mover's then the opponent's
 *   194, 195  checkers borne off / 15 (of 15), the same order
 *   196, 197  on roll: 1 and 0
 *   198..203  (tesauro198+race and beyond) pips / 100 of each side, their difference / 20, contact, and
 *             each side's rearmost point / 24 (bar 25, none left 0)
 *   204..231  (contact-v1 and beyond) the 14 contact features of models/features.py (contact_features), the
 *             mover's then the opponent's: written here from the numpy definitions, whose docstrings say what
 *             each measures; tests/test_inference.py holds the two to the last bit.
 *   232..239  (contact-v2 and beyond) its 4 further ones (contact_extra_features), the same way.
 *   240..249  (contact-v3) its 5 more (contact_v3_features), the same way.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

#include "../engine/rules/_plays.h"

#define CELLS 26
#define TESAURO 198
#define TESAURO_RACE 204
#define SIDE_FEATURES 14
#define EXTRA_FEATURES 4
#define V3_FEATURES 5
#define CONTACT_V1 (TESAURO_RACE + 2 * SIDE_FEATURES)
#define CONTACT_V2 (CONTACT_V1 + 2 * EXTRA_FEATURES)
#define CONTACT_V3 (CONTACT_V2 + 2 * V3_FEATURES)
#define ESCAPE_MASKS 4096
#define CHECKERS 15
#define POINTS 24
#define POINT_ROWS (2 * POINTS * CHECKERS)
#define INLINE static inline __attribute__((always_inline))

/* The inputs a board sets: each point holding checkers as one row of the point table (below), the other inputs as
 * (column, value) pairs. */
typedef struct {
    int points;
    int point[2 * POINTS];
    int count;
    int column[CONTACT_V3];
    float value[CONTACT_V3];
} Active;

INLINE void set(Active *a, int column, float value)
{
    a->column[a->count] = column;
    a->value[a->count++] = value;
}

/* Tesauro's four units of n checkers (none: all zero). */
INLINE void units(int n, float *u)
{
    u[0] = n >= 1;
    u[1] = n >= 2;
    u[2] = n >= 3;
    u[3] = n > 3 ? (float)((n - 3) / 2.0) : 0.0f;
}

/* Tesauro's four units of n > 0 checkers of a side (0 the mover, 1 the opponent) on its point p: n >= 1, n >= 2,
 * n >= 3 and (n - 3) / 2 for n > 3. ``tabled``: as one row of the point table, where a wide layer's four rows
 * were summed once when the weights were read (models/inference.py's point_table, row (side, p, n - 1)), so that a
 * board adds one row a point instead of up to four; else as columns. The pruning net's 64 columns gain nothing
 * from the table: its rows are read from further off than the weights' (184 KB against 52). */
INLINE void set_point(Active *a, int tabled, int side, int p, int n)
{
    if (tabled) {
        a->point[a->points++] = (side * POINTS + p - 1) * CHECKERS + n - 1;
        return;
    }
    float u[4];
    units(n, u);
    for (int k = 0; k < 4; k++)
        if (u[k] != 0.0f)
            set(a, side * 4 * POINTS + 4 * (p - 1) + k, u[k]);
}

/* One side's checkers by the mover's point number (models/features.py's Sides): mine[1..24] the mover's
 * points, mine[25] its bar; theirs[1..24] the opponent's checkers there, theirs[0] its bar. */
typedef struct {
    int mine[CELLS];
    int theirs[CELLS];
} Side;

INLINE void side_of(const signed char *b, Side *s)
{
    s->mine[0] = 0;
    s->theirs[0] = b[0];
    for (int p = 1; p < CELLS; p++) {
        s->mine[p] = b[p] > 0 ? b[p] : 0;
        s->theirs[p] = b[p] < 0 ? -b[p] : 0;
    }
}

/* The same position seen from the other side (engine.rules.variants' flip of backgammon's board). */
INLINE void turn_round(const signed char *b, signed char *turned)
{
    turned[0] = b[25];
    turned[25] = b[0];
    for (int p = 1; p <= 24; p++)
        turned[p] = (signed char)-b[25 - p];
}

INLINE int longest_run(unsigned held)
{
    int longest = 0;
    for (int run = 0; held; held &= held << 1)           /* each pass shortens every run by one */
        longest = ++run;
    return longest;
}

/* Escapes (out of 36) of a mover checker on point p: models/features.py's escape table at the mask of the
 * opposing points held 1..12 pips ahead (bit k - 1: k pips ahead). ``reversed_blocks`` has bit 25 - q for a
 * held point q, so that the point k pips ahead of p is bit k - 1 of it shifted down by 26 - p. */
INLINE double escapes_from(int p, unsigned reversed_blocks, const double *escape_table)
{
    return escape_table[(reversed_blocks >> (26 - p)) & 0xFFFu];
}

/* Support a held point gives the rearmost one d pips behind it (models/features.py's BACKBONE_SUPPORT, of 11). */
static const int BACKBONE_SUPPORT[25] = {0, 11, 11, 11, 11, 11, 11, 6, 5, 4, 3, 2};

/* models/features.py's contact_v3_features of the mover's side, in the order of CONTACT_V3_NAMES, into f[0..4],
 * from what side_features already has: ``held`` (bit p - 1: its point p holds 2+), ``back`` (its checkers on
 * points 19..24 and the bar), ``rear`` its rearmost checker's point (bar 25, none 0), ``opponent_rear`` the
 * opponent's (its bar 0, none 25). */
INLINE void v3_features(const int *mine, unsigned blocked, unsigned held, int back, int rear, int opponent_rear,
                        const double *escape_table, double *f)
{
    double fewest = 36.0;                                /* from the 15-point up to the rearmost checker */
    for (int p = 15; p <= rear; p++) {
        double e = escapes_from(p, blocked, escape_table);
        fewest = e < fewest ? e : fewest;
    }
    f[0] = 1.0 - fewest / 36.0;                                                       /* active_containment */
    int passed = 0;
    for (int p = 1; p < opponent_rear && p <= 24; p++)
        passed += mine[p] * p;
    f[1] = passed / 100.0;                                                            /* free_pips */
    int back_points = __builtin_popcount((held >> 18) & 0x3Fu);                      /* points 19..24 */
    f[2] = back_points >= 2 ? (back - 3) / 4.0 : 0.0;                                /* back_game */
    f[3] = back_points == 1 ? back / 8.0 : 0.0;                                      /* one_point_holding */
    int held_rear = held ? 32 - __builtin_clz(held) : 0, others = 0, support = 0;    /* its rearmost held point */
    for (unsigned left = held_rear ? held & ~(1u << (held_rear - 1)) : 0u; left; left &= left - 1) {
        others++;
        support += BACKBONE_SUPPORT[held_rear - 1 - __builtin_ctz(left)];
    }
    f[4] = others ? 1.0 - support / (11.0 * others) : 0.0;                           /* backbone */
}

/* models/features.py's contact_features of the mover's side, in the order of its CONTACT_NAMES, then (``level``
 * 1 and up) its contact_extra_features in the order of CONTACT_EXTRA_NAMES, then (``level`` 2) its
 * contact_v3_features in the order of CONTACT_V3_NAMES. */
INLINE void side_features(const Side *s, const double *escape_table, int level, double *f)
{
    const int *mine = s->mine, *theirs = s->theirs;
    /* bit p: point p (0 the opponent's bar, 25 the mover's); blocked: bit 25 - q for an opposing point q;
     * held: bit p - 1 for a mover point p */
    unsigned blot = 0, open = 0, present = 0, blocked = 0, held = 0, checkers = 0, their_open = 0;
    for (int p = 0; p <= 25; p++) {
        blot |= (unsigned)(mine[p] == 1) << p;
        open |= (unsigned)(mine[p] < 2) << p;
        present |= (unsigned)(theirs[p] > 0) << p;
        checkers |= (unsigned)(mine[p] > 0) << p;
    }
    for (int p = 1; p <= 24; p++) {
        blocked |= (unsigned)(theirs[p] >= 2) << (25 - p);
        held |= (unsigned)(mine[p] >= 2) << (p - 1);
        their_open |= (unsigned)(theirs[p] < 2) << p;
    }
    blot &= (1u << 25) - 1;                              /* the blots and open points on 0..24 only */
    open &= (1u << 25) - 1;
    present &= (1u << 25) - 1;
    /* hit_chance: the opponent's hitters (only its bar while it has checkers there) against the blots */
    unsigned hitter = theirs[0] > 0 ? 1u : present;
    int shots = 0, lost = 0, twice = 0;                  /* lost: pip_loss's pips; twice: double_hit_chance's */
    for (int d1 = 1; d1 <= 6; d1++)
        for (int d2 = d1 + 1; d2 <= 6; d2++) {
            unsigned one = hitter << d1, other = hitter << d2;
            unsigned landed = ((one & open) << d2) | ((other & open) << d1);
            unsigned hits = (one | other | landed) & blot;
            if (!hits)
                continue;
            shots += 2;
            lost += 2 * (25 - __builtin_ctz(hits));      /* the lowest blot hit: the most pips lost */
            unsigned by_one = one & blot, by_other = other & blot;
            int apart = by_one && by_other && __builtin_popcount(by_one | by_other) >= 2;
            int chained = (((by_one << d2) | (by_other << d1)) & blot) != 0;
            twice += 2 * (apart || chained);
        }
    for (int d = 1; d <= 6; d++) {
        unsigned step[4] = {hitter << d};
        for (int k = 1; k < 4; k++)
            step[k] = (step[k - 1] & open) << d;
        unsigned hits = (step[0] | step[1] | step[2] | step[3]) & blot;
        if (!hits)
            continue;
        shots += 1;
        lost += 25 - __builtin_ctz(hits);
        unsigned through = 0, seen = 0;                  /* landings reached through a hit blot; blots met */
        int chained = 0, first[3];
        for (int k = 0; k < 3; k++) {
            through = ((through & open) | (step[k] & blot)) << d;
            chained |= (through & blot) != 0;
            first[k] = __builtin_popcount(step[k] & blot & ~seen);
            seen |= step[k] & blot;
        }
        twice += chained || first[0] >= 2 || first[1] >= 2 || (first[0] >= 1 && first[1] + first[2] >= 1);
    }
    f[0] = shots / 36.0;
    int rear = checkers ? 31 - __builtin_clz(checkers) : 0;
    int opponent_rear = present ? __builtin_ctz(present) : 25;
    f[1] = rear > 0 ? escapes_from(rear, blocked, escape_table) / 36.0 : 1.0;        /* rear_escape */
    double fewest = 36.0;
    for (int p = 15; p <= 24; p++) {
        double e = escapes_from(p, blocked, escape_table);
        fewest = e < fewest ? e : fewest;
    }
    f[2] = 1.0 - fewest / 36.0;                                                       /* containment */
    unsigned in_front = opponent_rear >= 24 ? 0u : ~0u << opponent_rear;             /* points above it */
    f[3] = longest_run(held) / 6.0;
    f[4] = longest_run(held & in_front) / 6.0;
    unsigned anchored = (held >> 18) & 0x3Fu;            /* points 19..24 */
    int anchors = __builtin_popcount(anchored), forward = anchored ? 6 - __builtin_ctz(anchored) : 0;
    f[5] = anchors / 3.0;
    f[6] = forward / 6.0;
    int mobility = 0, timing = 0, to_break = 0, back = 0;
    int home = __builtin_popcount(held & 0x3Fu), closed = __builtin_popcount(blocked & 0x7Eu);
    for (unsigned left = checkers; left; left &= left - 1) {
        int p = __builtin_ctz(left), n = mine[p];
        mobility += n * __builtin_popcount(((their_open << 6) >> p) & 0x3Fu);  /* open points p - 6 .. p - 1 */
        timing += p >= 7 ? n * (p - 6) : 0;
        to_break += p - opponent_rear + 1 > 0 ? n * (p - opponent_rear + 1) : 0;
        back += p >= 19 ? n : 0;
    }
    f[7] = mobility / 90.0;
    f[8] = timing / 100.0;
    f[9] = to_break / 100.0;
    f[10] = closed / 6.0;
    f[11] = f[10] * f[10];
    f[12] = home / 6.0;
    f[13] = back / 15.0;
    if (level < 1)
        return;
    f[14] = lost / (36.0 * 25);                                                       /* pip_loss */
    f[15] = twice / 36.0;                                                             /* double_hit_chance */
    int outfield = 0, count = 0, sum = 0;                /* the escape table counts whole rolls */
    for (int p = 7; p <= 25; p++)
        outfield += mine[p] ? mine[p] * (int)escapes_from(p, blocked, escape_table) * (p - 6) : 0;
    f[16] = outfield / 3600.0;                                                        /* outfield_escapes */
    for (int p = 1; p <= 25; p++) {
        count += mine[p];
        sum += mine[p] * p;
    }
    double mean = (double)sum / (count > 1 ? count : 1), spread = 0.0;
    int trailing = 0;
    for (int p = 1; p <= 25; p++)
        if (p > mean && mine[p]) {
            trailing += mine[p];
            spread += mine[p] * ((p - mean) * (p - mean));   /* numpy's rounding order */
        }
    f[17] = spread / (trailing > 1 ? trailing : 1) / 400.0;                           /* back_moment */
    if (level >= 2)
        v3_features(mine, blocked, held, back, rear, opponent_rear, escape_table, f + SIDE_FEATURES + EXTRA_FEATURES);
}

/* What columns 192..203 rest on, seen from the side on roll ("my"): checkers on the bar, checkers left on the board
 * (the bar's included), pips (each side's in its own numbering) and each side's rearmost point (bar 25, none 0). */
typedef struct {
    int my_bar, their_bar, mine, theirs, my_pips, their_pips, my_back, their_back;
} Counts;

/* Columns 192..203 of the encoding (the file's opening comment), zero where active_inputs sets nothing. */
INLINE void count_columns(const Counts *k, float *v)
{
    v[0] = (float)(k->my_bar / 2.0);
    v[1] = (float)(k->their_bar / 2.0);
    v[2] = (float)((CHECKERS - k->mine) / 15.0);
    v[3] = (float)((CHECKERS - k->theirs) / 15.0);
    v[4] = 1.0f;
    v[5] = 0.0f;
    v[6] = (float)k->my_pips / 100.0f;
    v[7] = (float)k->their_pips / 100.0f;
    v[8] = ((float)k->their_pips - (float)k->my_pips) / 20.0f;
    v[9] = k->my_back + k->their_back > 25 ? 1.0f : 0.0f;   /* the sides can still meet: contact */
    v[10] = (float)(k->my_back / 24.0);
    v[11] = (float)(k->their_back / 24.0);
}

INLINE void active_inputs(const signed char *b, Py_ssize_t inputs, int tabled, const double *escape_table, Active *a)
{
    a->count = a->points = 0;
    int mine = b[25], theirs = b[0];                     /* checkers left on the board, bars first */
    int my_pips = 25 * b[25], their_pips = 25 * b[0];
    int my_back = b[25] > 0 ? 25 : 0, their_back = b[0] > 0 ? 25 : 0;
    for (int p = 1; p <= 24; p++) {
        int n = b[p];
        if (n > 0) {
            set_point(a, tabled, 0, p, n);
            mine += n;
            my_pips += n * p;
            if (p > my_back)
                my_back = p;
        } else if (n < 0) {
            int q = 25 - p;                              /* the opponent's own numbering */
            set_point(a, tabled, 1, q, -n);
            theirs -= n;
            their_pips -= n * q;
            if (q > their_back)
                their_back = q;
        }
    }
    Counts k = {b[25], b[0], mine, theirs, my_pips, their_pips, my_back, their_back};
    float v[12];
    count_columns(&k, v);
    for (int c = 0; c < (inputs == TESAURO ? 6 : 12); c++)
        if (v[c] != 0.0f)
            set(a, 192 + c, v[c]);
    if (inputs == TESAURO)
        return;
    if (inputs == TESAURO_RACE)
        return;
    Side side;
    signed char turned[CELLS];
    double f[SIDE_FEATURES + EXTRA_FEATURES + V3_FEATURES];
    int level = inputs == CONTACT_V3 ? 2 : inputs == CONTACT_V2;
    /* each feature set's first column, and its columns a side */
    const int first[3] = {TESAURO_RACE, CONTACT_V1, CONTACT_V2}, size[3] = {SIDE_FEATURES, EXTRA_FEATURES,
                                                                          V3_FEATURES};
    turn_round(b, turned);
    for (int k = 0; k < 2; k++) {                        /* the mover's features, then the opponent's */
        side_of(k ? turned : b, &side);
        side_features(&side, escape_table, level, f);
        for (int g = 0, from = 0; g <= level; from += size[g++])
            for (int i = 0; i < size[g]; i++)
                if ((float)f[from + i] != 0.0f)
                    set(a, first[g] + k * size[g] + i, (float)f[from + i]);
    }
}

/* The pruning net's second layer, a row per result (its weights (hidden, 6) turned to (6, hidden)). */
INLINE void second_layer_rows(const float *w2, Py_ssize_t hidden, float *w2t)
{
    for (Py_ssize_t j = 0; j < hidden; j++)
        for (int k = 0; k < 6; k++)
            w2t[k * hidden + j] = w2[j * 6 + k];
}

/* What the screen's inputs other than the points' units (columns 192..203) rest on, kept for the board a play
 * starts from and brought up to date with each cell the play changes. Seen from the mover (the board's own side):
 * checkers on the board and the bar, pips (the opponent's in its own numbering), and the points held as bits
 * (bit p: the mover's point p, 25 its bar; bit q: the opponent's point q in its numbering, 25 its bar), whose
 * highest bit is the side's rearmost checker. */
typedef struct {
    int mine, theirs, my_pips, their_pips;
    unsigned my_points, their_points;
} Tally;

/* Cell c's checkers of each side: the mover's (its point c, 25 its bar) and the opponent's (cell 0 its bar). */
INLINE int my_checkers(int c, int n)
{
    return c == 0 || n < 0 ? 0 : n;
}

INLINE int their_checkers(int c, int n)
{
    return c == 0 ? n : n > 0 || c == 25 ? 0 : -n;
}

/* Cell c holding n checkers where it held ``before``: the tally brought up to date. */
INLINE void tally_cell(Tally *t, int c, int before, int n)
{
    int mine = my_checkers(c, n), theirs = their_checkers(c, n);
    int q = c == 0 ? 25 : 25 - c;                        /* the cell in the opponent's numbering */
    int more_mine = mine - my_checkers(c, before), more_theirs = theirs - their_checkers(c, before);
    t->mine += more_mine;
    t->my_pips += more_mine * c;
    t->theirs += more_theirs;
    t->their_pips += more_theirs * q;
    unsigned my_bit = c ? 1u << c : 0u, their_bit = c == 25 ? 0u : 1u << q;
    t->my_points = mine ? t->my_points | my_bit : t->my_points & ~my_bit;
    t->their_points = theirs ? t->their_points | their_bit : t->their_points & ~their_bit;
}

/* A side's rearmost point from its points as bits (none: 0). */
INLINE int rearmost(unsigned points)
{
    return points ? 31 - __builtin_clz(points) : 0;
}

/* The tally of a whole board. */
INLINE void tally_board(const signed char *b, Tally *t)
{
    memset(t, 0, sizeof *t);
    for (int c = 0; c < CELLS; c++)
        tally_cell(t, c, 0, b[c]);
}

/* Whether the screen judges the board: the mover has checkers left and the sides can still meet (not a race);
 * the search judges the others in full. */
INLINE int screened(const Tally *t)
{
    return t->mine > 0 && rearmost(t->my_points) + rearmost(t->their_points) > 25;
}

/* Columns 192..203 of the board turned round (the opponent on roll), from the mover's tally and the board's bars. */
INLINE void turned_columns(const signed char *b, const Tally *t, float *v)
{
    Counts k = {b[0], b[25], t->theirs, t->mine, t->their_pips, t->my_pips, rearmost(t->their_points),
                rearmost(t->my_points)};
    count_columns(&k, v);
}

/* The units of one side's point that change from ``before`` to ``after`` checkers, as (column, difference). */
INLINE void changed_units(Active *a, int side, int p, int before, int after)
{
    float u0[4], u1[4];
    units(before, u0);
    units(after, u1);
    for (int k = 0; k < 4; k++)
        if (u1[k] != u0[k])
            set(a, side * 4 * POINTS + 4 * (p - 1) + k, u1[k] - u0[k]);
}

/* What the screen of the plays from one starting board shares (models/_kernels.h's start_of): the board's first-layer
 * sums, its tally and its columns 192..203. */
typedef struct {
    float sums[512], rest[12];
    Tally tally;
} Start;

/* The plays screen_choices hands back (CELLS bytes each, with its group), and the screen's values of a roll's plays
 * with which of them are taken. */
typedef struct {
    signed char *rows;
    long long *group;
    Py_ssize_t count, capacity;
    double *values;
    char *taken;
    Py_ssize_t values_capacity;
} Chosen;

/* Room for ``n`` values: 0, or -1 when memory ran out. */
static int grow_values(Chosen *c, Py_ssize_t n)
{
    if (n <= c->values_capacity)
        return 0;
    double *values = realloc(c->values, (size_t)n * sizeof(double));
    if (values)
        c->values = values;
    char *taken = realloc(c->taken, (size_t)n);
    if (taken)
        c->taken = taken;
    if (!values || !taken)
        return -1;
    c->values_capacity = n;
    return 0;
}

/* One more chosen play: 0, or -1 when memory ran out. */
static int add_chosen(Chosen *c, const signed char *row, long long group)
{
    if (c->count == c->capacity) {
        Py_ssize_t capacity = c->capacity ? 2 * c->capacity : 4096;
        signed char *rows = realloc(c->rows, (size_t)capacity * CELLS);
        if (rows)
            c->rows = rows;
        long long *groups = realloc(c->group, (size_t)capacity * sizeof(long long));
        if (groups)
            c->group = groups;
        if (!rows || !groups)
            return -1;
        c->capacity = capacity;
    }
    memcpy(c->rows + c->count * CELLS, row, CELLS);
    c->group[c->count++] = group;
    return 0;
}

/* The vector kernels (models/_kernels.h), one set for each instruction set compiled, the best one the processor has
 * chosen when the module loads. With GCC on x86-64: AVX-512, AVX2 (with FMA and the bit-counting instructions) and
 * the baseline, each with vectors its registers' width; elsewhere one set of 16-byte vectors (SSE, NEON). */
typedef struct {
    const char *name;
    void (*tesauro_layer)(const signed char *boards, Py_ssize_t rows, const float *table, const float *weight,
                          Py_ssize_t inputs, const float *bias, Py_ssize_t width, const double *escape_table,
                          int relu, float *out);
    void (*screen_layer)(const signed char *boards, Py_ssize_t rows, const float *w1, const float *b1,
                         Py_ssize_t hidden, const float *w2, const float *b2, const double *escape_table,
                         const double *points, double *out);
    void (*screen_moves_layer)(const signed char *boards, Py_ssize_t rows, const signed char *origins,
                               const long long *parent, const float *w1, const float *b1, Py_ssize_t hidden,
                               const float *w2, const float *b2, const double *escape_table, const double *points,
                               double *out);
    int (*screen_choices_layer)(const signed char *boards, Py_ssize_t n, const signed char *rolls, Py_ssize_t count,
                                int keep, const PlaysApi *api, void *player, const float *w1, const float *b1,
                                Py_ssize_t hidden,
                                const float *w2, const float *b2, const double *escape_table, const double *points,
                                Chosen *chosen);
} Kernels;

#define PASTED(name, set) name##_##set
#define NAMED(name, set) PASTED(name, set)

#if defined(__GNUC__) && __GNUC__ >= 12 && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define SEVERAL_SETS
#define SET(name) NAMED(name, v4)
#define SET_NAME "x86-64-v4"
#define KERNEL __attribute__((target("arch=x86-64-v4")))
#define VECTOR_BYTES 64
#include "_kernels.h"
#undef SET
#undef SET_NAME
#undef KERNEL
#undef VECTOR_BYTES
#define SET(name) NAMED(name, v3)
#define SET_NAME "x86-64-v3"
#define KERNEL __attribute__((target("arch=x86-64-v3")))
#define VECTOR_BYTES 32
#include "_kernels.h"
#undef SET
#undef SET_NAME
#undef KERNEL
#undef VECTOR_BYTES
#endif
#define SET(name) NAMED(name, baseline)
#define SET_NAME "baseline"
#define KERNEL
#define VECTOR_BYTES 16
#include "_kernels.h"
#undef SET
#undef SET_NAME
#undef KERNEL
#undef VECTOR_BYTES

/* The sets compiled, the baseline first, each better than the one before. */
static const Kernels *const SETS[] = {
    &kernels_baseline,
#ifdef SEVERAL_SETS
    &kernels_v3,
    &kernels_v4,
#endif
};

static const Kernels *kernels;                           /* the set in use */
static const PlaysApi *plays_api;                        /* the engine's compiled generator, NULL where not built */

/* The engine's compiled generator (engine/rules/_native.c's plays_api), importing its module (PyCapsule_Import would
 * not import a submodule not yet imported); NULL, with no error set, where it was not built or is of another layout. */
static const PlaysApi *linked_generator(void)
{
    PyObject *engine = PyImport_ImportModule("gammon.engine.rules._native");
    PyObject *capsule = engine ? PyObject_GetAttrString(engine, "plays_api") : NULL;
    const PlaysApi *api = capsule ? PyCapsule_GetPointer(capsule, PLAYS_CAPSULE) : NULL;
    Py_XDECREF(capsule);
    Py_XDECREF(engine);
    PyErr_Clear();
    return api;
}

/* Whether this processor runs a set's instructions. */
static int runs(const Kernels *set)
{
#ifdef SEVERAL_SETS
    __builtin_cpu_init();
    if (set == &kernels_v3)
        return __builtin_cpu_supports("x86-64-v3");
    if (set == &kernels_v4)
        return __builtin_cpu_supports("x86-64-v4");
#endif
    return set == &kernels_baseline;
}

/* instruction_set([name]): the name of the kernels' set in use; with a name, the set of that name in its place (for
 * tests and benchmarks to compare the sets), its predecessor's name returned. */
static PyObject *instruction_set(PyObject *self, PyObject *args)
{
    const char *name = NULL;
    if (!PyArg_ParseTuple(args, "|s", &name))
        return NULL;
    PyObject *before = PyUnicode_FromString(kernels->name);
    if (!before || !name)
        return before;
    for (size_t k = 0; k < sizeof SETS / sizeof *SETS; k++)
        if (!strcmp(SETS[k]->name, name)) {
            if (!runs(SETS[k])) {
                Py_DECREF(before);
                return PyErr_Format(PyExc_ValueError, "instruction_set: this processor does not run %s", name);
            }
            kernels = SETS[k];
            return before;
        }
    Py_DECREF(before);
    return PyErr_Format(PyExc_ValueError, "instruction_set: this build has no set named %s (it has %s)", name,
                        sizeof SETS / sizeof *SETS > 1 ? "baseline, x86-64-v3 and x86-64-v4" : "baseline alone");
}

static PyObject *first_layer(PyObject *self, PyObject *args)
{
    Py_buffer boards, table, weight, bias, escape_table, out;
    int relu = 0;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*w*|p", &boards, &table, &weight, &bias, &escape_table, &out, &relu))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t width = bias.len / (Py_ssize_t)sizeof(float);
    Py_ssize_t rows = boards.len / CELLS;
    Py_ssize_t inputs = width ? weight.len / (Py_ssize_t)sizeof(float) / width : 0;
    if (boards.len % CELLS || width == 0 || (inputs != TESAURO && inputs != TESAURO_RACE && inputs != CONTACT_V1
                                             && inputs != CONTACT_V2 && inputs != CONTACT_V3)
        || weight.len != inputs * width * (Py_ssize_t)sizeof(float)
        || table.len != POINT_ROWS * width * (Py_ssize_t)sizeof(float)
        || escape_table.len != ESCAPE_MASKS * (Py_ssize_t)sizeof(double)
        || out.len != rows * width * (Py_ssize_t)sizeof(float)) {
        PyErr_SetString(PyExc_ValueError, "first_layer: boards (N, 26) int8, table (2, 24, 15, H), weight (198, "
                                          "204, 232, 240 or 250, H), bias (H,) and out (N, H) float32, escape_table "
                                          "(4096,) float64, all C-contiguous");
        goto done;
    }
    const Kernels *set = kernels;                        /* read under the GIL: instruction_set may change it */
    Py_BEGIN_ALLOW_THREADS
    set->tesauro_layer(boards.buf, rows, table.buf, weight.buf, inputs, bias.buf, width, escape_table.buf, relu,
                       out.buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&boards);
    PyBuffer_Release(&table);
    PyBuffer_Release(&weight);
    PyBuffer_Release(&bias);
    PyBuffer_Release(&escape_table);
    PyBuffer_Release(&out);
    return result;
}

/* A pruning net as screen and screen_choices take it: its weights (w1 (204, H), b1 (H,), w2 (H, 6), b2 (6,) float32,
 * H <= 512), the escape table (4096,) and the results' points (6,) float64. */
typedef struct {
    Py_buffer w1, b1, w2, b2, escape_table, points;
} ScreenNet;

#define SCREEN_NET_ARGUMENTS "y*y*y*y*y*y*"
#define SCREEN_NET(net) &(net).w1, &(net).b1, &(net).w2, &(net).b2, &(net).escape_table, &(net).points
#define SCREEN_NET_SHAPES "w1 (204, H), b1 (H,), w2 (H, 6), b2 (6,) float32 (H <= 512), escape_table (4096,) and " \
                          "points (6,) float64"

/* The net's hidden units, or 0 where its arrays do not fit together. */
static Py_ssize_t screen_hidden(const ScreenNet *net)
{
    Py_ssize_t hidden = net->b1.len / (Py_ssize_t)sizeof(float);
    int ok = hidden > 0 && hidden <= 512 && net->w1.len == TESAURO_RACE * hidden * (Py_ssize_t)sizeof(float)
             && net->w2.len == hidden * 6 * (Py_ssize_t)sizeof(float) && net->b2.len == 6 * (Py_ssize_t)sizeof(float)
             && net->escape_table.len == ESCAPE_MASKS * (Py_ssize_t)sizeof(double)
             && net->points.len == 6 * (Py_ssize_t)sizeof(double);
    return ok ? hidden : 0;
}

static void release_screen_net(ScreenNet *net)
{
    Py_buffer *buffers[] = {SCREEN_NET(*net)};
    for (size_t k = 0; k < sizeof buffers / sizeof *buffers; k++)
        PyBuffer_Release(buffers[k]);
}

/* screen(boards, w1, b1, w2, b2, escape_table, points, out[, origins, parent]): screen_layer, or with the boards the
 * plays started from screen_moves_layer. */
static PyObject *screen(PyObject *self, PyObject *args)
{
    Py_buffer boards, out, origins = {0}, parent = {0};
    ScreenNet net;
    if (!PyArg_ParseTuple(args, "y*" SCREEN_NET_ARGUMENTS "w*|y*y*", &boards, SCREEN_NET(net), &out, &origins,
                          &parent))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t rows = boards.len / CELLS, hidden = screen_hidden(&net);
    int from_origins = origins.obj != NULL;
    int ok = boards.len % CELLS == 0 && hidden > 0 && out.len == rows * (Py_ssize_t)sizeof(double)
             && (!from_origins || (parent.obj != NULL && origins.len % CELLS == 0
                                   && parent.len == rows * (Py_ssize_t)sizeof(long long)));
    for (Py_ssize_t r = 0; ok && from_origins && r < rows; r++) {
        long long start = ((const long long *)parent.buf)[r];
        ok = start >= 0 && start < origins.len / CELLS;
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "screen: boards (N, 26) int8, " SCREEN_NET_SHAPES ", out (N,) float64, and "
                                          "with origins (P, 26) int8 its parent (N,) int64 indices into them, all "
                                          "C-contiguous");
        goto done;
    }
    const Kernels *set = kernels;                        /* read under the GIL: instruction_set may change it */
    Py_BEGIN_ALLOW_THREADS
    if (from_origins)
        set->screen_moves_layer(boards.buf, rows, origins.buf, parent.buf, net.w1.buf, net.b1.buf, hidden,
                                    net.w2.buf, net.b2.buf, net.escape_table.buf, net.points.buf, out.buf);
    else
        set->screen_layer(boards.buf, rows, net.w1.buf, net.b1.buf, hidden, net.w2.buf, net.b2.buf,
                              net.escape_table.buf, net.points.buf, out.buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&boards);
    release_screen_net(&net);
    PyBuffer_Release(&out);
    PyBuffer_Release(&origins);                          /* a buffer never filled is released as nothing */
    PyBuffer_Release(&parent);
    return result;
}

/* screen_choices(boards, rolls, keep, w1, b1, w2, b2, escape_table, points) -> (rows, group) as bytes: the plays a
 * search judges in full below each board, each board played with each roll by the engine's generator and screened
 * from it (screen_choices_layer). */
static PyObject *screen_choices(PyObject *self, PyObject *args)
{
    Py_buffer boards, rolls;
    ScreenNet net;
    int keep;
    if (!PyArg_ParseTuple(args, "y*y*i" SCREEN_NET_ARGUMENTS, &boards, &rolls, &keep, SCREEN_NET(net)))
        return NULL;
    PyObject *result = NULL;
    Chosen chosen = {0};
    Py_ssize_t n = boards.len / CELLS, count = rolls.len / 2, hidden = screen_hidden(&net);
    const signed char *dice = rolls.buf;
    int ok = boards.len % CELLS == 0 && rolls.len % 2 == 0 && keep >= 1 && hidden > 0;
    for (Py_ssize_t r = 0; ok && r < 2 * count; r++)
        ok = dice[r] >= 1 && dice[r] <= 6;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "screen_choices: boards (N, 26) and rolls (R, 2) int8 (dice 1-6), keep >= 1, "
                                          SCREEN_NET_SHAPES ", all C-contiguous");
        goto done;
    }
    if (!plays_api) {
        PyErr_SetString(PyExc_RuntimeError, "screen_choices: the engine's compiled move generator "
                                            "(engine/rules/_native.c) was not built (has_generator is 0)");
        goto done;
    }
    void *player = plays_api->player_new();
    int failed = !player;
    const Kernels *set = kernels;                        /* read under the GIL: instruction_set may change it */
    Py_BEGIN_ALLOW_THREADS
    if (!failed)
        failed = set->screen_choices_layer(boards.buf, n, dice, count, keep, plays_api, player, net.w1.buf,
                                               net.b1.buf, hidden, net.w2.buf, net.b2.buf, net.escape_table.buf,
                                               net.points.buf, &chosen) < 0;
    Py_END_ALLOW_THREADS
    plays_api->player_free(player);
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("(y#y#)", chosen.rows ? (const char *)chosen.rows : "", chosen.count * CELLS,
                           chosen.group ? (const char *)chosen.group : "",
                           chosen.count * (Py_ssize_t)sizeof(long long));
done:
    free(chosen.rows);
    free(chosen.group);
    free(chosen.values);
    free(chosen.taken);
    PyBuffer_Release(&boards);
    PyBuffer_Release(&rolls);
    release_screen_net(&net);
    return result;
}

/* A race's five probabilities for the side on roll from the two sides' roll counts, as
 * engine/search/bearoff.py's race_probabilities computes them (its docstring says why; it stays the reference): row n
 * is the mover's side my_rows[n] against the opponent's their_rows[n], both rows of ``table`` (S, 3, B): for each
 * distinct side P(exactly b rolls) until all off, until the first off and until the other home board is clear. Each
 * side's tails (P(>= b)) are summed as the loop over b runs down, never stored. */
static void race_rows_layer(const double *table, Py_ssize_t bins, const long long *my_rows, const long long *their_rows,
                            const unsigned char *my_none_off, const unsigned char *their_none_off, Py_ssize_t n,
                            double *out)
{
    for (Py_ssize_t r = 0; r < n; r++) {
        const double *me = table + my_rows[r] * 3 * bins, *it = table + their_rows[r] * 3 * bins;
        double won[3] = {0}, lost[2] = {0}, its_tail[3] = {0}, my_tail[2] = {0};
        for (Py_ssize_t b = bins - 1; b >= 0; b--) {
            /* I win (a gammon, a backgammon) finishing in b rolls while it needs b or more (to bear one off, to clear) */
            for (int k = 0; k < 3; k++) {
                its_tail[k] += it[k * bins + b];
                won[k] += me[b] * its_tail[k];
            }
            /* I lose (...) when it finishes in b rolls and I need more than b: its b-th roll comes after my b-th */
            for (int k = 0; k < 2; k++) {
                lost[k] += it[b] * my_tail[k];
                my_tail[k] += me[(k + 1) * bins + b];
            }
        }
        double *p = out + 5 * r;
        p[0] = won[0];
        p[1] = their_none_off[r] ? won[1] : 0.0;
        p[2] = their_none_off[r] ? won[2] : 0.0;
        p[3] = my_none_off[r] ? lost[0] : 0.0;
        p[4] = my_none_off[r] ? lost[1] : 0.0;
        /* the gammons capped by the wins (losses) they belong to, the backgammons by the gammons */
        double losses = 1.0 - p[0] > 0.0 ? 1.0 - p[0] : 0.0;
        p[1] = p[1] < p[0] ? p[1] : p[0];
        p[2] = p[2] < p[1] ? p[2] : p[1];
        p[3] = p[3] < losses ? p[3] : losses;
        p[4] = p[4] < p[3] ? p[4] : p[3];
    }
}

/* race_rows(table, my_rows, their_rows, my_none_off, their_none_off, out): race_rows_layer, out in place. */
static PyObject *race_rows(PyObject *self, PyObject *args)
{
    Py_buffer table, my_rows, their_rows, my_none_off, their_none_off, out;
    Py_ssize_t bins;
    if (!PyArg_ParseTuple(args, "y*ny*y*y*y*w*", &table, &bins, &my_rows, &their_rows, &my_none_off, &their_none_off,
                          &out))
        return NULL;
    PyObject *result = NULL;
    /* bins bounded by the table's size before any product of it, which could overflow */
    int fits = bins > 0 && bins <= table.len / (3 * (Py_ssize_t)sizeof(double));
    Py_ssize_t n = my_none_off.len, sides = fits ? table.len / (3 * bins * (Py_ssize_t)sizeof(double)) : 0;
    int ok = fits && table.len == sides * 3 * bins * (Py_ssize_t)sizeof(double)
             && my_rows.len == n * (Py_ssize_t)sizeof(long long) && their_rows.len == my_rows.len
             && their_none_off.len == n && out.len == 5 * n * (Py_ssize_t)sizeof(double);
    for (Py_ssize_t r = 0; ok && r < n; r++) {
        long long mine = ((const long long *)my_rows.buf)[r], theirs = ((const long long *)their_rows.buf)[r];
        ok = mine >= 0 && mine < sides && theirs >= 0 && theirs < sides;
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "race_rows: table (S, 3, bins) float64, my_rows and their_rows (N,) int64 "
                                          "rows of it, my_none_off and their_none_off (N,) bool, out (N, 5) float64, "
                                          "all C-contiguous");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    race_rows_layer(table.buf, bins, my_rows.buf, their_rows.buf, my_none_off.buf, their_none_off.buf, n, out.buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&table);
    PyBuffer_Release(&my_rows);
    PyBuffer_Release(&their_rows);
    PyBuffer_Release(&my_none_off);
    PyBuffer_Release(&their_none_off);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"first_layer", first_layer, METH_VARARGS,
     "first_layer(boards, table, weight, bias, escape_table, out[, relu]): out = bias + encoded(boards) @ weight, in "
     "place, the points' units from table (models.inference.point_table of weight), with relu its ReLU; the encoding "
     "is tesauro198, tesauro198+race, contact-v1, contact-v2 or contact-v3 by the weight's rows."},
    {"screen", screen, METH_VARARGS,
     "screen(boards, w1, b1, w2, b2, escape_table, points, out[, origins, parent]): a pruning net's equity of each "
     "afterstate for the side that moved, NaN where it does not judge; out in place. With origins, boards[r] was "
     "played from origins[parent[r]] and is summed from that board's first layer."},
    {"screen_choices", screen_choices, METH_VARARGS,
     "screen_choices(boards, rolls, keep, w1, b1, w2, b2, escape_table, points) -> (rows, group) as bytes: for each "
     "board and roll, its legal plays screened from the board; of a roll with more than keep plays those the screen "
     "does not judge and its keep best, else all: (M, 26) int8 rows and (M,) int64 groups (board * R + roll)."},
    {"race_rows", race_rows, METH_VARARGS,
     "race_rows(table, bins, my_rows, their_rows, my_none_off, their_none_off, out): a race's five probabilities for "
     "the side on roll of each row, from the two sides' roll counts (table (S, 3, bins) float64 of distinct sides, "
     "my_rows and their_rows (N,) int64 into it), as engine.search.bearoff.race_probabilities; out (N, 5) in place."},
    {"instruction_set", instruction_set, METH_VARARGS,
     "instruction_set([name]) -> str: the kernels' instruction set in use (baseline, x86-64-v3 or x86-64-v4); with a "
     "name, that set in its place, where this processor runs it, and the previous set's name returned."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", "Compiled kernels of models/inference.py.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__native(void)
{
    kernels = SETS[0];
    for (size_t k = 1; k < sizeof SETS / sizeof *SETS; k++)
        if (runs(SETS[k]))
            kernels = SETS[k];
    plays_api = linked_generator();
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "has_generator", plays_api != NULL) < 0)
        Py_CLEAR(m);
    return m;
}
