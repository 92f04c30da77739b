/*
 * The flat-file layer (storage.h, docs/storage.md): names that cannot
 * leave the data directory, paths that are refused rather than cut,
 * directories walked without following links, atomic replacement
 * (temporary file, fsync, rename, fsync of the directory), appends that
 * never leave part of a line, JSON Lines reading that drops and cuts a
 * torn last line, and the flock that keeps a second bot out. Nothing here
 * knows the bot: a torn line is reported through storage_set_log.
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
#include "bot/common/xjson.h"

/* ---- Errors and the log hook ------------------------------------------ */

/* close() that keeps errno: the cause of a failure is the earlier call. */
static void close_keep(int fd)
{
    int e = errno;
    close(fd);
    errno = e;
}

static void default_log(bool error, const char *msg)
{
    fprintf(stderr, "storage: %s%s\n", error ? "error: " : "", msg);
}

static storage_log_fn log_fn = default_log;

void storage_set_log(storage_log_fn fn)
{
    log_fn = fn ? fn : default_log;
}

static void slog(bool error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void slog(bool error, const char *fmt, ...)
{
    char msg[STORAGE_PATH_MAX + 300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_fn(error, msg);
}

/* ---- Names -------------------------------------------------------------- */

uint64_t storage_hash64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* FNV-1a, 64 bits: the tail of a name too long to keep whole. */
static uint64_t fnv1a(const char *s)
{
    return storage_hash64(s, strlen(s));
}

/* Whether byte c at position pos of the name is kept as it is. */
static bool kept(unsigned char c, size_t pos)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || (c == '.' && pos > 0);
}

void storage_name_encode(const char *name, char *out, size_t outlen)
{
    static const char hex[] = "0123456789ABCDEF";
    if (!out || outlen == 0)
        return;
    size_t limit =
        outlen - 1 < STORAGE_NAME_MAX ? outlen - 1 : STORAGE_NAME_MAX;
    if (!name)
        name = "";
    if (!*name) {
        /* no name holds a NUL byte, so "%00" is nobody's encoding */
        snprintf(out, outlen, "%s", "%00");
        return;
    }
    /* the readable part stops where the hashed tail must begin if the
     * whole encoding does not fit */
    size_t room_for_prefix = limit > 17 ? limit - 17 : 0;
    size_t n = 0, cut = 0;
    bool whole = true;
    for (size_t i = 0; name[i]; i++) {
        unsigned char c = (unsigned char)name[i];
        size_t w = kept(c, i) ? 1 : 3;
        if (n + w > limit) {
            whole = false;
            break;
        }
        if (kept(c, i)) {
            out[n++] = (char)c;
        } else {
            out[n++] = '%';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        }
        if (n <= room_for_prefix)
            cut = n;
    }
    if (whole) {
        out[n] = '\0';
        return;
    }
    /* '~' is never kept as it is, so a hashed name is no short name */
    n = cut;
    uint64_t h = fnv1a(name);
    if (n + 17 > limit)
        n = limit > 17 ? limit - 17 : 0;
    out[n++] = '~';
    for (int k = 15; k >= 0 && n < limit; k--)
        out[n++] = hex[(h >> (k * 4)) & 15];
    out[n] = '\0';
}

/* ---- Paths -------------------------------------------------------------- */

static bool bad_part(const char *p)
{
    return !p || !*p || !strcmp(p, ".") || !strcmp(p, "..") ||
           strchr(p, '/') != NULL;
}

int storage_path(char *out, size_t outlen, char *err, size_t errlen,
                 const char *dir, ...)
{
    char buf[STORAGE_PATH_MAX];
    size_t cap = outlen < sizeof buf ? outlen : sizeof buf;
    if (!dir || !*dir) {
        errno = EINVAL;
        return err_set(err, errlen, "no directory given");
    }
    size_t n = strlen(dir);
    if (n + 1 > cap) {
        errno = ENAMETOOLONG;
        return err_set(err, errlen, "path too long (over %zu bytes): %.60s...",
                       cap - 1, dir);
    }
    memcpy(buf, dir, n + 1);
    va_list ap;
    va_start(ap, dir);
    const char *part;
    int rc = 0;
    while ((part = va_arg(ap, const char *)) != NULL) {
        if (bad_part(part)) {
            errno = EINVAL;
            err_set(err, errlen, "%s: refused path part \"%.60s\"", dir, part);
            rc = -1;
            break;
        }
        size_t k = strlen(part);
        if (n + 1 + k + 1 > cap) {
            errno = ENAMETOOLONG;
            err_set(err, errlen, "path too long (over %zu bytes): %.60s...",
                    cap - 1, dir);
            rc = -1;
            break;
        }
        buf[n++] = '/';
        memcpy(buf + n, part, k + 1);
        n += k;
    }
    va_end(ap);
    if (rc == 0)
        memcpy(out, buf, n + 1);
    return rc;
}

/* The directory part of path into dir ("." if none). */
static int dir_of(const char *path, char *dir, size_t dirlen)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dirlen, ".");
        return 0;
    }
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n + 1 > dirlen)
        return -1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return 0;
}

static bool path_fits(const char *path, char *err, size_t errlen)
{
    if (!path || !*path) {
        errno = EINVAL;
        err_set(err, errlen, "no file given");
        return false;
    }
    if (strlen(path) >= STORAGE_PATH_MAX) {
        errno = ENAMETOOLONG;
        err_set(err, errlen, "path too long (over %d bytes): %.60s...",
                STORAGE_PATH_MAX - 1, path);
        return false;
    }
    return true;
}

/* fsyncs the directory holding path, so that a rename or a new name in it
 * survives a crash. */
static int sync_dir_of(const char *path, char *err, size_t errlen)
{
    char dir[STORAGE_PATH_MAX];
    if (dir_of(path, dir, sizeof dir)) {
        errno = ENAMETOOLONG;
        return err_set(err, errlen, "%s: path too long", path);
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return err_set(err, errlen, "%s: %s", dir, strerror(errno));
    }
    int rc = 0;
    if (fsync(fd) && errno != EINVAL) {
        err_set(err, errlen, "%s: fsync: %s", dir, strerror(errno));
        rc = -1;
    }
    close_keep(fd);
    return rc;
}

/* Walks dir's parts under data_dir without following a link, making
 * those missing if `make` (else *missing set at the first missing). */
static int walk_dirs(const char *data_dir, const char *dir, bool make,
                     bool *missing, char *err, size_t errlen)
{
    if (!path_fits(data_dir, err, errlen) || !path_fits(dir, err, errlen))
        return -1;
    size_t n = strlen(data_dir);
    while (n > 1 && data_dir[n - 1] == '/')
        n--;
    if (strncmp(dir, data_dir, n) != 0 || (dir[n] != '\0' && dir[n] != '/')) {
        errno = EINVAL;
        return err_set(err, errlen, "%s is not inside the data directory %s",
                       dir, data_dir);
    }
    /* data_dir is the host's choice and may be reached through links;
     * only what the bot makes under it must be real directories */
    char top[STORAGE_PATH_MAX];
    snprintf(top, sizeof top, "%s", data_dir);
    for (char *p = top + 1; make; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(top, 0700) && errno != EEXIST) {
            return err_set(err, errlen, "cannot make %s: %s", top,
                           strerror(errno));
        }
        *p = c;
        if (!c)
            break;
    }
    int fd = open(data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && !make) {
        *missing = true;
        return 0;
    }
    if (fd < 0) {
        return err_set(err, errlen, "%s: %s", data_dir, strerror(errno));
    }
    char rest[STORAGE_PATH_MAX];
    snprintf(rest, sizeof rest, "%s", dir + n);
    char *save = NULL;
    for (char *p = strtok_r(rest, "/", &save); p;
         p = strtok_r(NULL, "/", &save)) {
        if (!strcmp(p, ".") || !strcmp(p, "..")) {
            errno = EINVAL;
            err_set(err, errlen, "%s: refused path part \"%s\"", dir, p);
            close_keep(fd);
            return -1;
        }
        if (make && mkdirat(fd, p, 0700) && errno != EEXIST) {
            err_set(err, errlen, "cannot make %s (at %s): %s", dir, p,
                    strerror(errno));
            close_keep(fd);
            return -1;
        }
        int next =
            openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT && !make) {
            *missing = true;
            close(fd);
            return 0;
        }
        if (next < 0) {
            int e = errno == ELOOP ? ENOTDIR : errno;
            errno = e;
            err_set(err, errlen, "%s (at %s): %s", dir, p,
                    e == ELOOP || e == ENOTDIR
                        ? "not a directory (a link or a file is there)"
                        : strerror(e));
            close_keep(fd);
            return -1;
        }
        close(fd);
        fd = next;
    }
    close(fd);
    return 0;
}

int storage_mkdirs(const char *data_dir, const char *dir, char *err,
                   size_t errlen)
{
    bool missing = false;
    return walk_dirs(data_dir, dir, true, &missing, err, errlen);
}

int storage_dir_check(const char *data_dir, const char *dir, bool *missing,
                      char *err, size_t errlen)
{
    *missing = false;
    return walk_dirs(data_dir, dir, false, missing, err, errlen);
}

/* ---- Writing ------------------------------------------------------------ */

/* Writes all len bytes, retrying after EINTR. 0, or -1 with errno set and
 * *done the bytes written. */
static int write_all(int fd, const void *data, size_t len, size_t *done)
{
    const char *p = data;
    *done = 0;
    while (*done < len) {
        ssize_t w = write(fd, p + *done, len - *done);
        if (w > 0) {
            *done += (size_t)w;
        } else if (w == 0) {
            errno = EIO;
            return -1;
        } else if (errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

/* What an open failure on a file means, in words. */
static const char *open_reason(int e)
{
    return e == ELOOP ? "a symbolic link is there, not a file" : strerror(e);
}

int storage_replace(const char *path, const void *data, size_t len, char *err,
                    size_t errlen)
{
    static unsigned counter;
    if (!path_fits(path, err, errlen))
        return -1;
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        errno = S_ISLNK(st.st_mode) ? ELOOP : EINVAL;
        return err_set(err, errlen, "%s: not a regular file (%s)", path,
                       S_ISLNK(st.st_mode) ? "a symbolic link"
                                           : "something else");
    }
    char tmp[STORAGE_PATH_MAX];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%u", path, (long)getpid(),
                     ++counter);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return err_set(err, errlen, "%s: path too long for its temporary file",
                       path);
    }
    int fd =
        open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        return err_set(err, errlen, "%s: %s", tmp, open_reason(errno));
    }
    size_t done;
    const char *what = NULL;
    int e = 0;
    if (write_all(fd, data, len, &done))
        what = "write";
    else if (fsync(fd))
        what = "fsync";
    if (what)
        e = errno;
    if (close(fd) && !what) {
        what = "close";
        e = errno;
    }
    if (!what && rename(tmp, path)) {
        what = "rename";
        e = errno;
    }
    if (what) {
        unlink(tmp);
        errno = e;
        return err_set(err, errlen, "%s: %s: %s (the old file is kept)", path,
                       what, strerror(e));
    }
    return sync_dir_of(path, err, errlen);
}

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
        return err_set(err, errlen, "%s: %s", path, open_reason(errno));
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        errno = EINVAL;
        err_set(err, errlen, "%s: not a regular file", path);
        close_keep(fd);
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
        slog(true, "%s: a torn last line cannot be cut off: %s", path,
             strerror(errno));
        return -1;
    }
    slog(false,
         "%s: a torn last line (%lld bytes, from a crash) was dropped and "
         "cut off",
         path, (long long)(size - keep));
    return keep;
}

int storage_append(const char *path, const char *line, size_t len, char *err,
                   size_t errlen)
{
    if (!path_fits(path, err, errlen))
        return -1;
    if (!line || len == 0 || line[len - 1] != '\n' ||
        memchr(line, '\n', len - 1)) {
        errno = EINVAL;
        return err_set(err, errlen, "%s: refused: not one whole line", path);
    }
    bool created;
    int fd = open_append(path, &created, err, errlen);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st)) {
        err_set(err, errlen, "%s: %s", path, strerror(errno));
        close_keep(fd);
        return -1;
    }
    bool newline;
    off_t old = end_lines_fd(fd, path, st.st_size, &newline);
    if (old < 0) {
        err_set(err, errlen, "%s: cannot cut its torn last line: %s", path,
                strerror(errno));
        close_keep(fd);
        return -1;
    }
    size_t done = 0, nl = 0;
    const char *what = NULL;
    int e = 0;
    /* a whole last line without its '\n' gets it first: lines never glue */
    if (newline && write_all(fd, "\n", 1, &nl))
        what = "write";
    else if (write_all(fd, line, len, &done))
        what = "write";
    else if (fsync(fd))
        what = "fsync";
    if (what) {
        e = errno;
        /* never leave part of a line for the next one to glue onto */
        if (ftruncate(fd, old) || fsync(fd))
            slog(true, "%s: cannot cut a failed append back to %lld bytes: %s",
                 path, (long long)old, strerror(errno));
        err_set(err, errlen,
                "%s: %s: %s (%zu of %zu bytes written, cut back to %lld)", path,
                what, strerror(e), done, len, (long long)old);
    }
    if (close(fd) && !what) {
        e = errno;
        what = "close";
        err_set(err, errlen, "%s: close: %s", path, strerror(e));
    }
    if (what) {
        errno = e;
        return -1;
    }
    return created ? sync_dir_of(path, err, errlen) : 0;
}

/* ---- Reading ------------------------------------------------------------ */

/* Opens path for reading without following a link or blocking on a FIFO;
 * -2 (and *missing set) if it is not there. */
static int open_read(const char *path, struct stat *st, bool *missing,
                     char *err, size_t errlen)
{
    if (missing)
        *missing = false;
    if (!path_fits(path, err, errlen))
        return -1;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT && missing)
            *missing = true;
        err_set(err, errlen, "%s: %s", path, open_reason(errno));
        return errno == ENOENT ? -2 : -1;
    }
    if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
        errno = EINVAL;
        err_set(err, errlen, "%s: not a regular file", path);
        close_keep(fd);
        return -1;
    }
    return fd;
}

/* Cuts a torn last line off path (its whole lines end at `keep`). */
static void cut_torn(const char *path, off_t keep)
{
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    bool newline;
    if (fd < 0 || fstat(fd, &st)) {
        slog(true, "%s: a torn last line cannot be cut off: %s", path,
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

int storage_scan_lines(const char *path, int64_t from, size_t max_line,
                       bool skip_long, storage_line_at_fn fn, void *ctx,
                       bool *missing, char *err, size_t errlen)
{
    struct stat st;
    int fd = open_read(path, &st, missing, err, errlen);
    if (fd == -2)
        return 0;
    if (fd < 0)
        return -1;
    if (from < 0 || from > (int64_t)st.st_size ||
        lseek(fd, (off_t)from, SEEK_SET) < 0) {
        errno = EINVAL;
        err_set(err, errlen, "%s: no byte %lld to read from", path,
                (long long)from);
        close_keep(fd);
        return -1;
    }
    size_t cap = max_line + 1, have = 0;
    char *buf = malloc(cap + 1);
    char chunk[8192];
    if (!buf) {
        err_set(err, errlen, "%s: out of memory", path);
        close_keep(fd);
        return -1;
    }
    long lineno = 0;
    int64_t whole = from;  /* bytes up to the end of the last whole line */
    int64_t too_long = -1; /* bytes of a line over max_line, skipped */
    int rc = 0;
    for (;;) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            err_set(err, errlen, "%s: read: %s", path, strerror(errno));
            rc = -1;
            break;
        }
        if (r == 0)
            break;
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
                slog(false,
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

int storage_read_file(const char *path, size_t max, char **out, size_t *len,
                      bool *missing, char *err, size_t errlen)
{
    struct stat st;
    int fd = open_read(path, &st, missing, err, errlen);
    if (fd < 0)
        return -1;
    if (max >= SIZE_MAX - 1)
        max = SIZE_MAX - 2;
    /* sized by the file, grown if it grows meanwhile, never past max */
    size_t cap = (uintmax_t)st.st_size < max ? (size_t)st.st_size + 1 : max + 1;
    char *buf = NULL;
    size_t n = 0;
    int rc = 0;
    for (;;) {
        if (n == cap && cap == max + 1) {
            errno = EFBIG;
            err_set(err, errlen, "%s: larger than %zu bytes", path, max);
            rc = -1;
            break;
        }
        if (!buf || n == cap) {
            cap = buf ? (cap > max / 2 ? max + 1 : cap * 2) : cap;
            char *grown = realloc(buf, cap + 1);
            if (!grown) {
                errno = ENOMEM;
                err_set(err, errlen, "%s: out of memory", path);
                rc = -1;
                break;
            }
            buf = grown;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            err_set(err, errlen, "%s: read: %s", path, strerror(errno));
            rc = -1;
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close_keep(fd);
    if (rc) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* ---- Moving and removing ------------------------------------------------ */

int storage_move_aside(const char *path, char *err, size_t errlen)
{
    if (!path_fits(path, err, errlen))
        return -1;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    char to[STORAGE_PATH_MAX];
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
            return sync_dir_of(path, err, errlen);
        }
    }
    return err_set(err, errlen, "%s: too many files moved aside already", path);
}

int storage_remove(const char *path, char *err, size_t errlen)
{
    if (!path_fits(path, err, errlen))
        return -1;
    if (unlink(path)) {
        if (errno == ENOENT)
            return 0;
        return err_set(err, errlen, "%s: cannot remove: %s", path,
                       strerror(errno));
    }
    return sync_dir_of(path, err, errlen);
}

/* ---- The lock and the check --------------------------------------------- */

static int lock_fd = -1;

int storage_lock(const char *data_dir, char *err, size_t errlen)
{
    char path[STORAGE_PATH_MAX];
    if (storage_path(path, sizeof path, err, errlen, data_dir, "lock",
                     (char *)NULL))
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                  0600);
    if (fd < 0) {
        return err_set(err, errlen, "cannot open the lock %s: %s", path,
                       open_reason(errno));
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        errno = EINVAL;
        err_set(err, errlen, "the lock %s is not a regular file", path);
        close_keep(fd);
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
    if (ftruncate(fd, 0) || write_all(fd, pid, (size_t)n, &done))
        slog(true, "%s: cannot write the pid: %s", path, strerror(errno));
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
    char name[64], path[STORAGE_PATH_MAX], why[STORAGE_PATH_MAX + 200];
    snprintf(name, sizeof name, ".probe-%ld", (long)getpid());
    if (storage_path(path, sizeof path, err, errlen, data_dir, name,
                     (char *)NULL))
        return -1;
    static const char probe[] = "heartsbot probe\n";
    if (storage_replace(path, probe, sizeof probe - 1, why, sizeof why) ||
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
        return "the disk is full";
    case EFBIG:
        return "a file reached the size limit";
    case EROFS:
        return "the disk is read-only";
    case EACCES:
    case EPERM:
        return "the data directory may not be written";
    case EWOULDBLOCK:
        return "another heartsbot uses the data directory";
    case ELOOP:
    case ENOTDIR:
    case EINVAL:
        return "a file or link is in the way";
    case ENAMETOOLONG:
        return "the path is too long";
    default:
        return "the data directory cannot be written";
    }
}

/* ---- What a kill leaves ------------------------------------------------- */

/* The pid of a storage_replace temporary file's name, "<name>.tmp-PID-N"
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
    if (!path_fits(dir, err, errlen))
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
        close_keep(fd);
        return -1;
    }
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        long pid = temp_pid(e->d_name);
        struct stat st;
        /* another live process of ours may be writing it; this one is
         * not (storage_replace is done when it returns), so a name with
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
        slog(false,
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
