/*
 * The subcommands of hearts-sim, one file each: replay (replay.c), play
 * (sim.c), roundrobin (roundrobin.c), bench (bench.c), think (think.c) and
 * leaderboard (leaderboard.c). Each takes the
 * arguments after its name and returns the process exit code.
 */
#ifndef HEARTS_TOOLS_SIM_H
#define HEARTS_TOOLS_SIM_H

#include "engine/ai/ai.h"
#include "engine/engine.h"
#include "tools/sim_stats.h"

#include <stdio.h>

int sim_replay(int argc, char **argv);
int sim_play(int argc, char **argv);
int sim_bench(int argc, char **argv);
int sim_leaderboard(int argc, char **argv);
int sim_think(int argc, char **argv);

/* Shared by the subcommands (sim.c): a monotonic clock in seconds; qsort's
 * order of doubles; a whole decimal number in [min, max] into *out, 0, or
 * -1 (and *out unchanged) for anything else. */
double sim_seconds(void);
int sim_cmp_double(const void *a, const void *b);
int sim_parse_count(const char *s, long min, long max, long *out);

/*
 * A tournament (sim.c), what `play` and `roundrobin` (roundrobin.c) run:
 * games of `rules` between the computer players of `pattern` (one a
 * seat), `games` of them, the deals from `seed`. Duplicate: the games come
 * in groups that replay the same deals (the same deal seed and first
 * dealer), once in each seating (sim_seatings) of the pattern.
 */
struct sim_tour {
    const struct engine_rules *rules;
    struct sim_seat pattern[ENGINE_MAX_PLAYERS];
    long games, seed;
    int duplicate;
    int budgets[AI_LEVEL_MAX]; /* playouts by level; 0: the level's own */
    FILE *records;             /* a record a game, or NULL */
    /* zeroed entries, one for every game played (`games` rounded up to
     * whole groups of seatings), for the figures of the pattern's first
     * player by game (sim_stats.h); or NULL */
    struct sim_pair_game *per_game;
};

/* The figures of one player of the pattern (its seats pooled). */
struct sim_player {
    struct sim_seat who;
    int seats;              /* in the pattern */
    struct sim_mean points; /* a seat-hand's points, grouped by table hand */
    struct sim_mean points_dup; /* grouped by deal (every seating of it) */
    /* a seat-hand's margin: the other side's mean points less its own
     * side's (what the search values), grouped by table hand; unlike the
     * points, the same whichever way a moon is scored */
    struct sim_mean margin;
    struct sim_mean won;     /* a seat-game's share of the win, by game */
    struct sim_mean won_dup; /* by group of games on the same deals */
    long moons;
};

struct sim_tour_result {
    long games, hands, groups;
    int seatings;
    int nplayers;
    struct sim_player players[ENGINE_MAX_PLAYERS];
    /* by seat (position at the table, whoever sat there) */
    struct sim_mean seat_points[ENGINE_MAX_PLAYERS];
    struct sim_mean seat_won[ENGINE_MAX_PLAYERS];
    long seat_moons[ENGINE_MAX_PLAYERS];
};

/* Plays the tournament; 0, or 1 if a game did not finish or a record
 * could not be written (said on stderr). */
int sim_tour_run(const struct sim_tour *t, struct sim_tour_result *res);

/* --preset NAME (into *preset) and --set KEY=VALUE (" KEY=VALUE" added
 * to text), which play and roundrobin share: 1 if arg is one of them, 0
 * if not, -1 if its value is refused (said on stderr, after `who`). */
struct strbuf;
int sim_parse_rules_arg(const char *who, const char *arg, const char *val,
                        const char **preset, struct strbuf *text);

/* Reads --seats' LEVEL[/VARIANT],... into seats; the count, or -1 (said
 * on stderr, after `who`). */
int sim_parse_seats(const char *who, const char *list, struct sim_seat *seats,
                    int max);

/* Reads --budget: N (every searching level) or LEVEL=N[,LEVEL=N...] into
 * budgets (by level); 0, or -1 (said on stderr, after `who`). */
int sim_parse_budgets(const char *who, const char *arg, int *budgets);

int sim_roundrobin(int argc, char **argv);

#endif
