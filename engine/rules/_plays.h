/* The compiled move generator (engine/rules/_native.c) as another compiled module calls it: models/_native.c's
 * search kernels, through the capsule PLAYS_CAPSULE (the module's ``plays_api``), one position's distinct legal
 * plays at a time with no Python object between them (the capsule's name says the table's layout). Only the engine's own rules are in it: the caller knows
 * nothing of it but this table. */
#ifndef GAMMON_PLAYS_H
#define GAMMON_PLAYS_H

#define PLAYS_CAPSULE "gammon.engine.rules._native.plays_api, layout 1"  /* a new layout, a new number */
#define PLAY_ROW 32                                  /* a play's bytes, its board's 26 cells first */

typedef struct {
    /* A generator's working memory (NULL when there is none to be had), and its release. */
    void *(*player_new)(void);
    void (*player_free)(void *player);
    /* The distinct legal plays of ``board`` (26 cells, the side on roll's view) for the dice d1 and d2, in the
     * order and with the records of engine/rules/movegen.py: their count (-1 when memory ran out), ``*rows``
     * pointed at them, PLAY_ROW bytes a play, valid until the player's next call. */
    Py_ssize_t (*plays)(void *player, const signed char *board, int d1, int d2, const signed char **rows);
} PlaysApi;

#endif
