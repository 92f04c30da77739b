/*
 * The upgrade promise (docs/hosting.md, "Upgrading"): a data directory
 * written by an earlier release, kept in tests/fixtures/datadir-VERSION/
 * (each made by tests/upgrade/make_datadir.c of its release; its
 * README.md), is read by this build. For every fixture, on a copy in a
 * temporary directory:
 *
 * - the journal resumes the game in progress as it was saved (its state
 *   and its record equal the ones the fixture keeps), and the game plays
 *   on to its end and is archived;
 * - every record of the archive replays through the engine;
 * - the boards rebuilt from the archive equal the ones the fixture keeps,
 *   and the leaderboard.json kept equals the rebuild;
 * - people.jsonl gives back what people chose;
 * - the Matrix session file is read.
 *
 * HEARTS_FIXTURES names tests/fixtures (defined by tests/CMakeLists.txt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/session.h"
#include "storage/people.h"
#include "storage/record/record.h"
#include "storage/stats.h"
#include "tests/unit/bot/manager/world.h"
#include "tests/upgrade/datadir.h"

/* The fixture of the test running: its directory. */
static char fixture[1024];

/* A file of the fixture's expected/ (to free). */
static char *expected(const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/expected/%s", fixture, name);
    static char buf[1 << 20];
    read_small(path, buf, sizeof buf);
    return strdup(buf);
}

/* A path under the copy of the fixture's data. */
static void data_path(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", w->dir, name);
}

/* The world's data directory becomes a copy of the fixture's data. */
static void copy_fixture(void)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cp -R '%s/data/.' '%s'", fixture, w->dir);
    assert_int_equal(system(cmd), 0);
}

static void check_the_archive_replays(const char *room, int *games)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/archive.jsonl", room);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    *games = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        char err[600];
        if (record_check(line, (size_t)n - 1, err, sizeof err))
            fail_msg("%s game %d: %s", path, *games + 1, err);
        ++*games;
    }
    free(line);
    fclose(f);
    assert_true(*games > 0);
}

/* The boards rebuilt from room's archive equal the fixture's and those
 * of its leaderboard.json; returns the rebuild's text (to free). */
static char *check_the_boards(const char *room, const char *want)
{
    struct stats *built = NULL;
    int skipped = -1;
    char err[600];
    assert_int_equal(stats_rebuild(room, &built, &skipped, err, sizeof err), 0);
    assert_int_equal(skipped, 0);
    char *text = datadir_boards_text(built);
    if (want)
        assert_string_equal(text, want);
    struct stats *kept = NULL;
    int64_t caught_up = -1;
    assert_int_equal(
        stats_open(room, &kept, &caught_up, &skipped, err, sizeof err), 0);
    char *a = stats_json(built), *b = stats_json(kept);
    assert_string_equal(b, a);
    free(a);
    free(b);
    stats_free(built);
    stats_free(kept);
    return text;
}

static void check_people(void)
{
    char path[1200];
    data_path(path, sizeof path, "people.jsonl");
    struct people *p = people_new();
    int skipped = -1;
    char err[600];
    assert_int_equal(people_load(p, path, &skipped, err, sizeof err), 0);
    assert_int_equal(skipped, 0);
    char *want = expected("people.txt");
    for (char *save = NULL, *l = strtok_r(want, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        char net[64], key[200], name[32], value[64];
        assert_int_equal(
            sscanf(l, "%63s %199s %31s %63s", net, key, name, value), 4);
        const char *got = people_get(p, net, key, name);
        if (!got || strcmp(got, value))
            fail_msg("people.jsonl: %s %s %s is %s, not %s", net, key, name,
                     got ? got : "unset", value);
    }
    free(want);
    people_free(p);
}

static void check_the_matrix_session(void)
{
    char path[1200], err[600];
    data_path(path, sizeof path, DATADIR_MATRIX_SESSION);
    struct mx_session s;
    assert_int_equal(mx_session_load(path, &s, err, sizeof err), 0);
    char *got = datadir_session_text(&s), *want = expected("session.txt");
    assert_string_equal(got, want);
    free(got);
    free(want);
    mx_session_free(&s);
}

static void check_the_game_resumes(const char *room, int games)
{
    struct table *t = restart();
    assert_non_null(t);
    assert_true(t->playing);
    char *got = datadir_table_text(t), *want = expected("table.txt");
    assert_string_equal(got, want);
    free(got);
    free(want);
    got = record_writer_json(t->rec);
    want = expected("record.json");
    assert_string_equal(got, want);
    free(got);
    free(want);
    /* and plays on, to its end: archived with the older games */
    play_everything(t);
    run_for(50);
    assert_null(the_table());
    int now = 0;
    check_the_archive_replays(room, &now);
    assert_int_equal(now, games + 1);
}

static void test_a_fixture(const char *name)
{
    snprintf(fixture, sizeof fixture, "%s/%s", HEARTS_FIXTURES, name);
    print_message("fixture %s\n", name);
    setup(NULL);
    copy_fixture();
    char room[1200];
    data_path(room, sizeof room, DATADIR_ROOM);
    int games = 0;
    check_the_archive_replays(room, &games);
    char *want = expected("boards.txt");
    free(check_the_boards(room, want));
    free(want);
    check_people();
    check_the_matrix_session();
    check_the_game_resumes(room, games);
    /* the boards with the game finished here: the rebuild and the kept
     * leaderboard still agree */
    manager_free(w->m);
    w->m = NULL;
    free(check_the_boards(room, NULL));
    teardown(NULL);
}

static void test_every_fixture_is_read(void **state)
{
    (void)state;
    DIR *d = opendir(HEARTS_FIXTURES);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "datadir-", 8) != 0)
            continue;
        test_a_fixture(e->d_name);
        n++;
    }
    closedir(d);
    assert_true(n > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_fixture_is_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
