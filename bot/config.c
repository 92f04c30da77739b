/*
 * The bot's configuration (config.h): a small strict reader of the TOML
 * subset config.example.toml documents, and the checks of every value.
 *
 * Debian packages no C TOML reader and we vendor nothing, so this is one
 * pass over the text driven by the schema: a `[table]` or `[[irc]]` header
 * picks the table, and each `key = value` is resolved against that table's
 * keys, lexed into a value (string, integer, boolean or array of strings),
 * type- and range-checked and stored. What TOML has beyond the subset
 * (floats, dates, inline tables, literal and multi-line strings, dotted and
 * quoted keys) is refused by name rather than misread, so a file read here
 * means the same to any TOML reader. An error names the file, line and
 * column of the offending character; the config is built in a local struct
 * and copied out only when the whole file has passed, so a refused file
 * (a bad edit before SIGHUP, say) changes nothing.
 */
#include "bot/config.h"
#include "engine/ai/ai.h"
#include "engine/engine.h"
#include "bot/common/textpos.h"
#include "bot/think.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* A config is a page of text; the cap keeps a wrong path (a log, a disk
 * image) from being read whole. */
#define CONFIG_MAX_BYTES (1024 * 1024)
#define MSG 256 /* an engine message */
/* Far more than a bot joins, and the caps keep the checks for duplicate
 * names (quadratic, on a list this short) fast on any file. */
#define CONFIG_MAX_IRC 64
#define CONFIG_MAX_CHANNELS 256
#define CONFIG_MAX_MATRIX 64

/* ---- Small helpers ---------------------------------------------------- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        abort();
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        abort();
    return p;
}

static char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

static void say(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
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

static bool has_control(const char *s)
{
    for (; *s; s++)
        if (is_control((unsigned char)*s))
            return true;
    return false;
}

/* Edit distance for naming the nearest valid key or table: the engine's,
 * case-sensitive as TOML keys are. */
static int distance(const char *a, size_t la, const char *b)
{
    return engine_word_distance(a, la, b, false);
}

/* Checks the whole text is UTF-8 (as TOML requires) up front, so the
 * lexer and the column count can treat bytes >= 0x80 as parts of valid
 * characters. Overlong forms, surrogates and values past U+10FFFF are
 * refused as RFC 3629 says. */
static bool utf8_valid(const unsigned char *s, size_t len, size_t *bad)
{
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            n = 1, cp = c & 0x1f, min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2, cp = c & 0x0f, min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3, cp = c & 0x07, min = 0x10000;
        } else {
            *bad = i;
            return false;
        }
        if (len - i <= n) {
            *bad = i;
            return false;
        }
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xc0) != 0x80) {
                *bad = i;
                return false;
            }
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            *bad = i;
            return false;
        }
        i += n + 1;
    }
    return true;
}

/* ---- Values ----------------------------------------------------------- */

enum vtype { V_STRING, V_INT, V_BOOL, V_ARRAY };

/* What "must be ..." says, and what "not ..." says, per type. */
static const char *const want_name[] = {"a string", "an integer",
                                        "true or false", "an array of strings"};
static const char *const got_name[] = {"a string", "an integer", "a boolean",
                                       "an array"};

struct value {
    enum vtype type;
    size_t pos; /* of its first character, for messages */
    char *s;
    long long i;
    bool b;
    struct value *items; /* V_ARRAY: strings */
    int n;
};

static void value_free(struct value *v)
{
    free(v->s);
    for (int k = 0; k < v->n; k++)
        free(v->items[k].s);
    free(v->items);
    memset(v, 0, sizeof *v);
}

/* A growing string. */
struct buf {
    char *p;
    size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = b->cap ? b->cap * 2 : 32;
        if (b->cap < b->len + n)
            b->cap = b->len + n;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void buf_utf8(struct buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | cp >> 6), n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | cp >> 12), n = 3;
    } else {
        u[0] = (char)(0xf0 | cp >> 18), n = 4;
    }
    for (size_t k = 1; k < n; k++)
        u[k] = (char)(0x80 | ((cp >> (6 * (n - 1 - k))) & 0x3f));
    buf_add(b, u, n);
}

/* ---- The schema ------------------------------------------------------- */

enum table { TAB_ROOT, TAB_BOT, TAB_GAME, TAB_IRC, TAB_MATRIX };

struct parser;
struct key_def;

/* Checks a string value beyond its type; for arrays, checks and stores. */
typedef int (*config_check_fn)(struct parser *ps, const struct key_def *k,
                               struct value *v);

struct key_def {
    const char *name;
    enum vtype type;
    size_t off; /* into struct config ([bot], [game]) or struct config_irc */
    int min, max;
    config_check_fn check;
};

/* The off of a string key whose check stores what it means itself. */
#define NO_FIELD ((size_t)-1)

#define MAX_KEYS 32

struct parser {
    const char *text;
    size_t len;
    size_t pos;
    const char *path;
    char *err;
    size_t errlen;
    struct config *c;
    enum table table;
    size_t table_pos;         /* of the current header */
    bool key_set[MAX_KEYS];   /* keys of the current table set so far */
    size_t key_pos[MAX_KEYS]; /* and where */
    bool have_bot, have_game;
    size_t bot_pos, game_pos;
};

static int line_of(const struct parser *ps, size_t pos)
{
    int line, col;
    textpos_where(ps->text, ps->len, pos, &line, &col);
    return line;
}

static void fail_at(struct parser *ps, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes "PATH:LINE:COL: message" to the error buffer. */
static void fail_at(struct parser *ps, size_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    textpos_vfail(ps->err, ps->errlen, ps->path, ps->text, ps->len, pos, fmt,
                  ap);
    va_end(ap);
}

/* The message, then -1 in plain sight: the static analyzer does not follow
 * variadic calls, and a -1 it cannot see makes it walk error paths as if
 * they had succeeded. */
#define FAIL(...) (fail_at(__VA_ARGS__), -1)

/* ---- Checks of string values ------------------------------------------ */

static int check_nonempty(struct parser *ps, const struct key_def *k,
                          struct value *v)
{
    if (!*v->s)
        return FAIL(ps, v->pos, "'%s' is empty", k->name);
    return 0;
}

static int check_log_level(struct parser *ps, const struct key_def *k,
                           struct value *v)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(v->s, names[i]) == 0)
            return 0;
    return FAIL(ps, v->pos, "'%s' must be error, warn, info or debug", k->name);
}

static int check_prefix(struct parser *ps, const struct key_def *k,
                        struct value *v)
{
    size_t n = strlen(v->s);
    if (n < 1 || n > 8)
        return FAIL(ps, v->pos, "'%s' must be 1 to 8 characters", k->name);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v->s[i] <= ' ' || (unsigned char)v->s[i] > '~')
            return FAIL(ps, v->pos,
                        "'%s' must be printable ASCII without spaces", k->name);
    return 0;
}

/* Rules are checked by the engine that will use them; its message names
 * the option and the nearest valid word. */
static int check_rules_text(struct parser *ps, size_t pos, const char *what,
                            const char *text)
{
    struct engine_rules r;
    char msg[MSG];
    if (engine_rules_parse(&r, text, 0, msg, sizeof msg))
        return FAIL(ps, pos, "%s: %s", what, msg);
    return 0;
}

static int check_rules(struct parser *ps, const struct key_def *k,
                       struct value *v)
{
    char what[64];
    snprintf(what, sizeof what, "'%s'", k->name);
    return check_rules_text(ps, v->pos, what, v->s);
}

static int check_level(struct parser *ps, const struct key_def *k,
                       struct value *v)
{
    if (ai_level_find(v->s) >= 0)
        return 0;
    char all[128] = "";
    size_t n = 0;
    for (int i = 0; ai_level_name(i) && n < sizeof all; i++)
        n += (size_t)snprintf(all + n, sizeof all - n, "%s%s", i ? ", " : "",
                              ai_level_name(i));
    return FAIL(ps, v->pos, "'%s' must be a computer level: %s", k->name, all);
}

static int check_irc_name(struct parser *ps, const struct key_def *k,
                          struct value *v)
{
    size_t n = strlen(v->s);
    if (n == 0)
        return FAIL(ps, v->pos, "'%s' is empty", k->name);
    /* it names the network in logs and in leaderboard files */
    if (n > 32)
        return FAIL(ps, v->pos, "'%s' is longer than 32 characters", k->name);
    for (size_t i = 0; i < n; i++) {
        int ch = (unsigned char)v->s[i];
        if (!is_alnum(ch) && ch != '-' && ch != '_' && ch != '.')
            return FAIL(ps, v->pos,
                        "'%s' may hold only letters, digits, '-', '_' and "
                        "'.'",
                        k->name);
    }
    if (v->s[0] == '.')
        return FAIL(ps, v->pos, "'%s' may not start with '.'", k->name);
    /* one namespace for both kinds: it names the network's files */
    int nirc = ps->c->nirc - (ps->table == TAB_IRC);
    int nmx = ps->c->nmatrix - (ps->table == TAB_MATRIX);
    for (int i = 0; i < nirc; i++)
        if (ps->c->irc[i].name && strcasecmp(ps->c->irc[i].name, v->s) == 0)
            return FAIL(ps, v->pos, "another [[irc]] is already named '%s'",
                        v->s);
    for (int i = 0; i < nmx; i++)
        if (ps->c->matrix[i].name &&
            strcasecmp(ps->c->matrix[i].name, v->s) == 0)
            return FAIL(ps, v->pos, "another [[matrix]] is already named '%s'",
                        v->s);
    return 0;
}

/* Host, nick and username are single IRC words. */
static int check_word(struct parser *ps, const struct key_def *k,
                      struct value *v)
{
    if (!*v->s)
        return FAIL(ps, v->pos, "'%s' is empty", k->name);
    if (strchr(v->s, ' '))
        return FAIL(ps, v->pos, "'%s' contains a space", k->name);
    return 0;
}

static int check_nick(struct parser *ps, const struct key_def *k,
                      struct value *v)
{
    if (check_word(ps, k, v))
        return -1;
    if (strlen(v->s) > 30)
        return FAIL(ps, v->pos, "'%s' is longer than 30 bytes", k->name);
    /* '%' is the half-operator prefix in NAMES: servers refuse it in a
     * nick, so a nick with it would never be taken */
    if (strchr(v->s, '%'))
        return FAIL(ps, v->pos,
                    "'%s' contains '%%', the half-operator prefix, which IRC "
                    "servers refuse in a nick",
                    k->name);
    return 0;
}

/* Any '%' is fine: the bot writes its own lines (connection.c) and
 * libircclient never formats them. */
static int check_password(struct parser *ps, const struct key_def *k,
                          struct value *v)
{
    /* PASS and IDENTIFY take one word: a server would cut it there */
    if (strchr(v->s, ' '))
        return FAIL(ps, v->pos, "'%s' contains a space", k->name);
    return 0;
}

/* A file's path: "" (none) or a path without control characters. */
static int check_path(struct parser *ps, const struct key_def *k,
                      struct value *v)
{
    if (has_control(v->s))
        return FAIL(ps, v->pos, "'%s' contains a control character", k->name);
    if (strlen(v->s) > 1024)
        return FAIL(ps, v->pos, "'%s' is longer than 1024 bytes", k->name);
    return 0;
}

static int check_sasl(struct parser *ps, const struct key_def *k,
                      struct value *v)
{
    static const char *const names[] = {"none", "plain", "external"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(v->s, names[i]) == 0)
            return 0;
    return FAIL(ps, v->pos, "'%s' must be none, plain or external", k->name);
}

/* SASL PLAIN's names and password: any text but NUL (its separator) and
 * control characters, at most 300 bytes (the base64 of the three fits a
 * few AUTHENTICATE lines). */
static int check_sasl_word(struct parser *ps, const struct key_def *k,
                           struct value *v)
{
    if (has_control(v->s))
        return FAIL(ps, v->pos, "'%s' contains a control character", k->name);
    if (strlen(v->s) > 300)
        return FAIL(ps, v->pos, "'%s' is longer than 300 bytes", k->name);
    return 0;
}

/* ---- Checks and storing of arrays ------------------------------------- */

static int store_admins(struct parser *ps, const struct key_def *k,
                        struct value *v)
{
    for (int i = 0; i < v->n; i++) {
        const struct value *it = &v->items[i];
        if (!*it->s)
            return FAIL(ps, it->pos, "an entry of '%s' is empty", k->name);
        if (has_control(it->s))
            return FAIL(ps, it->pos,
                        "an entry of '%s' contains a control character",
                        k->name);
        if (strchr(it->s, ' '))
            return FAIL(ps, it->pos, "an entry of '%s' contains a space",
                        k->name);
    }
    struct config *c = ps->c;
    if (v->n) {
        c->admins = xmalloc((size_t)v->n * sizeof *c->admins);
        for (int i = 0; i < v->n; i++) {
            c->admins[i] = v->items[i].s;
            v->items[i].s = NULL;
        }
    }
    c->nadmins = v->n;
    return 0;
}

/* The rest of a channels or rooms entry: the name is its first n bytes,
 * then optional rules, checked. */
static int entry_rules(struct parser *ps, const struct value *it, size_t n,
                       struct config_channel *out)
{
    const char *s = it->s;
    int shown = n > 50 ? 50 : (int)n;
    const char *rules = s + n;
    while (*rules == ' ')
        rules++;
    size_t rlen = strlen(rules);
    while (rlen && rules[rlen - 1] == ' ')
        rlen--;
    char *r = rlen ? xstrndup(rules, rlen) : NULL;
    if (r) {
        char what[80];
        snprintf(what, sizeof what, "the rules of %.*s", shown, s);
        if (check_rules_text(ps, it->pos, what, r)) {
            free(r);
            return -1;
        }
    }
    out->name = xstrndup(s, n);
    out->rules = r;
    return 0;
}

/* One entry of channels: "#chan" or "#chan RULES", checked against the
 * entries before it. */
static int channel_parse(struct parser *ps, const struct value *it,
                         const struct config_channel *prev, int nprev,
                         struct config_channel *out)
{
    const char *s = it->s;
    if (has_control(s))
        return FAIL(ps, it->pos,
                    "an entry of 'channels' contains a control character");
    size_t n = strcspn(s, " ");
    int shown = n > 50 ? 50 : (int)n;
    if (n == 0)
        return FAIL(ps, it->pos,
                    "an entry of 'channels' must start with the channel name "
                    "(\"#channel\" or \"#channel RULES\")");
    if (s[0] != '#' && s[0] != '&')
        return FAIL(ps, it->pos, "channel '%.*s' must start with # or &", shown,
                    s);
    if (n == 1)
        return FAIL(ps, it->pos, "channel '%c' has no name after it", s[0]);
    if (n > 50)
        return FAIL(ps, it->pos,
                    "channel name '%.*s...' is longer than 50 bytes", shown, s);
    if (memchr(s, ',', n))
        return FAIL(ps, it->pos, "channel '%.*s' contains a ','", shown, s);
    /* IRC channel names ignore case */
    for (int j = 0; j < nprev; j++)
        if (strlen(prev[j].name) == n && strncasecmp(prev[j].name, s, n) == 0)
            return FAIL(ps, it->pos, "channel '%.*s' is listed twice", shown,
                        s);
    return entry_rules(ps, it, n, out);
}

typedef int (*entry_parse_fn)(struct parser *ps, const struct value *it,
                              const struct config_channel *prev, int nprev,
                              struct config_channel *out);

/* Parses every entry of an array of channels or rooms into *out. */
static int entries_parse(struct parser *ps, struct value *v,
                         entry_parse_fn parse, const char *what,
                         struct config_channel **out, int *nout)
{
    struct config_channel *ch = NULL;
    int n = 0;
    if (v->n)
        ch = xmalloc(
            (size_t)(v->n < CONFIG_MAX_CHANNELS ? v->n : CONFIG_MAX_CHANNELS) *
            sizeof *ch);
    for (int i = 0; i < v->n; i++) {
        struct config_channel one = {NULL, NULL};
        int rc =
            i < CONFIG_MAX_CHANNELS
                ? parse(ps, &v->items[i], ch, n, &one)
                : FAIL(ps, v->items[i].pos, "more than %d %s on one network",
                       CONFIG_MAX_CHANNELS, what);
        if (rc) {
            for (int j = 0; j < n; j++) {
                free(ch[j].name);
                free(ch[j].rules);
            }
            free(ch);
            return -1;
        }
        ch[n++] = one;
    }
    *out = ch;
    *nout = n;
    return 0;
}

static int store_channels(struct parser *ps, const struct key_def *k,
                          struct value *v)
{
    (void)k;
    struct config_irc *irc = &ps->c->irc[ps->c->nirc - 1];
    return entries_parse(ps, v, channel_parse, "channels", &irc->channels,
                         &irc->nchannels);
}

/* One entry of rooms: "!id:server" or "#alias:server", then rules if
 * any. Matrix IDs and aliases are compared exactly. */
static int room_parse(struct parser *ps, const struct value *it,
                      const struct config_channel *prev, int nprev,
                      struct config_channel *out)
{
    const char *s = it->s;
    if (has_control(s))
        return FAIL(ps, it->pos,
                    "an entry of 'rooms' contains a control character");
    size_t n = strcspn(s, " ");
    int shown = n > 50 ? 50 : (int)n;
    if (n == 0 || (s[0] != '!' && s[0] != '#'))
        return FAIL(ps, it->pos,
                    "an entry of 'rooms' must start with a room ID "
                    "(\"!id:server\") or an alias (\"#room:server\")");
    const char *colon = memchr(s, ':', n);
    if (n > 255)
        return FAIL(ps, it->pos, "room '%.*s...' is longer than 255 bytes",
                    shown, s);
    if (!colon || colon == s + 1 || colon == s + n - 1)
        return FAIL(ps, it->pos, "room '%.*s' must be written '%cname:server'",
                    shown, s, s[0]);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x7f)
            return FAIL(ps, it->pos,
                        "room '%.*s' must be ASCII (write the room ID)", shown,
                        s);
    for (int j = 0; j < nprev; j++)
        if (strlen(prev[j].name) == n && strncmp(prev[j].name, s, n) == 0)
            return FAIL(ps, it->pos, "room '%.*s' is listed twice", shown, s);
    return entry_rules(ps, it, n, out);
}

static int store_rooms(struct parser *ps, const struct key_def *k,
                       struct value *v)
{
    (void)k;
    struct config_matrix *mx = &ps->c->matrix[ps->c->nmatrix - 1];
    return entries_parse(ps, v, room_parse, "rooms", &mx->rooms, &mx->nrooms);
}

static int check_homeserver(struct parser *ps, const struct key_def *k,
                            struct value *v)
{
    if (strncmp(v->s, "https://", 8) != 0 && strncmp(v->s, "http://", 7) != 0)
        return FAIL(ps, v->pos,
                    "'%s' must be a URL starting with https:// (or http:// "
                    "on a trusted network)",
                    k->name);
    if (strchr(v->s, ' ') || strchr(v->s, '?') || strchr(v->s, '#'))
        return FAIL(ps, v->pos,
                    "'%s' must be a plain URL (no spaces, no ? or #)", k->name);
    size_t n = strlen(v->s);
    while (n > 0 && v->s[n - 1] == '/')
        v->s[--n] = '\0';
    if (!strchr(v->s, ':') || strlen(strchr(v->s, ':')) <= 3)
        return FAIL(ps, v->pos, "'%s' has no host", k->name);
    return 0;
}

static int check_user_id(struct parser *ps, const struct key_def *k,
                         struct value *v)
{
    const char *colon = strchr(v->s, ':');
    if (v->s[0] != '@' || !colon || colon == v->s + 1 || !colon[1] ||
        strchr(v->s, ' ') || strlen(v->s) > 255)
        return FAIL(ps, v->pos,
                    "'%s' must be a full Matrix user ID: \"@name:server\"",
                    k->name);
    return 0;
}

/* Access tokens and device IDs go into headers and URLs: one word. */
static int check_token(struct parser *ps, const struct key_def *k,
                       struct value *v)
{
    if (strchr(v->s, ' '))
        return FAIL(ps, v->pos, "'%s' contains a space", k->name);
    if (strlen(v->s) > 1024)
        return FAIL(ps, v->pos, "'%s' is longer than 1024 bytes", k->name);
    return 0;
}

/* mode: how this account reaches the homeserver. */
static int check_mode(struct parser *ps, const struct key_def *k,
                      struct value *v)
{
    struct config_matrix *mx = &ps->c->matrix[ps->c->nmatrix - 1];
    if (strcmp(v->s, "sync") == 0 || strcmp(v->s, "appservice") == 0) {
        mx->appservice = v->s[0] == 'a';
        return 0;
    }
    return FAIL(ps, v->pos, "'%s' must be \"sync\" or \"appservice\"", k->name);
}

static int check_registration(struct parser *ps, const struct key_def *k,
                              struct value *v)
{
    if (check_nonempty(ps, k, v))
        return -1;
    return check_path(ps, k, v);
}

/* The listener's address, "A.B.C.D:PORT" or "[V6]:PORT", numeric (a name
 * would need a lookup at start, and a name that resolves to a public
 * address is an easy mistake): stores the port, and leaves the address
 * alone, in its canonical spelling, in v->s for listen_host. */
static int check_listen(struct parser *ps, const struct key_def *k,
                        struct value *v)
{
    struct config_matrix *mx = &ps->c->matrix[ps->c->nmatrix - 1];
    char *s = v->s;
    char *host = s, *port;
    size_t hlen;
    int family = AF_INET;
    if (s[0] == '[') {
        char *close = strchr(s, ']');
        if (!close || close[1] != ':')
            return FAIL(ps, v->pos,
                        "'%s' must be \"[IPv6]:PORT\", as \"[::1]:9009\"",
                        k->name);
        host = s + 1;
        hlen = (size_t)(close - host);
        port = close + 2;
        family = AF_INET6;
    } else {
        char *colon = strrchr(s, ':');
        if (!colon)
            return FAIL(ps, v->pos,
                        "'%s' has no port: write \"ADDRESS:PORT\", as "
                        "\"127.0.0.1:9009\"",
                        k->name);
        hlen = (size_t)(colon - s);
        port = colon + 1;
        if (memchr(s, ':', hlen))
            return FAIL(ps, v->pos,
                        "'%s': an IPv6 address goes in brackets, as "
                        "\"[::1]:9009\"",
                        k->name);
    }
    size_t nd = strlen(port);
    bool digits = nd >= 1 && nd <= 5 && strspn(port, "0123456789") == nd;
    long p = 0;
    for (size_t i = 0; digits && i < nd; i++)
        p = p * 10 + (port[i] - '0');
    if (!digits || p < 1 || p > 65535)
        return FAIL(ps, v->pos, "'%s' must end in a port from 1 to 65535",
                    k->name);
    unsigned char addr[16];
    char text[INET6_ADDRSTRLEN];
    if (hlen == 0 || hlen >= sizeof text)
        return FAIL(ps, v->pos,
                    "'%s' must be a numeric address and a port, as "
                    "\"127.0.0.1:9009\" or \"[::1]:9009\"",
                    k->name);
    memcpy(text, host, hlen);
    text[hlen] = '\0';
    if (inet_pton(family, text, addr) != 1)
        return FAIL(ps, v->pos,
                    "'%s' must name a numeric %s address, not '%s' (as "
                    "\"%s\")",
                    k->name, family == AF_INET ? "IPv4" : "IPv6", text,
                    family == AF_INET ? "127.0.0.1:9009" : "[::1]:9009");
    mx->listen_port = (int)p;
    /* the canonical spelling ("0::0" is "::"), which is never longer */
    if (!inet_ntop(family, addr, s, (socklen_t)strlen(s) + 1))
        memmove(s, text, hlen + 1);
    return 0;
}

#define BOT(field) offsetof(struct config, field)
#define IRC(field) offsetof(struct config_irc, field)
#define MX(field) offsetof(struct config_matrix, field)

static const struct key_def bot_keys[] = {
    {"data_dir", V_STRING, BOT(data_dir), 0, 0, check_nonempty},
    {"log_level", V_STRING, BOT(log_level), 0, 0, check_log_level},
    {"command_prefix", V_STRING, BOT(command_prefix), 0, 0, check_prefix},
    {"colors", V_BOOL, BOT(colors), 0, 0, NULL},
    {"admins", V_ARRAY, 0, 0, 0, store_admins},
    {"reply_burst", V_INT, BOT(reply_burst), 1, 100, NULL},
    {"reply_interval", V_INT, BOT(reply_interval), 0, 3600, NULL},
    {"repeat_quiet", V_INT, BOT(repeat_quiet), 0, 86400, NULL},
    {"channel_repeat", V_INT, BOT(channel_repeat), 0, 3600, NULL},
    {"chatter_burst", V_INT, BOT(chatter_burst), 1, 1000, NULL},
    {"chatter_interval", V_INT, BOT(chatter_interval), 0, 3600, NULL},
};

static const struct key_def game_keys[] = {
    {"default_rules", V_STRING, BOT(default_rules), 0, 0, check_rules},
    {"turn_timeout", V_INT, BOT(turn_timeout), 5, 86400, NULL},
    {"max_timeouts", V_INT, BOT(max_timeouts), 1, 100, NULL},
    {"lobby_timeout", V_INT, BOT(lobby_timeout), 10, 86400, NULL},
    {"grace_period", V_INT, BOT(grace_period), 0, 86400, NULL},
    {"bot_level", V_STRING, BOT(bot_level), 0, 0, check_level},
    {"normal_playouts", V_INT, BOT(normal_playouts), 0, 100000, NULL},
    {"hard_playouts", V_INT, BOT(hard_playouts), 0, 100000, NULL},
    {"think_threads", V_INT, BOT(think_threads), 1, THINK_MAX_WORKERS, NULL},
    {"next_hand_delay", V_INT, BOT(next_hand_delay), 0, 60, NULL},
    {"unattended_pause", V_INT, BOT(unattended_pause), 0, 86400, NULL},
    {"unattended_end", V_INT, BOT(unattended_end), 1, 86400, NULL},
};

static const struct key_def irc_keys[] = {
    {"name", V_STRING, IRC(name), 0, 0, check_irc_name},
    {"host", V_STRING, IRC(host), 0, 0, check_word},
    {"port", V_INT, IRC(port), 1, 65535, NULL},
    {"nick", V_STRING, IRC(nick), 0, 0, check_nick},
    {"username", V_STRING, IRC(username), 0, 0, check_word},
    {"realname", V_STRING, IRC(realname), 0, 0, NULL},
    {"password", V_STRING, IRC(password), 0, 0, check_password},
    {"nickserv_password", V_STRING, IRC(nickserv_password), 0, 0,
     check_password},
    {"channels", V_ARRAY, 0, 0, 0, store_channels},
    {"flood_burst", V_INT, IRC(flood_burst), 1, 100, NULL},
    {"flood_interval_ms", V_INT, IRC(flood_interval_ms), 1, 60000, NULL},
    {"flood_min_interval_ms", V_INT, IRC(flood_min_interval_ms), 0, 60000,
     NULL},
    {"flood_max_interval_ms", V_INT, IRC(flood_max_interval_ms), 0, 60000,
     NULL},
    {"nickserv_account", V_STRING, IRC(nickserv_account), 0, 0, check_password},
    {"services_mask", V_STRING, IRC(services_mask), 0, 0, check_word},
    {"tls", V_BOOL, IRC(tls), 0, 0, NULL},
    {"tls_verify", V_BOOL, IRC(tls_verify), 0, 0, NULL},
    {"tls_ca_file", V_STRING, IRC(tls_ca_file), 0, 0, check_path},
    {"tls_cert_file", V_STRING, IRC(tls_cert_file), 0, 0, check_path},
    {"tls_key_file", V_STRING, IRC(tls_key_file), 0, 0, check_path},
    {"sasl_mechanism", V_STRING, IRC(sasl_mechanism), 0, 0, check_sasl},
    {"sasl_username", V_STRING, IRC(sasl_username), 0, 0, check_sasl_word},
    {"sasl_password", V_STRING, IRC(sasl_password), 0, 0, check_sasl_word},
    {"sasl_required", V_BOOL, IRC(sasl_required), 0, 0, NULL},
};

static const struct key_def matrix_keys[] = {
    {"name", V_STRING, MX(name), 0, 0, check_irc_name},
    {"homeserver", V_STRING, MX(homeserver), 0, 0, check_homeserver},
    {"user_id", V_STRING, MX(user_id), 0, 0, check_user_id},
    {"password", V_STRING, MX(password), 0, 0, NULL},
    {"access_token", V_STRING, MX(access_token), 0, 0, check_token},
    {"device_id", V_STRING, MX(device_id), 0, 0, check_token},
    {"rooms", V_ARRAY, 0, 0, 0, store_rooms},
    {"auto_join_invites", V_BOOL, MX(auto_join_invites), 0, 0, NULL},
    {"max_body_bytes", V_INT, MX(max_body_bytes), 65536, 64 << 20, NULL},
    {"sync_timeout_ms", V_INT, MX(sync_timeout_ms), 0, 300000, NULL},
    {"request_timeout_ms", V_INT, MX(request_timeout_ms), 1000, 600000, NULL},
    {"rejoin_delay_ms", V_INT, MX(rejoin_delay_ms), 0, 3600000, NULL},
    {"mode", V_STRING, NO_FIELD, 0, 0, check_mode},
    {"registration", V_STRING, MX(registration), 0, 0, check_registration},
    {"listen", V_STRING, MX(listen_host), 0, 0, check_listen},
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct {
    const char *name;   /* as in a header */
    const char *header; /* as messages show it */
    const struct key_def *keys;
    int nkeys;
} tables[] = {
    [TAB_ROOT] = {"", "", NULL, 0},
    [TAB_BOT] = {"bot", "[bot]", bot_keys, COUNT(bot_keys)},
    [TAB_GAME] = {"game", "[game]", game_keys, COUNT(game_keys)},
    [TAB_IRC] = {"irc", "[[irc]]", irc_keys, COUNT(irc_keys)},
    [TAB_MATRIX] = {"matrix", "[[matrix]]", matrix_keys, COUNT(matrix_keys)},
};

_Static_assert(COUNT(bot_keys) <= MAX_KEYS && COUNT(game_keys) <= MAX_KEYS &&
                   COUNT(irc_keys) <= MAX_KEYS &&
                   COUNT(matrix_keys) <= MAX_KEYS,
               "struct parser's key_set has room for every key of a table");

/* ---- Lexing ----------------------------------------------------------- */

static int peek(const struct parser *ps, size_t off)
{
    size_t p = ps->pos + off;
    return p < ps->len ? (unsigned char)ps->text[p] : -1;
}

/* 1 for LF, 2 for CRLF, else 0: a lone CR is not a line end. */
static size_t newline_len(const struct parser *ps)
{
    if (peek(ps, 0) == '\n')
        return 1;
    if (peek(ps, 0) == '\r' && peek(ps, 1) == '\n')
        return 2;
    return 0;
}

static void skip_ws(struct parser *ps)
{
    while (peek(ps, 0) == ' ' || peek(ps, 0) == '\t')
        ps->pos++;
}

static size_t bare_len(const struct parser *ps)
{
    size_t n = 0;
    while (is_alnum(peek(ps, n)) || peek(ps, n) == '_' || peek(ps, n) == '-')
        n++;
    return n;
}

/* Names the character at the cursor for a message. */
static void describe(const struct parser *ps, char *buf, size_t len)
{
    int ch = peek(ps, 0);
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
static int skip_comment(struct parser *ps)
{
    if (peek(ps, 0) != '#')
        return 0;
    while (ps->pos < ps->len && !newline_len(ps)) {
        int ch = peek(ps, 0);
        if (is_control(ch) && ch != '\t') {
            char what[48];
            describe(ps, what, sizeof what);
            return FAIL(ps, ps->pos, "%s in a comment", what);
        }
        ps->pos++;
    }
    return 0;
}

/* After a value or a header: blanks, maybe a comment, the end of line. */
static int end_line(struct parser *ps, const char *after)
{
    skip_ws(ps);
    if (skip_comment(ps))
        return -1;
    if (ps->pos >= ps->len)
        return 0;
    size_t n = newline_len(ps);
    if (!n) {
        char what[48];
        describe(ps, what, sizeof what);
        return FAIL(ps, ps->pos,
                    "unexpected %s after %s (only a # comment may follow it)",
                    what, after);
    }
    ps->pos += n;
    return 0;
}

/* Blanks, line ends and comments: what may sit between array items. */
static int skip_blanks(struct parser *ps)
{
    for (;;) {
        skip_ws(ps);
        if (skip_comment(ps))
            return -1;
        size_t n = newline_len(ps);
        if (!n)
            return 0;
        ps->pos += n;
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
static int parse_escape(struct parser *ps, struct buf *b)
{
    static const char from[] = "btnfr\"\\";
    static const char to[] = "\b\t\n\f\r\"\\";
    size_t at = ps->pos;
    int e = peek(ps, 1);
    const char *hit = e > 0 ? strchr(from, e) : NULL;
    if (hit) {
        buf_add(b, &to[hit - from], 1);
        ps->pos += 2;
        return 0;
    }
    if (e != 'u' && e != 'U') {
        if (e > ' ' && e < 0x7f)
            return FAIL(ps, at,
                        "invalid escape '\\%c' (TOML has \\\" \\\\ \\b \\t "
                        "\\n \\f \\r \\uXXXX \\UXXXXXXXX)",
                        e);
        return FAIL(ps, at, "a backslash must start an escape such as \\n");
    }
    int digits = e == 'u' ? 4 : 8;
    uint32_t cp = 0;
    for (int k = 0; k < digits; k++) {
        int d = hex_value(peek(ps, 2 + (size_t)k));
        if (d < 0)
            return FAIL(ps, at, "'\\%c' needs %d hex digits", e, digits);
        cp = cp << 4 | (uint32_t)d;
    }
    if (cp == 0)
        return FAIL(ps, at, "a string may not contain NUL (\\u0000)");
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return FAIL(ps, at, "'\\%c%.*s' is not a Unicode scalar value", e,
                    digits, ps->text + at + 2);
    buf_utf8(b, cp);
    ps->pos += 2 + (size_t)digits;
    return 0;
}

/* A basic string "..." at the cursor. */
static int parse_string(struct parser *ps, struct value *v)
{
    size_t start = ps->pos;
    if (peek(ps, 1) == '"' && peek(ps, 2) == '"')
        return FAIL(ps, start, "multi-line strings (\"\"\") are not supported");
    ps->pos++;
    struct buf b = {0};
    for (;;) {
        int ch = peek(ps, 0);
        if (ch < 0 || newline_len(ps)) {
            free(b.p);
            return FAIL(ps, start,
                        "string not closed: the closing '\"' is missing on "
                        "this line");
        }
        if (ch == '"')
            break;
        if (ch == '\\') {
            if (parse_escape(ps, &b)) {
                free(b.p);
                return -1;
            }
            continue;
        }
        if (is_control(ch) && ch != '\t') {
            char what[48];
            describe(ps, what, sizeof what);
            free(b.p);
            return FAIL(ps, ps->pos, "%s in a string (write it as an escape)",
                        what);
        }
        buf_add(&b, ps->text + ps->pos, 1);
        ps->pos++;
    }
    ps->pos++;
    buf_add(&b, "", 1);
    v->type = V_STRING;
    v->pos = start;
    v->s = b.p;
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
static int parse_word(struct parser *ps, struct value *v)
{
    size_t start = ps->pos, end = start;
    while (end < ps->len && ps->text[end] &&
           (is_alnum((unsigned char)ps->text[end]) ||
            strchr("_+-.:", ps->text[end])))
        end++;
    const char *w = ps->text + start;
    size_t n = end - start;
    if (word_is(w, n, "true") || word_is(w, n, "false")) {
        v->type = V_BOOL;
        v->pos = start;
        v->b = w[0] == 't';
        ps->pos = end;
        return 0;
    }
    bool neg = n > 0 && w[0] == '-';
    size_t sign = n > 0 && (w[0] == '-' || w[0] == '+') ? 1 : 0;
    const char *d = w + sign;
    size_t nd = n - sign;
    if (word_is(d, nd, "inf") || word_is(d, nd, "nan"))
        return FAIL(ps, start, "floats are not supported");
    if (nd == 0 || d[0] < '0' || d[0] > '9') {
        if (n > 0 && is_alnum((unsigned char)w[0]))
            return FAIL(ps, start, "%s (strings need double quotes)", no_value);
        return FAIL(ps, start, "%s", no_value);
    }
    if (!sign && nd > 1 && d[0] == '0' && strchr("xob", d[1]))
        return FAIL(ps, start,
                    "hexadecimal, octal and binary integers are not "
                    "supported: write it in decimal");
    if (word_has(d, nd, "-:"))
        return FAIL(ps, start, "dates and times are not supported");
    if (word_has(d, nd, ".eE"))
        return FAIL(ps, start, "floats are not supported");
    if (nd > 1 && d[0] == '0')
        return FAIL(ps, start, "leading zeros are not allowed");
    /* the magnitude, against 2^63 (the most a negative may reach) */
    const unsigned long long limit = (unsigned long long)INT64_MAX + 1;
    unsigned long long m = 0;
    for (size_t i = 0; i < nd; i++) {
        char ch = d[i];
        if (ch == '_') {
            if (i == 0 || i + 1 == nd || d[i - 1] == '_' || d[i + 1] == '_')
                return FAIL(ps, start + sign + i,
                            "'_' in an integer must sit between digits");
            continue;
        }
        if (ch < '0' || ch > '9')
            return FAIL(ps, start + sign + i, "invalid integer");
        unsigned digit = (unsigned)(ch - '0');
        if (m > (limit - digit) / 10)
            return FAIL(ps, start, "integer too large (over 64 bits)");
        m = m * 10 + digit;
    }
    if (!neg && m == limit)
        return FAIL(ps, start, "integer too large (over 64 bits)");
    v->type = V_INT;
    v->pos = start;
    v->i = neg ? (m == limit ? INT64_MIN : -(long long)m) : (long long)m;
    ps->pos = end;
    return 0;
}

/* A value at the cursor, not an array (arrays do not nest here). */
static int parse_scalar(struct parser *ps, struct value *v)
{
    switch (peek(ps, 0)) {
    case '"':
        return parse_string(ps, v);
    case '\'':
        return FAIL(ps, ps->pos,
                    "literal strings ('...') are not supported: use "
                    "\"...\"");
    case '{':
        return FAIL(ps, ps->pos, "inline tables ({...}) are not supported");
    default:
        return parse_word(ps, v);
    }
}

/* ["a", "b"]: items on any number of lines, with comments between them
 * and a trailing comma allowed. */
static int parse_array(struct parser *ps, struct value *v)
{
    size_t open = ps->pos;
    struct value a = {.type = V_ARRAY, .pos = open};
    int cap = 0;
    ps->pos++;
    for (;;) {
        if (skip_blanks(ps))
            goto bad;
        int ch = peek(ps, 0);
        if (ch < 0) {
            fail_at(ps, open, "array not closed: ']' is missing");
            goto bad;
        }
        if (ch == ']')
            break;
        if (ch == '[') {
            fail_at(ps, ps->pos,
                    "expected a \"string\" or ']' in the array opened at line "
                    "%d (arrays hold only strings)",
                    line_of(ps, open));
            goto bad;
        }
        struct value item = {0};
        if (parse_scalar(ps, &item))
            goto bad;
        if (item.type != V_STRING) {
            fail_at(ps, item.pos, "arrays hold only strings, not %s",
                    got_name[item.type]);
            value_free(&item);
            goto bad;
        }
        if (a.n == cap) {
            cap = cap ? cap * 2 : 4;
            a.items = xrealloc(a.items, (size_t)cap * sizeof *a.items);
        }
        a.items[a.n++] = item;
        if (skip_blanks(ps))
            goto bad;
        ch = peek(ps, 0);
        if (ch == ',') {
            ps->pos++;
            continue;
        }
        if (ch == ']')
            break;
        if (ch < 0)
            fail_at(ps, open, "array not closed: ']' is missing");
        else
            fail_at(ps, ps->pos,
                    "expected ',' or ']' in the array opened at line %d",
                    line_of(ps, open));
        goto bad;
    }
    ps->pos++;
    *v = a;
    return 0;
bad:
    value_free(&a);
    return -1;
}

/* ---- Tables ----------------------------------------------------------- */

static void config_defaults(struct config *c)
{
    memset(c, 0, sizeof *c);
    c->colors = true;
    c->turn_timeout = 90;
    c->max_timeouts = 2;
    c->lobby_timeout = 600;
    c->grace_period = 120;
    c->next_hand_delay = 3;
    c->think_threads = 1;
    c->reply_burst = 6;
    c->reply_interval = 5;
    c->chatter_burst = 5;
    c->chatter_interval = 60;
    c->repeat_quiet = 30;
    c->channel_repeat = 30;
    c->unattended_pause = 0;
    c->unattended_end = 600;
}

static void irc_push(struct config *c)
{
    c->irc = xrealloc(c->irc, ((size_t)c->nirc + 1) * sizeof *c->irc);
    struct config_irc *irc = &c->irc[c->nirc++];
    memset(irc, 0, sizeof *irc);
    irc->port = 6667;
    irc->flood_burst = 4;
    irc->flood_interval_ms = 1100;
    irc->tls_verify = true;
    irc->sasl_required = true;
}

static void matrix_push(struct config *c)
{
    c->matrix =
        xrealloc(c->matrix, ((size_t)c->nmatrix + 1) * sizeof *c->matrix);
    struct config_matrix *mx = &c->matrix[c->nmatrix++];
    memset(mx, 0, sizeof *mx);
    mx->auto_join_invites = true;
    mx->max_body_bytes = 4 << 20;
    mx->sync_timeout_ms = 30000;
    mx->request_timeout_ms = 30000;
    mx->rejoin_delay_ms = 30000;
    mx->listen_port = 9009;
}

static void default_string(char **s, const char *value)
{
    if (!*s)
        *s = xstrdup(value);
}

/* Whether the current table set the key `name` itself, and where. */
static bool key_was_set(const struct parser *ps, const char *name)
{
    for (int i = 0; i < tables[ps->table].nkeys; i++)
        if (strcmp(tables[ps->table].keys[i].name, name) == 0)
            return ps->key_set[i];
    return false;
}

static size_t key_where(const struct parser *ps, const char *name)
{
    for (int i = 0; i < tables[ps->table].nkeys; i++)
        if (strcmp(tables[ps->table].keys[i].name, name) == 0)
            return ps->key_pos[i];
    return ps->table_pos;
}

/* `rel` made absolute against the directory of the config file `path`
 * (the current directory's, for a path without one): the bot may be
 * started from anywhere (systemd starts it in /), and a file named beside
 * its config belongs with it. NULL if the current directory is unknown. */
static char *path_beside(const char *path, const char *rel)
{
    if (rel[0] == '/')
        return xstrdup(rel);
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (size_t)(slash - path) : 0;
    struct buf b = {0};
    if (path[0] != '/') {
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd))
            return NULL;
        buf_add(&b, cwd, strlen(cwd));
        /* "./bot.toml" is "bot.toml" */
        if (dlen == 1 && path[0] == '.')
            dlen = 0;
        if (b.p[b.len - 1] != '/')
            buf_add(&b, "/", 1);
    }
    if (dlen) {
        buf_add(&b, path, dlen);
        buf_add(&b, "/", 1);
    } else if (path[0] == '/') {
        buf_add(&b, "/", 1); /* "/bot.toml" */
    }
    buf_add(&b, rel, strlen(rel) + 1);
    return b.p;
}

/* In appservice mode the homeserver registers the bot's user: its
 * localpart must be one a homeserver accepts for a new user. */
static bool localpart_valid(const char *user_id)
{
    const char *end = strchr(user_id, ':');
    for (const char *p = user_id + 1; p < end; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              strchr("._=-/+", *p)))
            return false;
    return true;
}

/* The keys of one mode that the other refuses, then the appservice
 * mode's own checks. */
static int finish_matrix_mode(struct parser *ps, struct config_matrix *mx)
{
    static const char *const sync_only[] = {"password", "access_token"};
    static const char *const as_only[] = {"registration", "listen"};
    for (int i = 0; i < 2; i++) {
        const char *key = mx->appservice ? sync_only[i] : as_only[i];
        if (!key_was_set(ps, key))
            continue;
        if (mx->appservice)
            return FAIL(ps, key_where(ps, key),
                        "'%s' is not used with mode = \"appservice\": the "
                        "bot acts with the as_token of its registration "
                        "file (remove '%s')",
                        key, key);
        return FAIL(ps, key_where(ps, key),
                    "'%s' is only for mode = \"appservice\" (this "
                    "[[matrix]] is in sync mode)",
                    key);
    }
    if (!mx->appservice)
        return 0;
    if (!mx->registration)
        return FAIL(ps, ps->table_pos,
                    "this [[matrix]] has mode = \"appservice\" but no "
                    "'registration' (the file `heartsbot "
                    "--appservice-registration CONFIG` writes)");
    if (!localpart_valid(mx->user_id))
        return FAIL(ps, key_where(ps, "user_id"),
                    "with mode = \"appservice\" the homeserver registers "
                    "'user_id': its name before ':' may hold only a-z, 0-9 "
                    "and . _ = - / +");
    char *abs = path_beside(ps->path, mx->registration);
    if (!abs)
        return FAIL(ps, key_where(ps, "registration"),
                    "cannot make 'registration' absolute: the current "
                    "directory: %s",
                    strerror(errno));
    free(mx->registration);
    mx->registration = abs;
    return 0;
}

/* Ends the current table: a [[matrix]] must have had its required keys. */
static int finish_matrix(struct parser *ps)
{
    struct config_matrix *mx = &ps->c->matrix[ps->c->nmatrix - 1];
    static const char *const required[] = {"name", "homeserver", "user_id"};
    const char *const have[] = {mx->name, mx->homeserver, mx->user_id};
    for (int i = 0; i < 3; i++)
        if (!have[i])
            return FAIL(ps, ps->table_pos, "this [[matrix]] has no '%s'",
                        required[i]);
    if (finish_matrix_mode(ps, mx))
        return -1;
    if (!mx->appservice && (!mx->password || !*mx->password) &&
        (!mx->access_token || !*mx->access_token))
        return FAIL(ps, ps->table_pos,
                    "this [[matrix]] needs a 'password' or an "
                    "'access_token'");
    default_string(&mx->password, "");
    default_string(&mx->access_token, "");
    default_string(&mx->device_id, "");
    default_string(&mx->registration, "");
    default_string(&mx->listen_host, "127.0.0.1");
    return 0;
}

static int finish_table(struct parser *ps)
{
    if (ps->table == TAB_MATRIX)
        return finish_matrix(ps);
    if (ps->table != TAB_IRC)
        return 0;
    struct config_irc *irc = &ps->c->irc[ps->c->nirc - 1];
    static const char *const required[] = {"name", "host", "nick"};
    const char *const have[] = {irc->name, irc->host, irc->nick};
    for (int i = 0; i < 3; i++)
        if (!have[i])
            return FAIL(ps, ps->table_pos, "this [[irc]] has no '%s'",
                        required[i]);
    default_string(&irc->username, irc->nick);
    default_string(&irc->realname, "heartsbot");
    default_string(&irc->password, "");
    default_string(&irc->nickserv_password, "");
    default_string(&irc->nickserv_account, "");
    default_string(&irc->services_mask, "NickServ!*@services.*");
    default_string(&irc->tls_ca_file, "");
    default_string(&irc->tls_cert_file, "");
    default_string(&irc->tls_key_file, "");
    default_string(&irc->sasl_mechanism, "none");
    default_string(&irc->sasl_username, "");
    default_string(&irc->sasl_password, "");
    if (irc->tls && !key_was_set(ps, "port"))
        irc->port = 6697;
    if (strcmp(irc->sasl_mechanism, "plain") == 0 && !*irc->sasl_password)
        return FAIL(ps, ps->table_pos,
                    "this [[irc]] has sasl_mechanism = \"plain\" but no "
                    "'sasl_password'");
    if (strcmp(irc->sasl_mechanism, "external") == 0 && !*irc->tls_cert_file)
        return FAIL(ps, ps->table_pos,
                    "this [[irc]] has sasl_mechanism = \"external\" but no "
                    "'tls_cert_file' (EXTERNAL is the client certificate)");
    if ((*irc->tls_cert_file || *irc->tls_ca_file || *irc->tls_key_file) &&
        !irc->tls)
        return FAIL(ps, ps->table_pos,
                    "this [[irc]] names TLS files but has tls = false");
    /* the pace starts at flood_interval_ms; an unset floor (0) is picked
     * by the adapter from the server's software (adapters/irc/pace.h), an
     * unset ceiling allows four times slower */
    if (irc->flood_min_interval_ms > irc->flood_interval_ms)
        irc->flood_min_interval_ms = irc->flood_interval_ms;
    if (!irc->flood_max_interval_ms)
        irc->flood_max_interval_ms = irc->flood_interval_ms <= 15000
                                         ? irc->flood_interval_ms * 4
                                         : 60000;
    if (irc->flood_max_interval_ms < irc->flood_interval_ms)
        irc->flood_max_interval_ms = irc->flood_interval_ms;
    return 0;
}

/* The index of the table named, or -1. */
static int table_find(const char *name, size_t n)
{
    for (int t = TAB_BOT; t <= TAB_MATRIX; t++)
        if (word_is(name, n, tables[t].name))
            return t;
    return -1;
}

/* [bot], [game] or [[irc]] at the cursor. */
static int parse_header(struct parser *ps)
{
    if (finish_table(ps))
        return -1;
    size_t start = ps->pos;
    bool array = peek(ps, 1) == '[';
    ps->pos += array ? 2 : 1;
    skip_ws(ps);
    size_t name_pos = ps->pos;
    size_t n = bare_len(ps);
    if (n == 0) {
        int ch = peek(ps, 0);
        if (ch == '"' || ch == '\'')
            return FAIL(ps, ps->pos, "quoted table names are not supported");
        return FAIL(ps, ps->pos, "expected a table name after '%s'",
                    array ? "[[" : "[");
    }
    const char *name = ps->text + name_pos;
    ps->pos += n;
    skip_ws(ps);
    if (peek(ps, 0) == '.')
        return FAIL(ps, ps->pos,
                    "dotted table names ([a.b]) are not supported");
    if (peek(ps, 0) != ']' || (array && peek(ps, 1) != ']'))
        return FAIL(ps, ps->pos, "expected '%s' to close the table header",
                    array ? "]]" : "]");
    ps->pos += array ? 2 : 1;

    int t = table_find(name, n);
    if (t < 0) {
        int best = TAB_BOT, bestd = 1 << 30;
        for (int i = TAB_BOT; i <= TAB_MATRIX; i++) {
            int d = distance(name, n, tables[i].name);
            if (d < bestd)
                best = i, bestd = d;
        }
        return FAIL(ps, name_pos,
                    "unknown table '%.*s' (did you mean %s? the tables are "
                    "[bot], [game], [[irc]] and [[matrix]])",
                    n > 40 ? 40 : (int)n, name, tables[best].header);
    }
    bool many = t == TAB_IRC || t == TAB_MATRIX;
    if (many && !array)
        return FAIL(ps, start,
                    "%s is an array of tables: write %s, one per network",
                    tables[t].name, tables[t].header);
    if (!many && array)
        return FAIL(ps, start, "%s is a single table: write %s", tables[t].name,
                    tables[t].header);
    if (t == TAB_BOT || t == TAB_GAME) {
        bool *have = t == TAB_BOT ? &ps->have_bot : &ps->have_game;
        size_t *at = t == TAB_BOT ? &ps->bot_pos : &ps->game_pos;
        if (*have)
            return FAIL(ps, start, "%s is defined twice (first at line %d)",
                        tables[t].header, line_of(ps, *at));
        *have = true;
        *at = start;
    } else if (t == TAB_IRC) {
        if (ps->c->nirc == CONFIG_MAX_IRC)
            return FAIL(ps, start, "more than %d [[irc]] tables",
                        CONFIG_MAX_IRC);
        irc_push(ps->c);
    } else {
        if (ps->c->nmatrix == CONFIG_MAX_MATRIX)
            return FAIL(ps, start, "more than %d [[matrix]] tables",
                        CONFIG_MAX_MATRIX);
        matrix_push(ps->c);
    }
    ps->table = (enum table)t;
    ps->table_pos = start;
    memset(ps->key_set, 0, sizeof ps->key_set);
    return end_line(ps, "the table header");
}

/* The key at kpos (n bytes) in the current table, or -1 with a message
 * naming the nearest valid key. */
static int key_find(struct parser *ps, size_t kpos, size_t n)
{
    const char *key = ps->text + kpos;
    int shown = n > 40 ? 40 : (int)n;
    const struct key_def *best = NULL;
    int best_table = TAB_ROOT, bestd = 1 << 30;
    for (int t = TAB_BOT; t <= TAB_MATRIX; t++) {
        /* in a table, only its own keys; before any, all of them */
        if (ps->table != TAB_ROOT && (int)ps->table != t)
            continue;
        for (int i = 0; i < tables[t].nkeys; i++) {
            int d = distance(key, n, tables[t].keys[i].name);
            if (d == 0 && ps->table != TAB_ROOT)
                return i;
            if (d < bestd)
                best = &tables[t].keys[i], best_table = t, bestd = d;
        }
    }
    assert(best); /* every table has keys */
    if (ps->table == TAB_ROOT && bestd == 0)
        return FAIL(ps, kpos,
                    "'%.*s' is before any table header: it belongs under %s",
                    shown, key, tables[best_table].header);
    if (ps->table == TAB_ROOT)
        return FAIL(ps, kpos,
                    "unknown key '%.*s' before any table header (did you "
                    "mean '%s' under %s?)",
                    shown, key, best->name, tables[best_table].header);
    return FAIL(ps, kpos, "unknown key '%.*s' in %s (did you mean '%s'?)",
                shown, key, tables[ps->table].header, best->name);
}

/* Type, range and content checks, then the value moves into the config. */
static int store(struct parser *ps, const struct key_def *k, struct value *v)
{
    if (v->type != k->type)
        return FAIL(ps, v->pos, "'%s' must be %s, not %s", k->name,
                    want_name[k->type], got_name[v->type]);
    char *base = (char *)ps->c;
    if (ps->table == TAB_IRC)
        base = (char *)&ps->c->irc[ps->c->nirc - 1];
    else if (ps->table == TAB_MATRIX)
        base = (char *)&ps->c->matrix[ps->c->nmatrix - 1];
    switch (k->type) {
    case V_INT:
        if (v->i < k->min || v->i > k->max)
            return FAIL(ps, v->pos, "'%s' must be between %d and %d", k->name,
                        k->min, k->max);
        *(int *)(void *)(base + k->off) = (int)v->i;
        return 0;
    case V_BOOL:
        *(bool *)(void *)(base + k->off) = v->b;
        return 0;
    case V_STRING:
        /* nothing the bot sends or stores may carry a line break */
        if (has_control(v->s))
            return FAIL(ps, v->pos, "'%s' contains a control character",
                        k->name);
        if (k->check && k->check(ps, k, v))
            return -1;
        if (k->off == NO_FIELD)
            return 0;
        *(char **)(void *)(base + k->off) = v->s;
        v->s = NULL;
        return 0;
    case V_ARRAY:
        return k->check(ps, k, v);
    }
    return 0;
}

/* key = value at the cursor. */
static int parse_keyval(struct parser *ps)
{
    size_t kpos = ps->pos;
    size_t n = bare_len(ps);
    if (n == 0) {
        int ch = peek(ps, 0);
        if (ch == '"' || ch == '\'')
            return FAIL(ps, kpos, "quoted keys are not supported");
        if (ch == '=')
            return FAIL(ps, kpos, "a key is missing before '='");
        char what[48];
        describe(ps, what, sizeof what);
        return FAIL(ps, kpos,
                    "unexpected %s: expected a key, a [table] header or a "
                    "comment",
                    what);
    }
    ps->pos += n;
    skip_ws(ps);
    if (peek(ps, 0) == '.')
        return FAIL(ps, ps->pos, "dotted keys (a.b = ...) are not supported");
    if (peek(ps, 0) != '=')
        return FAIL(ps, ps->pos, "expected '=' after the key '%.*s'",
                    n > 40 ? 40 : (int)n, ps->text + kpos);
    ps->pos++;
    int idx = key_find(ps, kpos, n);
    if (idx < 0)
        return -1;
    const struct key_def *k = &tables[ps->table].keys[idx];
    if (ps->key_set[idx])
        return FAIL(ps, kpos, "duplicate key '%s' (first set at line %d)",
                    k->name, line_of(ps, ps->key_pos[idx]));
    ps->key_set[idx] = true;
    ps->key_pos[idx] = kpos;

    skip_ws(ps);
    if (ps->pos >= ps->len || newline_len(ps) || peek(ps, 0) == '#')
        return FAIL(ps, ps->pos, "missing value after '='");
    struct value v = {0};
    int rc = peek(ps, 0) == '[' ? parse_array(ps, &v) : parse_scalar(ps, &v);
    if (rc == 0)
        rc = store(ps, k, &v);
    value_free(&v);
    if (rc)
        return -1;
    return end_line(ps, "the value");
}

static int parse_all(struct parser *ps)
{
    while (ps->pos < ps->len) {
        skip_ws(ps);
        size_t n = newline_len(ps);
        if (n) {
            ps->pos += n;
            continue;
        }
        int ch = peek(ps, 0);
        int rc = 0;
        if (ch < 0)
            break;
        else if (ch == '#')
            rc = skip_comment(ps);
        else if (ch == '[')
            rc = parse_header(ps);
        else
            rc = parse_keyval(ps);
        if (rc)
            return -1;
    }
    return finish_table(ps);
}

/* ---- Public ----------------------------------------------------------- */

int config_parse(const char *text, size_t len, const char *path,
                 struct config *out, char *err, size_t errlen)
{
    if (!path)
        path = "config";
    if (len > CONFIG_MAX_BYTES) {
        say(err, errlen, "%s: larger than 1 MiB, the most a config may be",
            path);
        return -1;
    }
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        text += 3, len -= 3;
    struct config c;
    config_defaults(&c);
    struct parser ps = {.text = text ? text : "",
                        .len = text ? len : 0,
                        .path = path,
                        .err = err,
                        .errlen = errlen,
                        .c = &c,
                        .table = TAB_ROOT};
    size_t bad;
    if (!utf8_valid((const unsigned char *)ps.text, ps.len, &bad))
        return FAIL(&ps, bad, "invalid UTF-8");
    if (parse_all(&ps)) {
        config_free(&c);
        return -1;
    }
    default_string(&c.data_dir, "data");
    default_string(&c.log_level, "info");
    default_string(&c.command_prefix, "!");
    default_string(&c.default_rules, "standard");
    default_string(&c.bot_level, "easy");
    *out = c;
    return 0;
}

int config_load(const char *path, struct config *out, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            say(err, errlen, "%s: cannot read: %s", path, strerror(e));
            close(fd);
            free(buf);
            return -1;
        }
        if (r == 0)
            break;
        len += (size_t)r;
        /* stop reading a huge file as soon as it is known too big */
        if (len > CONFIG_MAX_BYTES)
            break;
    }
    close(fd);
    int rc = config_parse(buf, len, path, out, err, errlen);
    free(buf);
    return rc;
}

void config_keep_networks(struct config *fresh, struct config *running)
{
    struct config_irc *irc = fresh->irc;
    int nirc = fresh->nirc;
    fresh->irc = running->irc;
    fresh->nirc = running->nirc;
    running->irc = irc;
    running->nirc = nirc;
    struct config_matrix *mx = fresh->matrix;
    int nmx = fresh->nmatrix;
    fresh->matrix = running->matrix;
    fresh->nmatrix = running->nmatrix;
    running->matrix = mx;
    running->nmatrix = nmx;
}

void config_free(struct config *c)
{
    if (!c)
        return;
    free(c->data_dir);
    free(c->log_level);
    free(c->command_prefix);
    for (int i = 0; i < c->nadmins; i++)
        free(c->admins[i]);
    free(c->admins);
    free(c->default_rules);
    free(c->bot_level);
    for (int i = 0; i < c->nirc; i++) {
        struct config_irc *irc = &c->irc[i];
        free(irc->name);
        free(irc->host);
        free(irc->nick);
        free(irc->username);
        free(irc->realname);
        free(irc->password);
        free(irc->nickserv_password);
        free(irc->nickserv_account);
        free(irc->services_mask);
        free(irc->tls_ca_file);
        free(irc->tls_cert_file);
        free(irc->tls_key_file);
        free(irc->sasl_mechanism);
        free(irc->sasl_username);
        free(irc->sasl_password);
        for (int j = 0; j < irc->nchannels; j++) {
            free(irc->channels[j].name);
            free(irc->channels[j].rules);
        }
        free(irc->channels);
    }
    free(c->irc);
    for (int i = 0; i < c->nmatrix; i++) {
        struct config_matrix *mx = &c->matrix[i];
        free(mx->name);
        free(mx->homeserver);
        free(mx->user_id);
        free(mx->password);
        free(mx->access_token);
        free(mx->device_id);
        free(mx->registration);
        free(mx->listen_host);
        for (int j = 0; j < mx->nrooms; j++) {
            free(mx->rooms[j].name);
            free(mx->rooms[j].rules);
        }
        free(mx->rooms);
    }
    free(c->matrix);
    memset(c, 0, sizeof *c);
}
