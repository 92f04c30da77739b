/*
 * The TOML subset reader (toml.h): one pass over the text, telling a
 * visitor each header, key and value as it is read.
 */
#include "bot/common/toml.h"
#include "bot/common/strbuf.h"
#include "bot/common/utf8.h"
#include "bot/common/textpos.h"
#include "bot/common/xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct toml_reader {
    const char *text;
    size_t len;
    size_t pos;
    const char *path;
    char *err;
    size_t errlen;
    const struct toml_visitor *vis;
    void *ctx;
    /* toml_read_all: where each refusal of the visitor goes, the read
     * going on; NULL: the first refusal ends the read */
    toml_problem_fn problem;
    void *problem_ctx;
    int problems;
};

/* A refusal of the visitor (its message in r->err): the end of the read,
 * or, when reading on (toml_read_all), passed on and forgotten: 0. */
static int refused(struct toml_reader *r)
{
    if (!r->problem)
        return -1;
    r->problems++;
    r->problem(r->problem_ctx, r->err);
    if (r->errlen)
        r->err[0] = '\0';
    return 0;
}

void toml_fail(struct toml_reader *r, size_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    textpos_vfail(r->err, r->errlen, r->path, r->text, r->len, pos, fmt, ap);
    va_end(ap);
}

int toml_line(const struct toml_reader *r, size_t pos)
{
    int line, col;
    textpos_where(r->text, r->len, pos, &line, &col);
    return line;
}

const char *toml_path(const struct toml_reader *r)
{
    return r->path;
}

const char *toml_type_name(enum toml_type type)
{
    static const char *const names[] = {"a string", "an integer", "a boolean",
                                        "an array"};
    return names[type];
}

void toml_value_free(struct toml_value *v)
{
    free(v->s);
    for (int k = 0; k < v->n; k++)
        free(v->items[k].s);
    free(v->items);
    memset(v, 0, sizeof *v);
}

static bool is_alnum(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9');
}

static bool is_control(int ch)
{
    return (ch >= 0 && ch < 0x20) || ch == 0x7f;
}

/* The whole text is checked to be UTF-8 (as TOML requires) up front
 * (utf8_valid: overlong forms, surrogates and values past U+10FFFF are
 * refused as RFC 3629 says), so the lexer and the column count can treat
 * bytes >= 0x80 as parts of valid characters. */

/* ---- Lexing ----------------------------------------------------------- */

static int peek(const struct toml_reader *r, size_t off)
{
    size_t p = r->pos + off;
    return p < r->len ? (unsigned char)r->text[p] : -1;
}

/* 1 for LF, 2 for CRLF, else 0: a lone CR is not a line end. */
static size_t newline_len(const struct toml_reader *r)
{
    if (peek(r, 0) == '\n')
        return 1;
    if (peek(r, 0) == '\r' && peek(r, 1) == '\n')
        return 2;
    return 0;
}

static void skip_ws(struct toml_reader *r)
{
    while (peek(r, 0) == ' ' || peek(r, 0) == '\t')
        r->pos++;
}

static size_t bare_len(const struct toml_reader *r)
{
    size_t n = 0;
    while (is_alnum(peek(r, n)) || peek(r, n) == '_' || peek(r, n) == '-')
        n++;
    return n;
}

/* Names the character at the cursor for a message. */
static void describe(const struct toml_reader *r, char *buf, size_t len)
{
    int ch = peek(r, 0);
    if (ch < 0)
        snprintf(buf, len, "end of file");
    else if (ch == '\r')
        snprintf(buf, len, "carriage return without a line feed");
    else if (is_control(ch))
        snprintf(buf, len, "control character 0x%02X", (unsigned)ch);
    else if (ch >= 0x80)
        snprintf(buf, len, "non-ASCII character");
    else
        snprintf(buf, len, "'%c'", ch);
}

/* A comment runs to the end of the line; TOML allows no control
 * characters in it but tab. */
static int skip_comment(struct toml_reader *r)
{
    if (peek(r, 0) != '#')
        return 0;
    while (r->pos < r->len && !newline_len(r)) {
        int ch = peek(r, 0);
        if (is_control(ch) && ch != '\t') {
            char what[48];
            describe(r, what, sizeof what);
            return TOML_FAIL(r, r->pos, "%s in a comment", what);
        }
        r->pos++;
    }
    return 0;
}

/* After a value or a header: blanks, maybe a comment, the end of line. */
static int end_line(struct toml_reader *r, const char *after)
{
    skip_ws(r);
    if (skip_comment(r))
        return -1;
    if (r->pos >= r->len)
        return 0;
    size_t n = newline_len(r);
    if (!n) {
        char what[48];
        describe(r, what, sizeof what);
        return TOML_FAIL(
            r, r->pos,
            "unexpected %s after %s (only a # comment may follow it)", what,
            after);
    }
    r->pos += n;
    return 0;
}

/* Blanks, line ends and comments: what may sit between array items. */
static int skip_blanks(struct toml_reader *r)
{
    for (;;) {
        skip_ws(r);
        if (skip_comment(r))
            return -1;
        size_t n = newline_len(r);
        if (!n)
            return 0;
        r->pos += n;
    }
}

static int hex_value(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* One escape at the cursor (a backslash), appended to b. */
static int parse_escape(struct toml_reader *r, struct strbuf *b)
{
    static const char from[] = "btnfr\"\\";
    static const char to[] = "\b\t\n\f\r\"\\";
    size_t at = r->pos;
    int e = peek(r, 1);
    const char *hit = e > 0 ? strchr(from, e) : NULL;
    if (hit) {
        strbuf_addc(b, to[hit - from]);
        r->pos += 2;
        return 0;
    }
    if (e != 'u' && e != 'U') {
        if (e > ' ' && e < 0x7f)
            return TOML_FAIL(
                r, at,
                "invalid escape '\\%c' (TOML has \\\" \\\\ \\b \\t "
                "\\n \\f \\r \\uXXXX \\UXXXXXXXX)",
                e);
        return TOML_FAIL(r, at, "a backslash must start an escape such as \\n");
    }
    int digits = e == 'u' ? 4 : 8;
    uint32_t cp = 0;
    for (int k = 0; k < digits; k++) {
        int d = hex_value(peek(r, 2 + (size_t)k));
        if (d < 0)
            return TOML_FAIL(r, at, "'\\%c' needs %d hex digits", e, digits);
        cp = cp << 4 | (uint32_t)d;
    }
    if (cp == 0)
        return TOML_FAIL(r, at, "a string may not contain NUL (\\u0000)");
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return TOML_FAIL(r, at, "'\\%c%.*s' is not a Unicode scalar value", e,
                         digits, r->text + at + 2);
    char u[UTF8_MAX];
    strbuf_add(b, u, utf8_encode(cp, u));
    r->pos += 2 + (size_t)digits;
    return 0;
}

/* A basic string "..." at the cursor. */
static int parse_string(struct toml_reader *r, struct toml_value *v)
{
    size_t start = r->pos;
    if (peek(r, 1) == '"' && peek(r, 2) == '"')
        return TOML_FAIL(r, start,
                         "multi-line strings (\"\"\") are not supported");
    r->pos++;
    struct strbuf b;
    strbuf_init_heap(&b, STRBUF_NO_CAP);
    for (;;) {
        int ch = peek(r, 0);
        if (ch < 0 || newline_len(r)) {
            strbuf_free(&b);
            return TOML_FAIL(
                r, start,
                "string not closed: the closing '\"' is missing on "
                "this line");
        }
        if (ch == '"')
            break;
        if (ch == '\\') {
            if (parse_escape(r, &b)) {
                strbuf_free(&b);
                return -1;
            }
            continue;
        }
        if (is_control(ch) && ch != '\t') {
            char what[48];
            describe(r, what, sizeof what);
            strbuf_free(&b);
            return TOML_FAIL(r, r->pos,
                             "%s in a string (write it as an escape)", what);
        }
        strbuf_addc(&b, r->text[r->pos]);
        r->pos++;
    }
    r->pos++;
    v->type = TOML_STRING;
    v->pos = start;
    v->s = strbuf_take(&b);
    return 0;
}

static bool word_is(const char *w, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(w, s, n) == 0;
}

static bool word_has(const char *w, size_t n, const char *chars)
{
    for (size_t i = 0; i < n; i++)
        if (strchr(chars, w[i]))
            return true;
    return false;
}

static const char no_value[] = "expected a value: a \"string\", an integer, "
                               "true, false or an array of strings";

/* A bare value at the cursor: true, false or a decimal integer (TOML's
 * other bare values, floats and dates, are named and refused). */
static int parse_word(struct toml_reader *r, struct toml_value *v)
{
    size_t start = r->pos, end = start;
    while (end < r->len && r->text[end] &&
           (is_alnum((unsigned char)r->text[end]) ||
            strchr("_+-.:", r->text[end])))
        end++;
    const char *w = r->text + start;
    size_t n = end - start;
    if (word_is(w, n, "true") || word_is(w, n, "false")) {
        v->type = TOML_BOOL;
        v->pos = start;
        v->b = w[0] == 't';
        r->pos = end;
        return 0;
    }
    bool neg = n > 0 && w[0] == '-';
    size_t sign = n > 0 && (w[0] == '-' || w[0] == '+') ? 1 : 0;
    const char *d = w + sign;
    size_t nd = n - sign;
    if (word_is(d, nd, "inf") || word_is(d, nd, "nan"))
        return TOML_FAIL(r, start, "floats are not supported");
    if (nd == 0 || d[0] < '0' || d[0] > '9') {
        if (n > 0 && is_alnum((unsigned char)w[0]))
            return TOML_FAIL(r, start, "%s (strings need double quotes)",
                             no_value);
        return TOML_FAIL(r, start, "%s", no_value);
    }
    if (!sign && nd > 1 && d[0] == '0' && strchr("xob", d[1]))
        return TOML_FAIL(r, start,
                         "hexadecimal, octal and binary integers are not "
                         "supported: write it in decimal");
    if (word_has(d, nd, "-:"))
        return TOML_FAIL(r, start, "dates and times are not supported");
    if (word_has(d, nd, ".eE"))
        return TOML_FAIL(r, start, "floats are not supported");
    if (nd > 1 && d[0] == '0')
        return TOML_FAIL(r, start, "leading zeros are not allowed");
    /* the magnitude, against 2^63 (the most a negative may reach) */
    const unsigned long long limit = (unsigned long long)INT64_MAX + 1;
    unsigned long long m = 0;
    for (size_t i = 0; i < nd; i++) {
        char ch = d[i];
        if (ch == '_') {
            if (i == 0 || i + 1 == nd || d[i - 1] == '_' || d[i + 1] == '_')
                return TOML_FAIL(r, start + sign + i,
                                 "'_' in an integer must sit between digits");
            continue;
        }
        if (ch < '0' || ch > '9')
            return TOML_FAIL(r, start + sign + i, "invalid integer");
        unsigned digit = (unsigned)(ch - '0');
        if (m > (limit - digit) / 10)
            return TOML_FAIL(r, start, "integer too large (over 64 bits)");
        m = m * 10 + digit;
    }
    if (!neg && m == limit)
        return TOML_FAIL(r, start, "integer too large (over 64 bits)");
    v->type = TOML_INT;
    v->pos = start;
    v->i = neg ? (m == limit ? INT64_MIN : -(long long)m) : (long long)m;
    r->pos = end;
    return 0;
}

/* A value at the cursor, not an array (arrays do not nest here). */
static int parse_scalar(struct toml_reader *r, struct toml_value *v)
{
    switch (peek(r, 0)) {
    case '"':
        return parse_string(r, v);
    case '\'':
        return TOML_FAIL(r, r->pos,
                         "literal strings ('...') are not supported: use "
                         "\"...\"");
    case '{':
        return TOML_FAIL(r, r->pos, "inline tables ({...}) are not supported");
    default:
        return parse_word(r, v);
    }
}

/* ["a", "b"]: items on any number of lines, with comments between them
 * and a trailing comma allowed. */
static int parse_array(struct toml_reader *r, struct toml_value *v)
{
    size_t open = r->pos;
    struct toml_value a = {.type = TOML_ARRAY, .pos = open};
    int cap = 0;
    r->pos++;
    for (;;) {
        if (skip_blanks(r))
            goto bad;
        int ch = peek(r, 0);
        if (ch < 0) {
            toml_fail(r, open, "array not closed: ']' is missing");
            goto bad;
        }
        if (ch == ']')
            break;
        if (ch == '[') {
            toml_fail(
                r, r->pos,
                "expected a \"string\" or ']' in the array opened at line "
                "%d (arrays hold only strings)",
                toml_line(r, open));
            goto bad;
        }
        struct toml_value item = {0};
        if (parse_scalar(r, &item))
            goto bad;
        if (item.type != TOML_STRING) {
            toml_fail(r, item.pos, "arrays hold only strings, not %s",
                      toml_type_name(item.type));
            toml_value_free(&item);
            goto bad;
        }
        if (a.n == cap) {
            cap = cap ? cap * 2 : 4;
            a.items = xrealloc(a.items, (size_t)cap * sizeof *a.items);
        }
        a.items[a.n++] = item;
        if (skip_blanks(r))
            goto bad;
        ch = peek(r, 0);
        if (ch == ',') {
            r->pos++;
            continue;
        }
        if (ch == ']')
            break;
        if (ch < 0)
            toml_fail(r, open, "array not closed: ']' is missing");
        else
            toml_fail(r, r->pos,
                      "expected ',' or ']' in the array opened at line %d",
                      toml_line(r, open));
        goto bad;
    }
    r->pos++;
    *v = a;
    return 0;
bad:
    toml_value_free(&a);
    return -1;
}

/* ---- Headers and keys ------------------------------------------------- */

/* [name] or [[name]] at the cursor. */
static int parse_header(struct toml_reader *r)
{
    if (r->vis->table_end(r->ctx, r) && refused(r))
        return -1;
    size_t start = r->pos;
    bool array = peek(r, 1) == '[';
    r->pos += array ? 2 : 1;
    skip_ws(r);
    size_t name_pos = r->pos;
    size_t n = bare_len(r);
    if (n == 0) {
        int ch = peek(r, 0);
        if (ch == '"' || ch == '\'')
            return TOML_FAIL(r, r->pos, "quoted table names are not supported");
        return TOML_FAIL(r, r->pos, "expected a table name after '%s'",
                         array ? "[[" : "[");
    }
    r->pos += n;
    skip_ws(r);
    if (peek(r, 0) == '.')
        return TOML_FAIL(r, r->pos,
                         "dotted table names ([a.b]) are not supported");
    if (peek(r, 0) != ']' || (array && peek(r, 1) != ']'))
        return TOML_FAIL(r, r->pos, "expected '%s' to close the table header",
                         array ? "]]" : "]");
    r->pos += array ? 2 : 1;
    if (r->vis->table(r->ctx, r, r->text + name_pos, n, array, start,
                      name_pos) &&
        refused(r))
        return -1;
    return end_line(r, "the table header");
}

/* key = value at the cursor. */
static int parse_keyval(struct toml_reader *r)
{
    size_t kpos = r->pos;
    size_t n = bare_len(r);
    if (n == 0) {
        int ch = peek(r, 0);
        if (ch == '"' || ch == '\'')
            return TOML_FAIL(r, kpos, "quoted keys are not supported");
        if (ch == '=')
            return TOML_FAIL(r, kpos, "a key is missing before '='");
        char what[48];
        describe(r, what, sizeof what);
        return TOML_FAIL(r, kpos,
                         "unexpected %s: expected a key, a [table] header or "
                         "a comment",
                         what);
    }
    r->pos += n;
    skip_ws(r);
    if (peek(r, 0) == '.')
        return TOML_FAIL(r, r->pos,
                         "dotted keys (a.b = ...) are not supported");
    if (peek(r, 0) != '=')
        return TOML_FAIL(r, r->pos, "expected '=' after the key '%.*s'",
                         n > 40 ? 40 : (int)n, r->text + kpos);
    r->pos++;
    /* a key refused while reading on: its value is read, and dropped */
    bool take = true;
    if (r->vis->key(r->ctx, r, r->text + kpos, n, kpos)) {
        if (refused(r))
            return -1;
        take = false;
    }
    skip_ws(r);
    if (r->pos >= r->len || newline_len(r) || peek(r, 0) == '#')
        return TOML_FAIL(r, r->pos, "missing value after '='");
    struct toml_value v = {0};
    int rc = peek(r, 0) == '[' ? parse_array(r, &v) : parse_scalar(r, &v);
    if (rc == 0 && take && r->vis->value(r->ctx, r, &v))
        rc = refused(r);
    toml_value_free(&v);
    if (rc)
        return -1;
    return end_line(r, "the value");
}

static int parse_all(struct toml_reader *r)
{
    while (r->pos < r->len) {
        skip_ws(r);
        size_t n = newline_len(r);
        if (n) {
            r->pos += n;
            continue;
        }
        int ch = peek(r, 0);
        int rc = 0;
        if (ch < 0)
            break;
        else if (ch == '#')
            rc = skip_comment(r);
        else if (ch == '[')
            rc = parse_header(r);
        else
            rc = parse_keyval(r);
        if (rc)
            return -1;
    }
    if (r->vis->table_end(r->ctx, r) && refused(r))
        return -1;
    return 0;
}

int toml_read_all(const char *text, size_t len, const char *path,
                  const struct toml_visitor *vis, void *ctx,
                  toml_problem_fn problem, void *problem_ctx, int *problems,
                  char *err, size_t errlen)
{
    if (text && len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        text += 3, len -= 3;
    struct toml_reader r = {.text = text ? text : "",
                            .len = text ? len : 0,
                            .path = path,
                            .err = err,
                            .errlen = errlen,
                            .vis = vis,
                            .ctx = ctx,
                            .problem = problem,
                            .problem_ctx = problem_ctx};
    size_t bad;
    int rc = utf8_valid(r.text, r.len, &bad)
                 ? parse_all(&r)
                 : TOML_FAIL(&r, bad, "invalid UTF-8");
    *problems = r.problems;
    return rc;
}

int toml_read(const char *text, size_t len, const char *path,
              const struct toml_visitor *vis, void *ctx, char *err,
              size_t errlen)
{
    int problems;
    return toml_read_all(text, len, path, vis, ctx, NULL, NULL, &problems, err,
                         errlen);
}
