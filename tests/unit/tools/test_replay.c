/*
 * Tests of tools/replay.c: runs the real hearts-sim binary (its path in
 * the environment variable HEARTS_SIM, set by tests/CMakeLists.txt; the
 * test is skipped without it) on the records under tests/data/records/
 * and checks its exit codes and output lines: valid games and journals,
 * an illegal play, garbage, --fill, --legal, stdin, usage errors and a
 * line beyond the length cap.
 *
 * The data files: standard.jsonl (two games written by hearts-sim play),
 * journal.jsonl (the first game cut after 17 plays of hand 2),
 * nopoints.jsonl (the first game without points, totals and winners),
 * invalid_play.jsonl (the first game with hand 4's lead of the 2C made
 * the 3C, which seat 1 also holds), garbage.jsonl (junk lines around a
 * valid game).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/sim_run.h"

static char data[4096];

static const char *path_of(const char *name)
{
    static char buf[4][4200];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", data, name);
    return p;
}

static int count_lines(const char *s, const char *prefix)
{
    int n = 0;
    for (const char *p = s; *p;) {
        const char *nl = strchr(p, '\n');
        if (!strncmp(p, prefix, strlen(prefix)))
            n++;
        if (!nl)
            break;
        p = nl + 1;
    }
    return n;
}

static void test_sim_replay_valid_games_ok(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"replay", path_of("standard.jsonl"), NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "game 1: OK\ngame 2: OK\n");
    assert_string_equal(r.err, "");
    sim_run_free(&r);
}

static void test_sim_replay_journal_ok(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"replay", path_of("journal.jsonl"), NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "game 1: OK\n");
    sim_run_free(&r);
}

static void test_sim_replay_invalid_play_fails(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(
        &r, NULL,
        (const char *const[]){"replay", path_of("invalid_play.jsonl"), NULL});
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "game 1: hand 4, action 1: seat 1 leads 3C "
                               "but must lead 2C\n");
    sim_run_free(&r);
}

static void test_sim_replay_garbage_fails_line_by_line(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"replay", path_of("garbage.jsonl"), NULL});
    assert_int_equal(r.status, 1);
    /* blank lines are no games; every other line gets one status line */
    assert_int_equal(count_lines(r.out, "game "), 7);
    assert_int_equal(count_lines(r.out, ""), 7);
    assert_non_null(strstr(r.out, "game 1: the JSON is incomplete"));
    assert_non_null(strstr(r.out, "game 2: OK\n"));
    assert_non_null(strstr(r.out, "game 3: the record contains a NUL byte"));
    assert_non_null(strstr(r.out, "game 5: bad JSON at byte 8: nesting too "
                                  "deep"));
    assert_non_null(strstr(r.out, "game 6: hand 1: dealer:"));
    assert_non_null(strstr(r.out, "game 7: bad JSON at byte 0: invalid "
                                  "utf-8"));
    sim_run_free(&r);
}

static void test_sim_replay_fill_restores_points(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"replay", "--fill", path_of("nopoints.jsonl"),
                                  NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "game 1: OK\n");
    /* the first game of standard.jsonl is the same game with its points */
    char *full = sim_run_slurp(path_of("standard.jsonl"));
    char *nl = strchr(full, '\n');
    assert_non_null(nl);
    nl[1] = '\0';
    assert_string_equal(r.out, full);
    free(full);
    sim_run_free(&r);
}

static void test_sim_replay_fill_writes_only_valid_games(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"replay", path_of("garbage.jsonl"), "--fill",
                                  NULL});
    assert_int_equal(r.status, 1);
    assert_int_equal(count_lines(r.out, "{\"format\":\"hearts-record/1\""), 1);
    assert_int_equal(count_lines(r.err, "game "), 7);
    sim_run_free(&r);
}

static void test_sim_replay_legal_lists_every_action(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL,
            (const char *const[]){"replay", "--legal", path_of("journal.jsonl"),
                                  NULL});
    assert_int_equal(r.status, 0);
    /* hand 1: 4 passes and 52 plays; hand 2: 4 passes and 17 plays */
    assert_int_equal(count_lines(r.out, "game 1, hand 1, action "), 56);
    assert_int_equal(count_lines(r.out, "game 1, hand 2, action "), 21);
    assert_non_null(strstr(r.out, "game 1, hand 1, action 1, seat 0: pass "
                                  "3 of: "));
    assert_non_null(strstr(r.out, ": play one of: 2C\n"));
    const char *tail = r.out + strlen(r.out) - strlen("game 1: OK\n");
    assert_string_equal(tail, "game 1: OK\n");
    sim_run_free(&r);
}

static void test_sim_replay_reads_stdin(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, path_of("standard.jsonl"),
            (const char *const[]){"replay", "-", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "game 1: OK\ngame 2: OK\n");
    sim_run_free(&r);
}

static void test_sim_replay_usage_errors(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL, (const char *const[]){"replay", NULL});
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "usage: hearts-sim replay FILE"));
    sim_run_free(&r);
    sim_run(
        &r, NULL,
        (const char *const[]){"replay", path_of("no-such-file.jsonl"), NULL});
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "no-such-file.jsonl: No such file"));
    assert_string_equal(r.out, "");
    sim_run_free(&r);
    sim_run(&r, NULL,
            (const char *const[]){"replay", "--fil", path_of("standard.jsonl"),
                                  NULL});
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown option '--fil'"));
    sim_run_free(&r);
    sim_run(&r, NULL,
            (const char *const[]){"replay", path_of("standard.jsonl"),
                                  path_of("journal.jsonl"), NULL});
    assert_int_equal(r.status, 2);
    sim_run_free(&r);
    /* a directory opens but cannot be read */
    sim_run(&r, NULL, (const char *const[]){"replay", data, NULL});
    assert_int_equal(r.status, 2);
    sim_run_free(&r);
}

static void test_sim_replay_line_too_long(void **state)
{
    (void)state;
    char path[] = "/tmp/test_replay_long_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    /* a line of 5 MiB, then a valid game that must still be read */
    for (int i = 0; i < 5 * 1024; i++)
        for (int j = 0; j < 1024; j++)
            fputc('[', f);
    fputc('\n', f);
    char *game = sim_run_slurp(path_of("journal.jsonl"));
    fputs(game, f);
    free(game);
    assert_int_equal(fclose(f), 0);
    struct sim_run r;
    sim_run(&r, NULL, (const char *const[]){"replay", path, NULL});
    unlink(path);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "game 1: the record is longer than 4194304 "
                               "bytes\ngame 2: OK\n");
    sim_run_free(&r);
}

/* The data directory: tests/data/records, found from this file's path. */
static int setup(void **state)
{
    (void)state;
    snprintf(data, sizeof data, "%s", __FILE__);
    for (int i = 0; i < 3; i++) {
        char *slash = strrchr(data, '/');
        if (!slash)
            return -1;
        *slash = '\0';
    }
    strncat(data, "/data/records", sizeof data - strlen(data) - 1);
    struct stat st;
    return stat(data, &st) == 0 ? 0 : -1;
}

int main(void)
{
    if (!sim_run_binary()) {
        fprintf(stderr, "HEARTS_SIM is not set: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_replay_valid_games_ok),
        cmocka_unit_test(test_sim_replay_journal_ok),
        cmocka_unit_test(test_sim_replay_invalid_play_fails),
        cmocka_unit_test(test_sim_replay_garbage_fails_line_by_line),
        cmocka_unit_test(test_sim_replay_fill_restores_points),
        cmocka_unit_test(test_sim_replay_fill_writes_only_valid_games),
        cmocka_unit_test(test_sim_replay_legal_lists_every_action),
        cmocka_unit_test(test_sim_replay_reads_stdin),
        cmocka_unit_test(test_sim_replay_usage_errors),
        cmocka_unit_test(test_sim_replay_line_too_long),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
