/*
 * Tests of storage/storage.c: files that are links refused, appends that
 * are cut back after a failed write (a file size limit, a full tmpfs),
 * torn last lines dropped and cut, files moved aside and removed, and the
 * data directory's lock across processes. The file primitives under them
 * (names, paths, directories, replacement) are tested in
 * tests/unit/bot/common/test_file.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bot/common/file.h"
#include "storage/storage.h"
#include "tests/support/scratch.h"

static char logged[4096]; /* what storage logged */

static void capture_log(bool error, const char *msg)
{
    size_t n = strlen(logged);
    snprintf(logged + n, sizeof logged - n, "%s%s\n", error ? "E " : "I ", msg);
}

static int setup(void **state)
{
    (void)state;
    if (scratch_make())
        return -1;
    logged[0] = '\0';
    storage_set_log(capture_log);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    storage_set_log(NULL);
    storage_set_sync(NULL, NULL);
    storage_unlock();
    scratch_remove_tree(scratch_dir);
    return 0;
}

static long size_of(const char *path)
{
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    return (long)st.st_size;
}

/* ---- Appending and reading lines ---------------------------------------- */

/* A path that does not fit is refused, not cut: nothing is written. */
static void test_storage_append_over_long_path_is_refused(void **state)
{
    (void)state;
    char path[FILE_PATH_MAX + 100], err[256];
    size_t n = (size_t)snprintf(path, sizeof path, "%s/", scratch_dir);
    while (n < FILE_PATH_MAX + 10)
        path[n++] = 'x';
    path[n] = '\0';
    assert_int_equal(storage_append(path, "x\n", 2, err, sizeof err), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    assert_non_null(strstr(err, "too long"));
    assert_int_equal(scratch_entries(scratch_dir), 0);
}

struct lines {
    int n;
    char text[8][64];
    long lineno[8];
};

static int collect(void *ctx, char *line, size_t len, long lineno)
{
    struct lines *l = ctx;
    assert_int_equal(strlen(line), len);
    if (l->n < 8) {
        snprintf(l->text[l->n], sizeof l->text[0], "%s", line);
        l->lineno[l->n] = lineno;
    }
    l->n++;
    return 0;
}

static void test_storage_append_and_read_lines_round_trip(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "archive.jsonl");
    struct lines l = {0};
    bool missing = false;
    assert_int_equal(
        storage_read_lines(path, 100, collect, &l, &missing, err, sizeof err),
        0);
    assert_true(missing);
    assert_int_equal(l.n, 0);
    assert_int_equal(storage_append(path, "{\"a\":1}\n", 8, err, sizeof err),
                     0);
    assert_int_equal(storage_append(path, "\n", 1, err, sizeof err), 0);
    assert_int_equal(storage_append(path, "{\"b\":2}\n", 8, err, sizeof err),
                     0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(
        storage_read_lines(path, 100, collect, &l, &missing, err, sizeof err),
        0);
    assert_false(missing);
    assert_int_equal(l.n, 2); /* the empty line is skipped */
    assert_string_equal(l.text[0], "{\"a\":1}");
    assert_string_equal(l.text[1], "{\"b\":2}");
    assert_int_equal(l.lineno[0], 1);
    assert_int_equal(l.lineno[1], 3);
    assert_string_equal(logged, "");
}

static void test_storage_append_refuses_what_is_not_one_line(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "a.jsonl");
    assert_int_equal(storage_append(path, "no end", 6, err, sizeof err), -1);
    assert_int_equal(storage_append(path, "a\nb\n", 4, err, sizeof err), -1);
    assert_int_equal(storage_append(path, "", 0, err, sizeof err), -1);
    assert_int_equal(access(path, F_OK), -1);
}

static int stop_at_two(void *ctx, char *line, size_t len, long lineno)
{
    (void)line;
    (void)len;
    *(long *)ctx = lineno;
    return lineno == 2 ? 7 : 0;
}

static void test_storage_read_lines_stops_and_refuses_long_lines(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "a.jsonl");
    scratch_write(path, "one\ntwo\nthree\n");
    long last = 0;
    assert_int_equal(storage_read_lines(path, 100, stop_at_two, &last, NULL,
                                        err, sizeof err),
                     7);
    assert_int_equal(last, 2);
    struct lines l = {0};
    assert_int_equal(
        storage_read_lines(path, 4, collect, &l, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, ":3: line longer than 4 bytes"));
}

static void test_storage_read_lines_drops_and_cuts_a_torn_line(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "journal-1.jsonl");
    scratch_write(path, "{\"a\":1}\n{\"b\":2}\n{\"c\":3, \"to");
    struct lines l = {0};
    assert_int_equal(
        storage_read_lines(path, 100, collect, &l, NULL, err, sizeof err), 0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.text[1], "{\"b\":2}");
    assert_int_equal(size_of(path), 16);
    assert_non_null(strstr(logged, "torn last line (11 bytes"));
    /* the next append starts a line of its own */
    assert_int_equal(storage_append(path, "{\"d\":4}\n", 8, err, sizeof err),
                     0);
    char *text = scratch_read(path);
    assert_string_equal(text, "{\"a\":1}\n{\"b\":2}\n{\"d\":4}\n");
    free(text);
}

/* Only reading (heartsbot --check): the torn line is reported, not cut. */
static void test_storage_read_only_reports_a_torn_line(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "journal-1.jsonl");
    scratch_write(path, "{\"a\":1}\n{\"b\":2}\n{\"c\":3, \"to");
    struct lines l = {0};
    storage_set_read_only(true);
    int rc = storage_read_lines(path, 100, collect, &l, NULL, err, sizeof err);
    storage_set_read_only(false);
    assert_int_equal(rc, 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(size_of(path), 27);
    assert_non_null(strstr(logged, "a torn last line after byte 16"));
}

/* A last line without its newline that is a whole JSON object was left
 * so by an editor or `$(cat f)`: it is read, never cut, and the next
 * append ends it first. */
static void test_storage_a_whole_last_line_is_kept(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "results.jsonl");
    scratch_write(path, "{\"a\":1}\n{\"b\":[2,{\"c\":\"}\"}]}");
    struct lines l = {0};
    assert_int_equal(
        storage_read_lines(path, 100, collect, &l, NULL, err, sizeof err), 0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.text[1], "{\"b\":[2,{\"c\":\"}\"}]}");
    assert_int_equal(l.lineno[1], 2);
    assert_int_equal(size_of(path), 27);
    assert_string_equal(logged, "");
    assert_int_equal(storage_append(path, "{\"d\":4}\n", 8, err, sizeof err),
                     0);
    char *text = scratch_read(path);
    assert_string_equal(text,
                        "{\"a\":1}\n{\"b\":[2,{\"c\":\"}\"}]}\n{\"d\":4}\n");
    free(text);
    /* with no read before the append either */
    scratch_write(path, "{\"a\":1}");
    assert_int_equal(storage_append(path, "{\"d\":4}\n", 8, err, sizeof err),
                     0);
    text = scratch_read(path);
    assert_string_equal(text, "{\"a\":1}\n{\"d\":4}\n");
    free(text);
    /* part of an object, a bare value, or an object and more: torn */
    const char *torn[] = {"{\"a\":1", "17", "{\"a\":1}x", "[1]"};
    for (size_t i = 0; i < sizeof torn / sizeof *torn; i++) {
        char raw[64];
        snprintf(raw, sizeof raw, "{\"z\":0}\n%s", torn[i]);
        scratch_write(path, raw);
        l.n = 0;
        assert_int_equal(
            storage_read_lines(path, 100, collect, &l, NULL, err, sizeof err),
            0);
        assert_int_equal(l.n, 1);
        assert_int_equal(size_of(path), 8);
    }
}

/* An append to a file a crash left torn, with no read before it: the
 * torn line goes, the new one is whole. */
static void test_storage_append_cuts_a_torn_line_first(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "archive.jsonl");
    char torn[9000];
    memset(torn, 't', sizeof torn - 1);
    torn[sizeof torn - 1] = '\0';
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"a\":1}\n%s", torn); /* a torn line over 2 blocks */
    fclose(f);
    assert_int_equal(storage_append(path, "{\"b\":2}\n", 8, err, sizeof err),
                     0);
    char *text = scratch_read(path);
    assert_string_equal(text, "{\"a\":1}\n{\"b\":2}\n");
    free(text);
    assert_non_null(strstr(logged, "torn last line (8999 bytes"));
    /* a file of one torn line only */
    scratch_write(path, "{\"to");
    assert_int_equal(storage_append(path, "{\"c\":3}\n", 8, err, sizeof err),
                     0);
    text = scratch_read(path);
    assert_string_equal(text, "{\"c\":3}\n");
    free(text);
}

static void test_storage_files_that_are_links_are_refused(void **state)
{
    (void)state;
    char target[256], link[256], err[512];
    scratch_path(target, sizeof target, "target");
    scratch_path(link, sizeof link, "archive.jsonl");
    scratch_write(target, "secret\n");
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(storage_append(link, "x\n", 2, err, sizeof err), -1);
    assert_int_equal(errno, ELOOP);
    assert_non_null(strstr(err, "symbolic link"));
    struct lines l = {0};
    assert_int_equal(
        storage_read_lines(link, 100, collect, &l, NULL, err, sizeof err), -1);
    assert_int_equal(l.n, 0);
    char *text = scratch_read(target);
    assert_string_equal(text, "secret\n");
    free(text);
    /* a link to nowhere is not made into a file either */
    char dangling[256], nowhere[256];
    scratch_path(dangling, sizeof dangling, "journal-x.jsonl");
    scratch_path(nowhere, sizeof nowhere, "nowhere");
    assert_int_equal(symlink(nowhere, dangling), 0);
    assert_int_equal(storage_append(dangling, "x\n", 2, err, sizeof err), -1);
    assert_int_equal(access(nowhere, F_OK), -1);
    /* a FIFO is refused at once, not waited on */
    char fifo[256];
    scratch_path(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(storage_append(fifo, "x\n", 2, err, sizeof err), -1);
    assert_int_equal(
        storage_read_lines(fifo, 100, collect, &l, NULL, err, sizeof err), -1);
}

static void test_storage_append_cut_back_after_a_short_write(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "archive.jsonl");
    assert_int_equal(storage_append(path, "{\"old\":1}\n", 10, err, sizeof err),
                     0);
    char line[41];
    memset(line, 'x', 39);
    line[39] = '\n';
    line[40] = '\0';
    struct rlimit old = scratch_limit_files(25); /* 15 bytes fit, then EFBIG */
    int rc = storage_append(path, line, 40, err, sizeof err);
    int e = errno;
    setrlimit(RLIMIT_FSIZE, &old);
    assert_int_equal(rc, -1);
    assert_int_equal(e, EFBIG);
    assert_string_equal(storage_reason(e), "a file reached the size limit");
    assert_non_null(strstr(err, "15 of 40 bytes written, cut back to 10"));
    assert_int_equal(size_of(path), 10);
    assert_int_equal(storage_append(path, "{\"new\":2}\n", 10, err, sizeof err),
                     0);
    char *text = scratch_read(path);
    assert_string_equal(text, "{\"old\":1}\n{\"new\":2}\n");
    free(text);
}

/* A real full disk: a 64 KB tmpfs, when this runs as root and may mount. */
static void test_storage_append_on_a_full_tmpfs(void **state)
{
    (void)state;
    char mnt[256], cmd[600], path[300], filler[300], err[512];
    scratch_path(mnt, sizeof mnt, "small");
    assert_int_equal(mkdir(mnt, 0700), 0);
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=64k tmpfs %s 2>/dev/null",
             mnt);
    if (geteuid() != 0 || system(cmd) != 0) {
        skip();
        return;
    }
    snprintf(path, sizeof path, "%s/archive.jsonl", mnt);
    snprintf(filler, sizeof filler, "%s/filler", mnt);
    int rc = storage_append(path, "{\"old\":1}\n", 10, err, sizeof err);
    int fd = open(filler, O_WRONLY | O_CREAT, 0600);
    char block[4096];
    memset(block, 'f', sizeof block);
    while (fd >= 0 && write(fd, block, sizeof block) > 0)
        ;
    if (fd >= 0)
        close(fd);
    char big[10001];
    memset(big, 'y', 9999);
    big[9999] = '\n';
    int full = storage_append(path, big, 10000, err, sizeof err);
    int e = errno;
    long size = size_of(path);
    unlink(filler);
    int after = storage_append(path, "{\"new\":2}\n", 10, err, sizeof err);
    char *text = scratch_read(path);
    snprintf(cmd, sizeof cmd, "umount %s", mnt);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(full, -1);
    assert_int_equal(e, ENOSPC);
    assert_int_equal(size, 10);
    assert_int_equal(after, 0);
    assert_string_equal(text, "{\"old\":1}\n{\"new\":2}\n");
    free(text);
}

/* ---- Moving and removing ------------------------------------------------ */

static void test_storage_move_aside_and_remove(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "journal-1.jsonl");
    scratch_write(path, "first\n");
    assert_int_equal(storage_move_aside(path, err, sizeof err), 0);
    scratch_write(path, "second\n");
    assert_int_equal(storage_move_aside(path, err, sizeof err), 0);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(scratch_entries(scratch_dir),
                     2); /* two names, nothing overwritten */
    DIR *d = opendir(scratch_dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            assert_true(!strncmp(e->d_name, "journal-1.jsonl.bad-", 20));
    closedir(d);
    scratch_write(path, "third\n");
    assert_int_equal(storage_remove(path, err, sizeof err), 0);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(storage_remove(path, err, sizeof err), 0);
}

/* ---- The lock and the check --------------------------------------------- */

static void test_storage_lock_keeps_a_second_process_out(void **state)
{
    (void)state;
    char err[512], want[512];
    assert_int_equal(storage_lock(scratch_dir, err, sizeof err), 0);
    snprintf(want, sizeof want,
             "another heartsbot (pid %ld) is already using data directory %s",
             (long)getpid(), scratch_dir);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        char e[512] = "";
        int rc = storage_lock(scratch_dir, e, sizeof e);
        _exit(rc == -2 && !strcmp(e, want) ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    storage_unlock();
}

static void test_storage_lock_is_free_after_its_holder_is_killed(void **state)
{
    (void)state;
    char err[512], want[512];
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(p[0]);
        char e[512];
        char ok = storage_lock(scratch_dir, e, sizeof e) == 0 ? 'y' : 'n';
        if (write(p[1], &ok, 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(p[1]);
    char ok = 0;
    assert_int_equal(read(p[0], &ok, 1), 1);
    close(p[0]);
    int taken = storage_lock(scratch_dir, err, sizeof err);
    bool locked = storage_locked();
    kill(child, SIGKILL); /* before any assertion: never left behind */
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_int_equal(ok, 'y');
    assert_int_equal(taken, -2);
    assert_false(locked);
    snprintf(want, sizeof want,
             "another heartsbot (pid %ld) is already using data directory %s",
             (long)child, scratch_dir);
    assert_string_equal(err, want);
    assert_int_equal(storage_lock(scratch_dir, err, sizeof err), 0);
    assert_true(storage_locked());
    char lock[256];
    scratch_path(lock, sizeof lock, "lock");
    char *text = scratch_read(lock);
    char mine[32];
    snprintf(mine, sizeof mine, "%ld\n", (long)getpid());
    assert_string_equal(text, mine);
    free(text);
    storage_unlock();
}

static void test_storage_lock_refuses_a_link(void **state)
{
    (void)state;
    char lock[256], target[256], err[512];
    scratch_path(lock, sizeof lock, "lock");
    scratch_path(target, sizeof target, "elsewhere");
    assert_int_equal(symlink(target, lock), 0);
    assert_int_equal(storage_lock(scratch_dir, err, sizeof err), -1);
    assert_int_equal(access(target, F_OK), -1);
}

static void test_storage_check(void **state)
{
    (void)state;
    char err[512], file[256], nodir[256];
    assert_int_equal(storage_check(scratch_dir, err, sizeof err), 0);
    assert_int_equal(scratch_entries(scratch_dir), 0); /* the probe is gone */
    scratch_path(file, sizeof file, "plain");
    scratch_write(file, "x");
    assert_int_equal(storage_check(file, err, sizeof err), -1);
    assert_int_equal(errno, ENOTDIR);
    assert_non_null(strstr(err, "cannot write in"));
    scratch_path(nodir, sizeof nodir, "missing");
    assert_int_equal(storage_check(nodir, err, sizeof err), -1);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

static void
test_storage_format_newer_is_a_later_version_of_the_kind(void **state)
{
    (void)state;
    assert_true(
        storage_format_newer("heartsbot-journal/2", "heartsbot-journal/1"));
    assert_true(
        storage_format_newer("heartsbot-results/10", "heartsbot-results/2"));
    /* the same or an older version, another kind, no version */
    static const char *const not_newer[] = {"heartsbot-journal/1",
                                            "heartsbot-journal/0",
                                            "heartsbot-people/2",
                                            "heartsbot-journal",
                                            "heartsbot-journal/",
                                            "heartsbot-journal/2x",
                                            "heartsbot-journal/+2",
                                            "heartsbot-journal/1234567890",
                                            "heartsbot-journal2/9",
                                            "",
                                            "/2"};
    for (size_t i = 0; i < sizeof not_newer / sizeof *not_newer; i++)
        assert_false(storage_format_newer(not_newer[i], "heartsbot-journal/1"));
}

/* ---- The sync hook ----------------------------------------------------- */

static struct {
    int calls;
    char path[FILE_PATH_MAX];
    bool created;
    int answer; /* what the hook returns */
} hooked;

static int record_sync(void *ctx, const char *path, bool created)
{
    assert_ptr_equal(ctx, &hooked);
    hooked.calls++;
    snprintf(hooked.path, sizeof hooked.path, "%s", path);
    hooked.created = created;
    return hooked.answer;
}

/* With a sync fn set, an append writes its line and names the file to
 * the fn (new: its directory too); a replace renames the new content in
 * and names it (its directory always: the rename); a fn that refuses has
 * the sync done at once, and the write still counts. Unsetting with
 * another ctx keeps the fn; with its own, clears it. */
static void test_storage_sync_hook_takes_the_fsyncs(void **state)
{
    (void)state;
    memset(&hooked, 0, sizeof hooked);
    char path[FILE_PATH_MAX], board[FILE_PATH_MAX], err[300];
    scratch_path(path, sizeof path, "lines.jsonl");
    scratch_path(board, sizeof board, "leaderboard.json");
    storage_set_sync(record_sync, &hooked);
    assert_int_equal(storage_append(path, "{\"a\":1}\n", 8, err, sizeof err),
                     0);
    assert_int_equal(hooked.calls, 1);
    assert_string_equal(hooked.path, path);
    assert_true(hooked.created);
    hooked.answer = -1; /* refused: synced at once */
    assert_int_equal(storage_append(path, "{\"a\":2}\n", 8, err, sizeof err),
                     0);
    assert_int_equal(hooked.calls, 2);
    assert_false(hooked.created);
    char *text = scratch_read(path);
    assert_string_equal(text, "{\"a\":1}\n{\"a\":2}\n");
    free(text);
    hooked.answer = 0;
    scratch_write(board, "old");
    assert_int_equal(storage_replace(board, "new", 3, err, sizeof err), 0);
    assert_int_equal(hooked.calls, 3);
    assert_string_equal(hooked.path, board);
    assert_true(hooked.created);
    text = scratch_read(board);
    assert_string_equal(text, "new");
    free(text);
    assert_int_equal(scratch_entries(scratch_dir), 2); /* no temporary */
    storage_unset_sync(path);                          /* not its ctx: kept */
    assert_int_equal(storage_append(path, "{}\n", 3, err, sizeof err), 0);
    assert_int_equal(hooked.calls, 4);
    storage_unset_sync(&hooked);
    assert_int_equal(storage_append(path, "{}\n", 3, err, sizeof err), 0);
    assert_int_equal(storage_replace(board, "x", 1, err, sizeof err), 0);
    assert_int_equal(hooked.calls, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_storage_append_over_long_path_is_refused),
        T(test_storage_sync_hook_takes_the_fsyncs),
        T(test_storage_format_newer_is_a_later_version_of_the_kind),
        T(test_storage_append_and_read_lines_round_trip),
        T(test_storage_append_refuses_what_is_not_one_line),
        T(test_storage_read_lines_stops_and_refuses_long_lines),
        T(test_storage_read_lines_drops_and_cuts_a_torn_line),
        T(test_storage_read_only_reports_a_torn_line),
        T(test_storage_append_cuts_a_torn_line_first),
        T(test_storage_a_whole_last_line_is_kept),
        T(test_storage_files_that_are_links_are_refused),
        T(test_storage_append_cut_back_after_a_short_write),
        T(test_storage_append_on_a_full_tmpfs),
        T(test_storage_move_aside_and_remove),
        T(test_storage_lock_keeps_a_second_process_out),
        T(test_storage_lock_is_free_after_its_holder_is_killed),
        T(test_storage_lock_refuses_a_link),
        T(test_storage_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
