/*
 * The archive (storage/archive.c): results lines written and read back,
 * unknown versions and bad fields refused, a record archived once however
 * often it is archived again, after a crash between the two appends, and
 * a game stopped then finished archived once each way. The leaderboards
 * derived from it are tested in test_stats.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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
#include "tests/unit/storage/room.h"
#include "storage/storage.h"

/* ---- Results lines ---------------------------------------------------- */

static void test_results_line_round_trip(void **state)
{
    (void)state;
    const char *keys[] = {"n:alice", "a:Bob\"\\", NULL, "n:d\xc3\xa9"};
    struct archive_result r, back;
    room_result(&r, "0123456789abcdef", 4, keys, true);
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
    room_result(&r1, "00000000000000a1", 4, keys, true);
    room_result(&r2, "00000000000000a2", 4, keys, true);
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
    room_result(&r, "00000000000000b1", 4, keys, true);
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
    room_result(&r, "00000000000000c1", 4, keys, false);
    assert_int_equal(
        archive_add(dir, &r, stopped, false, &added, err, sizeof err), 0);
    assert_true(added);
    room_result(&r, "00000000000000c1", 4, keys, true);
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

/* ---- Finding a game from the end -------------------------------------- */

/* Appends a results line for game id (the record at `offset`) by hand. */
static void results_line(const char *id, bool finished, int64_t offset,
                         uint64_t hash)
{
    const char *keys[] = {"n:a", "n:b", "n:c", NULL};
    struct archive_result r;
    room_result(&r, id, 4, keys, finished);
    r.offset = offset;
    r.has_hash = true;
    r.record_hash = hash;
    char *line = archive_result_json(&r), path[200], err[300];
    size_t len = strlen(line);
    line = realloc(line, len + 2);
    line[len] = '\n';
    line[len + 1] = '\0';
    path_of(path, sizeof path, ARCHIVE_RESULTS_FILE);
    assert_int_equal(storage_append(path, line, len + 1, err, sizeof err), 0);
    free(line);
}

static void test_archive_find_by_number_and_id_from_the_end(void **state)
{
    (void)state;
    struct archive_result r;
    int finished = -1;
    char err[300];
    /* nothing archived */
    assert_int_equal(archive_find(dir, NULL, 1, &r, &finished, err, sizeof err),
                     ARCHIVE_NONE);
    assert_int_equal(finished, 0);
    results_line("aaaa000000000001", true, 0, 1);
    results_line("aaaa000000000002", false, 10, 2); /* stopped */
    results_line("abcd000000000003", false, 20, 3); /* stopped, then */
    results_line("bbbb000000000004", true, 30, 4);
    results_line("abcd000000000003", true, 40, 5); /* finished */
    /* a line no reader can read is passed over */
    char path[200];
    path_of(path, sizeof path, ARCHIVE_RESULTS_FILE);
    FILE *f = fopen(path, "a");
    fputs("{\"format\":\"heartsbot-results/2\",\"game\":\"abcd\"}\nnot json\n",
          f);
    fclose(f);

    assert_int_equal(archive_find(dir, NULL, 1, &r, &finished, err, sizeof err),
                     ARCHIVE_FOUND);
    assert_string_equal(r.game, "abcd000000000003");
    assert_true(r.finished);
    assert_int_equal(r.offset, 40);
    assert_int_equal(archive_find(dir, NULL, 3, &r, NULL, err, sizeof err),
                     ARCHIVE_FOUND);
    assert_string_equal(r.game, "aaaa000000000001");
    assert_int_equal(archive_find(dir, NULL, 4, &r, &finished, err, sizeof err),
                     ARCHIVE_NONE);
    assert_int_equal(finished, 3);
    /* by ID: the finished line of a game archived both ways */
    assert_int_equal(archive_find(dir, "abcd00", 0, &r, NULL, err, sizeof err),
                     ARCHIVE_FOUND);
    assert_true(r.finished);
    assert_int_equal(r.record_hash, 5);
    /* a stopped game is found, as stopped */
    assert_int_equal(
        archive_find(dir, "aaaa000000000002", 0, &r, NULL, err, sizeof err),
        ARCHIVE_FOUND);
    assert_false(r.finished);
    /* two games start so */
    assert_int_equal(archive_find(dir, "aaaa00", 0, &r, NULL, err, sizeof err),
                     ARCHIVE_AMBIGUOUS);
    assert_int_equal(archive_find(dir, "cccc00", 0, &r, NULL, err, sizeof err),
                     ARCHIVE_NONE);
    /* what is no ID is refused */
    assert_int_equal(archive_find(dir, "ABCD00", 0, &r, NULL, err, sizeof err),
                     -1);
    assert_int_equal(archive_find(dir, "abc", 0, &r, NULL, err, sizeof err),
                     -1);
    assert_int_equal(
        archive_find(dir, "\"game\"", 0, &r, NULL, err, sizeof err), -1);
    assert_int_equal(archive_find(dir, NULL, 0, &r, NULL, err, sizeof err), -1);
}

static void test_archive_find_reads_further_back_only_as_needed(void **state)
{
    (void)state;
    /* an old game, then more than the first window of stopped games */
    results_line("0123456789abcdef", true, 0, 1);
    char id[17];
    for (int i = 0; i < 600; i++) {
        snprintf(id, sizeof id, "ffff%012x", i);
        results_line(id, false, 10, 2);
    }
    size_t len;
    free(slurp(ARCHIVE_RESULTS_FILE, &len));
    assert_true(len > 65536);
    struct archive_result r;
    int finished;
    char err[300];
    assert_int_equal(archive_find(dir, NULL, 1, &r, &finished, err, sizeof err),
                     ARCHIVE_FOUND);
    assert_string_equal(r.game, "0123456789abcdef");
    assert_int_equal(
        archive_find(dir, "0123456789", 0, &r, NULL, err, sizeof err),
        ARCHIVE_FOUND);
    assert_int_equal(
        archive_find(dir, "ffff00000000", 0, &r, NULL, err, sizeof err),
        ARCHIVE_AMBIGUOUS);
}

static void test_archive_record_of_checks_the_fingerprint(void **state)
{
    (void)state;
    const char *keys[] = {"n:a", "n:b", "n:c", NULL};
    char *rec = play("standard", 5, 0);
    struct archive_result r;
    room_result(&r, "00000000000000c1", 4, keys, true);
    char err[300], *line;
    size_t len;
    bool added;
    assert_int_equal(archive_add(dir, &r, rec, false, &added, err, sizeof err),
                     0);
    assert_int_equal(archive_record_of(dir, &r, &line, &len, err, sizeof err),
                     0);
    assert_int_equal(len, strlen(rec));
    assert_memory_equal(line, rec, len);
    free(line);
    /* not where its results line says: refused, naming it */
    r.offset = 1;
    assert_int_equal(archive_record_of(dir, &r, &line, &len, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "is not game 00000000000000c1's"));
    r.offset = (int64_t)strlen(rec) + 100;
    assert_int_equal(archive_record_of(dir, &r, &line, &len, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "no record at byte"));
    /* a heartsbot-results/1 line has no fingerprint: its offset holds */
    r.offset = 0;
    r.has_hash = false;
    assert_int_equal(archive_record_of(dir, &r, &line, &len, err, sizeof err),
                     0);
    free(line);
    free(rec);
}

#define T(f) cmocka_unit_test_setup_teardown(f, room_setup, room_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_line_round_trip),
        cmocka_unit_test(
            test_results_line_refuses_unknown_version_and_bad_fields),
        T(test_archive_add_writes_a_replayable_archive_once),
        T(test_archive_add_after_a_crash_between_the_appends),
        T(test_archive_add_stopped_then_finished_counts_once),
        T(test_archive_find_by_number_and_id_from_the_end),
        T(test_archive_find_reads_further_back_only_as_needed),
        T(test_archive_record_of_checks_the_fingerprint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
