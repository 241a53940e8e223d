/* The vector kernels of models/_native.c, compiled once for each instruction set it includes this file for: before
 * each inclusion it sets VECTOR_BYTES (the width of the set's registers), SET(name) (the name the set gives a function
 * here), SET_NAME (the set's own) and KERNEL (the set's target attribute, or nothing).
 *
 * A board's sums run over LANES columns as one vector (GNU C's vector extension), several vectors at once: their
 * running sums stay in registers over a board's inputs, and up to eight independent sums keep the multiply-adds in
 * flight. The vector is the width of the set's registers: GCC splits a wider one through memory, which made the
 * 64-byte vectors of the AVX-512 kernels ten times slower on a processor with AVX2 alone (benchmarks/RESULTS.md). */

#define LANES (VECTOR_BYTES / (int)sizeof(float))
#define KERNEL_INLINE KERNEL static inline __attribute__((always_inline))
typedef float SET(Vector) __attribute__((vector_size(VECTOR_BYTES), aligned(4)));
#define Vector SET(Vector)

/* Columns j0 .. j0 + vectors * LANES - 1 of one board's sums (``vectors`` a constant where it is inlined). */
KERNEL_INLINE void SET(block_sums)(const Active *a, const float *table, const float *weight, Py_ssize_t width,
                                   const float *bias, Py_ssize_t j0, int vectors, float *o)
{
    Vector sum[8];
    for (int k = 0; k < vectors; k++)
        sum[k] = ((const Vector *)(bias + j0))[k];
    for (int t = 0; t < a->points; t++) {
        const Vector *w = (const Vector *)(table + (Py_ssize_t)a->point[t] * width + j0);
        for (int k = 0; k < vectors; k++)
            sum[k] += w[k];
    }
    for (int t = 0; t < a->count; t++) {
        const Vector *w = (const Vector *)(weight + (Py_ssize_t)a->column[t] * width + j0);
        float v = a->value[t];
        for (int k = 0; k < vectors; k++)
            sum[k] += v * w[k];
    }
    for (int k = 0; k < vectors; k++)
        ((Vector *)(o + j0))[k] = sum[k];
}

/* One board's sums over all ``width`` columns. */
KERNEL_INLINE void SET(board_sums)(const Active *a, const float *table, const float *weight, Py_ssize_t width,
                                   const float *bias, float *o)
{
    Py_ssize_t j0 = 0;
    for (; j0 + 8 * LANES <= width; j0 += 8 * LANES)
        SET(block_sums)(a, table, weight, width, bias, j0, 8, o);
    for (; j0 + 4 * LANES <= width; j0 += 4 * LANES)
        SET(block_sums)(a, table, weight, width, bias, j0, 4, o);
    for (Py_ssize_t j = j0; j < width; j++) {            /* the columns past the last whole vectors */
        float sum = bias[j];
        for (int t = 0; t < a->points; t++)
            sum += table[(Py_ssize_t)a->point[t] * width + j];
        for (int t = 0; t < a->count; t++)
            sum += a->value[t] * weight[(Py_ssize_t)a->column[t] * width + j];
        o[j] = sum;
    }
}

/* Each board's first-layer sums, with ``relu`` their ReLU (taken while the row is in the cache, not in a pass of its
 * own over the batch). */
KERNEL static void SET(tesauro_layer)(const signed char *boards, Py_ssize_t rows, const float *table,
                                      const float *weight, Py_ssize_t inputs, const float *bias, Py_ssize_t width,
                                      const double *escape_table, int relu, float *out)
{
    Active a;
    for (Py_ssize_t r = 0; r < rows; r++) {
        float *o = out + r * width;
        active_inputs(boards + r * CELLS, inputs, 1, escape_table, &a);
        SET(board_sums)(&a, table, weight, width, bias, o);
        for (Py_ssize_t j = 0; relu && j < width; j++)
            o[j] = o[j] > 0.0f ? o[j] : 0.0f;
    }
}

/* The sum of a vector's lanes, halving it (not one addition after another): for sixteen lanes the order the
 * AVX-512 kernels have always used. */
KERNEL_INLINE float SET(lane_sum)(const Vector *v)
{
    float f[LANES];
    memcpy(f, v, sizeof f);
    for (int width = LANES / 2; width > 0; width /= 2)
        for (int i = 0; i < width; i++)
            f[i] += f[i + width];
    return f[0];
}

/* Eight lanes as one vector (two on the baseline's four-lane registers): a softmax's six logits, padded. */
#define EIGHT_LANES (LANES < 8 ? LANES : 8)
#define EIGHT_VECTORS (8 / EIGHT_LANES)
typedef float SET(Eight) __attribute__((vector_size(EIGHT_LANES * sizeof(float)), aligned(4)));
typedef int SET(EightBits) __attribute__((vector_size(EIGHT_LANES * sizeof(int)), aligned(4)));
#define Eight SET(Eight)
#define EightBits SET(EightBits)

/* e^x of each lane for x <= 0 (a softmax's logits less the largest), in a few multiply-adds where libm's expf is a
 * call a lane: 2^n e^r with n the integer nearest x / ln 2, so that |r| <= ln 2 / 2, and e^r by its Taylor series to
 * r^7 (the next term is below 6e-9 there, under float rounding). Below -87, near float's smallest normal, it is 0:
 * nothing beside the largest logit's 1. */
KERNEL_INLINE Eight SET(exp_lanes)(Eight x)
{
    EightBits low = x < -87.0f;                          /* -1 in the lanes below -87 (-inf included) */
    x = (Eight)(((EightBits)x & ~low) | ((EightBits)((Eight){0} - 87.0f) & low));  /* -87 there: n stays an int */
    Eight n = x * 1.44269504088896341f + 12582912.0f;    /* 1.5 * 2^23: adding it rounds to an integer */
    n -= 12582912.0f;
    Eight r = x - n * 0.693359375f;                      /* ln 2 in two parts, the first exact in few bits */
    r -= n * -2.12194440054690583e-4f;
    Eight e = (Eight){0} + 1.0f / 5040;
    e = e * r + 1.0f / 720;
    e = e * r + 1.0f / 120;
    e = e * r + 1.0f / 24;
    e = e * r + 1.0f / 6;
    e = e * r + 0.5f;
    e = e * r + 1.0f;
    e = e * r + 1.0f;
    EightBits scale = (__builtin_convertvector(n, EightBits) + 127) << 23;    /* 2^n as a float's bits */
    return (Eight)((EightBits)(e * (Eight)scale) & ~low);
}

/* The mover's equity from the pruning net's first-layer sums ``h`` of the board turned round (the opponent on roll):
 * ReLU, the second layer, the softmax of the six logits weighed by ``points`` (the results' points for the side on
 * roll), its sign turned. ``h`` is overwritten. */
KERNEL_INLINE double SET(screen_equity)(float *h, Py_ssize_t hidden, const float *w2t, const float *b2,
                                        const double *points)
{
    float logits[8] = {0, 0, 0, 0, 0, 0, -INFINITY, -INFINITY}, e[8], top = -INFINITY, total = 0.0f, equity = 0.0f;
    for (Py_ssize_t j = 0; j < hidden; j++)
        h[j] = h[j] > 0.0f ? h[j] : 0.0f;
    Vector lanes[6] = {{0}};                             /* each result: LANES hidden units to a vector */
    Py_ssize_t j = 0;
    for (; j + LANES <= hidden; j += LANES)
        for (int k = 0; k < 6; k++)
            lanes[k] += *(const Vector *)(h + j) * *(const Vector *)(w2t + k * hidden + j);
    for (int k = 0; k < 6; k++) {
        float sum = b2[k] + SET(lane_sum)(&lanes[k]);
        for (Py_ssize_t i = j; i < hidden; i++)
            sum += h[i] * w2t[k * hidden + i];
        logits[k] = sum;
        top = sum > top ? sum : top;
    }
    for (int v = 0; v < EIGHT_VECTORS; v++) {
        Eight x;
        memcpy(&x, logits + v * EIGHT_LANES, sizeof x);
        x = SET(exp_lanes)(x - top);
        memcpy(e + v * EIGHT_LANES, &x, sizeof x);
    }
    for (int k = 0; k < 6; k++) {
        total += e[k];
        equity += e[k] * (float)points[k];
    }
    return -(double)equity / total;
}

/* A pruning net's cubeless equity of each afterstate for the side that just moved (models/inference.py's Screen):
 * NaN where the game is over (the mover has no checker left) or the position is a race; else the net (tesauro198+race,
 * one hidden layer, ReLU, six exclusive results) judges the board turned round, the opponent on roll, and the
 * softmax of its logits is weighed by ``points``, the results' points for the side on roll, its sign turned. */
KERNEL static void SET(screen_layer)(const signed char *boards, Py_ssize_t rows, const float *w1, const float *b1,
                                     Py_ssize_t hidden, const float *w2, const float *b2, const double *escape_table,
                                     const double *points, double *out)
{
    Active a;
    float h[512], w2t[6 * 512];
    second_layer_rows(w2, hidden, w2t);
    Tally t;
    for (Py_ssize_t r = 0; r < rows; r++) {
        const signed char *b = boards + r * CELLS;
        tally_board(b, &t);
        if (!screened(&t)) {
            out[r] = NAN;
            continue;
        }
        signed char turned[CELLS];
        turn_round(b, turned);
        active_inputs(turned, TESAURO_RACE, 0, escape_table, &a);
        SET(board_sums)(&a, NULL, w1, hidden, b1, h);
        out[r] = SET(screen_equity)(h, hidden, w2t, b2, points);
    }
}

/* A starting board's share of the screen of the plays from it (Start): its first layer's sums, tally and columns. */
KERNEL_INLINE void SET(start_of)(const signed char *o, const float *w1, const float *b1, Py_ssize_t hidden,
                                 const double *escape_table, Start *s)
{
    Active a;
    signed char turned[CELLS];
    turn_round(o, turned);
    active_inputs(turned, TESAURO_RACE, 0, escape_table, &a);
    SET(board_sums)(&a, NULL, w1, hidden, b1, s->sums);
    tally_board(o, &s->tally);
    turned_columns(o, &s->tally, s->rest);
}

/* The screen of afterstate ``b`` played from ``o`` (whose share is ``s``): the starting board's sums plus the inputs
 * the play changed, a few a play where the board sets about forty; NaN where the screen does not judge. */
KERNEL_INLINE double SET(played_equity)(const signed char *b, const signed char *o, const Start *s, const float *w1,
                                        Py_ssize_t hidden, const float *w2t, const float *b2, const double *points)
{
    Active a;
    float h[512], rest[12];
    Tally t = s->tally;
    a.count = a.points = 0;
    unsigned changed = 0;                            /* bit c: cell c differs, found without a branch a cell */
    for (int c = 0; c < CELLS; c++)
        changed |= (unsigned)(b[c] != o[c]) << c;
    for (; changed; changed &= changed - 1) {
        int c = __builtin_ctz(changed);
        tally_cell(&t, c, o[c], b[c]);
        if (c == 0 || c == 25)
            continue;                                /* the bars are columns 192 and 193 (below) */
        /* the cell turned round: the side on roll's point 25 - c, the mover's own point c */
        changed_units(&a, 0, 25 - c, o[c] < 0 ? -o[c] : 0, b[c] < 0 ? -b[c] : 0);
        changed_units(&a, 1, c, o[c] > 0 ? o[c] : 0, b[c] > 0 ? b[c] : 0);
    }
    if (!screened(&t))
        return NAN;
    turned_columns(b, &t, rest);
    for (int k = 0; k < 12; k++)
        if (rest[k] != s->rest[k])
            set(&a, 192 + k, rest[k] - s->rest[k]);
    SET(board_sums)(&a, NULL, w1, hidden, s->sums, h);  /* the starting board's sums in place of the bias */
    return SET(screen_equity)(h, hidden, w2t, b2, points);
}

/* The screen of afterstates each given with the board its play started from (``origins[parent[r]]``, the same
 * side's view): the answers of screen_layer, each from its starting board's share (summed once for all its rolls'
 * plays) and the inputs the play changed. */
KERNEL static void SET(screen_moves_layer)(const signed char *boards, Py_ssize_t rows, const signed char *origins,
                                           const long long *parent, const float *w1, const float *b1,
                                           Py_ssize_t hidden, const float *w2, const float *b2,
                                           const double *escape_table, const double *points, double *out)
{
    Start s;
    float w2t[6 * 512];
    long long current = -1;
    second_layer_rows(w2, hidden, w2t);
    for (Py_ssize_t r = 0; r < rows; r++) {
        const signed char *o = origins + parent[r] * CELLS;
        if (parent[r] != current && (current < 0 || memcmp(o, origins + current * CELLS, CELLS))) {
            current = parent[r];                     /* a new starting board, not the last one again */
            SET(start_of)(o, w1, b1, hidden, escape_table, &s);
        }
        out[r] = SET(played_equity)(boards + r * CELLS, o, &s, w1, hidden, w2t, b2, points);
    }
}

/* The plays a search judges in full at its deepest ply (screen_choices in models/_native.c): for each board and roll,
 * its legal plays by the engine's generator (``api``), each screened from the board; of a roll with more than
 * ``keep`` plays, those the screen does not judge and its ``keep`` best (the first ones on ties), else all of them;
 * each appended to ``chosen`` with its group (board * count + roll), in the generator's order. 0, or -1 when memory
 * ran out. */
KERNEL static int SET(screen_choices_layer)(const signed char *boards, Py_ssize_t n, const signed char *rolls,
                                            Py_ssize_t count, int keep, const PlaysApi *api, void *player,
                                            const float *w1, const float *b1, Py_ssize_t hidden, const float *w2,
                                            const float *b2, const double *escape_table, const double *points,
                                            Chosen *chosen)
{
    Start s;
    float w2t[6 * 512];
    second_layer_rows(w2, hidden, w2t);
    for (Py_ssize_t i = 0; i < n; i++) {
        const signed char *o = boards + i * CELLS;
        SET(start_of)(o, w1, b1, hidden, escape_table, &s);
        for (Py_ssize_t r = 0; r < count; r++) {
            const signed char *rows;
            Py_ssize_t plays = api->plays(player, o, rolls[2 * r], rolls[2 * r + 1], &rows);
            if (plays < 0 || grow_values(chosen, plays))
                return -1;
            int crowded = plays > keep;
            for (Py_ssize_t k = 0; crowded && k < plays; k++) {
                double v = SET(played_equity)(rows + k * PLAY_ROW, o, &s, w1, hidden, w2t, b2, points);
                chosen->values[k] = v;
                chosen->taken[k] = v != v;           /* the screen does not judge it: judged in full */
            }
            for (int pass = 0; crowded && pass < keep; pass++) {
                Py_ssize_t best = -1;                /* the first best of those not yet taken */
                for (Py_ssize_t k = 0; k < plays; k++)
                    if (!chosen->taken[k] && (best < 0 || chosen->values[k] > chosen->values[best]))
                        best = k;
                if (best < 0)
                    break;
                chosen->taken[best] = 1;
            }
            for (Py_ssize_t k = 0; k < plays; k++)
                if ((!crowded || chosen->taken[k]) && add_chosen(chosen, rows + k * PLAY_ROW, i * count + r))
                    return -1;
        }
    }
    return 0;
}

static const Kernels SET(kernels) = {SET_NAME, SET(tesauro_layer), SET(screen_layer), SET(screen_moves_layer),
                                     SET(screen_choices_layer)};

#undef Vector
#undef Eight
#undef EightBits
#undef EIGHT_LANES
#undef EIGHT_VECTORS
#undef KERNEL_INLINE
#undef LANES
