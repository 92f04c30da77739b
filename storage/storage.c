/*
 * The flat-file layer (storage.h, docs/storage.md), on the common file
 * primitives (bot/common/file.h): appends that never leave part of a
 * line, JSON Lines reading that drops and cuts a torn last line, files
 * moved aside and removed, what a killed replacement leaves cleaned up,
 * and the flock that keeps a second bot out. Nothing here knows the bot:
 * a torn line is reported through storage_set_log.
 */
#include "storage/storage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/msg.h"
#include "bot/common/utf8.h"
#include "bot/common/xjson.h"

/* ---- Errors and the log hook ------------------------------------------ */

static void default_log(bool error, const char *msg)
{
    fprintf(stderr, "storage: %s%s\n", error ? "error: " : "", msg);
}

static storage_log_fn log_fn = default_log;

void storage_set_log(storage_log_fn fn)
{
    log_fn = fn ? fn : default_log;
}

void storage_log(bool error, const char *fmt, ...)
{
    char msg[FILE_PATH_MAX + 300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_fn(error, msg);
}

/* ---- Writing ------------------------------------------------------------ */

/* Opens path for appending, never through a link, never blocking on a
 * FIFO; *created when this made it. */
static int open_append(const char *path, bool *created, char *err,
                       size_t errlen)
{
    /* read too: the end of the file is checked for a torn line */
    const int flags = O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    *created = true;
    int fd = open(path, flags | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) {
        *created = false;
        fd = open(path, flags);
    }
    if (fd < 0) {
        return err_set(err, errlen, "%s: %s", path, file_open_reason(errno));
    }
    if (file_regular_size(fd, path, err, errlen) < 0) {
        file_close_keep(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* The length of the file's whole lines: the offset after its last '\n'
 * (0 if none), or -1 if it cannot be read. */
static off_t whole_lines_end(int fd, off_t size)
{
    char buf[4096];
    off_t end = size;
    while (end > 0) {
        size_t n = end < (off_t)sizeof buf ? (size_t)end : sizeof buf;
        ssize_t r = pread(fd, buf, n, end - (off_t)n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)n)
            return -1;
        for (size_t i = n; i > 0; i--)
            if (buf[i - 1] == '\n')
                return end - (off_t)n + (off_t)i;
        end -= (off_t)n;
    }
    return 0;
}

/* The longest last line without '\n' that is read to see whether it is
 * whole (a record is at most 4 MiB). */
#define LAST_LINE_MAX (16u << 20)

/* The version after the last '/' of format, or -1 if it is not 1 to 9
 * decimal digits; *kind_len: the bytes before the '/'. */
static long format_version(const char *format, size_t *kind_len)
{
    const char *slash = strrchr(format, '/');
    if (!slash)
        return -1;
    size_t n = strlen(slash + 1);
    if (n == 0 || n > 9 || strspn(slash + 1, "0123456789") != n)
        return -1;
    *kind_len = (size_t)(slash - format);
    return strtol(slash + 1, NULL, 10);
}

bool storage_format_newer(const char *format, const char *known)
{
    size_t kind, known_kind;
    long v = format_version(format, &kind);
    long k = format_version(known, &known_kind);
    return v >= 0 && k >= 0 && kind == known_kind &&
           memcmp(format, known, kind) == 0 && v > k;
}

bool storage_json_newer(const char *text, size_t len, const char *known)
{
    if (len > INT_MAX)
        return false;
    struct json_tokener *tok = xjson_tokener(JSON_TOKENER_DEFAULT_DEPTH);
    struct json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    json_tokener_free(tok);
    struct json_object *f;
    bool newer = o && json_object_object_get_ex(o, "format", &f) &&
                 json_object_is_type(f, json_type_string) &&
                 strlen(json_object_get_string(f)) ==
                     (size_t)json_object_get_string_len(f) &&
                 storage_format_newer(json_object_get_string(f), known);
    json_object_put(o);
    return newer;
}

bool storage_whole_json(const char *text, size_t len)
{
    if (len == 0 || len > INT_MAX || memchr(text, '\0', len))
        return false;
    struct json_tokener *tok = xjson_tokener(JSON_TOKENER_DEFAULT_DEPTH);
    struct json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    bool whole = o && json_tokener_get_error(tok) == json_tokener_success &&
                 json_object_is_type(o, json_type_object);
    for (size_t i = json_tokener_get_parse_end(tok); whole && i < len; i++)
        whole = strchr(" \t\r", text[i]) != NULL;
    json_object_put(o);
    json_tokener_free(tok);
    return whole;
}

/* Whether the bytes of fd from `from` to `size` are one whole JSON
 * object: a complete last line that only lacks its '\n'. */
static bool whole_last_line(int fd, off_t from, off_t size)
{
    if (size - from > (off_t)LAST_LINE_MAX)
        return false;
    size_t n = (size_t)(size - from), done = 0;
    char *buf = malloc(n + 1);
    if (!buf)
        return false;
    while (done < n) {
        ssize_t r = pread(fd, buf + done, n - done, from + (off_t)done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        done += (size_t)r;
    }
    bool whole = done == n && storage_whole_json(buf, n);
    free(buf);
    return whole;
}

/* A file that does not end with '\n': a last line that is one whole JSON
 * object (an editor, `$(cat f)`) is kept and *newline set, so that the
 * append first ends it; anything else was torn by a crash and is cut off
 * (and logged) so that an append starts a line of its own. The new
 * length, or -1. */
static off_t end_lines_fd(int fd, const char *path, off_t size, bool *newline)
{
    char last = '\n';
    *newline = false;
    if (size > 0 && pread(fd, &last, 1, size - 1) != 1)
        return -1;
    if (last == '\n')
        return size;
    off_t keep = whole_lines_end(fd, size);
    if (keep >= 0 && whole_last_line(fd, keep, size)) {
        *newline = true;
        return size;
    }
    if (keep < 0 || ftruncate(fd, keep) || fsync(fd)) {
        storage_log(true, "%s: a torn last line cannot be cut off: %s", path,
                    strerror(errno));
        return -1;
    }
    storage_log(
        false,
        "%s: a torn last line (%lld bytes, from a crash) was dropped and "
        "cut off",
        path, (long long)(size - keep));
    return keep;
}

/* Cuts a failed append's file back to its old length (logged if it
 * cannot be). */
static void cut_back(int fd, const char *path, off_t old)
{
    if (ftruncate(fd, old) || fsync(fd))
        storage_log(true,
                    "%s: cannot cut a failed append back to %lld bytes: %s",
                    path, (long long)old, strerror(errno));
}

/* Closes fd, and syncs the directory of a `created` file. */
static int close_new(int fd, const char *path, bool created, char *err,
                     size_t errlen)
{
    if (close(fd)) {
        int e = errno;
        err_set(err, errlen, "%s: close: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    return created ? file_sync_dir(path, err, errlen) : 0;
}

/* storage_append up to its fsync: the line written, *fd left open (*old:
 * the file's length before it, for a cut-back). 0, or -1 with nothing
 * left behind (a failed write is cut back). */
static int append_write(const char *path, const char *line, size_t len,
                        int *fdp, bool *created, off_t *oldp, char *err,
                        size_t errlen)
{
    if (file_check_path(path, err, errlen))
        return -1;
    if (!line || len == 0 || line[len - 1] != '\n' ||
        memchr(line, '\n', len - 1)) {
        errno = EINVAL;
        return err_set(err, errlen, "%s: refused: not one whole line", path);
    }
    int fd = open_append(path, created, err, errlen);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st)) {
        err_set(err, errlen, "%s: %s", path, strerror(errno));
        file_close_keep(fd);
        return -1;
    }
    bool newline;
    off_t old = end_lines_fd(fd, path, st.st_size, &newline);
    if (old < 0) {
        err_set(err, errlen, "%s: cannot cut its torn last line: %s", path,
                strerror(errno));
        file_close_keep(fd);
        return -1;
    }
    size_t done = 0, nl = 0;
    /* a whole last line without its '\n' gets it first: lines never glue */
    if ((newline && file_write_all(fd, "\n", 1, &nl)) ||
        file_write_all(fd, line, len, &done)) {
        int e = errno;
        /* never leave part of a line for the next one to glue onto */
        cut_back(fd, path, old);
        err_set(err, errlen,
                "%s: write: %s (%zu of %zu bytes written, cut back to %lld)",
                path, strerror(e), done, len, (long long)old);
        file_close_keep(fd);
        errno = e;
        return -1;
    }
    *fdp = fd;
    *oldp = old;
    return 0;
}

static storage_sync_fn sync_fn;
static void *sync_ctx;

void storage_set_sync(storage_sync_fn fn, void *ctx)
{
    sync_fn = fn;
    sync_ctx = ctx;
}

void storage_unset_sync(void *ctx)
{
    if (sync_ctx == ctx) {
        sync_fn = NULL;
        sync_ctx = NULL;
    }
}

/* The file's fsync (and its directory's, if `created`), by the sync fn
 * if one is set and takes it, else at once (storage_sync_path). */
static int sync_later(const char *path, bool created, char *err, size_t errlen)
{
    if (sync_fn && sync_fn(sync_ctx, path, created) == 0)
        return 0;
    return storage_sync_path(path, created, err, errlen);
}

int storage_replace(const char *path, const void *data, size_t len, char *err,
                    size_t errlen)
{
    if (!sync_fn)
        return file_replace(path, data, len, err, errlen);
    if (file_replace_unsynced(path, data, len, err, errlen))
        return -1;
    /* the rename is the directory's to keep */
    return sync_later(path, true, err, errlen);
}

int storage_append(const char *path, const char *line, size_t len, char *err,
                   size_t errlen)
{
    if (sync_fn) {
        bool created;
        if (storage_append_unsynced(path, line, len, &created, err, errlen))
            return -1;
        return sync_later(path, created, err, errlen);
    }
    int fd;
    bool created;
    off_t old;
    if (append_write(path, line, len, &fd, &created, &old, err, errlen))
        return -1;
    if (fsync(fd)) {
        int e = errno;
        /* not on the disk: the line is taken back, as if never written */
        cut_back(fd, path, old);
        err_set(err, errlen, "%s: fsync: %s (cut back to %lld)", path,
                strerror(e), (long long)old);
        file_close_keep(fd);
        errno = e;
        return -1;
    }
    return close_new(fd, path, created, err, errlen);
}

int storage_append_unsynced(const char *path, const char *line, size_t len,
                            bool *created, char *err, size_t errlen)
{
    int fd;
    off_t old;
    if (append_write(path, line, len, &fd, created, &old, err, errlen))
        return -1;
    return close_new(fd, path, false, err, errlen); /* no fsync: no dir's */
}

int storage_sync_path(const char *path, bool created, char *err, size_t errlen)
{
    if (file_check_path(path, err, errlen))
        return -1;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0; /* removed since: nothing of it to keep */
        return err_set(err, errlen, "%s: %s", path, file_open_reason(errno));
    }
    if (file_regular_size(fd, path, err, errlen) < 0) {
        file_close_keep(fd);
        return -1;
    }
    if (fsync(fd)) {
        int e = errno;
        err_set(err, errlen, "%s: fsync: %s", path, strerror(e));
        file_close_keep(fd);
        errno = e;
        return -1;
    }
    return close_new(fd, path, created, err, errlen);
}

/* ---- Reading ------------------------------------------------------------ */

static bool read_only;

void storage_set_read_only(bool on)
{
    read_only = on;
}

bool storage_read_only(void)
{
    return read_only;
}

/* Cuts a torn last line off path (its whole lines end at `keep`). */
static void cut_torn(const char *path, off_t keep)
{
    if (read_only) {
        storage_log(false,
                    "%s: a torn last line after byte %lld (from a crash), "
                    "which the bot drops and cuts off",
                    path, (long long)keep);
        return;
    }
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    bool newline;
    if (fd < 0 || fstat(fd, &st)) {
        storage_log(true, "%s: a torn last line cannot be cut off: %s", path,
                    strerror(errno));
    } else if (st.st_size > keep) {
        end_lines_fd(fd, path, st.st_size, &newline);
    }
    if (fd >= 0)
        close(fd);
}

/* storage_read_lines through storage_scan_lines. */
struct plain_lines {
    storage_line_fn fn;
    void *ctx;
};

static int plain_line(void *ctx, char *line, size_t len, long lineno,
                      int64_t offset)
{
    struct plain_lines *p = ctx;
    (void)offset;
    return p->fn(p->ctx, line, len, lineno);
}

int storage_read_lines(const char *path, size_t max_line, storage_line_fn fn,
                       void *ctx, bool *missing, char *err, size_t errlen)
{
    struct plain_lines p = {fn, ctx};
    return storage_scan_lines(path, 0, max_line, false, plain_line, &p, missing,
                              err, errlen);
}

struct object_lines {
    const char *path, *format, *what;
    storage_object_fn fn;
    void *ctx;
    int skipped;
    long lines;
    char other[64]; /* a format this build does not know */
    long lineno;    /* its line */
};

/* One line of storage_read_objects: 1 stops at another format. */
static int object_line(void *ctx, char *line, size_t len, long lineno)
{
    struct object_lines *l = ctx;
    l->lines++;
    struct json_tokener *tok = xjson_tokener(4);
    struct json_object *o = json_tokener_parse_ex(tok, line, (int)len);
    bool whole = o && tok->char_offset == (int)len;
    json_tokener_free(tok);
    struct json_object *fmt;
    int rc = -1;
    if (whole && json_object_is_type(o, json_type_object) &&
        json_object_object_get_ex(o, "format", &fmt) &&
        json_object_is_type(fmt, json_type_string)) {
        if (strcmp(json_object_get_string(fmt), l->format) != 0) {
            snprintf(l->other, sizeof l->other, "%s",
                     json_object_get_string(fmt));
            l->lineno = lineno;
            json_object_put(o);
            return 1; /* a newer bot's file: not read, never written */
        }
        rc = l->fn(l->ctx, o);
    }
    json_object_put(o);
    if (rc) {
        l->skipped++;
        storage_log(true, "%s:%ld: not %s: skipped", l->path, lineno, l->what);
    }
    return 0;
}

int storage_read_objects(const char *path, size_t max_line, const char *format,
                         const char *what, const char *holds,
                         storage_object_fn fn, void *ctx, int *skipped,
                         long *lines, char *err, size_t errlen)
{
    struct object_lines l = {path, format, what, fn, ctx, 0, 0, "", 0};
    int rc =
        storage_read_lines(path, max_line, object_line, &l, NULL, err, errlen);
    if (rc > 0)
        return err_set(err, errlen,
                       "%s:%ld: format \"%s\" is not one this bot reads (a "
                       "newer bot's?): %s not read nor written",
                       path, l.lineno, l.other, holds);
    if (rc)
        return -1;
    *skipped = l.skipped;
    *lines = l.lines;
    return 0;
}

bool storage_text_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max || !utf8_valid(s, n, NULL))
        return false;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

int storage_scan_lines(const char *path, int64_t from, size_t max_line,
                       bool skip_long, storage_line_at_fn fn, void *ctx,
                       bool *missing, char *err, size_t errlen)
{
    int64_t size;
    int fd = file_open_read(path, &size, missing, err, errlen);
    if (fd == -2)
        return 0;
    if (fd < 0)
        return -1;
    if (from < 0 || from > size || lseek(fd, (off_t)from, SEEK_SET) < 0) {
        errno = EINVAL;
        err_set(err, errlen, "%s: no byte %lld to read from", path,
                (long long)from);
        file_close_keep(fd);
        return -1;
    }
    size_t cap = max_line + 1, have = 0;
    char *buf = malloc(cap + 1);
    char chunk[8192];
    if (!buf) {
        err_set(err, errlen, "%s: out of memory", path);
        file_close_keep(fd);
        return -1;
    }
    long lineno = 0;
    int64_t whole = from;  /* bytes up to the end of the last whole line */
    int64_t too_long = -1; /* bytes of a line over max_line, skipped */
    int rc = 0;
    for (;;) {
        ssize_t r = file_read_some(fd, chunk, sizeof chunk, path, err, errlen);
        if (r <= 0) {
            rc = (int)r;
            break;
        }
        for (ssize_t i = 0; i < r && rc == 0; i++) {
            if (chunk[i] != '\n') {
                if (too_long >= 0) {
                    too_long++;
                } else if (have < cap - 1) {
                    buf[have++] = chunk[i];
                } else if (skip_long) {
                    too_long = (int64_t)have + 1;
                    have = 0;
                } else {
                    err_set(err, errlen, "%s:%ld: line longer than %zu bytes",
                            path, lineno + 1, max_line);
                    rc = -1;
                    break;
                }
                continue;
            }
            lineno++;
            if (too_long >= 0) {
                storage_log(
                    false,
                    "%s:%ld: a line of %lld bytes at byte %lld is longer "
                    "than any this file holds: skipped as damaged",
                    path, lineno, (long long)too_long, (long long)whole);
                whole += too_long + 1;
                too_long = -1;
                continue;
            }
            int64_t at = whole;
            whole += (int64_t)have + 1;
            if (have > 0) {
                buf[have] = '\0';
                rc = fn(ctx, buf, have, lineno, at);
            }
            have = 0;
        }
        if (rc != 0)
            break;
    }
    close(fd);
    /* the last line has no '\n': whole if it is a whole JSON object (an
     * editor left it so), else torn by a crash and cut off */
    if (rc == 0 && too_long < 0 && have > 0 && storage_whole_json(buf, have)) {
        buf[have] = '\0';
        rc = fn(ctx, buf, have, lineno + 1, whole);
    } else if (rc == 0 && (have > 0 || too_long >= 0)) {
        cut_torn(path, (off_t)whole);
    }
    free(buf);
    return rc;
}

/* ---- Moving and removing ------------------------------------------------ */

int storage_move_aside(const char *path, char *err, size_t errlen)
{
    if (file_check_path(path, err, errlen))
        return -1;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    char to[FILE_PATH_MAX];
    struct stat st;
    for (int k = 0; k < 100; k++) {
        int n = k == 0
                    ? snprintf(to, sizeof to, "%s.bad-%s", path, stamp)
                    : snprintf(to, sizeof to, "%s.bad-%s-%d", path, stamp, k);
        if (n < 0 || (size_t)n >= sizeof to) {
            return err_set(err, errlen, "%s: path too long to move aside",
                           path);
        }
        if (lstat(to, &st) && errno == ENOENT) {
            if (rename(path, to)) {
                return err_set(err, errlen, "%s: cannot move aside to %s: %s",
                               path, to, strerror(errno));
            }
            return file_sync_dir(path, err, errlen);
        }
    }
    return err_set(err, errlen, "%s: too many files moved aside already", path);
}

int storage_remove(const char *path, char *err, size_t errlen)
{
    if (file_check_path(path, err, errlen))
        return -1;
    if (unlink(path)) {
        if (errno == ENOENT)
            return 0;
        return err_set(err, errlen, "%s: cannot remove: %s", path,
                       strerror(errno));
    }
    return file_sync_dir(path, err, errlen);
}

/* ---- The lock and the check --------------------------------------------- */

static int lock_fd = -1;

int storage_lock(const char *data_dir, char *err, size_t errlen)
{
    char path[FILE_PATH_MAX];
    if (file_path(path, sizeof path, err, errlen, data_dir, "lock",
                  (char *)NULL))
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                  0600);
    if (fd < 0) {
        return err_set(err, errlen, "cannot open the lock %s: %s", path,
                       file_open_reason(errno));
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        errno = EINVAL;
        err_set(err, errlen, "the lock %s is not a regular file", path);
        file_close_keep(fd);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        int e = errno;
        char pid[24] = "";
        ssize_t r = pread(fd, pid, sizeof pid - 1, 0);
        close(fd);
        long n = 0;
        for (ssize_t i = 0; i < r && pid[i] >= '0' && pid[i] <= '9'; i++)
            n = n < 100000000 ? n * 10 + (pid[i] - '0') : n;
        errno = e;
        if (e != EWOULDBLOCK) {
            err_set(err, errlen, "cannot lock %s: %s", path, strerror(e));
        } else if (n > 0) {
            err_set(err, errlen,
                    "another heartsbot (pid %ld) is already using data "
                    "directory %s",
                    n, data_dir);
        } else {
            err_set(err, errlen,
                    "another heartsbot is already using data directory %s",
                    data_dir);
        }
        return e == EWOULDBLOCK ? -2 : -1;
    }
    char pid[24];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    size_t done;
    if (ftruncate(fd, 0) || file_write_all(fd, pid, (size_t)n, &done))
        storage_log(true, "%s: cannot write the pid: %s", path,
                    strerror(errno));
    if (lock_fd >= 0)
        close(lock_fd);
    lock_fd = fd;
    return 0;
}

bool storage_locked(void)
{
    return lock_fd >= 0;
}

void storage_unlock(void)
{
    if (lock_fd >= 0)
        close(lock_fd);
    lock_fd = -1;
}

int storage_check(const char *data_dir, char *err, size_t errlen)
{
    /* the way every real file is written: a temporary file, fsync,
     * rename, fsync of the directory; then it is removed */
    char name[64], path[FILE_PATH_MAX], why[FILE_PATH_MAX + 200];
    snprintf(name, sizeof name, ".probe-%ld", (long)getpid());
    if (file_path(path, sizeof path, err, errlen, data_dir, name, (char *)NULL))
        return -1;
    static const char probe[] = "heartsbot probe\n";
    if (file_replace(path, probe, sizeof probe - 1, why, sizeof why) ||
        storage_remove(path, why, sizeof why)) {
        return err_set(err, errlen, "cannot write in %s: %s", data_dir, why);
    }
    return 0;
}

const char *storage_reason(int e)
{
    switch (e) {
    case ENOSPC:
#ifdef EDQUOT
    case EDQUOT:
#endif
        return M("the disk is full");
    case EFBIG:
        return M("a file reached the size limit");
    case EROFS:
        return M("the disk is read-only");
    case EACCES:
    case EPERM:
        return M("the data directory may not be written");
    case EWOULDBLOCK:
        return M("another heartsbot uses the data directory");
    case ELOOP:
    case ENOTDIR:
    case EINVAL:
        return M("a file or link is in the way");
    case ENAMETOOLONG:
        return M("the path is too long");
    default:
        return M("the data directory cannot be written");
    }
}

/* ---- What a kill leaves ------------------------------------------------- */

/* The pid of a file_replace temporary file's name, "<name>.tmp-PID-N"
 * with a name before it, or 0 if the name is not one. */
static long temp_pid(const char *name)
{
    const char *tag = NULL;
    for (const char *p = strstr(name, ".tmp-"); p; p = strstr(p + 1, ".tmp-"))
        tag = p;
    if (!tag || tag == name)
        return 0;
    const char *p = tag + 5;
    long pid = 0;
    size_t digits = 0;
    for (; *p >= '0' && *p <= '9' && digits < 10; p++, digits++)
        pid = pid * 10 + (*p - '0');
    if (!digits || *p != '-' || pid <= 0)
        return 0;
    digits = 0;
    for (p++; *p >= '0' && *p <= '9' && digits < 10; p++)
        digits++;
    return digits && !*p ? pid : 0;
}

int storage_clean_temps(const char *dir, int *removed, char *err, size_t errlen)
{
    *removed = 0;
    if (file_check_path(dir, err, errlen))
        return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return err_set(err, errlen, "%s: %s", dir,
                       errno == ELOOP ? "a symbolic link, not a directory"
                                      : strerror(errno));
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        err_set(err, errlen, "%s: %s", dir, strerror(errno));
        file_close_keep(fd);
        return -1;
    }
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        long pid = temp_pid(e->d_name);
        struct stat st;
        /* another live process of ours may be writing it; this one is
         * not (file_replace is done when it returns), so a name with
         * our pid is left by an earlier process given the same pid */
        if (!pid || (pid != (long)getpid() && kill((pid_t)pid, 0) == 0) ||
            fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
            !S_ISREG(st.st_mode))
            continue;
        if (unlinkat(fd, e->d_name, 0)) {
            err_set(err, errlen, "%s/%s: cannot remove: %s", dir, e->d_name,
                    strerror(errno));
            rc = -1;
            continue;
        }
        storage_log(false,
                    "%s/%s: a temporary file left by a killed process (%lld "
                    "bytes) removed",
                    dir, e->d_name, (long long)st.st_size);
        ++*removed;
    }
    if (*removed && fsync(fd) && errno != EINVAL) {
        err_set(err, errlen, "%s: fsync: %s", dir, strerror(errno));
        rc = -1;
    }
    closedir(d);
    return rc;
}
