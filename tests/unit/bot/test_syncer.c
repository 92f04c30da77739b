/*
 * Tests of the syncer (bot/syncer.c): lines written unsynced and named to
 * it are in the file, whole and in order, and no file stays open (at
 * syncer_wait, and at syncer_free for what still waits); a failed fsync
 * comes back on the loop with the path and the cause, and nothing else
 * does; a file removed before its turn is nothing to sync; a removal
 * waits for the fsyncs asked for before it, and after a failed fsync
 * keeps its file.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "bot/common/loop.h"
#include "bot/syncer.h"
#include "storage/storage.h"
#include "tests/support/scratch.h"

#define MAX_FAILED 8

static struct {
    char path[FILE_PATH_MAX];
    int cause;
    char err[FILE_PATH_MAX + 100];
} failed[MAX_FAILED];
static int nfailed;

static void on_failed(void *ctx, const char *path, int cause, const char *err)
{
    (void)ctx;
    assert_true(nfailed < MAX_FAILED);
    snprintf(failed[nfailed].path, sizeof failed[nfailed].path, "%s", path);
    failed[nfailed].cause = cause;
    snprintf(failed[nfailed].err, sizeof failed[nfailed].err, "%s", err);
    nfailed++;
}

static void stop_loop(struct loop *l, void *ctx)
{
    (void)ctx;
    loop_stop(l);
}

/* Runs the loop for about ms milliseconds. */
static void run_for(struct loop *l, int ms)
{
    loop_timer(l, ms, stop_loop, NULL);
    loop_run(l);
}

/* How many files this process has open. */
static int open_files(void)
{
    return scratch_entries("/proc/self/fd");
}

static int setup(void **state)
{
    (void)state;
    nfailed = 0;
    return scratch_make();
}

static int teardown(void **state)
{
    (void)state;
    scratch_remove_tree(scratch_dir);
    return 0;
}

/* Appends "line N" to path unsynced and names it to s. */
static void append(struct syncer *s, const char *path, int n)
{
    char line[32], err[300];
    int len = snprintf(line, sizeof line, "{\"line\":%d}\n", n);
    bool created;
    assert_int_equal(storage_append_unsynced(path, line, (size_t)len, &created,
                                             err, sizeof err),
                     0);
    assert_int_equal(created, n == 0);
    assert_int_equal(syncer_add(s, path, created), 0);
}

/* The text of lines from..to-1 as append writes them. */
static void expected(char *out, size_t len, int from, int to)
{
    out[0] = '\0';
    for (int i = from; i < to; i++) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "{\"line\":%d}\n", i);
    }
}

/* Lines of two files, named as they are written (the thread syncs while
 * more come): both files whole and in order at syncer_wait, no file left
 * open, no failure told. */
static void test_syncer_lines_land_in_order_and_files_close(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    char a[FILE_PATH_MAX], b[FILE_PATH_MAX];
    scratch_path(a, sizeof a, "journal-a.jsonl");
    scratch_path(b, sizeof b, "journal-b.jsonl");
    int before = open_files();
    struct syncer *s = syncer_new(l, on_failed, NULL);
    int base = open_files(); /* the syncer's own pipe */
    assert_int_equal(base, before + 2);
    for (int i = 0; i < 40; i++) {
        append(s, a, i);
        if (i % 3 == 0)
            append(s, b, i / 3);
        if (i % 10 == 0)
            syncer_wait(s);
    }
    syncer_wait(s);
    assert_int_equal(open_files(), base);
    char want[4096];
    char *got = scratch_read(a);
    expected(want, sizeof want, 0, 40);
    assert_string_equal(got, want);
    free(got);
    got = scratch_read(b);
    expected(want, sizeof want, 0, 14);
    assert_string_equal(got, want);
    free(got);
    run_for(l, 20);
    assert_int_equal(nfailed, 0);
    syncer_free(s);
    assert_int_equal(open_files(), before);
    loop_free(l);
}

/* Freeing the syncer right after naming files syncs them all first:
 * nothing is left open, no line is missing. */
static void test_syncer_free_syncs_what_waits(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    char a[FILE_PATH_MAX];
    scratch_path(a, sizeof a, "journal-a.jsonl");
    int before = open_files();
    struct syncer *s = syncer_new(l, on_failed, NULL);
    for (int i = 0; i < SYNCER_MAX / 2; i++)
        append(s, a, i);
    syncer_free(s);
    assert_int_equal(open_files(), before);
    char want[4096];
    char *got = scratch_read(a);
    expected(want, sizeof want, 0, SYNCER_MAX / 2);
    assert_string_equal(got, want);
    free(got);
    assert_int_equal(nfailed, 0);
    loop_free(l);
}

/* An fsync that fails (a FIFO cannot be synced: EINVAL) comes back on
 * the loop, once, with its path and a message that names it; a file
 * synced in the same batch is not told. */
static void test_syncer_failure_comes_back_on_the_loop(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    char a[FILE_PATH_MAX], fifo[FILE_PATH_MAX];
    scratch_path(a, sizeof a, "journal-a.jsonl");
    scratch_path(fifo, sizeof fifo, "journal-x.jsonl");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int before = open_files();
    struct syncer *s = syncer_new(l, on_failed, NULL);
    int base = open_files();
    append(s, a, 0);
    assert_int_equal(syncer_add(s, fifo, false), 0);
    append(s, a, 1);
    syncer_wait(s);
    assert_int_equal(open_files(), base);
    assert_int_equal(nfailed, 0); /* not before the loop runs */
    for (int i = 0; i < 100 && nfailed == 0; i++)
        run_for(l, 10);
    assert_int_equal(nfailed, 1);
    assert_string_equal(failed[0].path, fifo);
    assert_int_equal(failed[0].cause, EINVAL);
    char want[FILE_PATH_MAX + 20];
    snprintf(want, sizeof want, "%s: ", fifo);
    assert_non_null(strstr(failed[0].err, want));
    run_for(l, 20);
    assert_int_equal(nfailed, 1);
    syncer_free(s);
    assert_int_equal(open_files(), before);
    loop_free(l);
}

/* A file removed before its turn (a game that ended) is nothing to
 * sync: no failure. */
static void test_syncer_removed_file_is_no_failure(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    char a[FILE_PATH_MAX];
    scratch_path(a, sizeof a, "journal-a.jsonl");
    struct syncer *s = syncer_new(l, on_failed, NULL);
    char err[300];
    bool created;
    assert_int_equal(
        storage_append_unsynced(a, "{}\n", 3, &created, err, sizeof err), 0);
    assert_int_equal(unlink(a), 0);
    assert_int_equal(syncer_add(s, a, created), 0);
    syncer_wait(s);
    run_for(l, 20);
    assert_int_equal(nfailed, 0);
    syncer_free(s);
    loop_free(l);
}

/* A removal comes after the fsyncs asked for before it; after a failed
 * fsync, a removal keeps the file (for the next start) instead. */
static void test_syncer_removes_in_order_and_keeps_after_a_failure(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    char a[FILE_PATH_MAX], j1[FILE_PATH_MAX], j2[FILE_PATH_MAX],
        fifo[FILE_PATH_MAX];
    scratch_path(a, sizeof a, "archive.jsonl");
    scratch_path(j1, sizeof j1, "journal-1.jsonl");
    scratch_path(j2, sizeof j2, "journal-2.jsonl");
    scratch_path(fifo, sizeof fifo, "results.jsonl");
    scratch_write(j1, "{}\n");
    scratch_write(j2, "{}\n");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    struct syncer *s = syncer_new(l, on_failed, NULL);
    append(s, a, 0);
    assert_int_equal(syncer_remove(s, j1), 0);
    syncer_wait(s);
    assert_int_equal(access(j1, F_OK), -1);
    assert_int_equal(nfailed, 0);
    assert_int_equal(syncer_add(s, fifo, false), 0);
    assert_int_equal(syncer_remove(s, j2), 0);
    syncer_wait(s);
    assert_int_equal(access(j2, F_OK), 0); /* kept */
    for (int i = 0; i < 100 && nfailed == 0; i++)
        run_for(l, 10);
    assert_int_equal(nfailed, 1);
    assert_string_equal(failed[0].path, fifo);
    syncer_free(s);
    loop_free(l);
}

/* A path that does not fit is refused: the caller syncs it. */
static void test_syncer_refuses_a_path_too_long(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct syncer *s = syncer_new(l, on_failed, NULL);
    char path[FILE_PATH_MAX + 10];
    memset(path, 'a', sizeof path - 1);
    path[sizeof path - 1] = '\0';
    assert_int_equal(syncer_add(s, path, false), -1);
    syncer_wait(s);
    syncer_free(s);
    loop_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_syncer_lines_land_in_order_and_files_close, setup, teardown),
        cmocka_unit_test_setup_teardown(test_syncer_free_syncs_what_waits,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_syncer_failure_comes_back_on_the_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_syncer_removed_file_is_no_failure,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_syncer_removes_in_order_and_keeps_after_a_failure, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_syncer_refuses_a_path_too_long,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
