/*
 * The application-service registration file (registration.h): a strict
 * reader of the top-level keys the bot needs, and the writer behind
 * `heartsbot --appservice-registration`.
 *
 * The reader goes line by line. A line that starts at column 0 is a
 * top-level `key: value`; the five keys the bot reads have their value
 * lexed and checked, any other key's value is skipped (a quoted one must
 * still end on its line, a `[...]` or `{...}` may run over several, and
 * is followed to its end so that nothing inside it is read as a key).
 * Indented lines, and `- item` lines under a key without a value, belong
 * to the key above and are skipped; an indented line under one of the
 * five keys would continue its value over lines and is refused. What
 * YAML would read differently from a plain reading (block scalars,
 * anchors, tags, a plain value some YAML reader types as null, a
 * boolean, a number or a date, ": " inside a plain value, a second
 * document) is refused by name, so that the file means to the bot what
 * it means to the homeserver.
 *
 * The writer's file has a new name only when it is whole: the text goes
 * to a temporary file, and link(2) gives it the name or fails if the
 * name is taken, so neither a crash nor a race ever leaves half a file
 * or replaces one.
 */
#include "adapters/matrix/registration.h"
#include "bot/common/err.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/matrix/format.h"
#include "bot/common/file.h"
#include "bot/common/strbuf.h"
#include "bot/common/textpos.h"
#include "bot/common/xalloc.h"

#define TOKEN_BYTES 32 /* of randomness per token: 64 hex digits */
#define VALUE_MAX 255
#define URL_MAX 1024

enum { K_ID, K_URL, K_AS, K_HS, K_LOCALPART, NKEYS };

static const char *const key_names[NKEYS] = {"id", "url", "as_token",
                                             "hs_token", "sender_localpart"};

/* A growing string. */
/* ---- Reading ---------------------------------------------------------- */

/* Where an unknown key's [...] or {...} stands when it runs over lines. */
struct flow {
    int depth;    /* brackets open; 0: no flow value under way */
    size_t open;  /* where it started, for a message */
    bool dq, sq;  /* inside a "..." or '...' */
    bool scalar0; /* at the start of a scalar (a quote would open one) */
};

/* What the previous top-level line leaves to the lines under it. */
enum after {
    AFTER_NOTHING, /* no key yet */
    AFTER_EMPTY,   /* a key without a value: a block below is its value */
    AFTER_VALUE,   /* another key's value */
    AFTER_OURS,    /* one of the five keys' value: nothing may go on */
};

struct parser {
    const char *text;
    size_t len;
    const char *path;
    char *err;
    size_t errlen;
    enum after after;
    int after_key; /* which of ours, for AFTER_OURS */
    struct flow flow;
    char *values[NKEYS];
    size_t key_pos[NKEYS];
    size_t value_pos[NKEYS];
};

static void fail_at(struct parser *ps, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "PATH:LINE:COL: message" into the error buffer. */
static void fail_at(struct parser *ps, size_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    textpos_vfail(ps->err, ps->errlen, ps->path, ps->text, ps->len, pos, fmt,
                  ap);
    va_end(ap);
}

/* The message, then -1 where the analyzer sees it (as TOML_FAIL, toml.h). */
#define FAIL(...) (fail_at(__VA_ARGS__), -1)

static int at(const struct parser *ps, size_t pos, size_t end)
{
    return pos < end ? (unsigned char)ps->text[pos] : -1;
}

static bool blank(int ch)
{
    return ch == ' ' || ch == '\t';
}

static size_t skip_blanks(const struct parser *ps, size_t pos, size_t end)
{
    while (blank(at(ps, pos, end)))
        pos++;
    return pos;
}

/* "unexpected X" and `then` for the character at pos. */
static int unexpected(struct parser *ps, size_t pos, const char *then)
{
    int ch = (unsigned char)ps->text[pos];
    if (ch >= 0x80)
        return FAIL(ps, pos, "unexpected non-ASCII character%s", then);
    return FAIL(ps, pos, "unexpected '%c'%s", ch, then);
}

/* A line's characters: UTF-8, and no control characters but tab (what
 * YAML calls non-printable, and the line breaks it knows beyond LF:
 * NEL, U+2028 and U+2029, which would split a line the bot reads as
 * one). */
static int check_chars(struct parser *ps, size_t pos, size_t end)
{
    while (pos < end) {
        const unsigned char *s = (const unsigned char *)ps->text + pos;
        if (s[0] < 0x80) {
            if ((s[0] < 0x20 && s[0] != '\t') || s[0] == 0x7f)
                return FAIL(ps, pos, "control character 0x%02X", s[0]);
            pos++;
            continue;
        }
        size_t n = mx_utf8_seq_len((const char *)s, end - pos);
        if (!n)
            return FAIL(ps, pos, "invalid UTF-8");
        if ((s[0] == 0xc2 && s[1] < 0xa0) ||
            (s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)))
            return FAIL(ps, pos, "control character or line separator U+%04X",
                        s[0] == 0xc2 ? s[1] : 0x2000 + (s[2] & 0x3f));
        pos += n;
    }
    return 0;
}

/* A plain value YAML reads as something else than a string. */
static const char *yaml_type(const char *s)
{
    static const char *const nulls[] = {"~", "null", "Null", "NULL"};
    static const char *const bools[] = {
        "true", "True", "TRUE", "false", "False", "FALSE", "yes", "Yes",
        "YES",  "no",   "No",   "NO",    "on",    "On",    "ON",  "off",
        "Off",  "OFF",  "y",    "Y",     "n",     "N"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        if (strcmp(s, nulls[i]) == 0)
            return "null";
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++)
        if (strcmp(s, bools[i]) == 0)
            return "a boolean";
    /* numbers, as YAML 1.1 and 1.2 readers take them: decimal, 0x, 0b,
     * sexagesimal (1:30), .inf and .nan; and dates (2024-05-01...) */
    const char *p = s + (*s == '-' || *s == '+');
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'b') && p[2] &&
        strspn(p + 2, p[1] == 'x' ? "0123456789abcdefABCDEF_" : "01_") ==
            strlen(p + 2))
        return "a number";
    static const char *const floats[] = {".inf", ".Inf", ".INF",
                                         ".nan", ".NaN", ".NAN"};
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++)
        if (strcmp(p, floats[i]) == 0)
            return "a number";
    if (strspn(s, "0123456789") == 4 && s[4] == '-' && s[5] >= '0' &&
        s[5] <= '9')
        return "a date";
    size_t digits = strspn(p, "0123456789_:");
    if (digits && p[0] != '_' && p[0] != ':') {
        p += digits;
        if (*p == '.')
            p += 1 + strspn(p + 1, "0123456789_");
        if ((*p == 'e' || *p == 'E') &&
            (p[1] == '-' || p[1] == '+' || (p[1] >= '0' && p[1] <= '9'))) {
            p += 1 + (p[1] == '-' || p[1] == '+');
            p += strspn(p, "0123456789");
        }
        if (!*p)
            return "a number";
    }
    return NULL;
}

/* A quoted value at pos (its quote) to its closing quote on the line, into
 * b; *next is past the closing quote. */
static int lex_quoted(struct parser *ps, size_t pos, size_t end,
                      struct strbuf *b, size_t *next)
{
    int q = at(ps, pos, end);
    size_t i = pos + 1;
    for (;;) {
        int ch = at(ps, i, end);
        if (ch < 0)
            return FAIL(ps, pos,
                        "the closing %s is missing on this line (a value "
                        "must be on one line)",
                        q == '"' ? "'\"'" : "\"'\"");
        if (ch == q && q == '\'' && at(ps, i + 1, end) == '\'') {
            strbuf_add(b, "'", 1);
            i += 2;
        } else if (ch == q) {
            break;
        } else if (ch == '\\' && q == '"') {
            int e = at(ps, i + 1, end);
            if (e != '\\' && e != '"')
                return FAIL(ps, i,
                            "only the escapes \\\\ and \\\" are supported in "
                            "a \"...\" value");
            strbuf_add(b, ps->text + i + 1, 1);
            i += 2;
        } else {
            strbuf_add(b, ps->text + i, 1);
            i++;
        }
    }
    *next = i + 1;
    return 0;
}

/* A plain value at pos, to the end of the line or a " #" comment, with
 * its trailing blanks cut, into b. */
static int lex_plain(struct parser *ps, size_t pos, size_t end,
                     struct strbuf *b)
{
    size_t i = pos, last = pos;
    while (i < end) {
        int ch = at(ps, i, end);
        if (ch == '#' && blank(at(ps, i - 1, end)))
            break;
        if (ch == ':' && (i + 1 == end || blank(at(ps, i + 1, end))))
            return FAIL(ps, i,
                        "': ' in a plain value makes it a mapping in YAML: "
                        "quote the value");
        i++;
        if (!blank(ch))
            last = i;
    }
    strbuf_add(b, ps->text + pos, last - pos);
    return 0;
}

/* What may follow a quoted value: blanks, then a comment. */
static int after_quoted(struct parser *ps, size_t next, size_t end)
{
    size_t rest = skip_blanks(ps, next, end);
    if (rest == end)
        return 0;
    if (at(ps, rest, end) != '#')
        return unexpected(ps, rest,
                          " after the value (only a # comment may follow it)");
    if (rest == next)
        return FAIL(ps, rest, "a # comment needs a space before it");
    return 0;
}

/* Checks the value of key k (at pos) for what the bot will do with it. */
static int check_value(struct parser *ps, int k, size_t pos, const char *v)
{
    const char *name = key_names[k];
    size_t n = strlen(v);
    /* the only control character a line may hold, and none a value may */
    if (strchr(v, '\t'))
        return FAIL(ps, pos, "'%s' contains a tab", name);
    if (k == K_URL) {
        if (n == 0)
            return 0;
        size_t scheme = strncmp(v, "http://", 7) == 0    ? 7
                        : strncmp(v, "https://", 8) == 0 ? 8
                                                         : 0;
        if (!scheme || n == scheme || strchr(v, ' ') || n > URL_MAX)
            return FAIL(ps, pos,
                        "'url' must be an http:// or https:// URL (at most "
                        "%d bytes, no spaces)",
                        URL_MAX);
        return 0;
    }
    if (n == 0)
        return FAIL(ps, pos, "'%s' is empty", name);
    if (n > VALUE_MAX)
        return FAIL(ps, pos, "'%s' is longer than %d bytes", name, VALUE_MAX);
    if ((k == K_AS || k == K_HS) &&
        strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                  "0123456789._~+/=-") != n)
        return FAIL(ps, pos,
                    "'%s' may hold only letters, digits and . _ ~ + / = -",
                    name);
    if (k == K_LOCALPART &&
        strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789._=/+-") != n)
        return FAIL(ps, pos,
                    "'sender_localpart' may hold only a-z, 0-9 and . _ = / "
                    "+ - (a Matrix user's localpart)");
    return 0;
}

/* The value of one of our keys, at pos, into ps->values[k]. */
static int parse_value(struct parser *ps, int k, size_t pos, size_t end)
{
    const char *name = key_names[k];
    int ch = at(ps, pos, end);
    int ch1 = at(ps, pos + 1, end);
    struct strbuf b;
    strbuf_init_heap(&b, STRBUF_NO_CAP);
    strbuf_add(&b, "", 0); /* a text even when the value is empty */
    int rc = 0;
    if (ch < 0 || ch == '#') {
        /* YAML reads nothing as null */
        if (k != K_URL)
            rc = FAIL(ps, pos, "'%s' has no value", name);
    } else if (ch == '"' || ch == '\'') {
        size_t next;
        rc = lex_quoted(ps, pos, end, &b, &next);
        if (rc == 0)
            rc = after_quoted(ps, next, end);
    } else if (ch == '|' || ch == '>') {
        rc = FAIL(ps, pos,
                  "block values (| and >) are not supported: write '%s' on "
                  "its line",
                  name);
    } else if (ch == '&' || ch == '*' || ch == '!') {
        rc = FAIL(ps, pos,
                  "YAML anchors, aliases and tags (& * !) are not supported");
    } else if (ch == '[' || ch == '{' ||
               ((ch == '-' || ch == '?' || ch == ':') &&
                (ch1 < 0 || blank(ch1)))) {
        rc = FAIL(ps, pos, "'%s' must be a string, not a list or a mapping",
                  name);
    } else if (strchr("]},%@`", ch)) {
        rc =
            FAIL(ps, pos,
                 "a plain value may not start with '%c' in YAML: quote it", ch);
    } else {
        rc = lex_plain(ps, pos, end, &b);
        const char *type = rc ? NULL : yaml_type(b.buf);
        if (type && strcmp(type, "null") == 0 && k == K_URL)
            strbuf_reset(&b);
        else if (type)
            rc = FAIL(ps, pos, "'%s' is %s in YAML, not a string: quote it",
                      name, type);
    }
    char *value = strbuf_take(&b);
    if (rc == 0)
        rc = check_value(ps, k, pos, value);
    if (rc) {
        free(value);
        return -1;
    }
    ps->values[k] = value;
    ps->value_pos[k] = pos;
    return 0;
}

/* Follows an unknown key's [...] or {...} from pos to the line's end;
 * flow->depth is 0 once it is closed. */
static void follow_flow(const struct parser *ps, struct flow *f, size_t pos,
                        size_t end)
{
    for (size_t i = pos; i < end && f->depth > 0; i++) {
        int ch = at(ps, i, end);
        if (f->dq) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                f->dq = false;
            continue;
        }
        if (f->sq) {
            if (ch == '\'' && at(ps, i + 1, end) == '\'')
                i++;
            else if (ch == '\'')
                f->sq = false;
            continue;
        }
        if (ch == '#' &&
            (i == 0 || blank(at(ps, i - 1, end)) || ps->text[i - 1] == '\n'))
            return; /* a comment to the end of the line */
        if ((ch == '"' || ch == '\'') && f->scalar0) {
            f->dq = ch == '"';
            f->sq = ch == '\'';
        } else if (ch == '[' || ch == '{') {
            f->depth++;
        } else if (ch == ']' || ch == '}') {
            f->depth--;
        }
        f->scalar0 = strchr("[{,:", ch) || (blank(ch) && f->scalar0);
    }
    f->scalar0 = true; /* a line break is a blank */
}

/* The value of a key the bot does not read: skipped, but followed far
 * enough to know where it ends. */
static int skip_value(struct parser *ps, size_t pos, size_t end)
{
    int ch = at(ps, pos, end);
    ps->after = ch < 0 || ch == '#' ? AFTER_EMPTY : AFTER_VALUE;
    if (ch == '"' || ch == '\'') {
        struct strbuf b;
        strbuf_init_heap(&b, STRBUF_NO_CAP);
        size_t next;
        int rc = lex_quoted(ps, pos, end, &b, &next);
        strbuf_free(&b);
        return rc;
    }
    if (ch == '[' || ch == '{') {
        ps->flow = (struct flow){.depth = 1, .open = pos, .scalar0 = true};
        follow_flow(ps, &ps->flow, pos + 1, end);
    }
    return 0;
}

static bool key_char(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
}

/* A line that starts at column 0 with something other than a comment. */
static int parse_top(struct parser *ps, size_t s, size_t end)
{
    int ch = at(ps, s, end);
    if (ch == '-' && (at(ps, s + 1, end) < 0 || blank(at(ps, s + 1, end)))) {
        if (ps->after == AFTER_EMPTY)
            return 0; /* an item of the list that is the key's value */
        return FAIL(ps, s,
                    "a list item ('- ') at the top level must follow a key "
                    "without a value");
    }
    if (end - s >= 3 && memcmp(ps->text + s, "---", 3) == 0 &&
        (end - s == 3 || blank(at(ps, s + 3, end)))) {
        if (ps->after == AFTER_NOTHING)
            return 0;
        return FAIL(ps, s, "a second YAML document ('---') is not supported");
    }
    if (end - s >= 3 && memcmp(ps->text + s, "...", 3) == 0)
        return FAIL(ps, s,
                    "the end of a YAML document ('...') is not "
                    "supported");
    if (ch == '%')
        return FAIL(ps, s, "YAML directives ('%%') are not supported");
    if (ch == '"' || ch == '\'')
        return FAIL(ps, s, "quoted keys are not supported");
    size_t k = s;
    while (key_char(at(ps, k, end)))
        k++;
    if (k == s)
        return unexpected(ps, s,
                          ": expected a top-level 'key: value', a comment or "
                          "an indented line");
    size_t klen = k - s;
    size_t colon = k;
    while (at(ps, colon, end) == ' ')
        colon++;
    if (at(ps, colon, end) != ':')
        return FAIL(ps, colon, "expected ':' after the key '%.*s'",
                    klen > 40 ? 40 : (int)klen, ps->text + s);
    int after = at(ps, colon + 1, end);
    if (after >= 0 && !blank(after))
        return FAIL(ps, colon + 1, "expected a space after ':'");
    size_t v = skip_blanks(ps, colon + 1, end);
    int which = -1;
    for (int i = 0; i < NKEYS; i++)
        if (strlen(key_names[i]) == klen &&
            memcmp(key_names[i], ps->text + s, klen) == 0)
            which = i;
    if (which < 0)
        return skip_value(ps, v, end);
    if (ps->values[which]) {
        int line, col;
        textpos_where(ps->text, ps->len, ps->key_pos[which], &line, &col);
        return FAIL(ps, s, "'%s' is repeated (first at line %d)",
                    key_names[which], line);
    }
    ps->key_pos[which] = s;
    ps->after = AFTER_OURS;
    ps->after_key = which;
    return parse_value(ps, which, v, end);
}

/* One line, s to end (without its line break). */
static int parse_line(struct parser *ps, size_t s, size_t end)
{
    if (check_chars(ps, s, end))
        return -1;
    if (ps->flow.depth > 0) {
        follow_flow(ps, &ps->flow, s, end);
        return 0;
    }
    size_t p = skip_blanks(ps, s, end);
    if (p == end || at(ps, p, end) == '#')
        return 0;
    if (p == s)
        return parse_top(ps, s, end);
    const char *tab = memchr(ps->text + s, '\t', p - s);
    if (tab)
        return FAIL(ps, (size_t)(tab - ps->text),
                    "a tab in the indentation (YAML indents with spaces)");
    if (ps->after == AFTER_OURS)
        return FAIL(ps, p,
                    "this indented line would go on with the value of '%s' "
                    "above: write the value on one line",
                    key_names[ps->after_key]);
    return 0;
}

static void values_free(char **values)
{
    for (int i = 0; i < NKEYS; i++)
        free(values[i]);
}

int mx_registration_parse(const char *text, size_t len, const char *path,
                          struct mx_registration *out, char *err, size_t errlen)
{
    if (!path)
        path = "registration";
    if (len > MX_REGISTRATION_MAX) {
        err_set(err, errlen,
                "%s: larger than 64 KiB, the most a registration file may be",
                path);
        return -1;
    }
    if (!text)
        text = "", len = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        text += 3, len -= 3;
    struct parser ps = {
        .text = text, .len = len, .path = path, .err = err, .errlen = errlen};
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t next = nl ? end + 1 : len;
        if (nl && end > pos && text[end - 1] == '\r')
            end--;
        if (parse_line(&ps, pos, end)) {
            values_free(ps.values);
            return -1;
        }
        pos = next;
    }
    int rc = 0;
    if (ps.flow.depth > 0)
        rc = FAIL(&ps, ps.flow.open, "this list or mapping is not closed");
    for (int i = 0; i < NKEYS && rc == 0; i++)
        if (!ps.values[i] && i != K_URL) {
            err_set(err, errlen,
                    "%s: no '%s' (a registration needs id, as_token, hs_token "
                    "and sender_localpart)",
                    path, key_names[i]);
            rc = -1;
        }
    if (rc == 0 && strcmp(ps.values[K_AS], ps.values[K_HS]) == 0)
        rc = FAIL(&ps, ps.value_pos[K_HS],
                  "'hs_token' is the same as 'as_token': the two must differ "
                  "(each side proves who it is with its own)");
    if (rc) {
        values_free(ps.values);
        return -1;
    }
    out->id = ps.values[K_ID];
    out->url = ps.values[K_URL] ? ps.values[K_URL] : xstrdup("");
    out->as_token = ps.values[K_AS];
    out->hs_token = ps.values[K_HS];
    out->sender_localpart = ps.values[K_LOCALPART];
    return 0;
}

int mx_registration_load(const char *path, struct mx_registration *out,
                         char *err, size_t errlen)
{
    /* non-blocking: a FIFO at the path must not hang the bot */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        err_set(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        err_set(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    char *buf = xrealloc(NULL, MX_REGISTRATION_MAX + 1);
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd, buf + len, MX_REGISTRATION_MAX + 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            err_set(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            close(fd);
            free(buf);
            return -1;
        }
        len += (size_t)r;
        if (r == 0 || len > MX_REGISTRATION_MAX)
            break;
    }
    close(fd);
    int rc = mx_registration_parse(buf, len, path, out, err, errlen);
    memset(buf, 0, len); /* it held the tokens */
    free(buf);
    return rc;
}

void mx_registration_free(struct mx_registration *r)
{
    if (!r)
        return;
    free(r->id);
    free(r->url);
    free(r->as_token);
    free(r->hs_token);
    free(r->sender_localpart);
    memset(r, 0, sizeof *r);
}

/* ---- What fits the config --------------------------------------------- */

int mx_registration_check(const struct mx_registration *r,
                          const struct matrix_config *cfg, char *err,
                          size_t errlen)
{
    const char *local = cfg->user_id + 1;
    const char *colon = strchr(local, ':');
    size_t n = colon ? (size_t)(colon - local) : strlen(local);
    if (strlen(r->sender_localpart) == n &&
        memcmp(r->sender_localpart, local, n) == 0)
        return 0;
    err_set(
        err, errlen,
        "%s: its sender_localpart is \"%s\" but user_id is \"%s\": the bot "
        "acts as the registration's user (make them agree, or remove the "
        "file and write a new one with heartsbot --appservice-registration)",
        cfg->registration, r->sender_localpart, cfg->user_id);
    return -1;
}

void mx_registration_url(const struct matrix_config *cfg, char *out,
                         size_t outlen)
{
    unsigned char a[16];
    static const unsigned char zero[16];
    if (inet_pton(AF_INET6, cfg->listen_host, a) == 1)
        snprintf(out, outlen, "http://[%s]:%d",
                 memcmp(a, zero, 16) ? cfg->listen_host : "::1",
                 cfg->listen_port);
    else
        snprintf(out, outlen, "http://%s:%d",
                 strcmp(cfg->listen_host, "0.0.0.0") ? cfg->listen_host
                                                     : "127.0.0.1",
                 cfg->listen_port);
}

/* ---- Writing ---------------------------------------------------------- */

/* s as a YAML "..." value (the reader's two escapes suffice: the config
 * refuses control characters). */
static void yaml_quoted(struct strbuf *b, const char *s)
{
    strbuf_add(b, "\"", 1);
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            strbuf_add(b, "\\", 1);
        strbuf_add(b, s, 1);
    }
    strbuf_add(b, "\"", 1);
}

char *mx_registration_text(const struct matrix_config *cfg,
                           const char *as_token, const char *hs_token)
{
    struct strbuf b;
    strbuf_init_heap(&b, STRBUF_NO_CAP);
    char line[512];
    snprintf(line, sizeof line,
             "# heartsbot application service registration for [[matrix]] "
             "\"%s\"\n"
             "# Give this file to the homeserver (docs/hosting.md, \"Matrix "
             "as an application service\").\n",
             cfg->name);
    strbuf_addstr(&b, line);
    strbuf_addstr(&b, "id: \"heartsbot-");
    strbuf_addstr(&b,
                  cfg->name); /* letters, digits, - _ . (section_check_name) */
    strbuf_addstr(&b, "\"\nurl: ");
    mx_registration_url(cfg, line, sizeof line);
    yaml_quoted(&b, line);
    strbuf_addstr(&b, "\nas_token: ");
    yaml_quoted(&b, as_token);
    strbuf_addstr(&b, "\nhs_token: ");
    yaml_quoted(&b, hs_token);
    strbuf_addstr(&b, "\nsender_localpart: ");
    const char *local = cfg->user_id + 1;
    size_t n = strcspn(local, ":");
    snprintf(line, sizeof line, "%.*s", (int)n, local);
    yaml_quoted(&b, line);
    strbuf_addstr(&b, "\nrate_limited: false\n"
                      "namespaces:\n"
                      "  users:\n"
                      "    - exclusive: true\n"
                      "      regex: ");
    /* the bot's user ID alone, its regex characters escaped */
    struct strbuf re;
    strbuf_init_heap(&re, STRBUF_NO_CAP);
    strbuf_add(&re, "^", 1);
    for (const char *p = cfg->user_id; *p; p++) {
        if (strchr("\\.^$*+?()[]{}|", *p))
            strbuf_add(&re, "\\", 1);
        strbuf_add(&re, p, 1);
    }
    strbuf_add(&re, "$", 1);
    yaml_quoted(&b, re.buf);
    strbuf_free(&re);
    strbuf_addstr(&b, "\n  aliases: []\n  rooms: []\n");
    return strbuf_take(&b);
}

/* 2 * n hex digits of n random bytes into out (2n + 1 bytes). */
static int random_hex(char *out, size_t n)
{
    unsigned char raw[TOKEN_BYTES];
    size_t got = 0;
    if (n > sizeof raw)
        return -1;
    while (got < n) {
        ssize_t r = getrandom(raw + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[2 * n] = '\0';
    memset(raw, 0, sizeof raw);
    return 0;
}

/* The text into a new file named path + ".tmp-XXXXXX", mode 0640, whole
 * and fsynced; its name into *tmp (freed by the caller, who unlinks it). */
static int write_temp(const char *path, const char *text, char **tmp,
                      const char **what)
{
    size_t n = strlen(path) + sizeof ".tmp-XXXXXX";
    *tmp = xrealloc(NULL, n);
    snprintf(*tmp, n, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(*tmp); /* O_CREAT | O_EXCL, mode 0600 */
    if (fd < 0) {
        *what = "cannot create a file beside it";
        free(*tmp);
        *tmp = NULL;
        return -1;
    }
    /* exactly 0640 whatever the umask: the homeserver's group reads it */
    int rc = -1;
    if (fchmod(fd, 0640))
        *what = "chmod";
    else if (file_write_all(fd, text, strlen(text), &(size_t){0}))
        *what = "write";
    else if (fsync(fd))
        *what = "fsync";
    else
        rc = 0;
    int e = errno;
    if (close(fd) && rc == 0) {
        *what = "close";
        return -1;
    }
    errno = e;
    return rc;
}

int mx_registration_write(const struct matrix_config *cfg, char *err,
                          size_t errlen)
{
    const char *path = cfg->registration;
    struct stat st;
    /* anything there, a dangling link too, is the operator's: kept */
    if (lstat(path, &st) == 0)
        return MX_REGISTRATION_EXISTS;
    if (errno != ENOENT) {
        err_set(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char as[2 * TOKEN_BYTES + 1], hs[2 * TOKEN_BYTES + 1];
    if (random_hex(as, TOKEN_BYTES) || random_hex(hs, TOKEN_BYTES)) {
        err_set(err, errlen, "%s: getrandom: %s", path, strerror(errno));
        return -1;
    }
    char *text = mx_registration_text(cfg, as, hs);
    memset(as, 0, sizeof as);
    memset(hs, 0, sizeof hs);
    char *tmp = NULL;
    const char *what = NULL;
    int rc = write_temp(path, text, &tmp, &what);
    memset(text, 0, strlen(text));
    free(text);
    if (rc == 0 && link(tmp, path)) {
        rc = errno == EEXIST ? MX_REGISTRATION_EXISTS : -1;
        what = "link";
    }
    int e = errno;
    if (tmp)
        unlink(tmp);
    free(tmp);
    if (rc == -1) {
        err_set(err, errlen, "%s: %s: %s (nothing written)", path, what,
                strerror(e));
        return -1;
    }
    if (rc == 0 && file_sync_dir(path, NULL, 0)) {
        err_set(err, errlen,
                "%s: written, but its directory could not be "
                "synced: %s",
                path, strerror(errno));
        return -1;
    }
    return rc;
}
