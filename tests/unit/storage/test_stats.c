/*
 * The leaderboards (storage/stats.c): the Elo of docs/playing.md checked
 * by hand, wins and shared wins, people who left, computers, provisional
 * ratings, ranks, the per-preset and custom boards, the last game, the
 * figures of a record, leaderboard.json written, read back and refused
 * when damaged, and the boards rebuilt from an archive, opened, caught up
 * and checkpointed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/ai/ai.h"
#include "storage/archive.h"
#include "storage/record/record.h"
#include "storage/stats.h"
#include "storage/storage.h"
#include "tests/unit/storage/play.h"
#include "tests/unit/storage/room.h"

static bool exists(const char *name)
{
    char path[200];
    struct stat st;
    path_of(path, sizeof path, name);
    return stat(path, &st) == 0;
}

/* A finished standard game of n seats with these totals and winners. */
static struct stats_game game_of(int n, const int *totals, uint16_t winners)
{
    struct stats_game g;
    memset(&g, 0, sizeof g);
    g.n = n;
    g.nhands = 2;
    g.finished = true;
    g.preset = engine_preset_find("standard");
    for (int s = 0; s < n; s++) {
        g.totals[s] = totals[s];
        g.points[s] = totals[s];
    }
    g.winners = winners;
    return g;
}

static const struct stats_player *who(const struct stats *s, const char *board,
                                      const char *key)
{
    return stats_find(stats_board(s, board), key);
}

static double rating(const struct stats *s, const char *key)
{
    const struct stats_player *p = who(s, "standard", key);
    assert_non_null(p);
    return p->rating;
}

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* ---- The rating ------------------------------------------------------- */

static void test_elo_two_and_three_people(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *two[] = {"n:a", "n:b", NULL, NULL};
    struct archive_result r;
    room_result(&r, "0000000000000001", 4, two, true);
    int t1[] = {10, 90, 20, 10};
    struct stats_game g = game_of(4, t1, 1u << 0 | 1u << 3);
    stats_add(s, &r, &g);
    stats_rank(s);
    /* equal ratings: expected 0.5 each; a beat b: +-32 * 0.5 */
    assert_near(rating(s, "n:a"), 1516.0);
    assert_near(rating(s, "n:b"), 1484.0);
    assert_int_equal(who(s, "standard", "n:a")->rank, 1);
    assert_int_equal(who(s, "standard", "n:b")->rank, 2);
    /* a shared win counts for a, computers are on no board */
    assert_int_equal(who(s, "standard", "n:a")->wins, 1);
    assert_int_equal(stats_board(s, "standard")->n, 2);
    assert_null(stats_board(s, STATS_CUSTOM));

    /* three new people, c < d < e: 16 * (1 + 1 - 1) = +16, 0, -16 */
    const char *three[] = {"n:c", "n:d", "n:e"};
    room_result(&r, "0000000000000002", 3, three, true);
    int t2[] = {5, 50, 80};
    g = game_of(3, t2, 1u);
    stats_add(s, &r, &g);
    assert_near(rating(s, "n:c"), 1516.0);
    assert_near(rating(s, "n:d"), 1500.0);
    assert_near(rating(s, "n:e"), 1484.0);

    /* a (1516) against b (1484): expected for a 1/(1+10^(-32/400)) */
    room_result(&r, "0000000000000003", 4, two, true);
    int t3[] = {50, 50, 0, 0}; /* a draw */
    g = game_of(4, t3, 1u << 2 | 1u << 3);
    stats_add(s, &r, &g);
    double ea = 1.0 / (1.0 + pow(10.0, -32.0 / 400.0));
    assert_near(rating(s, "n:a"), 1516.0 + 32.0 * (0.5 - ea));
    assert_near(rating(s, "n:b"), 1484.0 + 32.0 * (0.5 - (1.0 - ea)));
    assert_int_equal(who(s, "standard", "n:a")->games, 2);
    assert_int_equal(who(s, "standard", "n:a")->hands, 4);
    assert_true(stats_provisional(who(s, "standard", "n:a")));
    assert_int_equal(s->games, 3);
    stats_free(s);
}

/* Four people with different ratings: every change comes from the
 * ratings before the game, and the changes add up to nothing. */
static void test_elo_uses_everyones_rating_before_the_game(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *ab[] = {"n:a", "n:b", NULL, NULL};
    const char *cd[] = {"n:c", "n:d", NULL, NULL};
    const char *all[] = {"n:a", "n:b", "n:c", "n:d"};
    struct archive_result r;
    int win0[] = {0, 26, 26, 26};
    struct stats_game g = game_of(4, win0, 1u);
    room_result(&r, "0000000000000001", 4, ab, true);
    stats_add(s, &r, &g); /* a 1516, b 1484 */
    room_result(&r, "0000000000000002", 4, cd, true);
    stats_add(s, &r, &g);
    stats_add(s, &r, &g); /* c and d twice: c beat d twice */
    double c1 = 1516.0, d1 = 1484.0;
    double ec = 1.0 / (1.0 + pow(10.0, (d1 - c1) / 400.0));
    double c2 = c1 + 32.0 * (1.0 - ec), d2 = d1 - 32.0 * (1.0 - ec);
    assert_near(rating(s, "n:c"), c2);
    assert_near(rating(s, "n:d"), d2);

    /* d < b < a < c */
    room_result(&r, "0000000000000003", 4, all, true);
    int t[] = {60, 40, 90, 10};
    g = game_of(4, t, 1u << 3);
    stats_add(s, &r, &g);
    double before[] = {1516.0, 1484.0, c2, d2};
    /* score of seat x against seat y: 1 if x's total is lower */
    double sum = 0;
    for (int x = 0; x < 4; x++) {
        double d = 0;
        for (int y = 0; y < 4; y++) {
            if (x == y)
                continue;
            double score = t[x] < t[y] ? 1.0 : 0.0;
            d += score -
                 1.0 / (1.0 + pow(10.0, (before[y] - before[x]) / 400.0));
        }
        double want = before[x] + 32.0 / 3.0 * d;
        assert_near(rating(s, all[x]), want);
        sum += want - before[x];
    }
    assert_true(fabs(sum) < 1e-9);
    stats_free(s);
}

static void test_a_shared_win_counts_for_each(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", "n:c", "n:d"};
    struct archive_result r;
    room_result(&r, "0000000000000001", 4, keys, true);
    int t[] = {10, 10, 30, 40};
    struct stats_game g = game_of(4, t, 1u << 0 | 1u << 1);
    stats_add(s, &r, &g);
    stats_rank(s);
    assert_int_equal(who(s, "standard", "n:a")->wins, 1);
    assert_int_equal(who(s, "standard", "n:b")->wins, 1);
    assert_int_equal(who(s, "standard", "n:c")->wins, 0);
    assert_int_equal(who(s, "standard", "n:d")->wins, 0);
    /* a and b drew each other and beat c and d: 32/3 * (0 + .5 + .5) */
    assert_near(rating(s, "n:a"), 1500.0 + 32.0 / 3.0);
    assert_near(rating(s, "n:b"), 1500.0 + 32.0 / 3.0);
    /* c lost to both, beat d: 32/3 * (-.5 - .5 + .5); d lost to all */
    assert_near(rating(s, "n:c"), 1500.0 - 16.0 / 3.0);
    assert_near(rating(s, "n:d"), 1500.0 - 16.0);
    stats_free(s);
}

static void test_leaver_loses_and_stopped_games_count_for_nobody(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", "n:c", "n:d"};
    struct archive_result r;
    room_result(&r, "0000000000000004", 4, keys, true);
    r.seats[0].left = true; /* a computer played a's seat to a win */
    int t[] = {0, 30, 40, 56};
    struct stats_game g = game_of(4, t, 1u);
    stats_add(s, &r, &g);
    stats_rank(s);
    const struct stats_player *a = who(s, "standard", "n:a");
    assert_int_equal(a->games, 1);
    assert_int_equal(a->wins, 0);
    /* a lost to all three: 32/3 * (0 - 0.5) * 3 = -16 */
    assert_near(a->rating, 1484.0);
    assert_int_equal(a->rank, 4);

    room_result(&r, "0000000000000005", 4, keys, false);
    g.finished = false;
    stats_add(s, &r, &g);
    assert_int_equal(who(s, "standard", "n:a")->games, 1);
    assert_int_equal(s->games, 2);
    stats_free(s);
}

/* Two who left draw each other whatever their totals, and lose to
 * everyone who stayed. */
static void test_two_leavers_draw_each_other(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", "n:c", "n:d"};
    struct archive_result r;
    room_result(&r, "0000000000000001", 4, keys, true);
    r.seats[0].left = r.seats[1].left = true;
    int t[] = {0, 100, 50, 60};
    struct stats_game g = game_of(4, t, 1u);
    stats_add(s, &r, &g);
    double k3 = 32.0 / 3.0;
    assert_near(rating(s, "n:a"), 1500.0 + k3 * (0.0 - 0.5 - 0.5));
    assert_near(rating(s, "n:b"), 1500.0 + k3 * (0.0 - 0.5 - 0.5));
    assert_near(rating(s, "n:c"), 1500.0 + k3 * (0.5 + 0.5 + 0.5));
    assert_near(rating(s, "n:d"), 1500.0 + k3 * (0.5 + 0.5 - 0.5));
    assert_int_equal(who(s, "standard", "n:a")->wins, 0);
    stats_free(s);
}

/* One person and three computers: the game, the win and the points
 * count, the rating does not move. */
static void test_computers_move_no_rating(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", NULL, NULL, NULL};
    struct archive_result r;
    room_result(&r, "0000000000000001", 4, keys, true);
    int t[] = {5, 30, 40, 56};
    struct stats_game g = game_of(4, t, 1u);
    g.moons[0] = 1;
    g.suns[0] = 2;
    g.queens[0] = 3;
    stats_add(s, &r, &g);
    const struct stats_player *a = who(s, "standard", "n:a");
    assert_non_null(a);
    assert_int_equal(a->games, 1);
    assert_int_equal(a->wins, 1);
    assert_int_equal(a->hands, 2);
    assert_int_equal(a->points, 5);
    assert_int_equal(a->moons, 1);
    assert_int_equal(a->suns, 2);
    assert_int_equal(a->queens, 3);
    assert_near(a->rating, STATS_INITIAL);
    assert_int_equal(stats_board(s, "standard")->n, 1);
    stats_free(s);
}

/* A person in two seats (a key seen twice) counts once, with the first
 * seat. */
static void test_one_person_counts_once_a_game(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:a", "n:b", NULL};
    struct archive_result r;
    room_result(&r, "0000000000000001", 4, keys, true);
    int t[] = {10, 0, 20, 5};
    struct stats_game g = game_of(4, t, 1u << 1);
    stats_add(s, &r, &g);
    const struct stats_player *a = who(s, "standard", "n:a");
    assert_int_equal(a->games, 1);
    assert_int_equal(a->wins, 0);
    assert_int_equal(a->points, 10);
    assert_int_equal(stats_board(s, "standard")->n, 2);
    /* the two people only: a beat b */
    assert_near(a->rating, 1516.0);
    assert_near(rating(s, "n:b"), 1484.0);
    stats_free(s);
}

static void test_a_rating_is_provisional_for_ten_games(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", NULL, NULL};
    struct archive_result r;
    int t[] = {10, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u);
    for (int i = 0; i < STATS_PROVISIONAL; i++) {
        assert_true(i == 0 || stats_provisional(who(s, "standard", "n:a")));
        room_result(&r, "0000000000000001", 4, keys, true);
        stats_add(s, &r, &g);
    }
    assert_int_equal(who(s, "standard", "n:a")->games, STATS_PROVISIONAL);
    assert_false(stats_provisional(who(s, "standard", "n:a")));
    struct stats_player p = {.games = STATS_PROVISIONAL - 1};
    assert_true(stats_provisional(&p));
    stats_free(s);
}

/* ---- Boards ----------------------------------------------------------- */

static void test_custom_tables_count_twice(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", NULL, NULL};
    struct archive_result r;
    room_result(&r, "0000000000000006", 4, keys, true);
    int t[] = {10, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u);
    g.custom = true;
    stats_add(s, &r, &g);
    stats_rank(s);
    assert_int_equal(who(s, "standard", "n:a")->wins, 1);
    assert_int_equal(who(s, STATS_CUSTOM, "n:a")->wins, 1);
    assert_near(who(s, STATS_CUSTOM, "n:b")->rating, 1484.0);
    /* each board has its own rating: a standard game moves only that */
    g.custom = false;
    stats_add(s, &r, &g);
    assert_int_equal(who(s, "standard", "n:a")->games, 2);
    assert_int_equal(who(s, STATS_CUSTOM, "n:a")->games, 1);
    assert_near(who(s, STATS_CUSTOM, "n:b")->rating, 1484.0);
    assert_true(rating(s, "n:b") < 1484.0);
    stats_free(s);
}

/* A game whose table allowed hints counts on the hints board alone,
 * custom or not; the record says so. */
static void test_hinted_games_count_on_the_hints_board_alone(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", NULL, NULL};
    struct archive_result r;
    room_result(&r, "0000000000000007", 4, keys, true);
    int t[] = {10, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u);
    g.hints = true;
    g.custom = true;
    stats_add(s, &r, &g);
    stats_rank(s);
    assert_int_equal(who(s, STATS_HINTS, "n:a")->wins, 1);
    assert_null(stats_board(s, "standard"));
    assert_null(stats_board(s, STATS_CUSTOM));
    char *rec = play("standard", 7, 0);
    struct stats_game f;
    char err[300];
    assert_int_equal(
        stats_game_from_record(rec, strlen(rec), &f, err, sizeof err), 0);
    assert_false(f.hints);
    /* the same record with the mark */
    size_t len = strlen(rec);
    char *marked = malloc(len + 16);
    assert_non_null(marked);
    memcpy(marked, rec, len - 1);
    strcpy(marked + len - 1, ",\"hints\":true}");
    assert_int_equal(
        stats_game_from_record(marked, strlen(marked), &f, err, sizeof err), 0);
    assert_true(f.hints);
    free(marked);
    free(rec);
    stats_free(s);
}

static void test_every_preset_has_its_own_board(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", NULL, NULL};
    struct archive_result r;
    room_result(&r, "0000000000000001", 4, keys, true);
    int t[] = {10, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u);
    int other = engine_preset_find("omnibus");
    assert_true(other >= 0);
    g.preset = other;
    stats_add(s, &r, &g);
    assert_null(stats_board(s, "standard"));
    assert_non_null(who(s, "omnibus", "n:a"));
    assert_string_equal(stats_board(s, "omnibus")->preset, "omnibus");
    assert_string_equal(s->last.preset, "omnibus");
    g.preset = engine_preset_find("standard");
    stats_add(s, &r, &g);
    assert_int_equal(s->nboards, 2);
    assert_near(who(s, "omnibus", "n:a")->rating, 1516.0);
    assert_near(rating(s, "n:a"), 1516.0);
    stats_free(s);
}

static void test_lookups_of_what_is_not_there(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    assert_null(stats_board(s, "standard"));
    assert_null(stats_find(NULL, "n:a"));
    const char *keys[] = {"n:a", "n:b", NULL, NULL};
    struct archive_result r;
    room_result(&r, "0000000000000001", 4, keys, true);
    int t[] = {10, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u);
    stats_add(s, &r, &g);
    assert_null(stats_board(s, "nope"));
    assert_null(who(s, "standard", "n:c"));
    assert_null(who(s, "standard", "a:a")); /* keys are exact */
    stats_free(s);
}

/* Hundreds of people: every one found again under their key, with the
 * name last seen. */
static void test_many_people_are_all_found(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    int t[] = {10, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u);
    for (int i = 0; i < 300; i++) {
        char k[4][16];
        const char *keys[4];
        for (int p = 0; p < 4; p++) {
            snprintf(k[p], sizeof k[p], "n:p%d", (i * 4 + p) % 500);
            keys[p] = k[p];
        }
        struct archive_result r;
        room_result(&r, "0000000000000001", 4, keys, true);
        stats_add(s, &r, &g);
    }
    stats_rank(s);
    const struct stats_board *b = stats_board(s, "standard");
    assert_int_equal(b->n, 500);
    int games = 0;
    for (int i = 0; i < 500; i++) {
        char k[16];
        snprintf(k, sizeof k, "n:p%d", i);
        const struct stats_player *p = stats_find(b, k);
        assert_non_null(p);
        assert_string_equal(p->key, k);
        assert_string_equal(p->name, k + 2);
        games += p->games;
    }
    assert_int_equal(games, 1200);
    /* the order is by rating, the ranks follow it */
    for (int i = 0; i < b->n; i++) {
        assert_int_equal(b->p[b->order[i]].rank, i + 1);
        if (i)
            assert_true(b->p[b->order[i - 1]].rating >=
                        b->p[b->order[i]].rating);
    }
    stats_free(s);
}

/* Equal ratings: more games first, then by key; ranks wait for
 * stats_rank. */
static void test_ranks_break_ties_by_games_then_key(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    struct archive_result r;
    int t[] = {10, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u);
    const char *solo[][4] = {{"n:c", NULL, NULL, NULL},
                             {"n:b", NULL, NULL, NULL},
                             {"n:a", NULL, NULL, NULL},
                             {"n:b", NULL, NULL, NULL}};
    for (int i = 0; i < 4; i++) {
        room_result(&r, "0000000000000001", 4, solo[i], true);
        stats_add(s, &r, &g);
    }
    /* not ranked yet: in the order they came */
    assert_int_equal(who(s, "standard", "n:c")->rank, 1);
    assert_int_equal(who(s, "standard", "n:a")->rank, 3);
    stats_rank(s);
    assert_int_equal(who(s, "standard", "n:b")->rank, 1);
    assert_int_equal(who(s, "standard", "n:a")->rank, 2);
    assert_int_equal(who(s, "standard", "n:c")->rank, 3);
    /* a better rating beats more games */
    const char *two[] = {"n:c", "n:b", NULL, NULL};
    room_result(&r, "0000000000000002", 4, two, true);
    stats_add(s, &r, &g);
    stats_rank(s);
    assert_int_equal(who(s, "standard", "n:c")->rank, 1);
    assert_int_equal(who(s, "standard", "n:a")->rank, 2);
    assert_int_equal(who(s, "standard", "n:b")->rank, 3);
    stats_free(s);
}

/* ---- What counts ------------------------------------------------------ */

static void
test_a_game_without_its_figures_counts_only_as_archived(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", NULL, NULL};
    struct archive_result r;
    room_result(&r, "0000000000000001", 4, keys, true);
    stats_add(s, &r, NULL); /* its record is missing or bad */
    int t[] = {10, 20, 30};
    struct stats_game g = game_of(3, t, 1u); /* seats do not match */
    stats_add(s, &r, &g);
    int t4[] = {10, 20, 30, 40};
    g = game_of(4, t4, 1u);
    g.finished = false; /* the record stops early */
    stats_add(s, &r, &g);
    assert_int_equal(s->games, 3);
    assert_int_equal(s->nboards, 0);
    assert_false(s->last.has);
    stats_free(s);
}

static void test_the_last_finished_game_is_kept(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", NULL, "n:d"};
    struct archive_result r;
    room_result(&r, "00000000000000ab", 4, keys, true);
    r.time = 1700000123;
    r.seats[3].left = true;
    int t[] = {10, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u << 0 | 1u << 2);
    g.custom = true;
    g.nhands = 7;
    g.nlast = 2;
    g.hands[0][1] = 13;
    g.hands[1][2] = 26;
    stats_add(s, &r, &g);
    const struct stats_last *l = &s->last;
    assert_true(l->has);
    assert_string_equal(l->game, "00000000000000ab");
    assert_int_equal(l->time, 1700000123);
    assert_string_equal(l->preset, "standard");
    assert_true(l->custom);
    assert_int_equal(l->n, 4);
    assert_string_equal(l->names[0], "a");
    assert_string_equal(l->names[2], "bot");
    assert_true(l->computer[2]);
    assert_false(l->computer[0]);
    assert_true(l->left[3]);
    assert_false(l->left[0]);
    assert_int_equal(l->totals[3], 40);
    assert_int_equal(l->winners, 1u << 0 | 1u << 2);
    assert_int_equal(l->nhands, 7);
    assert_int_equal(l->nlast, 2);
    assert_int_equal(l->hands[0][1], 13);
    assert_int_equal(l->hands[1][2], 26);
    /* a stopped game after it does not replace it */
    room_result(&r, "00000000000000ac", 4, keys, false);
    stats_add(s, &r, &g);
    assert_string_equal(s->last.game, "00000000000000ab");
    stats_free(s);
}

/* ---- The figures of a record ------------------------------------------ */

static void test_figures_from_a_record(void **state)
{
    (void)state;
    char *rec = play("standard", 7, 0);
    struct stats_game g;
    char err[300];
    assert_int_equal(
        stats_game_from_record(rec, strlen(rec), &g, err, sizeof err), 0);
    assert_true(g.finished);
    assert_false(g.custom);
    assert_int_equal(g.n, 4);
    assert_int_equal(g.preset, engine_preset_find("standard"));
    int queens = 0;
    int64_t points = 0, totals = 0;
    for (int s = 0; s < 4; s++) {
        queens += g.queens[s];
        points += g.points[s];
        totals += g.totals[s];
    }
    assert_int_equal(queens, g.nhands); /* one queen a hand */
    assert_int_equal(points, totals);   /* standard: no resets */
    assert_true(g.winners != 0);
    /* the winners have the lowest total */
    int low = g.totals[0];
    for (int s = 1; s < 4; s++)
        low = g.totals[s] < low ? g.totals[s] : low;
    for (int s = 0; s < 4; s++)
        assert_int_equal(!!(g.winners >> s & 1), g.totals[s] == low);
    /* every hand is kept when there are few: they add up to the points */
    assert_true(g.nhands <= STATS_LAST_HANDS);
    assert_int_equal(g.nlast, g.nhands);
    for (int s = 0; s < 4; s++) {
        int64_t sum = 0;
        for (int h = 0; h < g.nlast; h++)
            sum += g.hands[h][s];
        assert_int_equal(sum, g.points[s]);
    }
    free(rec);
    char *stopped = play("standard", 7, 30);
    assert_int_equal(
        stats_game_from_record(stopped, strlen(stopped), &g, err, sizeof err),
        0);
    assert_false(g.finished);
    free(stopped);
}

/* A long game keeps its last STATS_LAST_HANDS hands, each a real hand. */
static void test_a_long_game_keeps_its_last_hands(void **state)
{
    (void)state;
    char *rec = play("standard target=400", 11, 0);
    struct stats_game g;
    char err[300];
    assert_int_equal(
        stats_game_from_record(rec, strlen(rec), &g, err, sizeof err), 0);
    assert_true(g.finished);
    assert_true(g.nhands > STATS_LAST_HANDS);
    assert_int_equal(g.nlast, STATS_LAST_HANDS);
    assert_true(g.custom);
    for (int h = 0; h < g.nlast; h++) {
        int sum = 0;
        for (int s = 0; s < 4; s++)
            sum += g.hands[h][s];
        assert_true(sum == 26 || sum == 78); /* a moon adds 26 to others */
    }
    free(rec);
}

static void test_custom_is_an_option_changed_not_the_player_count(void **state)
{
    (void)state;
    struct stats_game g;
    char err[300];
    char *rec = play("standard players=3", 5, 0);
    assert_int_equal(
        stats_game_from_record(rec, strlen(rec), &g, err, sizeof err), 0);
    assert_int_equal(g.n, 3);
    assert_false(g.custom);
    free(rec);
    rec = play("standard target=30", 5, 0);
    assert_int_equal(
        stats_game_from_record(rec, strlen(rec), &g, err, sizeof err), 0);
    assert_true(g.custom);
    /* the options changed, by name, for !last */
    assert_string_equal(g.changes, "target=30");
    free(rec);
}

static void test_a_damaged_record_is_refused_with_its_message(void **state)
{
    (void)state;
    char *rec = play("standard", 9, 0);
    size_t len = strlen(rec);
    struct stats_game g;
    char err[300];
    const char *bad[] = {"", "{}", "[1,2]", "not json"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(&g, 0x5a, sizeof g);
        err[0] = '\0';
        assert_int_equal(
            stats_game_from_record(bad[i], strlen(bad[i]), &g, err, sizeof err),
            -1);
        assert_true(err[0]);
        assert_int_equal(((unsigned char *)&g)[0], 0x5a); /* untouched */
    }
    /* cut short */
    err[0] = '\0';
    assert_int_equal(stats_game_from_record(rec, len / 2, &g, err, sizeof err),
                     -1);
    assert_true(err[0]);
    /* a card played that the hand does not hold: the replay refuses it */
    char *at = strstr(rec, "\"QS\"");
    if (at) {
        memcpy(at, "\"ZZ\"", 4);
        err[0] = '\0';
        assert_int_equal(stats_game_from_record(rec, len, &g, err, sizeof err),
                         -1);
        assert_true(err[0]);
    }
    /* no message buffer: still refused */
    assert_int_equal(stats_game_from_record("{}", 2, &g, NULL, 0), -1);
    free(rec);
}

/* ---- leaderboard.json ------------------------------------------------- */

static struct stats *some_boards(void)
{
    struct stats *s = stats_new();
    const char *keys[] = {"n:a\"q\\", "a:\xc3\xa9t\xc3\xa9", NULL, "n:c\x01"};
    struct archive_result r;
    room_result(&r, "00000000000000ab", 4, keys, true);
    r.seats[3].left = true;
    snprintf(r.seats[0].name, sizeof r.seats[0].name, "A \"q\" \\ \t");
    int t[] = {-26, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u);
    g.custom = true;
    g.nhands = 40;
    g.nlast = 3;
    g.hands[2][0] = -26;
    g.moons[0] = 2;
    g.points[1] = 123456789012LL;
    stats_add(s, &r, &g);
    s->archive_bytes = 1000;
    s->results_bytes = 200;
    memcpy(s->results_last, "00000000000000ab", 17);
    stats_rank(s);
    return s;
}

static void test_leaderboard_json_round_trip(void **state)
{
    (void)state;
    struct stats *s = some_boards();
    snprintf(s->last.changes, sizeof s->last.changes, "target=50 hands=2");
    char *json = stats_json(s);
    assert_non_null(strstr(json, "\"format\":\"" STATS_FORMAT "\""));
    assert_non_null(strstr(json, "\"n:a\\\"q\\\\\""));
    assert_non_null(strstr(json, "\"n:c\\u0001\""));
    assert_int_equal(json[strlen(json) - 1], '\n');
    struct stats *back;
    char err[300];
    assert_int_equal(stats_parse(json, strlen(json), &back, err, sizeof err),
                     0);
    char *again = stats_json(back);
    assert_string_equal(json, again);
    assert_int_equal(back->games, 1);
    assert_int_equal(back->archive_bytes, 1000);
    assert_int_equal(back->results_bytes, 200);
    assert_string_equal(back->results_last, "00000000000000ab");
    assert_false(back->exact);
    const struct stats_player *a = who(back, STATS_CUSTOM, "n:a\"q\\");
    assert_non_null(a);
    assert_string_equal(a->name, "A \"q\" \\ \t");
    assert_true(a->rating == who(s, STATS_CUSTOM, "n:a\"q\\")->rating);
    assert_int_equal(a->rank, 1); /* ranked on reading */
    assert_int_equal(a->moons, 2);
    assert_int_equal(who(back, "standard", "a:\xc3\xa9t\xc3\xa9")->points,
                     123456789012LL);
    assert_memory_equal(&back->last, &s->last, sizeof s->last);
    assert_non_null(strstr(json, "\"changes\":\"target=50 hands=2\""));
    free(again);
    free(json);
    stats_free(back);
    stats_free(s);

    /* no game yet */
    s = stats_new();
    json = stats_json(s);
    assert_non_null(strstr(json, "\"results_last\":null"));
    assert_non_null(strstr(json, "\"last\":null"));
    assert_int_equal(stats_parse(json, strlen(json), &back, err, sizeof err),
                     0);
    assert_false(back->last.has);
    assert_int_equal(back->nboards, 0);
    free(json);
    stats_free(back);
    stats_free(s);
}

/* A valid leaderboard.json with one part replaced. */
static char *board_with(const char *results_last, const char *last,
                        const char *boards)
{
    char *text = malloc(4096);
    snprintf(text, 4096,
             "{\"format\":\"" STATS_FORMAT "\",\"archive_games\":1,"
             "\"archive_bytes\":10,\"results_bytes\":10,%s\"last\":%s,"
             "\"boards\":%s}",
             results_last, last, boards);
    return text;
}

static void
test_damaged_leaderboard_json_is_refused_with_a_clear_error(void **state)
{
    (void)state;
    const char *rl = "\"results_last\":null,";
    const char *row = "[\"n:a\",\"a\",1,1,2,10,0,0,1,1516.0]";
    char good_boards[200];
    snprintf(good_boards, sizeof good_boards, "{\"standard\":[%s]}", row);
    const char *last =
        "{\"game\":\"00000000000000ab\",\"time\":1,\"preset\":\"standard\","
        "\"custom\":false,\"hands\":2,\"seats\":["
        "{\"name\":\"a\",\"computer\":false,\"left\":false,\"total\":10,"
        "\"won\":true},"
        "{\"name\":\"b\",\"computer\":true,\"left\":false,\"total\":20,"
        "\"won\":false}],\"last_hands\":[[10,20]]}";
    struct {
        char *text;
        const char *says;
    } cases[] = {
        {strdup("not json"), "not JSON"},
        {strdup("[]"), "not a JSON object"},
        {strdup("{}"), "format: missing"},
        {strdup("{\"format\":\"heartsbot-leaderboard/9\"}"),
         "format: unknown version 'heartsbot-leaderboard/9'"},
        {board_with("", "null", "{}"), "results_last: missing"},
        {board_with("\"results_last\":\"xyz\",", "null", "{}"),
         "results_last: a game ID or null"},
        {board_with("\"results_last\":\"00000000000000AB\",", "null", "{}"),
         "results_last: a game ID or null"},
        {board_with(rl, "null", "[]"), "a count, last or boards is missing"},
        {board_with(rl, "5", "{}"), "last: an object or null"},
        {board_with(rl, "{\"game\":\"x\"}", "{}"),
         "last: a field is missing or wrong"},
        {board_with(rl, "null", "{\"nope\":[]}"),
         "boards: unknown preset 'nope'"},
        {board_with(rl, "null", "{\"standard\":3}"),
         "boards.standard: a list of players"},
        {board_with(rl, "null", "{\"standard\":[[\"n:a\",\"a\",1]]}"),
         "boards.standard: a row of 10 fields per player"},
        {board_with(rl, "null",
                    "{\"standard\":[[\"\",\"a\",1,1,2,10,0,0,1,1500]]}"),
         "boards.standard: a player's key or name is wrong"},
        {board_with(rl, "null",
                    "{\"custom\":[[\"n:a\",\"a\",\"1\",1,2,10,0,0,1,1500]]}"),
         "boards.custom: a count is not a number"},
        {board_with(rl, "null",
                    "{\"standard\":[[\"n:a\",\"a\",-1,1,2,10,0,0,1,1500]]}"),
         "boards.standard: a count is out of range"},
        {board_with(rl, "null",
                    "{\"standard\":[[\"n:a\",\"a\",1,1,2,10,0,0,1,\"x\"]]}"),
         "boards.standard: a rating is not a number"},
        {board_with(rl, "null",
                    "{\"standard\":[[\"n:a\",\"a\",1,1,2,10,0,0,1,1500],"
                    "[\"n:a\",\"b\",1,1,2,10,0,0,1,1500]]}"),
         "boards.standard: 'n:a' is there twice"},
    };
    char err[300];
    struct stats *s;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        s = (struct stats *)&err; /* not written on failure */
        err[0] = '\0';
        assert_int_equal(stats_parse(cases[i].text, strlen(cases[i].text), &s,
                                     err, sizeof err),
                         -1);
        if (!strstr(err, cases[i].says))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, cases[i].says);
        assert_ptr_equal(s, (struct stats *)&err);
        free(cases[i].text);
    }
    /* the parts used above are good on their own */
    char *text = board_with(rl, last, good_boards);
    assert_int_equal(stats_parse(text, strlen(text), &s, err, sizeof err), 0);
    assert_int_equal(who(s, "standard", "n:a")->games, 1);
    assert_true(s->last.has);
    assert_int_equal(s->last.nlast, 1);
    stats_free(s);
    free(text);
    /* a last game with too few seats, or more kept hands than played */
    char *bad_last = strdup(last);
    char *h = strstr(bad_last, "\"hands\":2");
    h[8] = '0';
    text = board_with(rl, bad_last, good_boards);
    assert_int_equal(stats_parse(text, strlen(text), &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "last: too many seats or hands"));
    free(text);
    free(bad_last);
}

static void test_save_writes_leaderboard_json(void **state)
{
    (void)state;
    struct stats *s = some_boards();
    char err[300];
    assert_false(exists(STATS_FILE));
    assert_int_equal(stats_save(dir, s, err, sizeof err), 0);
    char *json = stats_json(s);
    size_t len;
    char *file = slurp(STATS_FILE, &len);
    assert_int_equal(len, strlen(json));
    assert_string_equal(file, json);
    free(file);
    free(json);
    /* a room directory whose path is too long is refused with a message */
    char longdir[5000];
    memset(longdir, 'd', sizeof longdir - 1);
    longdir[sizeof longdir - 1] = '\0';
    err[0] = '\0';
    assert_int_equal(stats_save(longdir, s, err, sizeof err), -1);
    assert_true(err[0]);
    stats_free(s);
}

/* ---- Rebuilding, opening and counting --------------------------------- */

/* Archives games from..from+games-1 among a few people, some custom, some
 * stopped, counting them in s as the bot does if s is not NULL. */
static void archive_into(struct stats *s, int from, int games)
{
    const char *pool[] = {"n:ann", "n:ben", "a:Cat", "n:dan", "n:eve", NULL};
    for (int i = from; i < from + games; i++) {
        bool custom = i % 3 == 1, stopped = i % 5 == 4;
        char *rec = play(custom ? "standard target=30" : "standard",
                         (uint64_t)i + 100, stopped ? 40 : 0);
        const char *keys[4];
        for (int k = 0; k < 4; k++)
            keys[k] = pool[(i + k * (i % 2 + 1)) % 6];
        struct archive_result r;
        char id[17];
        snprintf(id, sizeof id, "%016x", i + 1);
        room_result(&r, id, 4, keys, !stopped);
        r.custom = custom;
        r.seats[1].left = i % 7 == 3 && !r.seats[1].computer;
        bool added;
        char err[300];
        assert_int_equal(
            archive_add(dir, &r, rec, false, &added, err, sizeof err), 0);
        struct stats_game g;
        assert_int_equal(
            stats_game_from_record(rec, strlen(rec), &g, err, sizeof err), 0);
        bool saved;
        if (s)
            assert_int_equal(
                stats_counted(dir, s, &r, &g, &saved, err, sizeof err), 0);
        free(rec);
    }
}

/* Archives games from..from+games-1 and returns the boards kept game by
 * game (leaderboard.json written after the first). */
static struct stats *archive_games(int from, int games)
{
    struct stats *s = stats_new();
    archive_into(s, from, games);
    return s;
}

static void test_rebuild_keeps_the_last_games_changes(void **state)
{
    (void)state;
    /* the eleventh game, the last, was opened with target=30 */
    struct stats *kept = archive_games(0, 11);
    struct stats *built;
    int skipped = -1;
    char err[300];
    assert_int_equal(stats_rebuild(dir, &built, &skipped, err, sizeof err), 0);
    assert_string_equal(kept->last.changes, "target=30");
    assert_string_equal(built->last.changes, "target=30");
    assert_memory_equal(&built->last, &kept->last, sizeof kept->last);
    stats_free(kept);
    stats_free(built);
}

static void test_rebuild_equals_incremental(void **state)
{
    (void)state;
    struct stats *kept = archive_games(0, 12);
    struct stats *built;
    int skipped = -1;
    char err[300];
    assert_int_equal(stats_rebuild(dir, &built, &skipped, err, sizeof err), 0);
    assert_int_equal(skipped, 0);
    char *a = stats_json(kept), *b = stats_json(built);
    assert_string_equal(a, b);
    assert_non_null(stats_board(built, STATS_CUSTOM));
    assert_true(built->last.has);
    assert_int_equal(built->games, 12);
    /* the last game's hands are read again from its record */
    assert_true(built->last.nlast > 0);
    assert_memory_equal(&built->last, &kept->last, sizeof kept->last);
    free(a);
    free(b);
    stats_free(kept);
    stats_free(built);
}

static void test_rebuild_of_an_empty_room(void **state)
{
    (void)state;
    struct stats *s;
    int skipped = -1;
    char err[300];
    assert_int_equal(stats_rebuild(dir, &s, &skipped, err, sizeof err), 0);
    assert_int_equal(skipped, 0);
    assert_int_equal(s->games, 0);
    assert_int_equal(s->nboards, 0);
    assert_false(s->last.has);
    stats_free(s);
}

static void test_rebuild_skips_what_it_cannot_read(void **state)
{
    (void)state;
    struct stats *kept = archive_games(0, 3);
    char path[200], err[300];
    path_of(path, sizeof path, ARCHIVE_RESULTS_FILE);
    const char *odd = "{\"format\":\"heartsbot-results\"}\n";
    assert_int_equal(storage_append(path, odd, strlen(odd), err, sizeof err),
                     0);
    struct stats *s;
    int skipped;
    assert_int_equal(stats_rebuild(dir, &s, &skipped, err, sizeof err), 0);
    assert_int_equal(skipped, 1);
    assert_int_equal(s->skipped, 1);
    assert_non_null(strstr(err, "results.jsonl line 4"));
    assert_non_null(strstr(err, "unknown version"));
    assert_int_equal(s->games, 3);
    /* a line that cannot be read is no position to catch up from */
    assert_string_equal(s->results_last, "");
    stats_free(s);
    stats_free(kept);
}

/* A results line or record of a newer heartsbot is never skipped as
 * damage: the boards are refused (rebuilt, caught up or loaded), and
 * nothing is written. */
static void test_a_newer_heartsbots_line_refuses_the_boards(void **state)
{
    (void)state;
    struct stats *kept = archive_games(0, 3);
    assert_true(exists(STATS_FILE));
    size_t board_len;
    char *board = slurp(STATS_FILE, &board_len);
    char path[200], err[400], why[400];
    static const struct {
        const char *file, *line, *says;
    } newer[] = {
        {ARCHIVE_RESULTS_FILE,
         "{\"format\":\"heartsbot-results/3\",\"game\":\"00000000000000aa\"}\n",
         "results.jsonl line 4 is of a newer heartsbot (this one reads "
         "heartsbot-results/2): upgrade again to use it"},
        {ARCHIVE_FILE, "{\"format\":\"hearts-record/2\",\"hands\":[]}\n",
         "archive.jsonl line 4 is of a newer heartsbot (this one reads "
         "hearts-record/1): upgrade again to use it"},
    };
    for (size_t i = 0; i < sizeof newer / sizeof *newer; i++) {
        path_of(path, sizeof path, newer[i].file);
        size_t was_len;
        char *was = slurp(newer[i].file, &was_len);
        assert_int_equal(storage_append(path, newer[i].line,
                                        strlen(newer[i].line), err, sizeof err),
                         0);
        struct stats *s = NULL;
        int skipped = -1;
        assert_int_equal(stats_rebuild(dir, &s, &skipped, err, sizeof err), -1);
        assert_null(s);
        assert_string_equal(err, newer[i].says);
        spit(newer[i].file, was, was_len);
        free(was);
    }
    /* a results line after the checkpoint, read while catching up */
    path_of(path, sizeof path, ARCHIVE_RESULTS_FILE);
    assert_int_equal(storage_append(path, newer[0].line, strlen(newer[0].line),
                                    err, sizeof err),
                     0);
    struct stats *s = NULL;
    int64_t caught;
    int skipped;
    assert_int_equal(stats_open(dir, &s, &caught, &skipped, why, sizeof why),
                     -1);
    assert_null(s);
    assert_memory_equal(why, "results.jsonl byte ", 19);
    assert_non_null(strstr(why, " is of a newer heartsbot (this one reads "
                                "heartsbot-results/2)"));
    bool rebuilt;
    err[0] = '\0';
    assert_int_equal(
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err), -1);
    assert_null(s);
    assert_non_null(strstr(err, "is of a newer heartsbot"));
    char *now = slurp(STATS_FILE, NULL);
    assert_string_equal(now, board);
    free(now);
    free(board);
    stats_free(kept);
}

/* Games counted on a board, over its people. */
static int games_on(const struct stats *s, const char *board)
{
    const struct stats_board *b = stats_board(s, board);
    int games = 0;
    for (int i = 0; b && i < b->n; i++)
        games += b->p[i].games;
    return games;
}

/* A damaged record loses its game (the results line finds it nowhere);
 * the games around it still count. */
static void test_rebuild_skips_a_damaged_record(void **state)
{
    (void)state;
    struct stats *kept = archive_games(0, 3);
    size_t len;
    char *a = slurp(ARCHIVE_FILE, &len);
    char *second = strchr(a, '\n') + 1;
    char *end = strchr(second, '\n');
    memset(second + 1, 'x', (size_t)(end - second) / 2); /* same length */
    spit(ARCHIVE_FILE, a, len);
    free(a);
    struct stats *s;
    int skipped = -1;
    char err[400];
    assert_int_equal(stats_rebuild(dir, &s, &skipped, err, sizeof err), 0);
    assert_int_equal(skipped, 2);
    /* the first message: the record itself */
    assert_non_null(strstr(err, "archive.jsonl line 2: "));
    assert_int_equal(s->games, 3);
    /* game 2 (ben twice, dan and a computer; the one custom table) is not
     * counted: games 1 and 3 are */
    int games = games_on(s, "standard");
    assert_int_equal(games, games_on(kept, "standard") - 2);
    assert_non_null(stats_board(kept, STATS_CUSTOM));
    assert_null(stats_board(s, STATS_CUSTOM));
    stats_free(s);

    /* the record gone, the games after it moved: the results line alone
     * is skipped, its message naming the game; the next game's record is
     * found by its fingerprint */
    a = slurp(ARCHIVE_FILE, NULL);
    second = strchr(a, '\n') + 1;
    end = strchr(second, '\n');
    memmove(second, end + 1, strlen(end + 1) + 1); /* gone from the archive */
    spit(ARCHIVE_FILE, a, strlen(a));
    assert_int_equal(stats_rebuild(dir, &s, &skipped, err, sizeof err), 0);
    assert_int_equal(skipped, 1);
    assert_non_null(strstr(err, "results.jsonl line 2: game 0000000000000002"));
    assert_non_null(strstr(err, "damaged"));
    assert_int_equal(s->games, 3);
    assert_int_equal(games_on(s, "standard"), games);
    free(a);
    stats_free(s);
    stats_free(kept);
}

/* A heartsbot-results/1 line of game %s, its record at byte %lld. */
#define V1_LINE                                                                \
    "{\"format\":\"heartsbot-results/1\",\"game\":\"%s\",\"time\":1,"          \
    "\"preset\":\"standard\",\"custom\":false,\"finished\":true,"              \
    "\"offset\":%lld,\"seats\":["                                              \
    "{\"name\":\"a\",\"key\":\"n:a\",\"computer\":false,\"left\":false},"      \
    "{\"name\":\"b\",\"key\":\"n:b\",\"computer\":false,\"left\":false},"      \
    "{\"name\":\"c\",\"key\":\"\",\"computer\":true,\"left\":false},"          \
    "{\"name\":\"d\",\"key\":\"\",\"computer\":true,\"left\":false}]}\n"

/* A heartsbot-results/1 line has no fingerprint: its record is the one
 * at its offset, and none elsewhere. */
static void test_a_version_1_results_line_pairs_by_offset(void **state)
{
    (void)state;
    char *rec = play("standard", 21, 0);
    char *line = malloc(strlen(rec) + 2);
    sprintf(line, "%s\n", rec);
    char path[200], err[300];
    path_of(path, sizeof path, ARCHIVE_FILE);
    assert_int_equal(storage_append(path, line, strlen(line), err, sizeof err),
                     0);
    assert_int_equal(storage_append(path, line, strlen(line), err, sizeof err),
                     0);
    char results[4096];
    int n = snprintf(results, sizeof results, V1_LINE, "0000000000000001", 0LL);
    n += snprintf(results + n, sizeof results - (size_t)n, V1_LINE,
                  "0000000000000002", (long long)strlen(line));
    /* not where a record starts */
    snprintf(results + n, sizeof results - (size_t)n, V1_LINE,
             "0000000000000003", 7LL);
    spit(ARCHIVE_RESULTS_FILE, results, strlen(results));
    struct stats *s;
    int skipped;
    assert_int_equal(stats_rebuild(dir, &s, &skipped, err, sizeof err), 0);
    assert_int_equal(skipped, 1);
    assert_non_null(strstr(err, "results.jsonl line 3: game 0000000000000003"));
    assert_int_equal(s->games, 3);
    assert_int_equal(who(s, "standard", "n:a")->games, 2);
    stats_free(s);
    free(line);
    free(rec);
}

static void test_open_says_why_it_cannot_serve(void **state)
{
    (void)state;
    struct stats *s = NULL;
    int64_t caught = -1;
    int skipped = -1;
    char why[400] = "";
    assert_int_equal(stats_open(dir, &s, &caught, &skipped, why, sizeof why),
                     1);
    assert_string_equal(why, "it is missing");
    assert_null(s);

    struct stats *kept = archive_games(0, 2);
    assert_true(exists(STATS_FILE));
    char err[300];
    assert_int_equal(stats_save(dir, kept, err, sizeof err), 0);
    assert_int_equal(stats_open(dir, &s, &caught, &skipped, why, sizeof why),
                     0);
    assert_int_equal(caught, 0);
    assert_int_equal(skipped, 0);
    assert_true(s->on_disk);
    stats_free(s);

    /* it counts more than the files hold */
    kept->results_bytes += 1000;
    assert_int_equal(stats_save(dir, kept, err, sizeof err), 0);
    assert_int_equal(stats_open(dir, &s, &caught, &skipped, why, sizeof why),
                     1);
    assert_string_equal(why, "it does not count the whole archive");
    kept->results_bytes -= 1000;

    /* it says a game is last that is not */
    memcpy(kept->results_last, "00000000000000ff", 17);
    assert_int_equal(stats_save(dir, kept, err, sizeof err), 0);
    assert_int_equal(stats_open(dir, &s, &caught, &skipped, why, sizeof why),
                     1);
    assert_string_equal(why,
                        "results.jsonl changed before the lines it counts");

    /* damaged */
    spit(STATS_FILE, "{\"format\":", 10);
    assert_int_equal(stats_open(dir, &s, &caught, &skipped, why, sizeof why),
                     1);
    assert_non_null(strstr(why, "not JSON"));
    stats_free(kept);
}

static void test_open_catches_up_from_an_older_file(void **state)
{
    (void)state;
    struct stats *kept = archive_games(0, 3);
    char err[300];
    assert_int_equal(stats_save(dir, kept, err, sizeof err), 0);
    /* two games archived, not in leaderboard.json */
    archive_into(NULL, 3, 2);
    struct stats *s;
    int64_t caught = -1;
    int skipped = -1;
    char why[400] = "";
    assert_int_equal(stats_open(dir, &s, &caught, &skipped, why, sizeof why),
                     0);
    assert_int_equal(caught, 2);
    assert_int_equal(skipped, 0);
    assert_int_equal(s->behind, 2);
    assert_int_equal(s->games, 5);
    assert_string_equal(s->results_last, "0000000000000005");
    int skipped2;
    struct stats *built;
    assert_int_equal(stats_rebuild(dir, &built, &skipped2, err, sizeof err), 0);
    char *a = stats_json(s), *b = stats_json(built);
    assert_string_equal(a, b);
    free(a);
    free(b);
    stats_free(built);
    stats_free(s);

    /* stats_load says so */
    bool rebuilt = true;
    assert_int_equal(
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err), 0);
    assert_false(rebuilt);
    assert_string_equal(why, STATS_FILE " caught up: 2 games after it counted");
    stats_free(s);
    stats_free(kept);
}

static void test_leaderboard_json_round_trip_and_load(void **state)
{
    (void)state;
    struct stats *kept = archive_games(0, 6);
    char err[300], why[400] = "";
    bool rebuilt;
    /* missing: rebuilt and saved */
    char gone[200];
    path_of(gone, sizeof gone, STATS_FILE);
    unlink(gone);
    struct stats *s;
    assert_int_equal(
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err), 0);
    assert_true(rebuilt);
    assert_string_equal(why, STATS_FILE " rebuilt (it is missing)");
    assert_true(exists(STATS_FILE));
    char *a = stats_json(kept), *b = stats_json(s);
    assert_string_equal(a, b);
    stats_free(s);
    /* current: read as it is */
    why[0] = '\0';
    assert_int_equal(
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err), 0);
    assert_false(rebuilt);
    assert_string_equal(why, "");
    free(b);
    b = stats_json(s);
    assert_string_equal(a, b);
    stats_free(s);
    free(b);

    /* a torn last results line: dropped and cut while catching up; the
     * file still serves */
    char path[200];
    path_of(path, sizeof path, ARCHIVE_RESULTS_FILE);
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "{\"format\":\"heart", 16), 16);
    close(fd);
    assert_int_equal(
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err), 0);
    assert_false(rebuilt);
    b = stats_json(s);
    assert_string_equal(a, b);
    stats_free(s);
    free(b);

    /* a newer heartsbot's: refused with its name, neither read nor
     * written over */
    const char *v9 = "{\"format\":\"heartsbot-leaderboard/9\"}";
    assert_int_equal(stats_parse(v9, strlen(v9), &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown version 'heartsbot-leaderboard/9'"));
    spit(STATS_FILE, v9, strlen(v9));
    s = NULL;
    assert_int_equal(
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err), -1);
    assert_null(s);
    assert_string_equal(err, "leaderboard.json is of a newer heartsbot (this "
                             "one reads heartsbot-leaderboard/2 and "
                             "heartsbot-leaderboard/1): upgrade again, or "
                             "remove it to have it rebuilt");
    size_t len;
    b = slurp(STATS_FILE, &len);
    assert_string_equal(b, v9);
    free(b);
    /* a version that is none: rebuilt */
    const char *odd = "{\"format\":\"heartsbot-leaderboard\"}";
    spit(STATS_FILE, odd, strlen(odd));
    assert_int_equal(
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err), 0);
    assert_true(rebuilt);
    assert_non_null(strstr(why, "unknown version"));
    b = stats_json(s);
    assert_string_equal(a, b);
    stats_free(s);
    free(b);
    free(a);
    stats_free(kept);
}

static void test_load_of_an_empty_room_writes_nothing(void **state)
{
    (void)state;
    struct stats *s = NULL;
    bool rebuilt = true;
    char why[400] = "", err[300] = "";
    assert_int_equal(
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err), 0);
    assert_non_null(s);
    assert_false(rebuilt);
    assert_int_equal(s->games, 0);
    assert_false(exists(STATS_FILE));
    stats_free(s);
}

static void test_a_checkpoint_every_few_games(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    assert_int_equal(stats_checkpoint_every(s), 16);
    /* 200 rows over two boards: one eighth */
    int t[] = {10, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u);
    g.custom = true;
    for (int i = 0; i < 25; i++) {
        char k[4][16];
        const char *keys[4];
        for (int p = 0; p < 4; p++) {
            snprintf(k[p], sizeof k[p], "n:p%d", i * 4 + p);
            keys[p] = k[p];
        }
        struct archive_result r;
        room_result(&r, "0000000000000001", 4, keys, true);
        stats_add(s, &r, &g);
    }
    assert_int_equal(stats_checkpoint_every(s), 25);
    stats_free(s);

    /* the first game counted writes the file; then every 16th */
    s = stats_new();
    const char *keys[] = {"n:a", "n:b", NULL, NULL};
    g = game_of(4, t, 1u);
    char err[300];
    for (int i = 0; i < 18; i++) {
        char *rec = play("standard", (uint64_t)i + 31, 0);
        struct archive_result r;
        char id[17];
        snprintf(id, sizeof id, "%016x", i + 1);
        room_result(&r, id, 4, keys, true);
        bool added, saved = false;
        assert_int_equal(
            archive_add(dir, &r, rec, false, &added, err, sizeof err), 0);
        assert_int_equal(stats_counted(dir, s, &r, &g, &saved, err, sizeof err),
                         0);
        assert_int_equal(saved, i == 0 || i == 16);
        assert_int_equal(s->behind, i == 0 || i == 16 ? 0 : i < 16 ? i : 1);
        assert_string_equal(s->results_last, id);
        int64_t abytes, rbytes;
        archive_sizes(dir, &abytes, &rbytes);
        assert_int_equal(s->archive_bytes, abytes);
        assert_int_equal(s->results_bytes, rbytes);
        free(rec);
    }
    assert_true(s->on_disk);
    stats_free(s);
}

#define T(f) cmocka_unit_test_setup_teardown(f, room_setup, room_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elo_two_and_three_people),
        cmocka_unit_test(test_elo_uses_everyones_rating_before_the_game),
        cmocka_unit_test(test_a_shared_win_counts_for_each),
        cmocka_unit_test(test_leaver_loses_and_stopped_games_count_for_nobody),
        cmocka_unit_test(test_two_leavers_draw_each_other),
        cmocka_unit_test(test_computers_move_no_rating),
        cmocka_unit_test(test_one_person_counts_once_a_game),
        cmocka_unit_test(test_a_rating_is_provisional_for_ten_games),
        cmocka_unit_test(test_custom_tables_count_twice),
        cmocka_unit_test(test_hinted_games_count_on_the_hints_board_alone),
        cmocka_unit_test(test_every_preset_has_its_own_board),
        cmocka_unit_test(test_lookups_of_what_is_not_there),
        cmocka_unit_test(test_many_people_are_all_found),
        cmocka_unit_test(test_ranks_break_ties_by_games_then_key),
        cmocka_unit_test(
            test_a_game_without_its_figures_counts_only_as_archived),
        cmocka_unit_test(test_the_last_finished_game_is_kept),
        cmocka_unit_test(test_figures_from_a_record),
        cmocka_unit_test(test_a_long_game_keeps_its_last_hands),
        cmocka_unit_test(test_custom_is_an_option_changed_not_the_player_count),
        cmocka_unit_test(test_a_damaged_record_is_refused_with_its_message),
        cmocka_unit_test(test_leaderboard_json_round_trip),
        cmocka_unit_test(
            test_damaged_leaderboard_json_is_refused_with_a_clear_error),
        T(test_save_writes_leaderboard_json),
        T(test_rebuild_keeps_the_last_games_changes),
        T(test_rebuild_equals_incremental),
        T(test_rebuild_of_an_empty_room),
        T(test_rebuild_skips_what_it_cannot_read),
        T(test_rebuild_skips_a_damaged_record),
        T(test_a_version_1_results_line_pairs_by_offset),
        T(test_open_says_why_it_cannot_serve),
        T(test_a_newer_heartsbots_line_refuses_the_boards),
        T(test_open_catches_up_from_an_older_file),
        T(test_leaderboard_json_round_trip_and_load),
        T(test_load_of_an_empty_room_writes_nothing),
        T(test_a_checkpoint_every_few_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
