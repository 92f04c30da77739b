/*
 * Tests of tools/sim.c: runs the real hearts-sim binary (its path in the
 * environment variable HEARTS_SIM, set by tests/CMakeLists.txt; the test
 * is skipped without it): the command dispatch and its usage, `play`'s
 * report (seats, levels, games and hands), its records (one line per
 * game, each replayed OK), a seed that repeats a run, its refusals, that
 * a count (play --games, --seed) is a plain decimal number, and bench
 * --search's report and refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

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
    assert_non_null(strstr(r.out, " hands, seed 5\nseat  level   "
                                  "points/hand  std.err   wins  moons\n"));
    assert_non_null(strstr(r.out, "\n   0  random "));
    assert_non_null(strstr(r.out, "\n   1  easy   "));
    assert_non_null(strstr(r.out, "\n   2  random "));
    assert_non_null(strstr(r.out, "\n   3  easy   "));
    assert_null(strstr(r.out, "\n   4 "));
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

/* bench --search: the searching levels' playouts, counted as the search
 * spends them, with a checksum that repeats; a level that does not search
 * and counts out of range are refused. */
static void test_sim_bench_search(void **state)
{
    (void)state;
    struct sim_run r, again;
    const char *const args[] = {"bench",       "--search", "--budget",
                                "60",          "--level",  "normal",
                                "--decisions", "4",        NULL};
    sim_run(&r, NULL, args);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_non_null(strstr(r.out, "hearts-sim bench --search: normal, budget "
                                  "60, 4 play decisions"));
    assert_non_null(strstr(r.out, "playouts "));
    const char *sum = strstr(r.out, "(checksum ");
    assert_non_null(sum);
    sim_run(&again, NULL, args);
    assert_int_equal(again.status, 0);
    assert_non_null(strstr(again.out, sum));
    sim_run_free(&again);
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
        cmocka_unit_test(test_sim_play_refusals),
        cmocka_unit_test(test_sim_counts_are_plain_numbers),
        cmocka_unit_test(test_sim_bench_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
