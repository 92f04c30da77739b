/*
 * A scratch directory for the tests of files (unit/bot/common/test_file.c,
 * unit/storage/test_storage.c): a fresh temporary directory per test,
 * files in it written, read whole and counted, and a file size limit that
 * makes writes fail as a full disk would.
 */
#ifndef HEARTS_TEST_SCRATCH_H
#define HEARTS_TEST_SCRATCH_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/common/file.h"

/* The test's temporary directory, made by scratch_make. */
static char scratch_dir[64];

static inline int scratch_make(void)
{
    snprintf(scratch_dir, sizeof scratch_dir, "/tmp/hearts-storage-XXXXXX");
    return mkdtemp(scratch_dir) ? 0 : -1;
}

/* Removes path and everything under it, never following a link. */
static inline void scratch_remove_tree(const char *path)
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
            int n = snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            if (n > 0 && (size_t)n < sizeof sub)
                scratch_remove_tree(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* scratch_dir "/" name into out. */
static inline void scratch_path(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", scratch_dir, name);
}

static inline void scratch_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The file's content (at most 64 KB), NUL-terminated, for the caller to
 * free. */
static inline char *scratch_read(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    char err[256];
    if (file_read(path, 65536, &text, &len, NULL, err, sizeof err))
        fail_msg("%s", err);
    return text;
}

/* How many entries path holds, "." and ".." aside. */
static inline int scratch_entries(const char *path)
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

/* Runs with a file size limit of `limit` bytes (SIGXFSZ ignored: writes
 * past it fail with EFBIG), as a full disk would stop a write. The old
 * limit, for setrlimit afterwards. */
static inline struct rlimit scratch_limit_files(rlim_t limit)
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = limit;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    return old;
}

#endif
