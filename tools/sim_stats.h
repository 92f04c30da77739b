/*
 * The pure parts of hearts-sim's tournaments (sim_stats.c), apart so that
 * unit tests reach them: a seat's level and variant ("hard/points"), the
 * seatings of a duplicate tournament, a mean with its standard error over
 * independent groups, and the rating fit of the round robin.
 */
#ifndef HEARTS_TOOLS_SIM_STATS_H
#define HEARTS_TOOLS_SIM_STATS_H

#include <stddef.h>

/* A seat's computer player: a level (ai.h) and its variant bits (AI_*).
 * apart: a player counted apart from the same level and variant in other
 * seats (--against's, which may be one of the table's). */
struct sim_seat {
    int level;
    int flags;
    int apart;
};

/*
 * Reads LEVEL[/VARIANT] ("hard", "hard/points") into *out: the level by
 * name (any case), the variant by name from those ai.h defines, and only
 * for a level it changes (a searching level). 0, or -1 with the reason in
 * err (and *out unchanged).
 */
int sim_seat_parse(const char *word, struct sim_seat *out, char *err,
                   size_t errlen);

/* The seat's name as sim_seat_parse reads it ("hard/points") into buf. */
void sim_seat_name(const struct sim_seat *s, char *buf, size_t len);

/* Whether two seats are the same player. */
int sim_seat_same(const struct sim_seat *a, const struct sim_seat *b);

/*
 * The seatings of a duplicate tournament: seating r gives seat s the
 * player the pattern has at seat (s - r) mod n (each seating moves every
 * player one seat on). sim_seatings is how many differ: the least p that
 * divides n and repeats the pattern (4 for "hard,easy,easy,easy", 2 for
 * "hard,easy,hard,easy", 1 if every seat is the same).
 */
int sim_seating_of(int seat, int rotation, int n);
int sim_seatings(const struct sim_seat *pattern, int n);

/*
 * A mean over observations that come in independent groups (a hand's
 * seats of one level; the plays of one deal in every seating; a game's
 * seats), with its standard error: the ratio estimator sum / count and
 * its cluster (sandwich) variance, C / (C - 1) * sum over groups of
 * (S_g - mean * m_g)^2 / (sum of m_g)^2. With one observation a group it
 * is the ordinary standard error of a mean, s / sqrt(n).
 */
struct sim_mean {
    double s, m, ss, sm, mm;
    long groups;
};

/* Adds a group: `sum` of its `count` observations (none: ignored). */
void sim_mean_add(struct sim_mean *a, double sum, double count);
double sim_mean_value(const struct sim_mean *a);
/* 0 with fewer than 2 groups. */
double sim_mean_se(const struct sim_mean *a);

/*
 * One game's figures of the player compared by `hearts-sim play
 * --against` (its seats pooled): its share of the win summed over its
 * seats and those seats, its margin summed over its seat-hands and those
 * seat-hands; `group` is the game's deals (the games of one deal in
 * every seating). Game i of one run is played on the same deals as game i
 * of the other.
 */
struct sim_pair_game {
    double won, seats, margin, hands;
    long group;
};

/* The difference of two runs' figures of a player, a less b, and its
 * standard error over the deals paired; `unpaired` as if the runs were
 * independent. */
struct sim_pair_diff {
    double diff, se, unpaired;
};

/*
 * Compares the runs a and b of n games on the same deals: the share of
 * games won (the win shares over the seat-games) and the margin a hand
 * (the ratio of the summed margins to the seat-hands), each a less b.
 * The standard errors are over the groups of deals, each group's
 * difference counted once (a ratio's by its linearisation: the group's
 * sum less the ratio times its count, over the total count). Groups are
 * consecutive games with the same `group`. 0, or -1 if the runs do not
 * pair (no games, or a game whose seats or group differ).
 */
int sim_pair_compare(const struct sim_pair_game *a,
                     const struct sim_pair_game *b, long n,
                     struct sim_pair_diff *won, struct sim_pair_diff *margin);

/*
 * Fits a Bradley-Terry model to k players' results: wins[i * k + j] is
 * what i won against j (a shared game counts its share) and
 * games[i * k + j] = games[j * k + i] the games between them. The
 * strength of i is pi_i, i beats j with chance pi_i / (pi_i + pi_j). Each
 * pair that played gets half a virtual win each way (a weak prior, so that
 * a player who never won has a finite rating). Ratings are on the Elo
 * scale, 400 * log10(pi), shifted so that player `anchor` has
 * `anchor_rating`; se their standard errors from the inverse of the
 * information matrix with the anchor fixed (the anchor's is 0). 0, or -1
 * if the players do not all connect through games.
 */
int sim_rating_fit(int k, const double *wins, const double *games, int anchor,
                   double anchor_rating, double *rating, double *se);

/* The Elo-scale chance that a side rated `diff` above the other wins. */
double sim_rating_chance(double diff);

#endif
