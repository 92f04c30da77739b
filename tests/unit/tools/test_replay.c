/*
 * Tests of tools/replay.c: runs the real hearts-sim binary (its path in
 * the environment variable HEARTS_SIM, set by tests/CMakeLists.txt; the
 * test is skipped without it) on the records under tests/data/records/
 * and checks its exit codes and output lines: valid games and journals,
 * an illegal play, garbage, --fill, --legal, stdin, usage errors and a
 * line beyond the length cap; and that a count (play --games, --seed) is
 * a plain decimal number.
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

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *sim;
static char data[4096];

struct run {
    int status; /* exit code, or -1 if it did not exit normally */
    char *out;
    char *err;
};

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            char *bigger = realloc(buf, cap);
            assert_non_null(bigger);
            buf = bigger;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        if (got == 0)
            break;
        len += got;
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

/* Runs hearts-sim with args (NULL-terminated), stdin from `input` (or
 * /dev/null), capturing stdout and stderr. */
static void run(struct run *r, const char *input, const char *const *args)
{
    char out_path[] = "/tmp/test_replay_out_XXXXXX";
    char err_path[] = "/tmp/test_replay_err_XXXXXX";
    int out_fd = mkstemp(out_path);
    int err_fd = mkstemp(err_path);
    assert_true(out_fd >= 0 && err_fd >= 0);
    const char *argv[16] = {sim};
    int argc = 1;
    for (; args[argc - 1]; argc++) {
        assert_true(argc < 15);
        argv[argc] = args[argc - 1];
    }
    argv[argc] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, input ? input : "/dev/null",
                                     O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
    pid_t pid;
    assert_int_equal(
        posix_spawn(&pid, sim, &fa, NULL, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    close(out_fd);
    close(err_fd);
    r->out = slurp(out_path);
    r->err = slurp(err_path);
    unlink(out_path);
    unlink(err_path);
}

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
}

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
    struct run r;
    run(&r, NULL,
        (const char *const[]){"replay", path_of("standard.jsonl"), NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "game 1: OK\ngame 2: OK\n");
    assert_string_equal(r.err, "");
    run_free(&r);
}

static void test_sim_replay_journal_ok(void **state)
{
    (void)state;
    struct run r;
    run(&r, NULL,
        (const char *const[]){"replay", path_of("journal.jsonl"), NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "game 1: OK\n");
    run_free(&r);
}

static void test_sim_replay_invalid_play_fails(void **state)
{
    (void)state;
    struct run r;
    run(&r, NULL,
        (const char *const[]){"replay", path_of("invalid_play.jsonl"), NULL});
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "game 1: hand 4, action 1: seat 1 leads 3C "
                               "but must lead 2C\n");
    run_free(&r);
}

static void test_sim_replay_garbage_fails_line_by_line(void **state)
{
    (void)state;
    struct run r;
    run(&r, NULL,
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
    run_free(&r);
}

static void test_sim_replay_fill_restores_points(void **state)
{
    (void)state;
    struct run r;
    run(&r, NULL,
        (const char *const[]){"replay", "--fill", path_of("nopoints.jsonl"),
                              NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "game 1: OK\n");
    /* the first game of standard.jsonl is the same game with its points */
    char *full = slurp(path_of("standard.jsonl"));
    char *nl = strchr(full, '\n');
    assert_non_null(nl);
    nl[1] = '\0';
    assert_string_equal(r.out, full);
    free(full);
    run_free(&r);
}

static void test_sim_replay_fill_writes_only_valid_games(void **state)
{
    (void)state;
    struct run r;
    run(&r, NULL,
        (const char *const[]){"replay", path_of("garbage.jsonl"), "--fill",
                              NULL});
    assert_int_equal(r.status, 1);
    assert_int_equal(count_lines(r.out, "{\"format\":\"hearts-record/1\""), 1);
    assert_int_equal(count_lines(r.err, "game "), 7);
    run_free(&r);
}

static void test_sim_replay_legal_lists_every_action(void **state)
{
    (void)state;
    struct run r;
    run(&r, NULL,
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
    run_free(&r);
}

static void test_sim_replay_reads_stdin(void **state)
{
    (void)state;
    struct run r;
    run(&r, path_of("standard.jsonl"),
        (const char *const[]){"replay", "-", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "game 1: OK\ngame 2: OK\n");
    run_free(&r);
}

static void test_sim_replay_usage_errors(void **state)
{
    (void)state;
    struct run r;
    run(&r, NULL, (const char *const[]){"replay", NULL});
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "usage: hearts-sim replay FILE"));
    run_free(&r);
    run(&r, NULL,
        (const char *const[]){"replay", path_of("no-such-file.jsonl"), NULL});
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "no-such-file.jsonl: No such file"));
    assert_string_equal(r.out, "");
    run_free(&r);
    run(&r, NULL,
        (const char *const[]){"replay", "--fil", path_of("standard.jsonl"),
                              NULL});
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown option '--fil'"));
    run_free(&r);
    run(&r, NULL,
        (const char *const[]){"replay", path_of("standard.jsonl"),
                              path_of("journal.jsonl"), NULL});
    assert_int_equal(r.status, 2);
    run_free(&r);
    /* a directory opens but cannot be read */
    run(&r, NULL, (const char *const[]){"replay", data, NULL});
    assert_int_equal(r.status, 2);
    run_free(&r);
}

/* Every count of hearts-sim is a plain decimal number in its range: no
 * blank, sign or trailing text that strtoll would let through. */
static void test_sim_counts_are_plain_numbers(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", " 2", "+2", "2x", "0", "-1", "99999999999999999999"};
    struct run r;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        run(&r, NULL,
            (const char *const[]){"play", "--preset", "standard", "--games",
                                  bad[i], "--seed", "1", NULL});
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "--games is 1 or more"));
        assert_string_equal(r.out, "");
        run_free(&r);
    }
    run(&r, NULL,
        (const char *const[]){"play", "--preset", "standard", "--games", "1",
                              "--seed", " 1", NULL});
    assert_int_equal(r.status, 2);
    run_free(&r);
    run(&r, NULL,
        (const char *const[]){"play", "--preset", "standard", "--games", "1",
                              "--seed", "1", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "standard, 4 players, 1 game, "));
    run_free(&r);
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
    char *game = slurp(path_of("journal.jsonl"));
    fputs(game, f);
    free(game);
    assert_int_equal(fclose(f), 0);
    struct run r;
    run(&r, NULL, (const char *const[]){"replay", path, NULL});
    unlink(path);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "game 1: the record is longer than 4194304 "
                               "bytes\ngame 2: OK\n");
    run_free(&r);
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
    sim = getenv("HEARTS_SIM");
    if (!sim || !*sim) {
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
        cmocka_unit_test(test_sim_counts_are_plain_numbers),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
