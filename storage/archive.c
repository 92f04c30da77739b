/*
 * The archive and its results lines (archive.h, docs/storage.md).
 */
#include "storage/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/xalloc.h"
#include "bot/common/xjson.h"
#include "storage/record/record.h"
#include "storage/storage.h"

uint64_t archive_record_hash(const char *record, size_t len)
{
    return file_hash64(record, len);
}

char *archive_result_json(const struct archive_result *r)
{
    struct json_object *o = xjson(json_object_new_object());
    xjson_set(o, "format", json_object_new_string(ARCHIVE_RESULTS_FORMAT));
    xjson_set(o, "game", json_object_new_string(r->game));
    xjson_set(o, "time", json_object_new_int64(r->time));
    xjson_set(o, "preset", json_object_new_string(r->preset));
    xjson_set(o, "custom", json_object_new_boolean(r->custom));
    xjson_set(o, "finished", json_object_new_boolean(r->finished));
    xjson_set(o, "offset", json_object_new_int64(r->offset));
    char hash[17];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)r->record_hash);
    xjson_set(o, "record", json_object_new_string(hash));
    struct json_object *seats = xjson(json_object_new_array());
    for (int s = 0; s < r->n; s++) {
        const struct archive_seat *st = &r->seats[s];
        struct json_object *so = xjson(json_object_new_object());
        xjson_set(so, "name", json_object_new_string(st->name));
        xjson_set(so, "key", json_object_new_string(st->key));
        xjson_set(so, "computer", json_object_new_boolean(st->computer));
        xjson_set(so, "left", json_object_new_boolean(st->left));
        xjson_push(seats, so);
    }
    xjson_set(o, "seats", seats);
    char *out = xstrdup(xjson_plain(o));
    json_object_put(o);
    return out;
}

/* The string field `key` of o into buf (bufsize bytes with its NUL). */
static int get_string(struct json_object *o, const char *key, char *buf,
                      size_t bufsize, char *err, size_t errlen)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_string))
        return err_set(err, errlen, "%s: a string is missing", key);
    const char *s = json_object_get_string(v);
    size_t len = (size_t)json_object_get_string_len(v);
    if (len >= bufsize || memchr(s, '\0', len))
        return err_set(err, errlen, "%s: too long (at most %zu bytes)", key,
                       bufsize - 1);
    memcpy(buf, s, len + 1);
    return 0;
}

static int get_bool(struct json_object *o, const char *key, bool *out,
                    char *err, size_t errlen)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_boolean))
        return err_set(err, errlen, "%s: true or false is missing", key);
    *out = json_object_get_boolean(v);
    return 0;
}

static int get_int(struct json_object *o, const char *key, int64_t *out,
                   char *err, size_t errlen)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_int))
        return err_set(err, errlen, "%s: a whole number is missing", key);
    errno = 0;
    int64_t x = json_object_get_int64(v);
    if (errno || x < 0)
        return err_set(err, errlen, "%s: out of range", key);
    *out = x;
    return 0;
}

static bool hex16(const char *s)
{
    if (strlen(s) != 16)
        return false;
    for (int i = 0; i < 16; i++)
        if (!strchr("0123456789abcdef", s[i]))
            return false;
    return true;
}

static int parse_seat(struct json_object *so, struct archive_seat *st, int i,
                      char *err, size_t errlen)
{
    char msg[200];
    if (!json_object_is_type(so, json_type_object))
        return err_set(err, errlen, "seats[%d]: an object, please", i);
    if (get_string(so, "name", st->name, sizeof st->name, msg, sizeof msg) ||
        get_string(so, "key", st->key, sizeof st->key, msg, sizeof msg) ||
        get_bool(so, "computer", &st->computer, msg, sizeof msg) ||
        get_bool(so, "left", &st->left, msg, sizeof msg))
        return err_set(err, errlen, "seats[%d].%s", i, msg);
    if (st->computer != (st->key[0] == '\0'))
        return err_set(err, errlen,
                       "seats[%d]: a computer has no key, a person has one", i);
    return 0;
}

static int parse_object(struct json_object *o, struct archive_result *r,
                        char *err, size_t errlen)
{
    char format[64];
    if (!json_object_is_type(o, json_type_object))
        return err_set(err, errlen, "not a JSON object");
    if (get_string(o, "format", format, sizeof format, err, errlen))
        return -1;
    bool v1 = !strcmp(format, ARCHIVE_RESULTS_FORMAT_V1);
    if (!v1 && strcmp(format, ARCHIVE_RESULTS_FORMAT))
        return err_set(err, errlen,
                       "format: unknown version '%s' (this bot reads %s "
                       "and %s)",
                       format, ARCHIVE_RESULTS_FORMAT,
                       ARCHIVE_RESULTS_FORMAT_V1);
    if (get_string(o, "game", r->game, sizeof r->game, err, errlen) ||
        get_int(o, "time", &r->time, err, errlen) ||
        get_string(o, "preset", r->preset, sizeof r->preset, err, errlen) ||
        get_bool(o, "custom", &r->custom, err, errlen) ||
        get_bool(o, "finished", &r->finished, err, errlen) ||
        get_int(o, "offset", &r->offset, err, errlen))
        return -1;
    if (!hex16(r->game))
        return err_set(err, errlen, "game: 16 hex digits, please");
    r->has_hash = !v1;
    if (!v1) {
        char hash[17];
        if (get_string(o, "record", hash, sizeof hash, err, errlen))
            return -1;
        if (!hex16(hash))
            return err_set(err, errlen, "record: 16 hex digits, please");
        r->record_hash = strtoull(hash, NULL, 16);
    }
    if (engine_preset_find(r->preset) < 0)
        return err_set(err, errlen, "preset: unknown preset '%s'", r->preset);
    struct json_object *seats;
    if (!json_object_object_get_ex(o, "seats", &seats) ||
        !json_object_is_type(seats, json_type_array))
        return err_set(err, errlen, "seats: a list is missing");
    size_t n = json_object_array_length(seats);
    if (n < 2 || n > ENGINE_MAX_PLAYERS)
        return err_set(err, errlen, "seats: 2 to %d, not %zu",
                       ENGINE_MAX_PLAYERS, n);
    r->n = (int)n;
    for (size_t i = 0; i < n; i++)
        if (parse_seat(json_object_array_get_idx(seats, i), &r->seats[i],
                       (int)i, err, errlen))
            return -1;
    return 0;
}

int archive_result_parse(const char *text, size_t len,
                         struct archive_result *out, char *err, size_t errlen)
{
    if (len > ARCHIVE_RESULTS_MAX_LINE)
        return err_set(err, errlen, "longer than %d bytes",
                       ARCHIVE_RESULTS_MAX_LINE);
    struct json_tokener *tok = xjson_tokener(JSON_TOKENER_DEFAULT_DEPTH);
    struct json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!o || jerr != json_tokener_success) {
        json_object_put(o);
        return err_set(err, errlen, "not JSON: %s",
                       json_tokener_error_desc(jerr));
    }
    for (size_t i = used; i < len; i++) {
        if (!strchr(" \t\r\n", text[i])) {
            json_object_put(o);
            return err_set(err, errlen, "text after the JSON object");
        }
    }
    struct archive_result r;
    memset(&r, 0, sizeof r);
    int rc = parse_object(o, &r, err, errlen);
    json_object_put(o);
    if (rc == 0)
        *out = r;
    return rc;
}

/* Up to `want` bytes at the end of path, into a new buffer (*len bytes);
 * *size is the file's size. A missing file is empty. */
static int read_tail(const char *path, size_t want, char **out, size_t *len,
                     off_t *size, char *err, size_t errlen)
{
    *out = NULL;
    *len = 0;
    *size = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        return err_set(err, errlen, "%s: %s", path, strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        close(fd);
        return err_set(err, errlen, "%s: not a file", path);
    }
    *size = sb.st_size;
    size_t n = (size_t)sb.st_size < want ? (size_t)sb.st_size : want;
    char *buf = xmalloc(n + 1);
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, buf + done, n - done,
                          sb.st_size - (off_t)n + (off_t)done);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            int e = r < 0 ? errno : EIO;
            free(buf);
            close(fd);
            return err_set(err, errlen, "%s: %s", path, strerror(e));
        }
        done += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* Whether the results file's last lines hold game r->game, ended the
 * same way (finished or stopped): a game stopped at a shutdown and
 * finished after a restart is archived twice, once each way, and
 * counts once. */
static int results_has(const char *path, const struct archive_result *r,
                       bool *has, char *err, size_t errlen)
{
    char *tail;
    size_t len;
    off_t size;
    if (read_tail(path, 4 * ARCHIVE_RESULTS_MAX_LINE, &tail, &len, &size, err,
                  errlen))
        return -1;
    char needle[40];
    snprintf(needle, sizeof needle, "\"game\":\"%s\"", r->game);
    *has = false;
    for (char *at = tail; at && !*has && (at = strstr(at, needle));) {
        char *start = at, *end = strchr(at, '\n');
        if (!end) /* a whole last line without its newline counts too */
            end = tail + len;
        while (start > tail && start[-1] != '\n')
            start--;
        struct archive_result old;
        *has = !archive_result_parse(start, (size_t)(end - start), &old, NULL,
                                     0) &&
               !strcmp(old.game, r->game) && old.finished == r->finished;
        at = end;
    }
    free(tail);
    return 0;
}

/* Appends text and a newline. */
static int append(const char *path, const char *text, char *err, size_t errlen)
{
    size_t len = strlen(text);
    char *line = xmalloc(len + 2);
    memcpy(line, text, len);
    line[len] = '\n';
    line[len + 1] = '\0';
    int rc = storage_append(path, line, len + 1, err, errlen);
    free(line);
    return rc;
}

int archive_paths(const char *room_dir, char *archive, char *results, char *err,
                  size_t errlen)
{
    return file_path(archive, FILE_PATH_MAX, err, errlen, room_dir,
                     ARCHIVE_FILE, (char *)NULL) ||
                   file_path(results, FILE_PATH_MAX, err, errlen, room_dir,
                             ARCHIVE_RESULTS_FILE, (char *)NULL)
               ? -1
               : 0;
}

/* Looking for a record's line in the archive (archive_add's retry). */
struct find_line {
    const char *record;
    size_t len;
    int64_t at; /* -1: not found */
};

static int find_line_at(void *ctx, char *line, size_t len, long lineno,
                        int64_t offset)
{
    struct find_line *f = ctx;
    (void)lineno;
    if (len == f->len && !memcmp(line, f->record, len)) {
        f->at = offset;
        return 1;
    }
    return 0;
}

/* Where the archive's last `window` bytes hold exactly this record: the
 * record of a game whose results line was not written. -1 if nowhere. */
static int64_t record_in_tail(const char *apath, const char *record, size_t len,
                              off_t size, int64_t window)
{
    struct find_line f = {record, len, -1};
    /* the window's first line may be cut: it is no whole record */
    int64_t from = (int64_t)size > window ? (int64_t)size - window : 0;
    storage_scan_lines(apath, from, RECORD_MAX_LINE + 2, true, find_line_at, &f,
                       NULL, NULL, 0);
    return f.at;
}

int archive_add(const char *room_dir, struct archive_result *r,
                const char *record, bool retry, bool *added, char *err,
                size_t errlen)
{
    char apath[FILE_PATH_MAX], rpath[FILE_PATH_MAX];
    *added = false;
    if (archive_paths(room_dir, apath, rpath, err, errlen))
        return -1;
    if (strchr(record, '\n'))
        return err_set(err, errlen, "a record is one line");
    bool has = false;
    if (results_has(rpath, r, &has, err, errlen))
        return -1;
    if (has)
        return 0;
    size_t len = strlen(record);
    r->record_hash = archive_record_hash(record, len);
    r->has_hash = true;
    /* the crash came after the record and before its results line? */
    char *tail;
    size_t tlen;
    off_t size;
    if (read_tail(apath, len + 2, &tail, &tlen, &size, err, errlen))
        return -1;
    bool there = tlen >= len + 1 && tail[tlen - 1] == '\n' &&
                 memcmp(tail + tlen - 1 - len, record, len) == 0 &&
                 (tlen == len + 1 || tail[0] == '\n');
    free(tail);
    int64_t at =
        there   ? (int64_t)size - (int64_t)len - 1
        : retry ? record_in_tail(apath, record, len, size, ARCHIVE_RETRY_WINDOW)
                : -1;
    if (at >= 0) {
        r->offset = at;
    } else {
        /* a last line without its newline gets one first */
        if (append(apath, record, err, errlen))
            return -1;
        struct stat sb;
        if (lstat(apath, &sb))
            return err_set(err, errlen, "%s: %s", apath, strerror(errno));
        r->offset = (int64_t)sb.st_size - (int64_t)len - 1;
    }
    char *line = archive_result_json(r);
    int rc = append(rpath, line, err, errlen);
    free(line);
    if (rc == 0)
        *added = true;
    return rc;
}

static int64_t size_of(const char *dir, const char *name)
{
    char path[FILE_PATH_MAX];
    struct stat sb;
    if (file_path(path, sizeof path, NULL, 0, dir, name, (char *)NULL) ||
        lstat(path, &sb) || !S_ISREG(sb.st_mode))
        return 0;
    return (int64_t)sb.st_size;
}

void archive_sizes(const char *room_dir, int64_t *archive_bytes,
                   int64_t *results_bytes)
{
    *archive_bytes = size_of(room_dir, ARCHIVE_FILE);
    *results_bytes = size_of(room_dir, ARCHIVE_RESULTS_FILE);
}

int archive_record_at(const char *archive_path, int64_t offset, char **out,
                      size_t *len)
{
    if (offset < 0)
        return -1;
    int fd = open(archive_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t cap = 65536, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        ssize_t r = pread(fd, buf + n, cap - n, (off_t)(offset + (int64_t)n));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0 && storage_whole_json(buf, n)) {
                close(fd);
                *out = buf;
                *len = n;
                return 0;
            }
            break;
        }
        char *nl = memchr(buf + n, '\n', (size_t)r);
        n += (size_t)r;
        if (nl) {
            close(fd);
            *out = buf;
            *len = (size_t)(nl - buf);
            return 0;
        }
        if (n == cap) {
            if (cap > RECORD_MAX_LINE)
                break;
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
    }
    int e = errno;
    close(fd);
    free(buf);
    errno = e;
    return -1;
}

int archive_record_of(const char *room_dir, const struct archive_result *r,
                      char **out, size_t *len, char *err, size_t errlen)
{
    char apath[FILE_PATH_MAX], rpath[FILE_PATH_MAX];
    if (archive_paths(room_dir, apath, rpath, err, errlen))
        return -1;
    char *line;
    size_t n;
    errno = 0;
    if (archive_record_at(apath, r->offset, &line, &n))
        return err_set(err, errlen, "%s: no record at byte %lld%s%s", apath,
                       (long long)r->offset, errno ? ": " : "",
                       errno ? strerror(errno) : "");
    if (r->has_hash && archive_record_hash(line, n) != r->record_hash) {
        free(line);
        return err_set(err, errlen,
                       "%s: the record at byte %lld is not game %s's (its "
                       "fingerprint differs)",
                       apath, (long long)r->offset, r->game);
    }
    *out = line;
    *len = n;
    return 0;
}

/* What archive_find looks for and has found in a tail of the file. */
struct finding {
    const char *id; /* a prefix of the ID, or NULL: the back-th finished */
    size_t idlen;
    int back;
    int finished; /* finished games seen, from the end (counting back) */
    enum archive_found found;
    bool any;
    struct archive_result r;
};

/* A line of the tail with the ID's needle in it (NUL-terminated): a
 * game whose ID starts so, or not. */
static void id_in_line(struct finding *f, const char *line, size_t len)
{
    struct archive_result r;
    if (archive_result_parse(line, len, &r, NULL, 0) ||
        strncmp(r.game, f->id, f->idlen) != 0)
        return;
    if (!f->any) {
        f->any = true;
        f->found = ARCHIVE_FOUND;
        f->r = r;
    } else if (strcmp(f->r.game, r.game) != 0) {
        f->found = ARCHIVE_AMBIGUOUS;
    } else if (r.finished && !f->r.finished) {
        f->r = r; /* stopped at a shutdown, finished after the restart */
    }
}

/* The games of the tail (len bytes, NUL-terminated; `whole`: the whole
 * file, else its first line may be cut) whose ID starts with f->id: each
 * line's "game" looked at where it is (near the line's start), and only
 * a line whose ID starts so parsed. (One strstr over the whole tail
 * would be simpler, but glibc's is slow for some needles: "ffffffff"
 * takes 50 ms over 16 MiB.) */
static void id_in_tail(struct finding *f, char *tail, size_t len, bool whole)
{
    char *line = tail, *stop = tail + len;
    if (!whole) { /* the window's first line may be cut: no whole line */
        line = memchr(tail, '\n', len);
        if (!line)
            return;
        line++;
    }
    while (line < stop) {
        char *end = memchr(line, '\n', (size_t)(stop - line));
        if (!end)
            end = stop;
        *end = '\0';
        const char *g = strstr(line, "\"game\":\"");
        if (g && strncmp(g + 8, f->id, f->idlen) == 0)
            id_in_line(f, line, (size_t)(end - line));
        line = end + 1;
    }
}

/* One line of the tail (NUL-terminated), the file's last first: whether
 * the back-th finished game is found. */
static bool back_in_line(struct finding *f, const char *line, size_t len)
{
    struct archive_result r;
    /* what this bot writes for a stopped game is passed over unparsed */
    if (strstr(line, "\"finished\":false") ||
        archive_result_parse(line, len, &r, NULL, 0) || !r.finished)
        return false;
    f->finished++;
    if (f->finished < f->back)
        return false;
    f->any = true;
    f->found = ARCHIVE_FOUND;
    f->r = r;
    return true;
}

/* Reads the tail's lines from the last to the first whole one (all of
 * them if the tail is the whole file), until the back-th finished game. */
static void back_in_tail(struct finding *f, char *tail, size_t len, bool whole)
{
    size_t end = len;
    while (end > 0) {
        size_t start = end;
        while (start > 0 && tail[start - 1] != '\n')
            start--;
        if (start == 0 && !whole)
            return; /* cut by the window: no whole line */
        tail[end] = '\0';
        if (end > start && back_in_line(f, tail + start, end - start))
            return;
        end = start ? start - 1 : 0;
    }
}

int archive_find(const char *room_dir, const char *id, int back,
                 struct archive_result *out, int *finished, char *err,
                 size_t errlen)
{
    size_t idlen = id ? strlen(id) : 0;
    if (id &&
        (idlen < 4 || idlen > 16 || strspn(id, "0123456789abcdef") != idlen))
        return err_set(err, errlen, "'%s' is no game ID", id);
    if (!id && back < 1)
        return err_set(err, errlen, "no game %d back", back);
    char apath[FILE_PATH_MAX], rpath[FILE_PATH_MAX];
    if (archive_paths(room_dir, apath, rpath, err, errlen))
        return -1;
    struct finding f;
    for (size_t want = 65536;; want *= 16) {
        if (want > ARCHIVE_FIND_WINDOW)
            want = ARCHIVE_FIND_WINDOW;
        char *tail;
        size_t len;
        off_t size;
        if (read_tail(rpath, want, &tail, &len, &size, err, errlen))
            return -1;
        memset(&f, 0, sizeof f);
        f.id = id;
        f.idlen = idlen;
        f.back = back;
        f.found = ARCHIVE_NONE;
        bool whole = (off_t)len == size;
        if (tail && id)
            id_in_tail(&f, tail, len, whole);
        else if (tail)
            back_in_tail(&f, tail, len, whole);
        free(tail);
        if (f.any || whole || want == ARCHIVE_FIND_WINDOW)
            break;
    }
    if (finished)
        *finished = f.finished;
    if (f.found == ARCHIVE_FOUND)
        *out = f.r;
    return (int)f.found;
}
