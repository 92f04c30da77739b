/*
 * Files written and read safely (file.h): names that cannot leave their
 * directory, paths that are refused rather than cut, directories walked
 * without following links, atomic replacement (temporary file, fsync,
 * rename, fsync of the directory) and capped whole-file reads. Nothing
 * here logs: every failure is the caller's message.
 */
#include "bot/common/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/common/err.h"

/* ---- Errors ------------------------------------------------------------- */

/* close() that keeps errno: the cause of a failure is the earlier call. */
void file_close_keep(int fd)
{
    int e = errno;
    close(fd);
    errno = e;
}

/* What an open failure on a file means, in words. */
const char *file_open_reason(int e)
{
    return e == ELOOP ? "a symbolic link is there, not a file" : strerror(e);
}

/* ---- Names -------------------------------------------------------------- */

uint64_t file_hash64(const void *data, size_t len)
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
    return file_hash64(s, strlen(s));
}

/* Whether byte c at position pos of the name is kept as it is. */
static bool kept(unsigned char c, size_t pos)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || (c == '.' && pos > 0);
}

void file_name_encode(const char *name, char *out, size_t outlen)
{
    static const char hex[] = "0123456789ABCDEF";
    if (!out || outlen == 0)
        return;
    size_t limit = outlen - 1 < FILE_NAME_MAX ? outlen - 1 : FILE_NAME_MAX;
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

int file_path(char *out, size_t outlen, char *err, size_t errlen,
              const char *dir, ...)
{
    char buf[FILE_PATH_MAX];
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

int file_check_path(const char *path, char *err, size_t errlen)
{
    if (!path || !*path) {
        errno = EINVAL;
        return err_set(err, errlen, "no file given");
    }
    if (strlen(path) >= FILE_PATH_MAX) {
        errno = ENAMETOOLONG;
        return err_set(err, errlen, "path too long (over %d bytes): %.60s...",
                       FILE_PATH_MAX - 1, path);
    }
    return 0;
}

/* fsyncs the directory holding path, so that a rename or a new name in it
 * survives a crash. */
int file_sync_dir(const char *path, char *err, size_t errlen)
{
    char dir[FILE_PATH_MAX];
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
    file_close_keep(fd);
    return rc;
}

/* Walks dir's parts under data_dir without following a link, making
 * those missing if `make` (else *missing set at the first missing). */
static int walk_dirs(const char *data_dir, const char *dir, bool make,
                     bool *missing, char *err, size_t errlen)
{
    if (file_check_path(data_dir, err, errlen) ||
        file_check_path(dir, err, errlen))
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
    char top[FILE_PATH_MAX];
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
    char rest[FILE_PATH_MAX];
    snprintf(rest, sizeof rest, "%s", dir + n);
    char *save = NULL;
    for (char *p = strtok_r(rest, "/", &save); p;
         p = strtok_r(NULL, "/", &save)) {
        if (!strcmp(p, ".") || !strcmp(p, "..")) {
            errno = EINVAL;
            err_set(err, errlen, "%s: refused path part \"%s\"", dir, p);
            file_close_keep(fd);
            return -1;
        }
        if (make && mkdirat(fd, p, 0700) && errno != EEXIST) {
            err_set(err, errlen, "cannot make %s (at %s): %s", dir, p,
                    strerror(errno));
            file_close_keep(fd);
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
            file_close_keep(fd);
            return -1;
        }
        close(fd);
        fd = next;
    }
    close(fd);
    return 0;
}

int file_mkdirs(const char *data_dir, const char *dir, char *err, size_t errlen)
{
    bool missing = false;
    return walk_dirs(data_dir, dir, true, &missing, err, errlen);
}

int file_dir_check(const char *data_dir, const char *dir, bool *missing,
                   char *err, size_t errlen)
{
    *missing = false;
    return walk_dirs(data_dir, dir, false, missing, err, errlen);
}

/* ---- Writing ------------------------------------------------------------ */

/* Writes all len bytes, retrying after EINTR. 0, or -1 with errno set and
 * *done the bytes written. */
int64_t file_regular_size(int fd, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return err_set(err, errlen, "%s: not a regular file", path);
    }
    return (int64_t)st.st_size;
}

ssize_t file_read_some(int fd, void *buf, size_t n, const char *path, char *err,
                       size_t errlen)
{
    for (;;) {
        ssize_t r = read(fd, buf, n);
        if (r >= 0)
            return r;
        if (errno != EINTR)
            return err_set(err, errlen, "%s: read: %s", path, strerror(errno));
    }
}

int file_write_all(int fd, const void *data, size_t len, size_t *done)
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

/* file_replace, with its fsyncs (the file's before the rename, the
 * directory's after) or without. */
static int replace(const char *path, const void *data, size_t len, bool sync,
                   char *err, size_t errlen)
{
    static unsigned counter;
    if (file_check_path(path, err, errlen))
        return -1;
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        errno = S_ISLNK(st.st_mode) ? ELOOP : EINVAL;
        return err_set(err, errlen, "%s: not a regular file (%s)", path,
                       S_ISLNK(st.st_mode) ? "a symbolic link"
                                           : "something else");
    }
    char tmp[FILE_PATH_MAX];
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
        return err_set(err, errlen, "%s: %s", tmp, file_open_reason(errno));
    }
    size_t done;
    const char *what = NULL;
    int e = 0;
    if (file_write_all(fd, data, len, &done))
        what = "write";
    else if (sync && fsync(fd))
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
    return sync ? file_sync_dir(path, err, errlen) : 0;
}

int file_replace(const char *path, const void *data, size_t len, char *err,
                 size_t errlen)
{
    return replace(path, data, len, true, err, errlen);
}

int file_replace_unsynced(const char *path, const void *data, size_t len,
                          char *err, size_t errlen)
{
    return replace(path, data, len, false, err, errlen);
}

/* ---- Reading ------------------------------------------------------------ */

int file_open_read(const char *path, int64_t *size, bool *missing, char *err,
                   size_t errlen)
{
    if (missing)
        *missing = false;
    if (file_check_path(path, err, errlen))
        return -1;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT && missing)
            *missing = true;
        err_set(err, errlen, "%s: %s", path, file_open_reason(errno));
        return errno == ENOENT ? -2 : -1;
    }
    int64_t n = file_regular_size(fd, path, err, errlen);
    if (n < 0) {
        file_close_keep(fd);
        return -1;
    }
    *size = n;
    return fd;
}

int file_read(const char *path, size_t max, char **out, size_t *len,
              bool *missing, char *err, size_t errlen)
{
    int64_t size;
    int fd = file_open_read(path, &size, missing, err, errlen);
    if (fd < 0)
        return -1;
    if (max >= SIZE_MAX - 1)
        max = SIZE_MAX - 2;
    /* sized by the file, grown if it grows meanwhile, never past max */
    size_t cap = (uintmax_t)size < max ? (size_t)size + 1 : max + 1;
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
        ssize_t r = file_read_some(fd, buf + n, cap - n, path, err, errlen);
        if (r <= 0) {
            rc = (int)r;
            break;
        }
        n += (size_t)r;
    }
    file_close_keep(fd);
    if (rc) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}
