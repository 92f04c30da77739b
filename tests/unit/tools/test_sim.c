/*
 * Tests of tools/sim.c: runs the real hearts-sim binary (its path in the
 * environment variable HEARTS_SIM, set by tests/CMakeLists.txt; the test
 * is skipped without it): the command dispatch and its usage, `play`'s
 * report (seats, levels, games and hands), its records (one line per
 * game, each replayed OK), a seed that repeats a run, --duplicate's
 * seatings and report, roundrobin's, their refusals, that a count (play
 * --games, --seed) is a plain decimal number, bench --search's report
 * and refusals, and think's (its review phase included).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/sim_run.h"

static void test_sim_usage(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL, (const char *const[]){NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_memory_equal(r.err, "usage: hearts-sim replay FILE", 29);
    sim_run_free(&r);

    sim_run(&r, NULL, (const char *const[]){"help", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_non_null(strstr(r.out, "hearts-sim play --preset NAME"));
    assert_non_null(
        strstr(r.out, "hearts-sim leaderboard ROOM_DIR [--check]\n"));
    char *help = strdup(r.out);
    sim_run_free(&r);
    sim_run(&r, NULL, (const char *const[]){"--help", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, help);
    sim_run_free(&r);

    sim_run(&r, NULL, (const char *const[]){"frob", NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_memory_equal(r.err, "hearts-sim: unknown command 'frob'\n", 35);
    assert_string_equal(r.err + 35, help);
    sim_run_free(&r);
    free(help);
}

/* --version: CMakeLists.txt's release (HEARTS_RELEASE, compiled in), and
 * the commit when the build knows it. */
static void test_sim_version(void **state)
{
    (void)state;
    const char *release = HEARTS_RELEASE;
    char want[64];
    snprintf(want, sizeof want, "hearts-sim %s", release);
    struct sim_run r;
    sim_run(&r, NULL, (const char *const[]){"--version", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_memory_equal(r.out, want, strlen(want));
    const char *rest = r.out + strlen(want);
    assert_true(!strcmp(rest, "\n") || !strncmp(rest, " (commit ", 9));
    assert_string_equal(r.out + strlen(r.out) - 1, "\n");
    sim_run_free(&r);
    /* alone only */
    sim_run(&r, NULL, (const char *const[]){"--version", "x", NULL});
    assert_int_equal(r.status, 2);
    sim_run_free(&r);
}

static void test_sim_play_report(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--seats",
                                  "random,easy,random,easy", "--games", "2",
                                  "--seed", "5", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_memory_equal(r.out, "standard, 4 players, 2 games, ", 30);
    assert_non_null(strstr(r.out, " hands, seed 5\nseat  level          "
                                  "points/hand  std.err   won %  std.err  "
                                  "moons\n"));
    assert_non_null(strstr(r.out, "\n   0  random         "));
    assert_non_null(strstr(r.out, "\n   1  easy           "));
    assert_non_null(strstr(r.out, "\n   2  random         "));
    assert_non_null(strstr(r.out, "\n   3  easy           "));
    assert_null(strstr(r.out, "\n   4 "));
    /* by level, the seats pooled; no duplicate figures without it */
    assert_non_null(strstr(r.out, "\nlevel          seats  points/hand  "
                                  "std.err  dup.err   won %  std.err  "
                                  "dup.err  moons   margin  std.err\n"));
    assert_non_null(strstr(r.out, "\nrandom             2  "));
    assert_non_null(strstr(r.out, "\neasy               2  "));
    /* the margins (the others' mean points less one's own) of all the
     * seats add up to 0 in every hand; easy's is random's less */
    double margin[2];
    const char *names[2] = {"\nrandom             2  ",
                            "\neasy               2  "};
    for (int i = 0; i < 2; i++) {
        const char *line = strstr(r.out, names[i]);
        double f[6];
        char d[16], w[16], ws[16], wd[16];
        assert_int_equal(sscanf(line + strlen(names[i]),
                                "%lf %lf %15s %15s %15s %15s %lf %lf %lf",
                                &f[0], &f[1], d, w, ws, wd, &f[2], &f[3],
                                &f[4]),
                         9);
        margin[i] = f[3];
    }
    assert_true(fabs(margin[0] + margin[1]) < 0.002);
    assert_true(margin[1] > margin[0]);
    assert_null(strstr(r.out, "duplicate"));
    /* the games are won: the shares of the seats add up to 100 % */
    double won = 0;
    for (const char *p = r.out; (p = strstr(p, "\n   ")) != NULL; p++) {
        double pts, se, share;
        char level[32];
        if (sscanf(p, "\n %*d %31s %lf %lf %lf", level, &pts, &se, &share) == 4)
            won += share;
    }
    assert_true(won > 99.99 && won < 100.01);
    /* the same seed, the same games */
    struct sim_run again;
    sim_run(&again, NULL,
            (const char *const[]){"play", "--preset", "standard", "--seats",
                                  "random,easy,random,easy", "--games", "2",
                                  "--seed", "5", NULL});
    assert_string_equal(again.out, r.out);
    sim_run_free(&again);
    sim_run_free(&r);

    /* --set and --players: 3 seats, each easy by default */
    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--players",
                                  "3", "--games", "1", "--seed", "2", NULL});
    assert_int_equal(r.status, 0);
    assert_memory_equal(r.out, "standard, 3 players, 1 game, ", 29);
    assert_non_null(strstr(r.out, "\n   2  easy   "));
    assert_non_null(strstr(r.out, "\neasy               3  "));
    assert_null(strstr(r.out, "\n   3 "));
    sim_run_free(&r);
}

/* --records: one record per game, each one a game replay reads OK;
 * with "-" the records go to standard output, the report to standard
 * error. */
static void test_sim_play_records(void **state)
{
    (void)state;
    char path[] = "/tmp/test_sim_records_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--games",
                                  "3", "--seed", "7", "--records", path, NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_memory_equal(r.out, "standard, 4 players, 3 games, ", 30);
    sim_run_free(&r);
    char *text = sim_run_slurp(path);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 3);
    free(text);
    sim_run(&r, NULL, (const char *const[]){"replay", path, NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "game 1: OK\ngame 2: OK\ngame 3: OK\n");
    sim_run_free(&r);
    unlink(path);

    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--games",
                                  "1", "--seed", "7", "--records", "-", NULL});
    assert_int_equal(r.status, 0);
    assert_memory_equal(r.err, "standard, 4 players, 1 game, ", 29);
    assert_int_equal(r.out[0], '{');
    assert_non_null(strchr(r.out, '\n'));
    assert_int_equal(strchr(r.out, '\n')[1], '\0');
    sim_run_free(&r);
}

/* The deals of a record, one after the other ("deal":[...] each). */
static int record_deals(const char *line, const char **deals, int max)
{
    int n = 0;
    const char *end = strchr(line, '\n');
    for (const char *p = line;
         n < max && (p = strstr(p, "\"deal\":[")) && (!end || p < end); p++)
        deals[n++] = p;
    return n;
}

/* --duplicate: each deal played once in every seating of the players
 * (hard, easy, easy, easy: four; hard, easy, hard, easy: two), the same
 * cards to the same seats, the players moved one seat on each time; the
 * report pools each level and gives both standard errors. */
static void test_sim_play_duplicate(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--seats",
                                  "hard,easy,easy,easy", "--budget", "hard=20",
                                  "--games", "7", "--seed", "3", "--duplicate",
                                  NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_memory_equal(r.out, "standard, 4 players, 8 games, ", 30);
    assert_non_null(strstr(r.out, ", seed 3, duplicate: 2 deals x 4 "
                                  "seatings\n"));
    assert_non_null(strstr(r.out, "\n   0  (rotated)      "));
    assert_non_null(strstr(r.out, "\nhard               1  "));
    assert_non_null(strstr(r.out, "\neasy               3  "));
    assert_non_null(strstr(r.out, "\nhands for the same std.err without "
                                  "duplicate, times those with it: hard "
                                  "points "));
    assert_non_null(strstr(r.out, "; easy points "));
    sim_run_free(&r);

    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--seats",
                                  "hard,easy,hard/points,easy", "--budget",
                                  "10", "--games", "2", "--seed", "4",
                                  "--duplicate", "--records", "-", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, ", duplicate: 1 deal x 4 seatings\n"));
    assert_non_null(strstr(r.err, "\nhard/points        1  "));
    const char *games[4];
    games[0] = r.out;
    for (int i = 1; i < 4; i++) {
        games[i] = strchr(games[i - 1], '\n');
        assert_non_null(games[i]);
        games[i]++;
    }
    static const char *const seated[4] = {
        "\"players\":[\"hard0\",\"easy1\",\"hard/points2\",\"easy3\"]",
        "\"players\":[\"easy0\",\"hard1\",\"easy2\",\"hard/points3\"]",
        "\"players\":[\"hard/points0\",\"easy1\",\"hard2\",\"easy3\"]",
        "\"players\":[\"easy0\",\"hard/points1\",\"easy2\",\"hard3\"]"};
    const char *first[64];
    int nfirst = record_deals(games[0], first, 64);
    assert_true(nfirst > 1);
    for (int i = 0; i < 4; i++) {
        const char *nl = strchr(games[i], '\n');
        const char *at = strstr(games[i], seated[i]);
        assert_true(at && at < nl);
        const char *deals[64];
        int n = record_deals(games[i], deals, 64);
        /* the same cards to the same seats as long as both games last */
        for (int h = 0; h < n && h < nfirst; h++)
            assert_memory_equal(deals[h], first[h],
                                (size_t)(strstr(first[h], "]]") - first[h]));
    }
    sim_run_free(&r);
}

/* The figures after "\nLEVEL     SEATS  " in out: points/hand and the
 * first share of games won (the columns between differ by table). */
static void level_figures(const char *out, const char *row, int won_col,
                          double *points, double *won)
{
    const char *at = strstr(out, row);
    assert_non_null(at);
    char col[6][24];
    assert_int_equal(sscanf(at + strlen(row), "%23s %23s %23s %23s %23s %23s",
                            col[0], col[1], col[2], col[3], col[4], col[5]),
                     6);
    *points = atof(col[0]);
    *won = atof(col[won_col]);
}

/* --against: the same games again with another player in the first
 * player's seats, its figures as that player's own run gives them, the
 * paired difference, and the records of the first run only. */
static void test_sim_play_against(void **state)
{
    (void)state;
    struct sim_run r, alone;
    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--seats",
                                  "hard,easy,easy,easy", "--budget", "hard=20",
                                  "--games", "7", "--seed", "3", "--duplicate",
                                  "--against", "hard/points", "--records", "-",
                                  NULL});
    assert_int_equal(r.status, 0);
    const char *against = strstr(r.err, "\nagainst: hard/points in hard's "
                                        "seats, the same deals and seeds, ");
    assert_non_null(against);
    long against_hands = 0;
    int end = 0;
    assert_int_equal(sscanf(against,
                            "\nagainst: hard/points in hard's seats, the same "
                            "deals and seeds, %ld%n",
                            &against_hands, &end),
                     1);
    assert_memory_equal(against + end, " hands\nlevel  ", 13);
    const char *paired =
        strstr(r.err, "\nhard less hard/points, paired by deal: won ");
    assert_non_null(paired);
    double w, wse, wun, m, mse, mun;
    assert_int_equal(sscanf(paired,
                            "\nhard less hard/points, paired by deal: won %lf "
                            "%% (std.err %lf, unpaired %lf), margin %lf "
                            "(std.err %lf, unpaired %lf)",
                            &w, &wse, &wun, &m, &mse, &mun),
                     6);
    assert_true(wse >= 0 && wun >= 0 && mse >= 0 && mun >= 0);
    /* eight records (7 games are two whole groups of 4 seatings), every
     * one of hard's run */
    int lines = 0;
    for (const char *p = r.out; (p = strchr(p, '\n')) != NULL; p++)
        lines++;
    assert_int_equal(lines, 8);
    assert_null(strstr(r.out, "hard/points"));

    /* hard/points' own run: the same games */
    sim_run(&alone, NULL,
            (const char *const[]){"play", "--preset", "standard", "--seats",
                                  "hard/points,easy,easy,easy", "--budget",
                                  "hard=20", "--games", "7", "--seed", "3",
                                  "--duplicate", NULL});
    assert_int_equal(alone.status, 0);
    double p1, w1, p2, w2;
    level_figures(alone.out, "\nhard/points        1  ", 3, &p1, &w1);
    level_figures(strstr(r.err, "\nagainst: "), "\nhard/points        1  ", 2,
                  &p2, &w2);
    assert_float_equal(p1, p2, 1e-9);
    assert_float_equal(w1, w2, 1e-9);
    /* the hands of the second run are its own, as its own run counts
     * them */
    long alone_hands = -1;
    assert_int_equal(sscanf(alone.out,
                            "standard, 4 players, 8 games, %ld hands",
                            &alone_hands),
                     1);
    assert_int_equal(against_hands, alone_hands);
    /* and hard's figures less those */
    double ph, wh;
    level_figures(r.err, "\nhard               1  ", 3, &ph, &wh);
    assert_float_equal(w, wh - w1, 0.006);
    sim_run_free(&alone);
    sim_run_free(&r);
}

/* --against may name one of the others at the table: hard against three
 * hard/points, and a hard/points in hard's seat, counted apart from the
 * three, on the same deals in the same seatings. */
static void test_sim_play_against_one_of_the_table(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--seats",
                                  "hard,hard/points,hard/points,hard/points",
                                  "--budget", "hard=20", "--games", "4",
                                  "--seed", "5", "--duplicate", "--against",
                                  "hard/points", NULL});
    assert_int_equal(r.status, 0);
    const char *against = strstr(
        r.out, "\nagainst: hard/points in hard's seats, the same deals and "
               "seeds, ");
    assert_non_null(against);
    /* one seat of it, not four */
    double pa, wa, ph, wh;
    level_figures(against, "\nhard/points        1  ", 2, &pa, &wa);
    level_figures(r.out, "\nhard               1  ", 3, &ph, &wh);
    double w, wse, wun;
    const char *paired =
        strstr(against, "\nhard less hard/points, paired by deal: won ");
    assert_non_null(paired);
    assert_int_equal(sscanf(paired,
                            "\nhard less hard/points, paired by deal: won %lf "
                            "%% (std.err %lf, unpaired %lf)",
                            &w, &wse, &wun),
                     3);
    assert_float_equal(w, wh - wa, 0.006);
    sim_run_free(&r);
}

static void test_sim_play_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *args[8];
        const char *err;
    } cases[] = {
        {{"play", NULL}, "hearts-sim play: --preset NAME is needed\n"},
        {{"play", "--preset", "standard", "--games", NULL},
         "hearts-sim play: --games needs a value\n"},
        {{"play", "--preset", "standard", "--players", "11", NULL},
         "hearts-sim play: --players is 2 to 10\n"},
        {{"play", "--preset", "standard", "--seats", "random,hard", NULL},
         "hearts-sim play: standard is for 3 to 7 players, not 2\n"},
        {{"play", "--preset", "standard", "--set", "players", NULL},
         "hearts-sim play: --set takes KEY=VALUE\n"},
        {{"play", "--preset", "standard", "--seats", "hard,easy/points", NULL},
         "hearts-sim play: easy does not search: it has no variant 'points' "
         "(normal and hard have)\n"},
        {{"play", "--preset", "standard", "--seats", "hard/fast,easy", NULL},
         "hearts-sim play: unknown variant 'fast' of hard (points, moonblind, "
         "always, moonnear, randomplay, untold, old)\n"},
        {{"play", "--preset", "standard", "--seats", "hard,,easy", NULL},
         "hearts-sim play: a seat left empty in 'hard,,easy'\n"},
        {{"play", "--preset", "standard", "--seats", "hard,easy,", NULL},
         "hearts-sim play: a seat left empty in 'hard,easy,'\n"},
        {{"play", "--preset", "standard", "--seats", "", NULL},
         "hearts-sim play: a seat left empty in ''\n"},
        {{"play", "--preset", "standard", "--seats", "hard,medium", NULL},
         "hearts-sim play: unknown level 'medium' (random, easy, normal, "
         "hard)\n"},
        {{"play", "--preset", "standard", "--budget", "easy=10", NULL},
         "hearts-sim play: --budget is PLAYOUTS (0: each level's own) or "
         "LEVEL=PLAYOUTS,... for searching levels\n"},
        {{"play", "--preset", "standard", "--budget", "hard=10,normal", NULL},
         "hearts-sim play: --budget is PLAYOUTS (0: each level's own) or "
         "LEVEL=PLAYOUTS,... for searching levels\n"},
        {{"play", "--preset", "standard", "--budget", "hard=-1", NULL},
         "hearts-sim play: --budget is PLAYOUTS (0: each level's own) or "
         "LEVEL=PLAYOUTS,... for searching levels\n"},
        {{"play", "--preset", "standard", "--seats", "hard,easy,easy,easy",
          "--against", "HARD", NULL},
         "hearts-sim play: --against names the player it replaces\n"},
        {{"play", "--preset", "standard", "--against", "hard/fast", NULL},
         "hearts-sim play: --against: unknown variant 'fast' of hard (points, "
         "moonblind, always, moonnear, randomplay, untold, old)\n"},
        {{"play", "--preset", "standard", "--games", "1000001", "--against",
          "hard", NULL},
         "hearts-sim play: --against plays at most 1000000 games\n"},
        {{"roundrobin", "--levels", "easy", NULL},
         "hearts-sim roundrobin: --levels names at least two levels\n"},
        {{"roundrobin", "--levels", "easy,hard,EASY", NULL},
         "hearts-sim roundrobin: --levels names a level twice\n"},
        {{"roundrobin", "--games", "1", NULL},
         "hearts-sim roundrobin: --games (a pair's) is 2 or more\n"},
        {{"roundrobin", "--set", "x", NULL},
         "hearts-sim roundrobin: --set takes KEY=VALUE\n"},
        {{"roundrobin", "--set", "players=5", NULL},
         "hearts-sim roundrobin: the round robin is for 4 players, not 5\n"},
        {{"roundrobin", "--preset", "frob", NULL},
         "hearts-sim roundrobin: unknown preset 'frob' (did you mean "
         "'spot'?)\n"},
        {{"roundrobin", "--levels", "easy,normal/fast", NULL},
         "hearts-sim roundrobin: unknown variant 'fast' of normal (points, "
         "moonblind, always, moonnear, randomplay, untold, old)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sim_run r;
        sim_run(&r, NULL, cases[i].args);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        assert_string_equal(r.err, cases[i].err);
        sim_run_free(&r);
    }
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--frob", "1",
                                  NULL});
    assert_int_equal(r.status, 2);
    assert_memory_equal(
        r.err, "hearts-sim play: unknown argument '--frob'\nusage: ", 50);
    sim_run_free(&r);
}

/* roundrobin: every pair of the levels on a table of four, two seats
 * each, a rating for each (easy at 1500), and the rows for the table of
 * ratings. */
static void test_sim_roundrobin(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"roundrobin", "--levels", "random,easy,hard",
                                  "--games", "2", "--budget", "hard=10",
                                  "--seed", "9", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    const char *head = "round robin, standard, 4 players (two seats each, "
                       "alternating), duplicate, 2 games a pair, seed 9\n";
    assert_memory_equal(r.out, head, strlen(head));
    assert_non_null(strstr(r.out, "\nrandom v easy                     2  "));
    assert_non_null(strstr(r.out, "\nrandom v hard                     2  "));
    assert_non_null(strstr(r.out, "\neasy v hard                       2  "));
    assert_non_null(strstr(r.out, "\nlevel          rating  std.err   "
                                  "(Bradley-Terry on games won, easy = "
                                  "1500; "));
    assert_non_null(strstr(r.out, "\neasy             1500        0\n"));
    assert_non_null(strstr(r.out, "\nfor engine/ai/ai_ratings.c ("));
    assert_non_null(strstr(r.out, "\n    {\"easy\", 1500, 0},\n"));
    assert_non_null(strstr(r.out, "\n    {\"random\", "));
    assert_non_null(strstr(r.out, "\n    {\"hard\", "));
    sim_run_free(&r);
}

/* Every count of hearts-sim is a plain decimal number in its range: no
 * blank, sign or trailing text that strtoll would let through. */
static void test_sim_counts_are_plain_numbers(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", " 2", "+2", "2x", "0", "-1", "99999999999999999999"};
    struct sim_run r;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sim_run(&r, NULL,
                (const char *const[]){"play", "--preset", "standard", "--games",
                                      bad[i], "--seed", "1", NULL});
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "--games is 1 or more"));
        assert_string_equal(r.out, "");
        sim_run_free(&r);
    }
    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--games",
                                  "1", "--seed", " 1", NULL});
    assert_int_equal(r.status, 2);
    sim_run_free(&r);
    sim_run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--games",
                                  "1", "--seed", "1", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "standard, 4 players, 1 game, "));
    sim_run_free(&r);
}

/* Runs args again and asserts the same "(checksum ...)" as r's output. */
static void assert_checksum_repeats(const struct sim_run *r,
                                    const char *const *args)
{
    const char *sum = strstr(r->out, "(checksum ");
    assert_non_null(sum);
    struct sim_run again;
    sim_run(&again, NULL, args);
    assert_int_equal(again.status, 0);
    assert_non_null(strstr(again.out, sum));
    sim_run_free(&again);
}

/* bench --search: the searching levels' playouts, counted as the search
 * spends them, with a checksum that repeats; a level that does not search
 * and counts out of range are refused. */
static void test_sim_bench_search(void **state)
{
    (void)state;
    struct sim_run r;
    const char *const args[] = {"bench",       "--search", "--budget",
                                "60",          "--level",  "normal",
                                "--decisions", "4",        NULL};
    sim_run(&r, NULL, args);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_non_null(strstr(r.out, "hearts-sim bench --search: normal, budget "
                                  "60, 4 play decisions"));
    assert_non_null(strstr(r.out, "playouts "));
    assert_checksum_repeats(&r, args);
    /* the engine's random playouts on the same path, in the first trick:
     * other decisions, nearly whole hands played out */
    const char *const random[] = {
        "bench",    "--search",      "--budget",    "60", "--level", "normal",
        "--random", "--first-trick", "--decisions", "4",  NULL};
    struct sim_run rr;
    sim_run(&rr, NULL, random);
    assert_int_equal(rr.status, 0);
    assert_non_null(strstr(rr.out, "hearts-sim bench --search: normal (random "
                                   "playouts), budget 60, 4 play decisions "
                                   "in the first trick"));
    double cards = 0;
    const char *p = strstr(rr.out, "playouts ");
    assert_non_null(p);
    assert_int_equal(sscanf(p, "playouts %*f (%lf cards", &cards), 1);
    assert_true(cards >= 48 && cards <= 51);
    assert_null(strstr(rr.out, strstr(r.out, "(checksum ")));
    assert_checksum_repeats(&rr, random);
    sim_run_free(&rr);
    /* the search's options without --search */
    sim_run(&rr, NULL, (const char *const[]){"bench", "--random", NULL});
    assert_int_equal(rr.status, 2);
    assert_string_equal(rr.out, "");
    assert_non_null(strstr(rr.err, "are for --search"));
    sim_run_free(&rr);
    sim_run_free(&r);
    static const char *const bad[][3] = {{"--level", "easy", "searching"},
                                         {"--level", "frob", "searching"},
                                         {"--budget", "0", "--budget is"},
                                         {"--decisions", "x", "--decisions"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sim_run(&r, NULL,
                (const char *const[]){"bench", "--search", bad[i][0], bad[i][1],
                                      NULL});
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        assert_non_null(strstr(r.err, bad[i][2]));
        sim_run_free(&r);
    }
}

/* think: a level's play decisions and, with --phase review, what a review
 * of whole games asks of the worker, with a checksum that repeats; an
 * unknown phase is refused. */
static void test_sim_think(void **state)
{
    (void)state;
    struct sim_run r;
    const char *const args[] = {"think", "--phase",     "review", "--budget",
                                "60",    "--decisions", "1",      NULL};
    sim_run(&r, NULL, args);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    long hands = 0, positions = 0, plays = 0, passes = 0;
    assert_int_equal(sscanf(r.out,
                            "review (budget 60): 1 games, %ld hands, %ld "
                            "positions (%ld plays, %ld passes); per game mean",
                            &hands, &positions, &plays, &passes),
                     4);
    /* a standard game lasts several hands; seat 0 has a choice at most of
     * its plays, and passes in three hands of four */
    assert_true(hands >= 2);
    assert_true(plays >= hands * 4 && plays <= hands * 12);
    assert_true(passes >= hands / 2 && passes <= hands);
    assert_int_equal(positions, plays + passes);
    assert_checksum_repeats(&r, args);
    sim_run_free(&r);

    sim_run(&r, NULL,
            (const char *const[]){"think", "--budget", "60", "--decisions", "3",
                                  NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "hard (budget 60): 3 first-trick decisions"));
    sim_run_free(&r);

    sim_run(&r, NULL,
            (const char *const[]){"think", "--budget", "60", "--decisions", "3",
                                  "--total", "85", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "hard (budget 60): 3 first-trick decisions"));
    sim_run_free(&r);

    /* a total at the target would end the game before it starts */
    sim_run(&r, NULL, (const char *const[]){"think", "--total", "100", NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    sim_run_free(&r);

    sim_run(&r, NULL, (const char *const[]){"think", "--phase", "frob", NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "[--phase play|pass|review] [--total T]"));
    sim_run_free(&r);
}

int main(void)
{
    if (!sim_run_binary()) {
        fprintf(stderr, "HEARTS_SIM is not set: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_usage),
        cmocka_unit_test(test_sim_version),
        cmocka_unit_test(test_sim_play_report),
        cmocka_unit_test(test_sim_play_records),
        cmocka_unit_test(test_sim_play_duplicate),
        cmocka_unit_test(test_sim_play_against),
        cmocka_unit_test(test_sim_play_against_one_of_the_table),
        cmocka_unit_test(test_sim_play_refusals),
        cmocka_unit_test(test_sim_roundrobin),
        cmocka_unit_test(test_sim_counts_are_plain_numbers),
        cmocka_unit_test(test_sim_bench_search),
        cmocka_unit_test(test_sim_think),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
