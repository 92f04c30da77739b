/*
 * Tests of tools/leaderboard.c: runs the real hearts-sim binary (its path
 * in the environment variable HEARTS_SIM, set by tests/CMakeLists.txt;
 * the test is skipped without it) on a room directory archived here
 * (storage/archive.c): the rebuild writes leaderboard.json and says what
 * it counted, --check says the file is current (and how many games it
 * is behind) or that it is not, a bad archive line is skipped and makes
 * the exit code 1, and the arguments are checked.
 */
#include "tests/unit/storage/play.h"
#include "tests/unit/storage/room.h"

#include <sys/stat.h>

#include "storage/stats.h"
#include "tests/support/sim_run.h"

/* Archives a finished standard game of random play with alice and bob
 * in seats 0 and 2, computers in 1 and 3. */
static void archive_game(const char *id, uint64_t seed)
{
    static const char *const keys[] = {"n:alice", NULL, "n:bob", NULL};
    struct archive_result r;
    room_result(&r, id, 4, keys, true);
    char *rec = play("standard", seed, 0);
    char err[300];
    bool added;
    assert_int_equal(archive_add(dir, &r, rec, false, &added, err, sizeof err),
                     0);
    assert_true(added);
    free(rec);
}

static void leaderboard(struct sim_run *r, const char *flag)
{
    sim_run(r, NULL, (const char *const[]){"leaderboard", dir, flag, NULL});
}

static void test_leaderboard_rebuild_and_check(void **state)
{
    (void)state;
    archive_game("00000000000000a1", 1);
    archive_game("00000000000000a2", 2);
    struct sim_run r;
    leaderboard(&r, NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_memory_equal(r.out, "2 games archived (", 18);
    assert_non_null(strstr(r.out, " bytes); standard: 2 players\n"
                                  "leaderboard.json rebuilt in "));
    sim_run_free(&r);
    char path[200];
    path_of(path, sizeof path, STATS_FILE);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    char *saved = slurp(STATS_FILE, NULL);
    assert_non_null(strstr(saved, "\"n:alice\""));
    assert_non_null(strstr(saved, "\"n:bob\""));

    leaderboard(&r, "--check");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nleaderboard.json: current\n"));
    sim_run_free(&r);

    /* a game after the file: caught up as the bot does, still current */
    archive_game("00000000000000a3", 3);
    leaderboard(&r, "--check");
    assert_int_equal(r.status, 0);
    assert_memory_equal(r.out, "3 games archived (", 18);
    assert_non_null(strstr(
        r.out, "\nleaderboard.json: current, with the 1 game after it\n"));
    sim_run_free(&r);
    /* --check writes nothing */
    char *after = slurp(STATS_FILE, NULL);
    assert_string_equal(after, saved);
    free(after);
    free(saved);

    /* a file that is not a leaderboard */
    spit(STATS_FILE, "{}\n", 3);
    leaderboard(&r, "--check");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "\nleaderboard.json: "));
    assert_null(strstr(r.out, "current"));
    sim_run_free(&r);
}

/* A line of the archive that is no record: skipped, said, exit code 1;
 * the rest is still counted and written. */
static void test_leaderboard_skips_bad_lines(void **state)
{
    (void)state;
    archive_game("00000000000000b1", 4);
    char path[200];
    path_of(path, sizeof path, ARCHIVE_FILE);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("junk\n", f);
    fclose(f);
    struct sim_run r;
    leaderboard(&r, NULL);
    assert_int_equal(r.status, 1);
    assert_memory_equal(
        r.err, "hearts-sim leaderboard: 1 line skipped; the first: ", 51);
    assert_memory_equal(r.out, "1 game", 6);
    assert_non_null(strstr(r.out, "\nleaderboard.json rebuilt in "));
    sim_run_free(&r);
}

static void test_leaderboard_arguments(void **state)
{
    (void)state;
    struct sim_run r;
    sim_run(&r, NULL, (const char *const[]){"leaderboard", NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err,
                        "usage: hearts-sim leaderboard ROOM_DIR [--check]\n");
    assert_string_equal(r.out, "");
    sim_run_free(&r);
    sim_run(&r, NULL, (const char *const[]){"leaderboard", dir, "b", NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err,
                        "hearts-sim leaderboard: unknown argument 'b'\n");
    sim_run_free(&r);
    sim_run(&r, NULL,
            (const char *const[]){"leaderboard", "--fast", dir, NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err,
                        "hearts-sim leaderboard: unknown argument '--fast'\n");
    sim_run_free(&r);
}

int main(void)
{
    if (!sim_run_binary()) {
        fprintf(stderr, "HEARTS_SIM is not set: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_leaderboard_rebuild_and_check,
                                        room_setup, room_teardown),
        cmocka_unit_test_setup_teardown(test_leaderboard_skips_bad_lines,
                                        room_setup, room_teardown),
        cmocka_unit_test_setup_teardown(test_leaderboard_arguments, room_setup,
                                        room_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
