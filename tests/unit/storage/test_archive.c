/*
 * The archive (storage/archive.c) and the leaderboards derived from it
 * (storage/stats.c): formats written and read back, torn lines, unknown
 * versions, archiving twice, the Elo arithmetic on cases checked by hand,
 * and a rebuild from the archive equal to the boards kept game by game.
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
#include "tests/unit/storage/play.h"
#include "storage/storage.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/hearts-archive-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    const char *names[] = {ARCHIVE_FILE, ARCHIVE_RESULTS_FILE, STATS_FILE};
    for (size_t i = 0; i < 3; i++) {
        char path[200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    return rmdir(dir);
}

static char *slurp(const char *name, size_t *len)
{
    char path[200], *text = NULL;
    bool missing;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t n = 0;
    if (storage_read_file(path, 1u << 28, &text, &n, &missing, NULL, 0))
        return strdup("");
    if (len)
        *len = n;
    return text;
}

static void result_for(struct archive_result *r, const char *id, int n,
                       const char *const *keys, bool finished)
{
    memset(r, 0, sizeof *r);
    snprintf(r->game, sizeof r->game, "%s", id);
    r->time = 1700000000;
    snprintf(r->preset, sizeof r->preset, "standard");
    r->finished = finished;
    r->n = n;
    for (int s = 0; s < n; s++) {
        const char *k = keys[s] ? keys[s] : "";
        snprintf(r->seats[s].key, sizeof r->seats[s].key, "%s", k);
        snprintf(r->seats[s].name, sizeof r->seats[s].name, "%s",
                 *k ? k + 2 : "bot");
        r->seats[s].computer = !*k;
    }
}

/* ---- Results lines ---------------------------------------------------- */

static void test_results_line_round_trip(void **state)
{
    (void)state;
    const char *keys[] = {"n:alice", "a:Bob\"\\", NULL, "n:d\xc3\xa9"};
    struct archive_result r, back;
    result_for(&r, "0123456789abcdef", 4, keys, true);
    r.custom = true;
    r.offset = 12345;
    r.has_hash = true;
    r.record_hash = 0x0123456789abcdefULL;
    r.seats[1].left = true;
    char *line = archive_result_json(&r);
    assert_non_null(strstr(line, "\"format\":\"heartsbot-results/2\""));
    assert_non_null(strstr(line, "\"record\":\"0123456789abcdef\""));
    assert_null(strchr(line, '\n'));
    char err[300];
    assert_int_equal(
        archive_result_parse(line, strlen(line), &back, err, sizeof err), 0);
    assert_memory_equal(&r, &back, sizeof r);
    free(line);
}

static void
test_results_line_refuses_unknown_version_and_bad_fields(void **state)
{
    (void)state;
    struct archive_result r;
    char err[300];
    const char *v9 = "{\"format\":\"heartsbot-results/9\",\"game\":"
                     "\"0123456789abcdef\"}";
    assert_int_equal(archive_result_parse(v9, strlen(v9), &r, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "unknown version 'heartsbot-results/9'"));
    const char *bad[] = {
        "[]",
        "{\"format\":\"heartsbot-results/1\",\"game\":\"../../etc\","
        "\"time\":1,\"preset\":\"standard\",\"custom\":false,\"finished\":"
        "true,\"offset\":0,\"seats\":[]}",
        "{\"format\":\"heartsbot-results/1\",\"game\":\"0123456789abcdef\","
        "\"time\":1,\"preset\":\"nope\",\"custom\":false,\"finished\":"
        "true,\"offset\":0,\"seats\":[]}",
        "{\"format\":\"heartsbot-results/1\",\"game\":\"0123456789abcdef\","
        "\"time\":-1,\"preset\":\"standard\",\"custom\":false,\"finished\":"
        "true,\"offset\":0,\"seats\":[]}",
        "{\"format\":\"heartsbot-results/1\",\"game\":\"0123456789abcdef\","
        "\"time\":1,\"preset\":\"standard\",\"custom\":false,\"finished\":"
        "true,\"offset\":0,\"seats\":[{\"name\":\"a\",\"key\":\"\","
        "\"computer\":false,\"left\":false},{\"name\":\"b\",\"key\":\"n:b\","
        "\"computer\":false,\"left\":false}]}",
        "{\"format\":\"heartsbot-results/1\"} trailing",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(&r, 0x5a, sizeof r);
        err[0] = '\0';
        assert_int_equal(
            archive_result_parse(bad[i], strlen(bad[i]), &r, err, sizeof err),
            -1);
        assert_true(err[0]);
        assert_int_equal(((unsigned char *)&r)[0], 0x5a); /* untouched */
    }
}

/* ---- Archiving -------------------------------------------------------- */

static void test_archive_add_writes_a_replayable_archive_once(void **state)
{
    (void)state;
    const char *keys[] = {"n:a", "n:b", "n:c", NULL};
    char *rec1 = play("standard", 1, 0), *rec2 = play("standard", 2, 0);
    struct archive_result r1, r2;
    result_for(&r1, "00000000000000a1", 4, keys, true);
    result_for(&r2, "00000000000000a2", 4, keys, true);
    char err[300];
    bool added;
    assert_int_equal(
        archive_add(dir, &r1, rec1, false, &added, err, sizeof err), 0);
    assert_true(added);
    assert_int_equal(r1.offset, 0);
    assert_int_equal(
        archive_add(dir, &r2, rec2, false, &added, err, sizeof err), 0);
    assert_int_equal(r2.offset, (int64_t)strlen(rec1) + 1);
    size_t alen, rlen;
    char *a = slurp(ARCHIVE_FILE, &alen),
         *res = slurp(ARCHIVE_RESULTS_FILE, &rlen);
    /* archived again (a restart after a crash): nothing changes */
    assert_int_equal(
        archive_add(dir, &r1, rec1, false, &added, err, sizeof err), 0);
    assert_false(added);
    assert_int_equal(
        archive_add(dir, &r2, rec2, false, &added, err, sizeof err), 0);
    assert_false(added);
    char *a2 = slurp(ARCHIVE_FILE, NULL),
         *res2 = slurp(ARCHIVE_RESULTS_FILE, NULL);
    assert_string_equal(a, a2);
    assert_string_equal(res, res2);
    /* every archive line is a valid record */
    char *line = a;
    int lines = 0;
    for (char *nl; (nl = strchr(line, '\n')); line = nl + 1, lines++)
        assert_int_equal(
            record_check(line, (size_t)(nl - line), err, sizeof err), 0);
    assert_int_equal(lines, 2);
    free(a);
    free(res);
    free(a2);
    free(res2);
    free(rec1);
    free(rec2);
}

static void test_archive_add_after_a_crash_between_the_appends(void **state)
{
    (void)state;
    const char *keys[] = {"n:a", "n:b", "n:c", NULL};
    char *rec = play("standard", 3, 0);
    char path[200], err[300];
    snprintf(path, sizeof path, "%s/%s", dir, ARCHIVE_FILE);
    /* the record went out, its results line did not */
    char *line = malloc(strlen(rec) + 2);
    sprintf(line, "%s\n", rec);
    assert_int_equal(storage_append(path, line, strlen(line), err, sizeof err),
                     0);
    struct archive_result r;
    result_for(&r, "00000000000000b1", 4, keys, true);
    bool added;
    assert_int_equal(archive_add(dir, &r, rec, false, &added, err, sizeof err),
                     0);
    assert_true(added);
    assert_int_equal(r.offset, 0);
    char *a = slurp(ARCHIVE_FILE, NULL);
    assert_string_equal(a, line); /* the record is there once */
    free(a);
    free(line);
    free(rec);
}

static void test_archive_add_stopped_then_finished_counts_once(void **state)
{
    (void)state;
    const char *keys[] = {"n:a", "n:b", "n:c", NULL};
    char *stopped = play("standard", 4, 30), *done = play("standard", 4, 0);
    struct archive_result r;
    char err[300];
    bool added;
    /* a shutdown stops it; after a restart it goes on and finishes */
    result_for(&r, "00000000000000c1", 4, keys, false);
    assert_int_equal(
        archive_add(dir, &r, stopped, false, &added, err, sizeof err), 0);
    assert_true(added);
    result_for(&r, "00000000000000c1", 4, keys, true);
    assert_int_equal(archive_add(dir, &r, done, false, &added, err, sizeof err),
                     0);
    assert_true(added);
    assert_int_equal(archive_add(dir, &r, done, false, &added, err, sizeof err),
                     0);
    assert_false(added);
    struct stats *s;
    int skipped;
    assert_int_equal(stats_rebuild(dir, &s, &skipped, err, sizeof err), 0);
    assert_int_equal(s->games, 2);
    assert_int_equal(stats_find(stats_board(s, "standard"), "n:a")->games, 1);
    stats_free(s);
    free(stopped);
    free(done);
}

/* ---- Elo and counting, by hand ---------------------------------------- */

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

static void test_elo_two_and_three_people(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *two[] = {"n:a", "n:b", NULL, NULL};
    struct archive_result r;
    result_for(&r, "0000000000000001", 4, two, true);
    int t1[] = {10, 90, 20, 10};
    struct stats_game g = game_of(4, t1, 1u << 0 | 1u << 3);
    stats_add(s, &r, &g);
    stats_rank(s);
    /* equal ratings: expected 0.5 each; a beat b: +-32 * 0.5 */
    assert_true(fabs(who(s, "standard", "n:a")->rating - 1516.0) < 1e-9);
    assert_true(fabs(who(s, "standard", "n:b")->rating - 1484.0) < 1e-9);
    assert_int_equal(who(s, "standard", "n:a")->rank, 1);
    assert_int_equal(who(s, "standard", "n:b")->rank, 2);
    /* a shared win counts for a, computers are on no board */
    assert_int_equal(who(s, "standard", "n:a")->wins, 1);
    assert_int_equal(stats_board(s, "standard")->n, 2);
    assert_null(stats_board(s, STATS_CUSTOM));

    /* three new people, c < d < e: 16 * (1 + 1 - 1) = +16, 0, -16 */
    const char *three[] = {"n:c", "n:d", "n:e"};
    result_for(&r, "0000000000000002", 3, three, true);
    int t2[] = {5, 50, 80};
    g = game_of(3, t2, 1u);
    stats_add(s, &r, &g);
    assert_true(fabs(who(s, "standard", "n:c")->rating - 1516.0) < 1e-9);
    assert_true(fabs(who(s, "standard", "n:d")->rating - 1500.0) < 1e-9);
    assert_true(fabs(who(s, "standard", "n:e")->rating - 1484.0) < 1e-9);

    /* a (1516) against b (1484): expected for a 1/(1+10^(-32/400)) */
    result_for(&r, "0000000000000003", 4, two, true);
    int t3[] = {50, 50, 0, 0}; /* a draw */
    g = game_of(4, t3, 1u << 2 | 1u << 3);
    stats_add(s, &r, &g);
    double ea = 1.0 / (1.0 + pow(10.0, -32.0 / 400.0));
    assert_true(fabs(who(s, "standard", "n:a")->rating -
                     (1516.0 + 32.0 * (0.5 - ea))) < 1e-9);
    assert_true(fabs(who(s, "standard", "n:b")->rating -
                     (1484.0 + 32.0 * (0.5 - (1.0 - ea)))) < 1e-9);
    assert_int_equal(who(s, "standard", "n:a")->games, 2);
    assert_int_equal(who(s, "standard", "n:a")->hands, 4);
    assert_true(stats_provisional(who(s, "standard", "n:a")));
    assert_int_equal(s->games, 3);
    stats_free(s);
}

static void test_leaver_loses_and_stopped_games_count_for_nobody(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", "n:c", "n:d"};
    struct archive_result r;
    result_for(&r, "0000000000000004", 4, keys, true);
    r.seats[0].left = true; /* a computer played a's seat to a win */
    int t[] = {0, 30, 40, 56};
    struct stats_game g = game_of(4, t, 1u);
    stats_add(s, &r, &g);
    stats_rank(s);
    const struct stats_player *a = who(s, "standard", "n:a");
    assert_int_equal(a->games, 1);
    assert_int_equal(a->wins, 0);
    /* a lost to all three: 32/3 * (0 - 0.5) * 3 = -16 */
    assert_true(fabs(a->rating - 1484.0) < 1e-9);
    assert_int_equal(a->rank, 4);

    result_for(&r, "0000000000000005", 4, keys, false);
    g.finished = false;
    stats_add(s, &r, &g);
    assert_int_equal(who(s, "standard", "n:a")->games, 1);
    assert_int_equal(s->games, 2);
    stats_free(s);
}

static void test_custom_tables_count_twice(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *keys[] = {"n:a", "n:b", NULL, NULL};
    struct archive_result r;
    result_for(&r, "0000000000000006", 4, keys, true);
    int t[] = {10, 20, 30, 40};
    struct stats_game g = game_of(4, t, 1u);
    g.custom = true;
    stats_add(s, &r, &g);
    stats_rank(s);
    assert_int_equal(who(s, "standard", "n:a")->wins, 1);
    assert_int_equal(who(s, STATS_CUSTOM, "n:a")->wins, 1);
    assert_true(fabs(who(s, STATS_CUSTOM, "n:b")->rating - 1484.0) < 1e-9);
    stats_free(s);
}

/* ---- Figures from records, rebuild, leaderboard.json ------------------ */

static void test_figures_from_a_record(void **state)
{
    (void)state;
    char *rec = play("standard", 7, 0);
    struct stats_game g;
    char err[300];
    assert_int_equal(
        stats_game_from_record(rec, strlen(rec), &g, err, sizeof err), 0);
    assert_true(g.finished);
    assert_int_equal(g.n, 4);
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
    free(rec);
    char *stopped = play("standard", 7, 30);
    assert_int_equal(
        stats_game_from_record(stopped, strlen(stopped), &g, err, sizeof err),
        0);
    assert_false(g.finished);
    free(stopped);
}

/* Archives `games` games among a few people, some custom, some stopped,
 * keeping boards as the bot does; returns them. */
static struct stats *archive_games(int games)
{
    struct stats *s = stats_new();
    const char *pool[] = {"n:ann", "n:ben", "a:Cat", "n:dan", "n:eve", NULL};
    for (int i = 0; i < games; i++) {
        bool custom = i % 3 == 1, stopped = i % 5 == 4;
        char *rec = play(custom ? "standard target=30" : "standard",
                         (uint64_t)i + 100, stopped ? 40 : 0);
        const char *keys[4];
        for (int k = 0; k < 4; k++)
            keys[k] = pool[(i + k * (i % 2 + 1)) % 6];
        struct archive_result r;
        char id[17];
        snprintf(id, sizeof id, "%016x", i + 1);
        result_for(&r, id, 4, keys, !stopped);
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
        assert_int_equal(stats_counted(dir, s, &r, &g, &saved, err, sizeof err),
                         0);
        free(rec);
    }
    return s;
}

static void test_rebuild_equals_incremental(void **state)
{
    (void)state;
    struct stats *kept = archive_games(12);
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
    free(a);
    free(b);
    stats_free(kept);
    stats_free(built);
}

static void test_leaderboard_json_round_trip_and_load(void **state)
{
    (void)state;
    struct stats *kept = archive_games(6);
    char err[300], why[400] = "";
    bool rebuilt;
    /* missing: rebuilt and saved */
    char gone[200];
    snprintf(gone, sizeof gone, "%s/%s", dir, STATS_FILE);
    unlink(gone);
    struct stats *s;
    assert_int_equal(
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err), 0);
    assert_true(rebuilt);
    assert_non_null(strstr(why, "missing"));
    char *a = stats_json(kept), *b = stats_json(s);
    assert_string_equal(a, b);
    stats_free(s);
    /* current: read as it is */
    assert_int_equal(
        stats_load(dir, &s, &rebuilt, why, sizeof why, err, sizeof err), 0);
    assert_false(rebuilt);
    free(b);
    b = stats_json(s);
    assert_string_equal(a, b);
    stats_free(s);
    free(b);

    /* a torn last results line: dropped and cut while catching up; the
     * file still serves */
    char path[200];
    snprintf(path, sizeof path, "%s/%s", dir, ARCHIVE_RESULTS_FILE);
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

    /* an unknown version: refused with its name, then rebuilt */
    const char *v9 = "{\"format\":\"heartsbot-leaderboard/9\"}";
    assert_int_equal(stats_parse(v9, strlen(v9), &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown version 'heartsbot-leaderboard/9'"));
    snprintf(path, sizeof path, "%s/%s", dir, STATS_FILE);
    assert_int_equal(storage_replace(path, v9, strlen(v9), err, sizeof err), 0);
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

static void test_rebuild_skips_what_it_cannot_read(void **state)
{
    (void)state;
    struct stats *kept = archive_games(3);
    char path[200], err[300];
    snprintf(path, sizeof path, "%s/%s", dir, ARCHIVE_RESULTS_FILE);
    const char *v9 = "{\"format\":\"heartsbot-results/9\"}\n";
    assert_int_equal(storage_append(path, v9, strlen(v9), err, sizeof err), 0);
    struct stats *s;
    int skipped;
    assert_int_equal(stats_rebuild(dir, &s, &skipped, err, sizeof err), 0);
    assert_int_equal(skipped, 1);
    assert_non_null(strstr(err, "results.jsonl line 4"));
    assert_non_null(strstr(err, "unknown version"));
    assert_int_equal(s->games, 3);
    stats_free(s);
    stats_free(kept);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_line_round_trip),
        cmocka_unit_test(
            test_results_line_refuses_unknown_version_and_bad_fields),
        cmocka_unit_test_setup_teardown(
            test_archive_add_writes_a_replayable_archive_once, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_archive_add_after_a_crash_between_the_appends, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_archive_add_stopped_then_finished_counts_once, setup,
            teardown),
        cmocka_unit_test(test_elo_two_and_three_people),
        cmocka_unit_test(test_leaver_loses_and_stopped_games_count_for_nobody),
        cmocka_unit_test(test_custom_tables_count_twice),
        cmocka_unit_test(test_figures_from_a_record),
        cmocka_unit_test_setup_teardown(test_rebuild_equals_incremental, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_leaderboard_json_round_trip_and_load, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rebuild_skips_what_it_cannot_read,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
