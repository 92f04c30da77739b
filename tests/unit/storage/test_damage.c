/*
 * What a person's editor, a restored backup, a crash or a kill does to a
 * channel's files (issue 19), and what the archive and the leaderboards
 * make of it: a whole last line without its newline is kept, a garbage
 * line or a run of zero bytes loses only itself, a results line finds its
 * record by fingerprint and never pairs with another game, a game whose
 * results line was not written is completed once, temporary files of a
 * killed replacement go, and leaderboard.json is a checkpoint caught up
 * at start rather than rebuilt, written only every few games.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/ai/ai.h"
#include "storage/archive.h"
#include "storage/record/record.h"
#include "storage/stats.h"
#include "tests/unit/storage/play.h"
#include "tests/unit/storage/room.h"
#include "storage/storage.h"

static char logged[4096];

static void keep_log(bool error, const char *msg)
{
    size_t n = strlen(logged);
    snprintf(logged + n, sizeof logged - n, "%s%s\n", error ? "E " : "", msg);
}

static int setup(void **state)
{
    (void)state;
    logged[0] = '\0';
    storage_set_log(keep_log);
    return room_setup(state);
}

static long size_of(const char *name)
{
    char path[200];
    struct stat st;
    path_of(path, sizeof path, name);
    return stat(path, &st) ? -1 : (long)st.st_size;
}

/* Game i's results: ann and ben, and a third person of its own
 * ("n:only<i>"), and a computer. */
static void result_for(struct archive_result *r, int i)
{
    memset(r, 0, sizeof *r);
    snprintf(r->game, sizeof r->game, "%016x", i + 1);
    r->time = 1700000000 + i;
    snprintf(r->preset, sizeof r->preset, "standard");
    r->finished = true;
    r->n = 4;
    snprintf(r->seats[0].key, sizeof r->seats[0].key, "n:ann");
    snprintf(r->seats[1].key, sizeof r->seats[1].key, "n:ben");
    snprintf(r->seats[2].key, sizeof r->seats[2].key, "n:only%d", i);
    snprintf(r->seats[0].name, sizeof r->seats[0].name, "ann");
    snprintf(r->seats[1].name, sizeof r->seats[1].name, "ben");
    snprintf(r->seats[2].name, sizeof r->seats[2].name, "only%d", i);
    snprintf(r->seats[3].name, sizeof r->seats[3].name, "bot1");
    r->seats[3].computer = true;
}

/* Archives game i as the bot does (without counting it). */
static void add_game(int i)
{
    char *rec = play("standard", (uint64_t)i + 500, 0);
    struct archive_result r;
    result_for(&r, i);
    bool added = false;
    char err[300];
    assert_int_equal(archive_add(dir, &r, rec, false, &added, err, sizeof err),
                     0);
    assert_true(added);
    free(rec);
}

static struct stats *rebuilt(int *skipped)
{
    struct stats *s;
    char err[400];
    assert_int_equal(stats_rebuild(dir, &s, skipped, err, sizeof err), 0);
    return s;
}

static int games_of(const struct stats *s, const char *key)
{
    const struct stats_player *p = stats_find(stats_board(s, "standard"), key);
    return p ? p->games : 0;
}

/* Rebuilds and checks what was skipped, how many games were archived
 * and how many ann played; the boards for more checks. */
static struct stats *expect(int skipped, int games, int ann)
{
    int got = -1;
    struct stats *s = rebuilt(&got);
    assert_int_equal(got, skipped);
    assert_int_equal(s->games, games);
    assert_int_equal(games_of(s, "n:ann"), ann);
    return s;
}

static int lines_in(const char *name)
{
    size_t len = 0;
    char *text = slurp(name, &len);
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    free(text);
    return n;
}

/* Drops the final newline of a file, as some editors do. */
static void strip_newline(const char *name)
{
    size_t len = 0;
    char *text = slurp(name, &len);
    assert_true(len > 0 && text[len - 1] == '\n');
    spit(name, text, len - 1);
    free(text);
}

/* ---- 1. A whole last line without its newline ------------------------- */

static void test_a_whole_last_line_without_newline_is_kept(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        add_game(i);
    strip_newline(ARCHIVE_FILE);
    strip_newline(ARCHIVE_RESULTS_FILE);
    long asize = size_of(ARCHIVE_FILE), rsize = size_of(ARCHIVE_RESULTS_FILE);
    struct stats *s = expect(0, 3, 3);
    assert_int_equal(games_of(s, "n:only2"), 1);
    /* nothing was cut */
    assert_int_equal(size_of(ARCHIVE_FILE), asize);
    assert_int_equal(size_of(ARCHIVE_RESULTS_FILE), rsize);
    assert_null(strstr(logged, "torn"));
    stats_free(s);
    /* the game of that last line is archived already */
    char *rec = play("standard", 502, 0), err[300];
    struct archive_result r;
    result_for(&r, 2);
    bool added = true;
    assert_int_equal(archive_add(dir, &r, rec, false, &added, err, sizeof err),
                     0);
    assert_false(added);
    free(rec);
    assert_int_equal(size_of(ARCHIVE_RESULTS_FILE), rsize);
    /* the next game's lines start lines of their own */
    add_game(3);
    assert_int_equal(lines_in(ARCHIVE_FILE), 4);
    assert_int_equal(lines_in(ARCHIVE_RESULTS_FILE), 4);
    s = expect(0, 4, 4);
    assert_int_equal(games_of(s, "n:only2"), 1);
    assert_int_equal(games_of(s, "n:only3"), 1);
    stats_free(s);
}

/* ---- 2. Garbage, and results that point elsewhere ---------------------- */

static void test_a_garbage_line_in_the_middle_loses_only_itself(void **state)
{
    (void)state;
    for (int i = 0; i < 5; i++)
        add_game(i);
    struct stats *before = expect(0, 5, 5);
    /* a line of garbage after the second record */
    size_t len;
    char *text = slurp(ARCHIVE_FILE, &len);
    char *second = strchr(strchr(text, '\n') + 1, '\n') + 1;
    size_t head = (size_t)(second - text);
    const char junk[] = "this is not a game\n";
    char *edited = malloc(len + sizeof junk);
    memcpy(edited, text, head);
    memcpy(edited + head, junk, sizeof junk - 1);
    memcpy(edited + head + sizeof junk - 1, second, len - head);
    spit(ARCHIVE_FILE, edited, len + sizeof junk - 1);
    free(text);
    free(edited);

    struct stats *s = expect(1, 5, 5); /* the garbage line only skipped */
    for (int i = 0; i < 5; i++) {
        char key[32];
        snprintf(key, sizeof key, "n:only%d", i);
        assert_int_equal(games_of(s, key), 1);
    }
    /* the same boards as before the edit */
    const struct stats_board *a = stats_board(before, "standard"),
                             *b = stats_board(s, "standard");
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        assert_string_equal(a->p[i].key, b->p[i].key);
        assert_int_equal(a->p[i].points, b->p[i].points);
        assert_true(a->p[i].rating == b->p[i].rating);
    }
    stats_free(s);
    stats_free(before);
}

static void test_results_past_the_end_never_pair_with_a_later_game(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        add_game(i);
    /* an older archive restored: the third record is gone, its results
     * line points at the end of the file */
    size_t len;
    char *text = slurp(ARCHIVE_FILE, &len);
    char *third = strchr(strchr(text, '\n') + 1, '\n') + 1;
    spit(ARCHIVE_FILE, text, (size_t)(third - text));
    free(text);
    /* the next game's record lands where the third's line points */
    add_game(3);
    /* game 3 skipped: its record is nowhere */
    struct stats *s = expect(1, 4, 3);
    assert_int_equal(games_of(s, "n:only2"), 0);
    assert_int_equal(games_of(s, "n:only3"), 1);
    stats_free(s);
}

/* ---- 3. A run of zero bytes -------------------------------------------- */

static void test_a_run_of_zero_bytes_loses_only_itself(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        add_game(i);
    char path[200];
    path_of(path, sizeof path, ARCHIVE_FILE);
    /* longer than any record, in the middle then at the end */
    size_t zeros = RECORD_MAX_LINE + 4096;
    char *z = calloc(1, zeros + 1);
    z[zeros] = '\n';
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, z, zeros + 1), (ssize_t)zeros + 1);
    close(fd);
    add_game(3);
    fd = open(path, O_WRONLY | O_APPEND);
    assert_int_equal(write(fd, z, zeros), (ssize_t)zeros);
    close(fd);
    free(z);
    struct stats *s;
    bool was_rebuilt;
    char why[600] = "", err[400] = "";
    assert_int_equal(
        stats_load(dir, &s, &was_rebuilt, why, sizeof why, err, sizeof err), 0);
    assert_int_equal(s->games, 4);
    assert_int_equal(games_of(s, "n:ann"), 4);
    assert_int_equal(games_of(s, "n:only3"), 1);
    assert_non_null(strstr(logged, "skipped as damaged"));
    stats_free(s);
}

/* ---- 6. A results line not written (a full disk) ----------------------- */

static void test_a_retry_completes_a_game_once(void **state)
{
    (void)state;
    add_game(0);
    /* game 1's record was written, its results line was not; then game
     * 2 was archived */
    char *rec1 = play("standard", 501, 0);
    char path[200], err[300];
    path_of(path, sizeof path, ARCHIVE_FILE);
    size_t n = strlen(rec1);
    char *line = malloc(n + 2);
    memcpy(line, rec1, n);
    memcpy(line + n, "\n", 2);
    assert_int_equal(storage_append(path, line, n + 1, err, sizeof err), 0);
    free(line);
    add_game(2);
    int before = lines_in(ARCHIVE_FILE);
    struct archive_result r;
    result_for(&r, 1);
    bool added = false;
    assert_int_equal(archive_add(dir, &r, rec1, true, &added, err, sizeof err),
                     0);
    assert_true(added);
    assert_int_equal(lines_in(ARCHIVE_FILE), before); /* not written twice */
    /* and again: nothing */
    assert_int_equal(archive_add(dir, &r, rec1, true, &added, err, sizeof err),
                     0);
    assert_false(added);
    struct stats *s = expect(0, 3, 3);
    assert_int_equal(games_of(s, "n:only1"), 1);
    stats_free(s);
    free(rec1);
}

/* ---- 4. Temporary files a kill leaves ---------------------------------- */

static bool exists(const char *name)
{
    char path[200];
    struct stat st;
    path_of(path, sizeof path, name);
    return lstat(path, &st) == 0;
}

static void test_temporary_files_of_a_killed_replace_go(void **state)
{
    (void)state;
    /* a pid that is certainly no process: a child that has exited */
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    assert_true(dead > 0);
    waitpid(dead, NULL, 0);
    /* a live process of ours: a child that waits */
    int hold[2];
    assert_int_equal(pipe(hold), 0);
    pid_t live = fork();
    if (live == 0) {
        char c;
        close(hold[1]);
        (void)!read(hold[0], &c, 1);
        _exit(0);
    }
    close(hold[0]);
    char name[6][80];
    snprintf(name[0], 80, "leaderboard.json.tmp-%d-7", (int)dead);
    snprintf(name[1], 80, "leaderboard.json.tmp-%d-8", (int)live);
    snprintf(name[2], 80, "link.tmp-%d-1", (int)dead);
    snprintf(name[3], 80, "adir.tmp-%d-1", (int)dead);
    snprintf(name[4], 80, "leaderboard.json.tmp-%d-x", (int)dead);
    snprintf(name[5], 80, ".tmp-%d-1", (int)dead);
    spit(name[0], "{}", 2);
    spit(name[1], "{}", 2);
    spit("target", "kept", 4);
    char path[200], to[200];
    path_of(path, sizeof path, name[2]);
    path_of(to, sizeof to, "target");
    assert_int_equal(symlink(to, path), 0);
    path_of(path, sizeof path, name[3]);
    assert_int_equal(mkdir(path, 0700), 0);
    spit(name[4], "{}", 2);
    spit(name[5], "{}", 2);
    int removed = -1;
    char err[300];
    assert_int_equal(storage_clean_temps(dir, &removed, err, sizeof err), 0);
    assert_int_equal(removed, 1);
    assert_false(exists(name[0]));
    for (int i = 1; i < 6; i++)
        assert_true(exists(name[i]));
    assert_true(exists("target"));
    assert_non_null(strstr(logged, name[0]));
    close(hold[1]);
    waitpid(live, NULL, 0);
    /* a link where the directory should be is not walked */
    path_of(path, sizeof path, "linked");
    assert_int_equal(symlink(dir, path), 0);
    assert_int_equal(storage_clean_temps(path, &removed, err, sizeof err), -1);
}

/* ---- 7. A checkpoint, caught up ---------------------------------------- */

/* Archives and counts games from..to-1 as the bot does. */
static void count_games(struct stats *s, int from, int to, int *saves)
{
    for (int i = from; i < to; i++) {
        char *rec = play("standard", (uint64_t)i + 500, 0);
        struct archive_result r;
        result_for(&r, i);
        bool added, saved;
        char err[300];
        struct stats_game g;
        assert_int_equal(
            archive_add(dir, &r, rec, false, &added, err, sizeof err), 0);
        assert_int_equal(
            stats_game_from_record(rec, strlen(rec), &g, err, sizeof err), 0);
        assert_int_equal(stats_counted(dir, s, &r, &g, &saved, err, sizeof err),
                         0);
        *saves += saved;
        free(rec);
    }
}

static void test_the_board_catches_up_from_its_checkpoint(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    int saves = 0;
    /* 2 + 37 people: written at the first game (there was none), then
     * every 16 games, not after each */
    count_games(s, 0, 40, &saves);
    assert_int_equal(stats_checkpoint_every(s), 16);
    assert_int_equal(saves, 3);
    assert_int_equal(s->behind, 7);
    /* a crash: the 7 games since, and 3 more archived but not counted */
    for (int i = 40; i < 43; i++)
        add_game(i);
    struct stats *back;
    bool was_rebuilt;
    char why[600] = "", err[400] = "";
    assert_int_equal(
        stats_load(dir, &back, &was_rebuilt, why, sizeof why, err, sizeof err),
        0);
    assert_false(was_rebuilt);
    assert_non_null(strstr(why, "caught up: 10 games"));
    struct stats *all = expect(0, 43, 43);
    char *want = stats_json(all), *have = stats_json(back);
    assert_string_equal(have, want);
    assert_int_equal(back->games, 43);
    free(want);
    free(have);
    stats_free(back);
    stats_free(all);
    stats_free(s);
}

static void test_an_edited_results_file_is_rebuilt(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    int saves = 0;
    count_games(s, 0, 17, &saves);
    assert_int_equal(saves, 2);
    add_game(17);
    /* results.jsonl replaced by an older copy with other lines: the
     * checkpoint counts lines that are no longer there */
    size_t len;
    char *text = slurp(ARCHIVE_RESULTS_FILE, &len);
    char *cut = strchr(text, '\n') + 1;
    spit(ARCHIVE_RESULTS_FILE, cut, len - (size_t)(cut - text));
    free(text);
    struct stats *back;
    bool was_rebuilt;
    char why[600] = "", err[400] = "";
    assert_int_equal(
        stats_load(dir, &back, &was_rebuilt, why, sizeof why, err, sizeof err),
        0);
    assert_true(was_rebuilt);
    assert_int_equal(back->games, 17);
    assert_int_equal(games_of(back, "n:only0"), 0);
    stats_free(back);
    stats_free(s);
}

/* The old version of leaderboard.json is read while it is current. */
static void test_a_version_1_board_is_still_read(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        add_game(i);
    int skipped;
    struct stats *s = rebuilt(&skipped);
    char *json = stats_json(s);
    /* as the version before wrote it: no results_last */
    char *at = strstr(json, "\"results_last\":");
    assert_non_null(at);
    char *end = strchr(at, ',') + 1;
    memmove(at, end, strlen(end) + 1);
    char *v = strstr(json, STATS_FORMAT);
    memcpy(v, STATS_FORMAT_V1, strlen(STATS_FORMAT_V1));
    spit(STATS_FILE, json, strlen(json));
    free(json);
    struct stats *back;
    bool was_rebuilt;
    char why[600] = "", err[400] = "";
    assert_int_equal(
        stats_load(dir, &back, &was_rebuilt, why, sizeof why, err, sizeof err),
        0);
    assert_false(was_rebuilt);
    assert_int_equal(back->games, 3);
    stats_free(back);
    /* once the archive grew, it is rebuilt (it says no position) */
    add_game(3);
    assert_int_equal(
        stats_load(dir, &back, &was_rebuilt, why, sizeof why, err, sizeof err),
        0);
    assert_true(was_rebuilt);
    assert_int_equal(back->games, 4);
    stats_free(back);
    stats_free(s);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, room_teardown)
    const struct CMUnitTest tests[] = {
        T(test_a_whole_last_line_without_newline_is_kept),
        T(test_a_garbage_line_in_the_middle_loses_only_itself),
        T(test_results_past_the_end_never_pair_with_a_later_game),
        T(test_a_run_of_zero_bytes_loses_only_itself),
        T(test_a_retry_completes_a_game_once),
        T(test_temporary_files_of_a_killed_replace_go),
        T(test_the_board_catches_up_from_its_checkpoint),
        T(test_an_edited_results_file_is_rebuilt),
        T(test_a_version_1_board_is_still_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
