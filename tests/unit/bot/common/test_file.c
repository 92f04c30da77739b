/*
 * Tests of bot/common/file.c: the name encoding against hostile names
 * (dots, slashes, percent signs, case, 10 KB names), paths refused rather
 * than cut, directories made and checked without following links, files
 * that are links or FIFOs refused, atomic replacement that keeps the old
 * file when it fails, and whole-file reads under a cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/common/file.h"
#include "tests/support/scratch.h"

static int setup(void **state)
{
    (void)state;
    return scratch_make();
}

static int teardown(void **state)
{
    (void)state;
    scratch_remove_tree(scratch_dir);
    return 0;
}

/* ---- Names -------------------------------------------------------------- */

static void expect_encoding(const char *name, const char *want)
{
    char out[FILE_NAME_MAX + 1];
    file_name_encode(name, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_file_name_encode_hostile_names(void **state)
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

static void test_file_name_encode_case_is_kept_apart(void **state)
{
    (void)state;
    /* the caller folds; what reaches the encoding unfolded stays apart */
    expect_encoding("#Foo", "%23%46oo");
    char a[FILE_NAME_MAX + 1], b[FILE_NAME_MAX + 1];
    file_name_encode("#Foo", a, sizeof a);
    file_name_encode("#foo", b, sizeof b);
    assert_string_not_equal(a, b);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every name of up to three bytes over an alphabet of the awkward bytes:
 * each encoding is a safe path component and no two are the same. */
static void test_file_name_encode_no_collisions(void **state)
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
            enc[n] = malloc(FILE_NAME_MAX + 1);
            assert_non_null(enc[n]);
            file_name_encode(name, enc[n], FILE_NAME_MAX + 1);
            const char *e = enc[n];
            assert_true(*e);
            assert_null(strchr(e, '/'));
            assert_true(strcmp(e, ".") && strcmp(e, ".."));
            assert_true(strlen(e) <= FILE_NAME_MAX);
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

static void test_file_name_encode_long_names(void **state)
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
    char ea[FILE_NAME_MAX + 1], eb[FILE_NAME_MAX + 1];
    file_name_encode(a, ea, sizeof ea);
    file_name_encode(b, eb, sizeof eb);
    assert_true(strlen(ea) <= FILE_NAME_MAX);
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
    char s[FILE_NAME_MAX + 1];
    file_name_encode("%23%41b", s, sizeof s);
    assert_null(strchr(s, '~'));
    free(a);
    free(b);
}

/* ---- Paths and directories --------------------------------------------- */

static void test_file_path_refuses_bad_parts(void **state)
{
    (void)state;
    char out[FILE_PATH_MAX] = "untouched", err[256];
    assert_int_equal(file_path(out, sizeof out, err, sizeof err, "/d", "n", "r",
                               "archive.jsonl", NULL),
                     0);
    assert_string_equal(out, "/d/n/r/archive.jsonl");
    const char *bad[] = {"..", ".", "", "a/b", "/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        strcpy(out, "untouched");
        assert_int_equal(
            file_path(out, sizeof out, err, sizeof err, "/d", bad[i], NULL),
            -1);
        assert_string_equal(out, "untouched");
        assert_non_null(strstr(err, "refused"));
    }
}

static void test_file_path_over_long_is_refused_not_cut(void **state)
{
    (void)state;
    char data[FILE_PATH_MAX + 100], out[FILE_PATH_MAX], err[256];
    /* a data_dir that fits alone, but not with the file under it */
    size_t n = (size_t)snprintf(data, sizeof data, "%s", scratch_dir);
    while (n < FILE_PATH_MAX - 10) {
        data[n++] = '/';
        for (int i = 0; i < 200 && n < FILE_PATH_MAX - 10; i++)
            data[n++] = 'x';
    }
    data[n] = '\0';
    strcpy(out, "untouched");
    assert_int_equal(file_path(out, sizeof out, err, sizeof err, data, "net",
                               "archive.jsonl", NULL),
                     -1);
    assert_string_equal(out, "untouched");
    assert_non_null(strstr(err, "too long"));
    /* a small buffer refuses too */
    char small[16];
    assert_int_equal(file_path(small, sizeof small, err, sizeof err, "/data",
                               "network-name", NULL),
                     -1);
    /* nothing written anywhere, neither the path nor beside it */
    assert_int_equal(file_mkdirs(data, data, err, sizeof err), 0);
    char longer[FILE_PATH_MAX + 100];
    memcpy(longer, data, n);
    memcpy(longer + n, "/0123456789abcdef", 18);
    assert_int_equal(file_mkdirs(data, longer, err, sizeof err), -1);
    assert_int_equal(file_replace(longer, "x\n", 2, err, sizeof err), -1);
    assert_int_equal(scratch_entries(data), 0);
    assert_int_equal(scratch_entries(scratch_dir),
                     1); /* only the first of data's parts */
}

static void test_file_mkdirs_makes_and_refuses_links(void **state)
{
    (void)state;
    char data[256], room[512], outside[256], err[512];
    scratch_path(data, sizeof data, "data");
    assert_int_equal(file_path(room, sizeof room, err, sizeof err, data, "net",
                               "%23hearts", NULL),
                     0);
    assert_int_equal(file_mkdirs(data, room, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(lstat(room, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
    /* again: nothing to do */
    assert_int_equal(file_mkdirs(data, room, err, sizeof err), 0);

    /* a link where a directory should be is not followed */
    scratch_path(outside, sizeof outside, "outside");
    assert_int_equal(mkdir(outside, 0700), 0);
    char net2[300], room2[512];
    snprintf(net2, sizeof net2, "%s/net2", data);
    assert_int_equal(symlink(outside, net2), 0);
    snprintf(room2, sizeof room2, "%s/room", net2);
    assert_int_equal(file_mkdirs(data, room2, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a directory"));
    assert_int_equal(scratch_entries(outside), 0);
    /* a directory outside data_dir, or one that climbs out, is refused */
    char other[300];
    snprintf(other, sizeof other, "%s2/x", data);
    assert_int_equal(file_mkdirs(data, other, err, sizeof err), -1);
    snprintf(other, sizeof other, "%s/net/../../escape", data);
    assert_int_equal(file_mkdirs(data, other, err, sizeof err), -1);
    char escape[300];
    scratch_path(escape, sizeof escape, "escape");
    assert_int_equal(access(escape, F_OK), -1);
}

static void test_file_dir_check_refuses_links_and_tells_missing(void **state)
{
    (void)state;
    char data[256], room[512], outside[256], link[300], err[512];
    scratch_path(data, sizeof data, "data");
    bool missing = false;
    /* nothing made yet: nothing to read, and nothing made by the check */
    assert_int_equal(file_path(room, sizeof room, err, sizeof err, data, "net",
                               "%23hearts", NULL),
                     0);
    assert_int_equal(file_dir_check(data, room, &missing, err, sizeof err), 0);
    assert_true(missing);
    assert_int_equal(access(data, F_OK), -1);
    assert_int_equal(file_mkdirs(data, room, err, sizeof err), 0);
    assert_int_equal(file_dir_check(data, room, &missing, err, sizeof err), 0);
    assert_false(missing);
    /* a link where a directory should be is not followed */
    scratch_path(outside, sizeof outside, "outside");
    assert_int_equal(mkdir(outside, 0700), 0);
    snprintf(link, sizeof link, "%s/net2", data);
    assert_int_equal(symlink(outside, link), 0);
    assert_int_equal(file_dir_check(data, link, &missing, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a directory"));
}

/* ---- Whole files -------------------------------------------------------- */

static void test_file_replace_round_trip_and_failure(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "leaderboard.json");
    assert_int_equal(file_replace(path, "{\"v\":1}\n", 8, err, sizeof err), 0);
    assert_int_equal(file_replace(path, "{\"v\":2}\n", 8, err, sizeof err), 0);
    char *text = scratch_read(path);
    assert_string_equal(text, "{\"v\":2}\n");
    free(text);
    /* a write that fails half way keeps the old file and no temporary */
    char big[200];
    memset(big, 'z', sizeof big);
    struct rlimit old = scratch_limit_files(100);
    int rc = file_replace(path, big, sizeof big, err, sizeof err);
    int e = errno;
    setrlimit(RLIMIT_FSIZE, &old);
    assert_int_equal(e, EFBIG);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "the old file is kept"));
    text = scratch_read(path);
    assert_string_equal(text, "{\"v\":2}\n");
    free(text);
    assert_int_equal(scratch_entries(scratch_dir), 1);
    /* into a directory that is not there */
    char nodir[300];
    scratch_path(nodir, sizeof nodir, "none/leaderboard.json");
    assert_int_equal(file_replace(nodir, "x", 1, err, sizeof err), -1);
}

static void test_file_read_limits(void **state)
{
    (void)state;
    char path[256], err[512];
    scratch_path(path, sizeof path, "f.json");
    char *text = NULL;
    size_t len = 0;
    bool missing = false;
    assert_int_equal(
        file_read(path, 100, &text, &len, &missing, err, sizeof err), -1);
    assert_true(missing);
    scratch_write(path, "0123456789");
    assert_int_equal(file_read(path, 9, &text, &len, &missing, err, sizeof err),
                     -1);
    assert_false(missing);
    assert_null(text);
    assert_int_equal(
        file_read(path, 10, &text, &len, &missing, err, sizeof err), 0);
    assert_int_equal(len, 10);
    assert_string_equal(text, "0123456789");
    free(text);
}

static void test_file_links_and_fifos_are_refused(void **state)
{
    (void)state;
    char target[256], link[256], fifo[256], err[512];
    scratch_path(target, sizeof target, "target");
    scratch_path(link, sizeof link, "leaderboard.json");
    scratch_write(target, "secret\n");
    assert_int_equal(symlink(target, link), 0);
    char *text = NULL;
    size_t len;
    assert_int_equal(file_read(link, 100, &text, &len, NULL, err, sizeof err),
                     -1);
    assert_int_equal(errno, ELOOP);
    assert_non_null(strstr(err, "symbolic link"));
    assert_null(text);
    assert_int_equal(file_replace(link, "y\n", 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a regular file (a symbolic link)"));
    text = scratch_read(target);
    assert_string_equal(text, "secret\n");
    free(text);
    /* a FIFO is refused at once, not waited on */
    scratch_path(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(file_read(fifo, 100, &text, &len, NULL, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "not a regular file"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_file_name_encode_hostile_names),
        T(test_file_name_encode_case_is_kept_apart),
        T(test_file_name_encode_no_collisions),
        T(test_file_name_encode_long_names),
        T(test_file_path_refuses_bad_parts),
        T(test_file_path_over_long_is_refused_not_cut),
        T(test_file_mkdirs_makes_and_refuses_links),
        T(test_file_dir_check_refuses_links_and_tells_missing),
        T(test_file_replace_round_trip_and_failure),
        T(test_file_read_limits),
        T(test_file_links_and_fifos_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
