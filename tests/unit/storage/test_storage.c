/*
 * Tests of storage/storage.c: the name encoding against hostile names
 * (dots, slashes, percent signs, case, 10 KB names), paths refused rather
 * than cut, directories and files that are links refused, appends that
 * are cut back after a failed write (a file size limit, a full tmpfs),
 * torn last lines dropped and cut, atomic replacement that keeps the old
 * file when it fails, and the data directory's lock across processes.
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

#include "storage/storage.h"

static char dir[64];      /* this test's temporary directory */
static char logged[4096]; /* what storage logged */

static void capture_log(bool error, const char *msg)
{
    size_t n = strlen(logged);
    snprintf(logged + n, sizeof logged - n, "%s%s\n", error ? "E " : "I ", msg);
}

static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st))
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[2048];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/hearts-storage-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    logged[0] = '\0';
    storage_set_log(capture_log);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    storage_set_log(NULL);
    storage_unlock();
    remove_tree(dir);
    return 0;
}

/* dir "/" name into out. */
static void in_dir(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

static void write_raw(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The file's content (at most 64 KB), NUL-terminated, for the caller to
 * free. */
static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    char err[256];
    if (storage_read_file(path, 65536, &text, &len, NULL, err, sizeof err))
        fail_msg("%s", err);
    return text;
}

static long file_size(const char *path)
{
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    return (long)st.st_size;
}

static int entries(const char *path)
{
    DIR *d = opendir(path);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* ---- Names -------------------------------------------------------------- */

static void expect_encoding(const char *name, const char *want)
{
    char out[STORAGE_NAME_MAX + 1];
    storage_name_encode(name, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_storage_name_encode_hostile_names(void **state)
{
    (void)state;
    expect_encoding("#hearts", "%23hearts");
    expect_encoding("keep-these_0.9", "keep-these_0.9");
    expect_encoding("", "%00");
    expect_encoding(".", "%2E");
    expect_encoding("..", "%2E.");
    expect_encoding(".hidden", "%2Ehidden");
    expect_encoding("/", "%2F");
    expect_encoding("a/../b", "a%2F..%2Fb");
    expect_encoding("%%%", "%25%25%25");
    expect_encoding("%23hearts", "%2523hearts");
    expect_encoding("~", "%7E");
    expect_encoding("\xff\x01 ", "%FF%01%20");
}

static void test_storage_name_encode_case_is_kept_apart(void **state)
{
    (void)state;
    /* the caller folds; what reaches the encoding unfolded stays apart */
    expect_encoding("#Foo", "%23%46oo");
    char a[STORAGE_NAME_MAX + 1], b[STORAGE_NAME_MAX + 1];
    storage_name_encode("#Foo", a, sizeof a);
    storage_name_encode("#foo", b, sizeof b);
    assert_string_not_equal(a, b);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every name of up to three bytes over an alphabet of the awkward bytes:
 * each encoding is a safe path component and no two are the same. */
static void test_storage_name_encode_no_collisions(void **state)
{
    (void)state;
    static const char alphabet[] = "aA.%/~2\xff";
    enum { K = 8, N = 1 + K + K * K + K * K * K };
    char **enc = calloc(N, sizeof *enc);
    assert_non_null(enc);
    int n = 0;
    for (int len = 0; len <= 3; len++) {
        int count = 1;
        for (int i = 0; i < len; i++)
            count *= K;
        for (int c = 0; c < count; c++) {
            char name[4];
            int v = c;
            for (int i = 0; i < len; i++, v /= K)
                name[i] = alphabet[v % K];
            name[len] = '\0';
            enc[n] = malloc(STORAGE_NAME_MAX + 1);
            assert_non_null(enc[n]);
            storage_name_encode(name, enc[n], STORAGE_NAME_MAX + 1);
            const char *e = enc[n];
            assert_true(*e);
            assert_null(strchr(e, '/'));
            assert_true(strcmp(e, ".") && strcmp(e, ".."));
            assert_true(strlen(e) <= STORAGE_NAME_MAX);
            n++;
        }
    }
    assert_int_equal(n, N);
    qsort(enc, (size_t)n, sizeof *enc, cmp_str);
    for (int i = 1; i < n; i++)
        if (!strcmp(enc[i - 1], enc[i]))
            fail_msg("two names encode to %s", enc[i]);
    for (int i = 0; i < n; i++)
        free(enc[i]);
    free(enc);
}

static void test_storage_name_encode_long_names(void **state)
{
    (void)state;
    enum { LEN = 10 * 1024 };
    char *a = malloc(LEN + 1), *b = malloc(LEN + 1);
    assert_non_null(a);
    assert_non_null(b);
    for (int i = 0; i < LEN; i++)
        a[i] = "#Ab/"[i % 4];
    a[LEN] = '\0';
    memcpy(b, a, LEN + 1);
    b[LEN - 1] = 'z'; /* the same prefix, a different end */
    char ea[STORAGE_NAME_MAX + 1], eb[STORAGE_NAME_MAX + 1];
    storage_name_encode(a, ea, sizeof ea);
    storage_name_encode(b, eb, sizeof eb);
    assert_true(strlen(ea) <= STORAGE_NAME_MAX);
    assert_string_not_equal(ea, eb);
    /* a readable prefix, then '~' and 16 hex digits */
    assert_true(!strncmp(ea, "%23%41b%2F%23%41b", 17));
    const char *tilde = strchr(ea, '~');
    assert_non_null(tilde);
    assert_int_equal(strlen(tilde + 1), 16);
    assert_null(strchr(ea, '/'));
    /* the prefix never ends inside a %XX */
    for (const char *p = ea; p < tilde; p++)
        if (*p == '%')
            assert_true(tilde - p >= 3);
    /* a long name is never a short name's encoding */
    char s[STORAGE_NAME_MAX + 1];
    storage_name_encode("%23%41b", s, sizeof s);
    assert_null(strchr(s, '~'));
    free(a);
    free(b);
}

/* ---- Paths and directories --------------------------------------------- */

static void test_storage_path_refuses_bad_parts(void **state)
{
    (void)state;
    char out[STORAGE_PATH_MAX] = "untouched", err[256];
    assert_int_equal(storage_path(out, sizeof out, err, sizeof err, "/d", "n",
                                  "r", "archive.jsonl", NULL),
                     0);
    assert_string_equal(out, "/d/n/r/archive.jsonl");
    const char *bad[] = {"..", ".", "", "a/b", "/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        strcpy(out, "untouched");
        assert_int_equal(
            storage_path(out, sizeof out, err, sizeof err, "/d", bad[i], NULL),
            -1);
        assert_string_equal(out, "untouched");
        assert_non_null(strstr(err, "refused"));
    }
}

static void test_storage_path_over_long_is_refused_not_cut(void **state)
{
    (void)state;
    char data[STORAGE_PATH_MAX + 100], out[STORAGE_PATH_MAX], err[256];
    /* a data_dir that fits alone, but not with the file under it */
    size_t n = (size_t)snprintf(data, sizeof data, "%s", dir);
    while (n < STORAGE_PATH_MAX - 10) {
        data[n++] = '/';
        for (int i = 0; i < 200 && n < STORAGE_PATH_MAX - 10; i++)
            data[n++] = 'x';
    }
    data[n] = '\0';
    strcpy(out, "untouched");
    assert_int_equal(storage_path(out, sizeof out, err, sizeof err, data, "net",
                                  "archive.jsonl", NULL),
                     -1);
    assert_string_equal(out, "untouched");
    assert_non_null(strstr(err, "too long"));
    /* a small buffer refuses too */
    char small[16];
    assert_int_equal(storage_path(small, sizeof small, err, sizeof err, "/data",
                                  "network-name", NULL),
                     -1);
    /* nothing written anywhere, neither the path nor beside it */
    assert_int_equal(storage_mkdirs(data, data, err, sizeof err), 0);
    char longer[STORAGE_PATH_MAX + 100];
    memcpy(longer, data, n);
    memcpy(longer + n, "/0123456789abcdef", 18);
    assert_int_equal(storage_mkdirs(data, longer, err, sizeof err), -1);
    assert_int_equal(storage_append(longer, "x\n", 2, err, sizeof err), -1);
    assert_int_equal(entries(data), 0);
    assert_int_equal(entries(dir), 1); /* only the first of data's parts */
}

static void test_storage_mkdirs_makes_and_refuses_links(void **state)
{
    (void)state;
    char data[256], room[512], outside[256], err[512];
    in_dir(data, sizeof data, "data");
    assert_int_equal(storage_path(room, sizeof room, err, sizeof err, data,
                                  "net", "%23hearts", NULL),
                     0);
    assert_int_equal(storage_mkdirs(data, room, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(lstat(room, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
    /* again: nothing to do */
    assert_int_equal(storage_mkdirs(data, room, err, sizeof err), 0);

    /* a link where a directory should be is not followed */
    in_dir(outside, sizeof outside, "outside");
    assert_int_equal(mkdir(outside, 0700), 0);
    char net2[300], room2[512];
    snprintf(net2, sizeof net2, "%s/net2", data);
    assert_int_equal(symlink(outside, net2), 0);
    snprintf(room2, sizeof room2, "%s/room", net2);
    assert_int_equal(storage_mkdirs(data, room2, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a directory"));
    assert_int_equal(entries(outside), 0);
    /* a directory outside data_dir, or one that climbs out, is refused */
    char other[300];
    snprintf(other, sizeof other, "%s2/x", data);
    assert_int_equal(storage_mkdirs(data, other, err, sizeof err), -1);
    snprintf(other, sizeof other, "%s/net/../../escape", data);
    assert_int_equal(storage_mkdirs(data, other, err, sizeof err), -1);
    char escape[300];
    in_dir(escape, sizeof escape, "escape");
    assert_int_equal(access(escape, F_OK), -1);
}

/* ---- Appending and reading lines ---------------------------------------- */

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
    in_dir(path, sizeof path, "archive.jsonl");
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
    in_dir(path, sizeof path, "a.jsonl");
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
    in_dir(path, sizeof path, "a.jsonl");
    write_raw(path, "one\ntwo\nthree\n");
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
    in_dir(path, sizeof path, "journal-1.jsonl");
    write_raw(path, "{\"a\":1}\n{\"b\":2}\n{\"c\":3, \"to");
    struct lines l = {0};
    assert_int_equal(
        storage_read_lines(path, 100, collect, &l, NULL, err, sizeof err), 0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.text[1], "{\"b\":2}");
    assert_int_equal(file_size(path), 16);
    assert_non_null(strstr(logged, "torn last line (11 bytes"));
    /* the next append starts a line of its own */
    assert_int_equal(storage_append(path, "{\"d\":4}\n", 8, err, sizeof err),
                     0);
    char *text = slurp(path);
    assert_string_equal(text, "{\"a\":1}\n{\"b\":2}\n{\"d\":4}\n");
    free(text);
}

/* A last line without its newline that is a whole JSON object was left
 * so by an editor or `$(cat f)`: it is read, never cut, and the next
 * append ends it first. */
static void test_storage_a_whole_last_line_is_kept(void **state)
{
    (void)state;
    char path[256], err[512];
    in_dir(path, sizeof path, "results.jsonl");
    write_raw(path, "{\"a\":1}\n{\"b\":[2,{\"c\":\"}\"}]}");
    struct lines l = {0};
    assert_int_equal(
        storage_read_lines(path, 100, collect, &l, NULL, err, sizeof err), 0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.text[1], "{\"b\":[2,{\"c\":\"}\"}]}");
    assert_int_equal(l.lineno[1], 2);
    assert_int_equal(file_size(path), 27);
    assert_string_equal(logged, "");
    assert_int_equal(storage_append(path, "{\"d\":4}\n", 8, err, sizeof err),
                     0);
    char *text = slurp(path);
    assert_string_equal(text,
                        "{\"a\":1}\n{\"b\":[2,{\"c\":\"}\"}]}\n{\"d\":4}\n");
    free(text);
    /* with no read before the append either */
    write_raw(path, "{\"a\":1}");
    assert_int_equal(storage_append(path, "{\"d\":4}\n", 8, err, sizeof err),
                     0);
    text = slurp(path);
    assert_string_equal(text, "{\"a\":1}\n{\"d\":4}\n");
    free(text);
    /* part of an object, a bare value, or an object and more: torn */
    const char *torn[] = {"{\"a\":1", "17", "{\"a\":1}x", "[1]"};
    for (size_t i = 0; i < sizeof torn / sizeof *torn; i++) {
        char raw[64];
        snprintf(raw, sizeof raw, "{\"z\":0}\n%s", torn[i]);
        write_raw(path, raw);
        l.n = 0;
        assert_int_equal(
            storage_read_lines(path, 100, collect, &l, NULL, err, sizeof err),
            0);
        assert_int_equal(l.n, 1);
        assert_int_equal(file_size(path), 8);
    }
}

/* An append to a file a crash left torn, with no read before it: the
 * torn line goes, the new one is whole. */
static void test_storage_append_cuts_a_torn_line_first(void **state)
{
    (void)state;
    char path[256], err[512];
    in_dir(path, sizeof path, "archive.jsonl");
    char torn[9000];
    memset(torn, 't', sizeof torn - 1);
    torn[sizeof torn - 1] = '\0';
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"a\":1}\n%s", torn); /* a torn line over 2 blocks */
    fclose(f);
    assert_int_equal(storage_append(path, "{\"b\":2}\n", 8, err, sizeof err),
                     0);
    char *text = slurp(path);
    assert_string_equal(text, "{\"a\":1}\n{\"b\":2}\n");
    free(text);
    assert_non_null(strstr(logged, "torn last line (8999 bytes"));
    /* a file of one torn line only */
    write_raw(path, "{\"to");
    assert_int_equal(storage_append(path, "{\"c\":3}\n", 8, err, sizeof err),
                     0);
    text = slurp(path);
    assert_string_equal(text, "{\"c\":3}\n");
    free(text);
}

static void test_storage_files_that_are_links_are_refused(void **state)
{
    (void)state;
    char target[256], link[256], err[512];
    in_dir(target, sizeof target, "target");
    in_dir(link, sizeof link, "archive.jsonl");
    write_raw(target, "secret\n");
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(storage_append(link, "x\n", 2, err, sizeof err), -1);
    assert_int_equal(errno, ELOOP);
    assert_non_null(strstr(err, "symbolic link"));
    struct lines l = {0};
    assert_int_equal(
        storage_read_lines(link, 100, collect, &l, NULL, err, sizeof err), -1);
    assert_int_equal(l.n, 0);
    char *text = NULL;
    size_t len;
    assert_int_equal(
        storage_read_file(link, 100, &text, &len, NULL, err, sizeof err), -1);
    assert_null(text);
    assert_int_equal(storage_replace(link, "y\n", 2, err, sizeof err), -1);
    text = slurp(target);
    assert_string_equal(text, "secret\n");
    free(text);
    /* a link to nowhere is not made into a file either */
    char dangling[256], nowhere[256];
    in_dir(dangling, sizeof dangling, "journal-x.jsonl");
    in_dir(nowhere, sizeof nowhere, "nowhere");
    assert_int_equal(symlink(nowhere, dangling), 0);
    assert_int_equal(storage_append(dangling, "x\n", 2, err, sizeof err), -1);
    assert_int_equal(access(nowhere, F_OK), -1);
    /* a FIFO is refused at once, not waited on */
    char fifo[256];
    in_dir(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(storage_append(fifo, "x\n", 2, err, sizeof err), -1);
    assert_int_equal(
        storage_read_lines(fifo, 100, collect, &l, NULL, err, sizeof err), -1);
}

/* Runs with a file size limit of `limit` bytes (SIGXFSZ ignored: writes
 * past it fail with EFBIG), as a full disk would stop a write. */
static struct rlimit limit_files(rlim_t limit)
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = limit;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    return old;
}

static void test_storage_append_cut_back_after_a_short_write(void **state)
{
    (void)state;
    char path[256], err[512];
    in_dir(path, sizeof path, "archive.jsonl");
    assert_int_equal(storage_append(path, "{\"old\":1}\n", 10, err, sizeof err),
                     0);
    char line[41];
    memset(line, 'x', 39);
    line[39] = '\n';
    line[40] = '\0';
    struct rlimit old = limit_files(25); /* 15 bytes fit, then EFBIG */
    int rc = storage_append(path, line, 40, err, sizeof err);
    int e = errno;
    setrlimit(RLIMIT_FSIZE, &old);
    assert_int_equal(rc, -1);
    assert_int_equal(e, EFBIG);
    assert_string_equal(storage_reason(e), "a file reached the size limit");
    assert_non_null(strstr(err, "15 of 40 bytes written, cut back to 10"));
    assert_int_equal(file_size(path), 10);
    assert_int_equal(storage_append(path, "{\"new\":2}\n", 10, err, sizeof err),
                     0);
    char *text = slurp(path);
    assert_string_equal(text, "{\"old\":1}\n{\"new\":2}\n");
    free(text);
}

/* A real full disk: a 64 KB tmpfs, when this runs as root and may mount. */
static void test_storage_append_on_a_full_tmpfs(void **state)
{
    (void)state;
    char mnt[256], cmd[600], path[300], filler[300], err[512];
    in_dir(mnt, sizeof mnt, "small");
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
    long size = file_size(path);
    unlink(filler);
    int after = storage_append(path, "{\"new\":2}\n", 10, err, sizeof err);
    char *text = slurp(path);
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

/* ---- Whole files -------------------------------------------------------- */

static void test_storage_replace_round_trip_and_failure(void **state)
{
    (void)state;
    char path[256], err[512];
    in_dir(path, sizeof path, "leaderboard.json");
    assert_int_equal(storage_replace(path, "{\"v\":1}\n", 8, err, sizeof err),
                     0);
    assert_int_equal(storage_replace(path, "{\"v\":2}\n", 8, err, sizeof err),
                     0);
    char *text = slurp(path);
    assert_string_equal(text, "{\"v\":2}\n");
    free(text);
    /* a write that fails half way keeps the old file and no temporary */
    char big[200];
    memset(big, 'z', sizeof big);
    struct rlimit old = limit_files(100);
    int rc = storage_replace(path, big, sizeof big, err, sizeof err);
    int e = errno;
    setrlimit(RLIMIT_FSIZE, &old);
    assert_int_equal(e, EFBIG);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "the old file is kept"));
    text = slurp(path);
    assert_string_equal(text, "{\"v\":2}\n");
    free(text);
    assert_int_equal(entries(dir), 1);
    /* into a directory that is not there */
    char nodir[300];
    in_dir(nodir, sizeof nodir, "none/leaderboard.json");
    assert_int_equal(storage_replace(nodir, "x", 1, err, sizeof err), -1);
}

static void test_storage_read_file_limits(void **state)
{
    (void)state;
    char path[256], err[512];
    in_dir(path, sizeof path, "f.json");
    char *text = NULL;
    size_t len = 0;
    bool missing = false;
    assert_int_equal(
        storage_read_file(path, 100, &text, &len, &missing, err, sizeof err),
        -1);
    assert_true(missing);
    write_raw(path, "0123456789");
    assert_int_equal(
        storage_read_file(path, 9, &text, &len, &missing, err, sizeof err), -1);
    assert_false(missing);
    assert_null(text);
    assert_int_equal(
        storage_read_file(path, 10, &text, &len, &missing, err, sizeof err), 0);
    assert_int_equal(len, 10);
    assert_string_equal(text, "0123456789");
    free(text);
}

static void test_storage_move_aside_and_remove(void **state)
{
    (void)state;
    char path[256], err[512];
    in_dir(path, sizeof path, "journal-1.jsonl");
    write_raw(path, "first\n");
    assert_int_equal(storage_move_aside(path, err, sizeof err), 0);
    write_raw(path, "second\n");
    assert_int_equal(storage_move_aside(path, err, sizeof err), 0);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(entries(dir), 2); /* two names, nothing overwritten */
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            assert_true(!strncmp(e->d_name, "journal-1.jsonl.bad-", 20));
    closedir(d);
    write_raw(path, "third\n");
    assert_int_equal(storage_remove(path, err, sizeof err), 0);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(storage_remove(path, err, sizeof err), 0);
}

/* ---- The lock and the check --------------------------------------------- */

static void test_storage_lock_keeps_a_second_process_out(void **state)
{
    (void)state;
    char err[512], want[512];
    assert_int_equal(storage_lock(dir, err, sizeof err), 0);
    snprintf(want, sizeof want,
             "another heartsbot (pid %ld) is already using data directory %s",
             (long)getpid(), dir);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        char e[512] = "";
        int rc = storage_lock(dir, e, sizeof e);
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
        char ok = storage_lock(dir, e, sizeof e) == 0 ? 'y' : 'n';
        if (write(p[1], &ok, 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(p[1]);
    char ok = 0;
    assert_int_equal(read(p[0], &ok, 1), 1);
    close(p[0]);
    int taken = storage_lock(dir, err, sizeof err);
    bool locked = storage_locked();
    kill(child, SIGKILL); /* before any assertion: never left behind */
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_int_equal(ok, 'y');
    assert_int_equal(taken, -2);
    assert_false(locked);
    snprintf(want, sizeof want,
             "another heartsbot (pid %ld) is already using data directory %s",
             (long)child, dir);
    assert_string_equal(err, want);
    assert_int_equal(storage_lock(dir, err, sizeof err), 0);
    assert_true(storage_locked());
    char lock[256];
    in_dir(lock, sizeof lock, "lock");
    char *text = slurp(lock);
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
    in_dir(lock, sizeof lock, "lock");
    in_dir(target, sizeof target, "elsewhere");
    assert_int_equal(symlink(target, lock), 0);
    assert_int_equal(storage_lock(dir, err, sizeof err), -1);
    assert_int_equal(access(target, F_OK), -1);
}

static void test_storage_check(void **state)
{
    (void)state;
    char err[512], file[256], nodir[256];
    assert_int_equal(storage_check(dir, err, sizeof err), 0);
    assert_int_equal(entries(dir), 0); /* the probe is gone */
    in_dir(file, sizeof file, "plain");
    write_raw(file, "x");
    assert_int_equal(storage_check(file, err, sizeof err), -1);
    assert_int_equal(errno, ENOTDIR);
    assert_non_null(strstr(err, "cannot write in"));
    in_dir(nodir, sizeof nodir, "missing");
    assert_int_equal(storage_check(nodir, err, sizeof err), -1);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_storage_name_encode_hostile_names),
        T(test_storage_name_encode_case_is_kept_apart),
        T(test_storage_name_encode_no_collisions),
        T(test_storage_name_encode_long_names),
        T(test_storage_path_refuses_bad_parts),
        T(test_storage_path_over_long_is_refused_not_cut),
        T(test_storage_mkdirs_makes_and_refuses_links),
        T(test_storage_append_and_read_lines_round_trip),
        T(test_storage_append_refuses_what_is_not_one_line),
        T(test_storage_read_lines_stops_and_refuses_long_lines),
        T(test_storage_read_lines_drops_and_cuts_a_torn_line),
        T(test_storage_append_cuts_a_torn_line_first),
        T(test_storage_a_whole_last_line_is_kept),
        T(test_storage_files_that_are_links_are_refused),
        T(test_storage_append_cut_back_after_a_short_write),
        T(test_storage_append_on_a_full_tmpfs),
        T(test_storage_replace_round_trip_and_failure),
        T(test_storage_read_file_limits),
        T(test_storage_move_aside_and_remove),
        T(test_storage_lock_keeps_a_second_process_out),
        T(test_storage_lock_is_free_after_its_holder_is_killed),
        T(test_storage_lock_refuses_a_link),
        T(test_storage_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
