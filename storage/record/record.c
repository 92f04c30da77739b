/*
 * Game records: writing them from engine events, reading them from one line
 * of JSON, and replaying them through the engine (record.h; the format is
 * ../shared/spec/game-record.md, our reading of it docs/records.md).
 *
 * The reader treats the line as hostile: json-c parses it strictly (with a
 * depth limit and UTF-8 checking), every field's type is checked before its
 * value is read (json_object_get_int returns 0 on junk), every number and
 * every list length is bounded before anything is stored, and nothing is
 * trusted to agree with anything else until the replay has checked it.
 *
 * The writer and the reader share struct record and one serialiser, so a
 * record the writer produces is by construction one the reader parses;
 * the replay checker's --fill proves they agree on the semantics too.
 */
#include "storage/record/record.h"
#include "engine/internal.h"

#include <json-c/json.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A record nests five deep (record, hands, hand, deal, seat); anything
 * deeper is not a record, and the cap keeps json-c's recursion short. */
#define RECORD_MAX_DEPTH 8
#define MAX_WORD 64 /* a preset name or an option key */
#define MAX_OPTION_TEXT 1024
#define MSG 256

/* ---- Small helpers ---------------------------------------------------- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        abort();
    return p;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        abort();
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        abort();
    return q;
}

static char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* json-c returns NULL when it cannot allocate: treat it like xmalloc. */
static struct json_object *jnew(struct json_object *o)
{
    if (!o)
        abort();
    return o;
}

static void jadd(struct json_object *array, struct json_object *v)
{
    if (json_object_array_add(array, v))
        abort();
}

static void jput(struct json_object *obj, const char *key,
                 struct json_object *v)
{
    if (json_object_object_add(obj, key, v))
        abort();
}

/* Names in the order of enum engine_pass_dir (engine.h). */
static const char *const dir_names[] = {"left",    "right", "across", "hold",
                                        "scatter", "left2", "right2"};
#define NDIRS ((int)(sizeof dir_names / sizeof dir_names[0]))

static const char *const suit_names[] = {"clubs", "diamonds", "hearts",
                                         "spades"};

static const char *moon_name(int mode)
{
    return mode == ENGINE_MOON_ADD_OTHERS ? "add_others" : "subtract";
}

/* Room for a piece of untrusted text in a message. */
struct quote {
    char text[32];
};

/*
 * Untrusted text for a message: at most 24 bytes, control characters as
 * '?', cut at a character boundary, "..." if cut.
 */
static const char *quoted(const char *s, size_t len, struct quote *q)
{
    size_t n = len;
    const char *more = "";
    if (n > 24) {
        n = 24;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        more = "...";
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        q->text[i] = c < 0x20 || c == 0x7F ? '?' : (char)c;
    }
    memcpy(q->text + n, more, strlen(more) + 1);
    return q->text;
}

/* The length of the well-formed UTF-8 character at s, or 0. */
static size_t utf8_char(const unsigned char *s, size_t len)
{
    size_t need;
    unsigned min;
    unsigned cp;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        need = 2, min = 0x80, cp = s[0] & 0x1F;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        need = 3, min = 0x800, cp = s[0] & 0x0F;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        need = 4, min = 0x10000, cp = s[0] & 0x07;
    } else {
        return 0;
    }
    if (len < need)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

/* "2C 5H QS" for a message. */
static const char *card_list(const uint8_t *cards, int n, char *buf,
                             size_t size)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && pos + 4 < size; i++)
        pos += (size_t)snprintf(buf + pos, size - pos, "%s%s", i ? " " : "",
                                engine_card_name(cards[i]));
    if (n == 0)
        snprintf(buf, size, "nothing");
    return buf;
}

/* ---- Writing JSON ----------------------------------------------------- */

static struct json_object *json_cards(const uint8_t *cards, int n)
{
    struct json_object *a = jnew(json_object_new_array());
    for (int i = 0; i < n; i++)
        jadd(a, jnew(json_object_new_string(engine_card_name(cards[i]))));
    return a;
}

static struct json_object *json_ints(const int32_t *v, int n)
{
    struct json_object *a = jnew(json_object_new_array());
    for (int i = 0; i < n; i++)
        jadd(a, jnew(json_object_new_int64(v[i])));
    return a;
}

/* A whole decimal number, as engine_rules_get writes integer options. */
static bool integer_text(const char *s, long long *v)
{
    char *end;
    if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
        return false;
    *v = strtoll(s, &end, 10);
    return *end == '\0';
}

/* Every option that differs from the preset, integers as numbers (the
 * players list gives the player count). */
static struct json_object *json_options(const struct engine_rules *r)
{
    struct json_object *o = jnew(json_object_new_object());
    for (int i = 0; i < engine_option_count(); i++) {
        const char *key = engine_option_name(i);
        if (!strcmp(key, "players") || !engine_rules_differs(r, i))
            continue;
        char text[MAX_OPTION_TEXT];
        long long v;
        engine_rules_get(r, i, text, sizeof text);
        if (integer_text(text, &v))
            jput(o, key, jnew(json_object_new_int64(v)));
        else
            jput(o, key, jnew(json_object_new_string(text)));
    }
    return o;
}

static struct json_object *json_hand(const struct record *rec,
                                     const struct record_hand *h)
{
    int n = rec->n;
    struct json_object *o = jnew(json_object_new_object());
    jput(o, "dealer", jnew(json_object_new_int(h->dealer)));
    if (h->pass >= 0 && h->pass < NDIRS)
        jput(o, "pass", jnew(json_object_new_string(dir_names[h->pass])));
    struct json_object *deal = jnew(json_object_new_array());
    for (int s = 0; s < n; s++)
        jadd(deal, json_cards(h->deal[s], h->ndeal[s]));
    jput(o, "deal", deal);
    jput(o, "rest", json_cards(h->rest, h->nrest));
    struct json_object *passed = jnew(json_object_new_array());
    for (int s = 0; s < n; s++)
        jadd(passed, json_cards(h->passed[s], h->npassed[s]));
    jput(o, "passed", passed);
    if (h->blind) {
        struct json_object *blind = jnew(json_object_new_array());
        for (int s = 0; s < n; s++)
            if (h->blind >> s & 1)
                jadd(blind, jnew(json_object_new_int(s)));
        jput(o, "blind", blind);
    }
    if (rec->rules.odd_cards == ENGINE_ODD_KITTY_EXCHANGE || h->ndiscard)
        jput(o, "discard", json_cards(h->discard, h->ndiscard));
    jput(o, "plays", json_cards(h->plays, h->nplays));
    jput(o, "moon",
         h->moon == RECORD_NONE
             ? NULL
             : jnew(json_object_new_string(moon_name(h->moon))));
    if (h->has_points)
        jput(o, "points", json_ints(h->points, n));
    return o;
}

char *record_to_json(const struct record *rec)
{
    struct json_object *o = jnew(json_object_new_object());
    jput(o, "format", jnew(json_object_new_string(RECORD_FORMAT)));
    jput(o, "preset",
         jnew(json_object_new_string(engine_preset_name(rec->rules.preset))));
    jput(o, "options", json_options(&rec->rules));
    struct json_object *players = jnew(json_object_new_array());
    for (int s = 0; s < rec->n; s++)
        jadd(players, jnew(json_object_new_string(rec->names[s])));
    jput(o, "players", players);
    struct json_object *hands = jnew(json_object_new_array());
    for (int i = 0; i < rec->nhands; i++)
        jadd(hands, json_hand(rec, &rec->hands[i]));
    jput(o, "hands", hands);
    if (rec->has_totals)
        jput(o, "totals", json_ints(rec->totals, rec->n));
    if (rec->has_winners) {
        struct json_object *w = jnew(json_object_new_array());
        for (int i = 0; i < rec->nwinners; i++)
            jadd(w, jnew(json_object_new_int(rec->winners[i])));
        jput(o, "winners", w);
    }
    const char *text = json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!text)
        abort();
    char *line = xstrndup(text, strlen(text));
    json_object_put(o);
    return line;
}

/* ---- Reading ---------------------------------------------------------- */

static const char *type_text(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        return "null";
    case json_type_boolean:
        return "a boolean";
    case json_type_double:
        return "a fraction";
    case json_type_int:
        return "a number";
    case json_type_object:
        return "an object";
    case json_type_array:
        return "a list";
    case json_type_string:
        return "a string";
    }
    return "something else";
}

/* A whole number in [min, max]: 0, or -1 if v is anything else. A number
 * beyond int64 comes back from json-c saturated, so out of range. */
static int get_int(struct json_object *v, long long min, long long max,
                   long long *out)
{
    if (!v || !json_object_is_type(v, json_type_int))
        return -1;
    long long x = (long long)json_object_get_int64(v);
    if (x < min || x > max)
        return -1;
    *out = x;
    return 0;
}

/* The value of key, or NULL if absent or JSON null. */
static struct json_object *field(struct json_object *obj, const char *key)
{
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v))
        return NULL;
    return v;
}

/* Refuses a key not in `known` (NULL-terminated); `where` prefixes the
 * message. */
static int check_keys(struct json_object *obj, const char *const *known,
                      const char *where, char *err, size_t errlen)
{
    struct json_object_iterator it = json_object_iter_begin(obj);
    struct json_object_iterator end = json_object_iter_end(obj);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *key = json_object_iter_peek_name(&it);
        bool ok = false;
        for (int i = 0; known[i] && !ok; i++)
            ok = !strcmp(key, known[i]);
        if (!ok) {
            struct quote q;
            engine_fail(err, errlen, "%sunknown field '%s'", where,
                        quoted(key, strlen(key), &q));
            return -1;
        }
    }
    return 0;
}

/* A list of at most `max` cards into cards/count; `where` names it. */
static int parse_cards(struct json_object *v, uint8_t *cards, int max,
                       int *count, const char *where, char *err, size_t errlen)
{
    if (!v) {
        *count = 0;
        return 0;
    }
    if (!json_object_is_type(v, json_type_array)) {
        engine_fail(err, errlen, "%s: a list of cards, not %s", where,
                    type_text(v));
        return -1;
    }
    size_t len = json_object_array_length(v);
    if (len > (size_t)max) {
        engine_fail(err, errlen, "%s: %zu cards, more than %d", where, len,
                    max);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        struct json_object *c = json_object_array_get_idx(v, i);
        if (!json_object_is_type(c, json_type_string)) {
            engine_fail(err, errlen, "%s[%zu]: a card like \"QS\", not %s",
                        where, i, type_text(c));
            return -1;
        }
        const char *s = json_object_get_string(c);
        size_t slen = (size_t)json_object_get_string_len(c);
        int card;
        if (engine_card_parse(s, slen, &card)) {
            struct quote q;
            engine_fail(err, errlen, "%s[%zu]: '%s' is not a card", where, i,
                        quoted(s, slen, &q));
            return -1;
        }
        cards[i] = (uint8_t)card;
    }
    *count = (int)len;
    return 0;
}

/* A list of n whole numbers within RECORD_MAX_POINTS. */
static int parse_scores(struct json_object *v, int n, int32_t *out,
                        const char *where, char *err, size_t errlen)
{
    if (!json_object_is_type(v, json_type_array) ||
        json_object_array_length(v) != (size_t)n) {
        engine_fail(err, errlen, "%s: a list of %d numbers, one per seat",
                    where, n);
        return -1;
    }
    int32_t tmp[ENGINE_MAX_PLAYERS] = {0};
    for (int s = 0; s < n; s++) {
        long long x;
        struct json_object *e = json_object_array_get_idx(v, (size_t)s);
        if (get_int(e, -RECORD_MAX_POINTS, RECORD_MAX_POINTS, &x)) {
            engine_fail(err, errlen, "%s[%d]: a whole number within %d, not %s",
                        where, s, RECORD_MAX_POINTS, type_text(e));
            return -1;
        }
        tmp[s] = (int32_t)x;
    }
    memcpy(out, tmp, sizeof(int32_t) * (size_t)n);
    return 0;
}

/* A list of distinct seats, as a bit mask; at least one if `nonempty`. */
static int parse_seats(struct json_object *v, int n, bool nonempty,
                       uint16_t *mask, const char *where, char *err,
                       size_t errlen)
{
    if (!json_object_is_type(v, json_type_array)) {
        engine_fail(err, errlen, "%s: a list of seats, not %s", where,
                    type_text(v));
        return -1;
    }
    size_t len = json_object_array_length(v);
    if (len > (size_t)n || (nonempty && len == 0)) {
        engine_fail(err, errlen, "%s: %zu seats at a table of %d", where, len,
                    n);
        return -1;
    }
    uint16_t m = 0;
    for (size_t i = 0; i < len; i++) {
        long long s;
        if (get_int(json_object_array_get_idx(v, i), 0, n - 1, &s)) {
            engine_fail(err, errlen, "%s[%zu]: a seat from 0 to %d", where, i,
                        n - 1);
            return -1;
        }
        if (m >> s & 1) {
            engine_fail(err, errlen, "%s: seat %lld twice", where, s);
            return -1;
        }
        m |= (uint16_t)(1u << s);
    }
    *mask = m;
    return 0;
}

static int parse_hand(const struct record *rec, struct json_object *o, int idx,
                      struct record_hand *h, char *err, size_t errlen)
{
    static const char *const known[] = {"dealer", "pass",   "deal",    "rest",
                                        "passed", "blind",  "discard", "plays",
                                        "moon",   "points", NULL};
    int hn = idx + 1, n = rec->n;
    char where[64];
    snprintf(where, sizeof where, "hand %d: ", hn);
    if (!json_object_is_type(o, json_type_object)) {
        engine_fail(err, errlen, "hand %d: an object, not %s", hn,
                    type_text(o));
        return -1;
    }
    if (check_keys(o, known, where, err, errlen))
        return -1;
    memset(h, 0, sizeof *h);
    h->pass = RECORD_NONE;
    h->moon = RECORD_NONE;

    long long dealer;
    if (get_int(field(o, "dealer"), 0, n - 1, &dealer)) {
        engine_fail(err, errlen,
                    "hand %d: dealer: a seat from 0 to %d is needed", hn,
                    n - 1);
        return -1;
    }
    h->dealer = (int)dealer;

    struct json_object *v = field(o, "pass");
    if (v) {
        const char *s = json_object_is_type(v, json_type_string)
                            ? json_object_get_string(v)
                            : "";
        for (int d = 0; d < NDIRS; d++)
            if (!strcasecmp(s, dir_names[d]))
                h->pass = d;
        if (h->pass == RECORD_NONE) {
            engine_fail(
                err, errlen,
                "hand %d: pass: one of left, right, across, hold, scatter, "
                "left2, right2",
                hn);
            return -1;
        }
    }

    char what[64];
    v = field(o, "deal");
    if (!json_object_is_type(v, json_type_array) ||
        json_object_array_length(v) != (size_t)n) {
        engine_fail(err, errlen,
                    "hand %d: deal: a list of %d lists of cards, one "
                    "per seat",
                    hn, n);
        return -1;
    }
    for (int s = 0; s < n; s++) {
        snprintf(what, sizeof what, "hand %d: deal[%d]", hn, s);
        if (parse_cards(json_object_array_get_idx(v, (size_t)s), h->deal[s],
                        ENGINE_MAX_CARDS, &h->ndeal[s], what, err, errlen))
            return -1;
    }
    snprintf(what, sizeof what, "hand %d: rest", hn);
    if (parse_cards(field(o, "rest"), h->rest, ENGINE_MAX_CARDS, &h->nrest,
                    what, err, errlen))
        return -1;

    v = field(o, "passed");
    if (v) {
        if (!json_object_is_type(v, json_type_array) ||
            json_object_array_length(v) != (size_t)n) {
            engine_fail(err, errlen,
                        "hand %d: passed: a list of %d lists of cards, one per "
                        "seat",
                        hn, n);
            return -1;
        }
        for (int s = 0; s < n; s++) {
            snprintf(what, sizeof what, "hand %d: passed[%d]", hn, s);
            if (parse_cards(json_object_array_get_idx(v, (size_t)s),
                            h->passed[s], ENGINE_MAX_ACT_CARDS, &h->npassed[s],
                            what, err, errlen))
                return -1;
        }
    }
    v = field(o, "blind");
    snprintf(what, sizeof what, "hand %d: blind", hn);
    if (v && parse_seats(v, n, false, &h->blind, what, err, errlen))
        return -1;
    snprintf(what, sizeof what, "hand %d: discard", hn);
    if (parse_cards(field(o, "discard"), h->discard, ENGINE_MAX_ACT_CARDS,
                    &h->ndiscard, what, err, errlen))
        return -1;
    v = field(o, "plays");
    if (!v) {
        engine_fail(err, errlen, "hand %d: plays: a list of cards is needed",
                    hn);
        return -1;
    }
    snprintf(what, sizeof what, "hand %d: plays", hn);
    if (parse_cards(v, h->plays, ENGINE_MAX_CARDS, &h->nplays, what, err,
                    errlen))
        return -1;

    v = field(o, "moon");
    if (v) {
        const char *s = json_object_is_type(v, json_type_string)
                            ? json_object_get_string(v)
                            : "";
        if (!strcasecmp(s, "subtract")) {
            h->moon = ENGINE_MOON_SUBTRACT;
        } else if (!strcasecmp(s, "add_others")) {
            h->moon = ENGINE_MOON_ADD_OTHERS;
        } else {
            engine_fail(err, errlen,
                        "hand %d: moon: null, \"subtract\" or \"add_others\"",
                        hn);
            return -1;
        }
    }
    v = field(o, "points");
    if (v) {
        snprintf(what, sizeof what, "hand %d: points", hn);
        if (parse_scores(v, n, h->points, what, err, errlen))
            return -1;
        h->has_points = true;
    }
    return 0;
}

/* One option's JSON value as the text engine_rules_set takes. */
static int option_text(const char *key, struct json_object *v, char *buf,
                       size_t size, char *err, size_t errlen)
{
    struct quote q;
    switch (json_object_get_type(v)) {
    case json_type_string: {
        const char *s = json_object_get_string(v);
        size_t len = (size_t)json_object_get_string_len(v);
        if (len >= size || memchr(s, '\0', len)) {
            engine_fail(err, errlen, "options: %s: the value is too long",
                        quoted(key, strlen(key), &q));
            return -1;
        }
        memcpy(buf, s, len + 1);
        return 0;
    }
    case json_type_int: {
        long long x;
        if (get_int(v, -1000000000, 1000000000, &x)) {
            engine_fail(err, errlen, "options: %s: the number is out of range",
                        quoted(key, strlen(key), &q));
            return -1;
        }
        snprintf(buf, size, "%lld", x);
        return 0;
    }
    case json_type_boolean:
        snprintf(buf, size, "%s", json_object_get_boolean(v) ? "on" : "off");
        return 0;
    default:
        engine_fail(err, errlen,
                    "options: %s: a string or a whole number, not %s",
                    quoted(key, strlen(key), &q), type_text(v));
        return -1;
    }
}

/* The preset, the player count and the options into rec->rules. */
static int parse_rules(struct json_object *root, struct record *rec, char *err,
                       size_t errlen)
{
    char msg[MSG];
    struct json_object *v = field(root, "preset");
    if (!json_object_is_type(v, json_type_string) ||
        json_object_get_string_len(v) > MAX_WORD ||
        memchr(json_object_get_string(v), '\0',
               (size_t)json_object_get_string_len(v))) {
        engine_fail(err, errlen, "preset: a preset name is needed");
        return -1;
    }
    struct engine_rules r;
    if (engine_rules_init(&r, json_object_get_string(v), msg, sizeof msg)) {
        engine_fail(err, errlen, "preset: %s", msg);
        return -1;
    }
    r.players = rec->n;
    v = field(root, "options");
    if (v && !json_object_is_type(v, json_type_object)) {
        engine_fail(err, errlen, "options: an object, not %s", type_text(v));
        return -1;
    }
    if (v) {
        struct json_object_iterator it = json_object_iter_begin(v);
        struct json_object_iterator end = json_object_iter_end(v);
        for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
            const char *key = json_object_iter_peek_name(&it);
            struct json_object *val = json_object_iter_peek_value(&it);
            char text[MAX_OPTION_TEXT];
            struct quote q;
            if (strlen(key) > MAX_WORD) {
                engine_fail(err, errlen, "options: unknown option '%s'",
                            quoted(key, strlen(key), &q));
                return -1;
            }
            if (option_text(key, val, text, sizeof text, err, errlen))
                return -1;
            if (!strcmp(key, "players")) {
                /* the players list gives the count; a copy must agree */
                long long count;
                if (!integer_text(text, &count) || count != rec->n) {
                    engine_fail(
                        err, errlen,
                        "options: players is %s but the record names %d "
                        "players",
                        text, rec->n);
                    return -1;
                }
                continue;
            }
            if (engine_rules_set(&r, key, text, msg, sizeof msg)) {
                engine_fail(err, errlen, "options: %s", msg);
                return -1;
            }
        }
    }
    if (engine_rules_finish(&r, msg, sizeof msg)) {
        engine_fail(err, errlen, "rules: %s", msg);
        return -1;
    }
    rec->rules = r;
    return 0;
}

static int parse_players(struct json_object *root, struct record *rec,
                         char *err, size_t errlen)
{
    struct json_object *v = field(root, "players");
    if (!json_object_is_type(v, json_type_array) ||
        json_object_array_length(v) < 2 ||
        json_object_array_length(v) > ENGINE_MAX_PLAYERS) {
        engine_fail(err, errlen, "players: a list of 2 to %d names is needed",
                    ENGINE_MAX_PLAYERS);
        return -1;
    }
    int n = (int)json_object_array_length(v);
    for (int s = 0; s < n; s++) {
        struct json_object *e = json_object_array_get_idx(v, (size_t)s);
        if (!json_object_is_type(e, json_type_string)) {
            engine_fail(err, errlen, "players[%d]: a name, not %s", s,
                        type_text(e));
            return -1;
        }
        const char *name = json_object_get_string(e);
        size_t len = (size_t)json_object_get_string_len(e);
        if (len > RECORD_MAX_NAME || memchr(name, '\0', len)) {
            engine_fail(err, errlen,
                        "players[%d]: a name of at most %d bytes without NUL",
                        s, RECORD_MAX_NAME);
            return -1;
        }
    }
    /* only now that all are good: the record owns what it holds */
    for (int s = 0; s < n; s++) {
        struct json_object *e = json_object_array_get_idx(v, (size_t)s);
        rec->names[s] = xstrndup(json_object_get_string(e),
                                 (size_t)json_object_get_string_len(e));
    }
    rec->n = n;
    return 0;
}

static int parse_root(struct json_object *root, struct record *rec, char *err,
                      size_t errlen)
{
    static const char *const known[] = {"format",  "preset", "options",
                                        "players", "hands",  "totals",
                                        "winners", NULL};
    if (check_keys(root, known, "", err, errlen))
        return -1;
    struct json_object *v = field(root, "format");
    if (!json_object_is_type(v, json_type_string)) {
        engine_fail(err, errlen, "format: \"%s\" is needed", RECORD_FORMAT);
        return -1;
    }
    if (strcmp(json_object_get_string(v), RECORD_FORMAT) != 0 ||
        (size_t)json_object_get_string_len(v) != strlen(RECORD_FORMAT)) {
        struct quote q;
        engine_fail(err, errlen, "format: '%s' is not %s",
                    quoted(json_object_get_string(v),
                           (size_t)json_object_get_string_len(v), &q),
                    RECORD_FORMAT);
        return -1;
    }
    if (parse_players(root, rec, err, errlen) ||
        parse_rules(root, rec, err, errlen))
        return -1;

    v = field(root, "hands");
    if (!json_object_is_type(v, json_type_array)) {
        engine_fail(err, errlen, "hands: a list of hands is needed");
        return -1;
    }
    size_t nh = json_object_array_length(v);
    if (nh > RECORD_MAX_HANDS) {
        engine_fail(err, errlen, "hands: %zu hands, more than %d", nh,
                    RECORD_MAX_HANDS);
        return -1;
    }
    rec->hands = xcalloc(nh, sizeof *rec->hands);
    for (size_t i = 0; i < nh; i++) {
        if (parse_hand(rec, json_object_array_get_idx(v, i), (int)i,
                       &rec->hands[i], err, errlen))
            return -1;
        rec->nhands = (int)i + 1;
    }

    v = field(root, "totals");
    if (v) {
        if (parse_scores(v, rec->n, rec->totals, "totals", err, errlen))
            return -1;
        rec->has_totals = true;
    }
    v = field(root, "winners");
    if (v) {
        uint16_t m;
        if (parse_seats(v, rec->n, true, &m, "winners", err, errlen))
            return -1;
        for (int s = 0; s < rec->n; s++)
            if (m >> s & 1)
                rec->winners[rec->nwinners++] = (uint8_t)s;
        rec->has_winners = true;
    }
    return 0;
}

/* Messages quote the record's text (the engine's too): no control
 * characters may reach a terminal or a log through them. */
static void clean_message(char *err, size_t errlen)
{
    if (!err || errlen == 0)
        return;
    for (char *p = err; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7F)
            *p = '?';
}

static int parse_line(const char *text, size_t len, struct record **out,
                      char *err, size_t errlen)
{
    if (!text) {
        text = "";
        len = 0;
    }
    if (len > RECORD_MAX_LINE) {
        engine_fail(err, errlen, "the record is longer than %u bytes",
                    RECORD_MAX_LINE);
        return -1;
    }
    if (memchr(text, '\0', len)) {
        engine_fail(err, errlen, "the record contains a NUL byte");
        return -1;
    }
    struct json_tokener *tok = json_tokener_new_ex(RECORD_MAX_DEPTH);
    if (!tok)
        abort();
    json_tokener_set_flags(tok,
                           JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!root) {
        if (jerr == json_tokener_continue)
            engine_fail(err, errlen,
                        "the JSON is incomplete (a truncated line?)");
        else if (jerr == json_tokener_success)
            engine_fail(err, errlen, "the record is null, not an object");
        else
            engine_fail(err, errlen, "bad JSON at byte %zu: %s", end,
                        json_tokener_error_desc(jerr));
        return -1;
    }
    if (!json_object_is_type(root, json_type_object)) {
        engine_fail(err, errlen, "the record is %s, not an object",
                    type_text(root));
        json_object_put(root);
        return -1;
    }
    struct record *rec = xcalloc(1, sizeof *rec);
    int rc = parse_root(root, rec, err, errlen);
    json_object_put(root);
    if (rc) {
        record_free(rec);
        return -1;
    }
    *out = rec;
    return 0;
}

int record_parse(const char *text, size_t len, struct record **out, char *err,
                 size_t errlen)
{
    if (parse_line(text, len, out, err, errlen) == 0)
        return 0;
    clean_message(err, errlen);
    return -1;
}

void record_free(struct record *rec)
{
    if (!rec)
        return;
    for (int s = 0; s < ENGINE_MAX_PLAYERS; s++)
        free(rec->names[s]);
    free(rec->hands);
    free(rec);
}

/* ---- Replaying -------------------------------------------------------- */

struct replay {
    const struct record *rec;
    struct engine_game g;
    const struct engine_sink *sink;
    record_step_fn step;
    void *ctx;
    char *err;
    size_t errlen;
};

/* Why the engine refused `a`, in words naming the seat and the cards. */
static void refusal_text(const struct engine_game *g,
                         const struct engine_action *a, enum engine_refusal why,
                         const struct engine_refusal_detail *d, char *buf,
                         size_t size)
{
    int s = a->seat;
    const char *card = engine_card_name(d->card);
    const char *verb = a->kind == ENGINE_ACT_DISCARD ? "discards" : "passes";
    char list[64];
    if (a->kind == ENGINE_ACT_PLAY) {
        const char *played = engine_card_name(a->cards[0]);
        const char *leads = g->trick_len == 0 ? "leads" : "plays";
        switch (why) {
        case ENGINE_REFUSE_NOT_IN_HAND:
            snprintf(buf, size, "seat %d plays %s, which it does not hold", s,
                     played);
            return;
        case ENGINE_REFUSE_BAD_CARD:
            snprintf(buf, size,
                     "seat %d plays %s, which is not in this "
                     "game's pack",
                     s, played);
            return;
        case ENGINE_REFUSE_MUST_FOLLOW:
            snprintf(
                buf, size, "seat %d plays %s but must follow %s", s, played,
                d->suit >= 0 && d->suit < 4 ? suit_names[d->suit] : "suit");
            return;
        case ENGINE_REFUSE_HEARTS_NOT_BROKEN:
            snprintf(buf, size, "seat %d leads %s but hearts are not broken", s,
                     played);
            return;
        case ENGINE_REFUSE_FIRST_TRICK_POINTS:
            snprintf(buf, size,
                     "seat %d %s %s but no points may go to the "
                     "first trick",
                     s, leads, played);
            return;
        case ENGINE_REFUSE_MUST_LEAD_CARD:
            snprintf(buf, size, "seat %d leads %s but must lead %s", s, played,
                     card);
            return;
        case ENGINE_REFUSE_MUST_DUMP_QUEEN:
            snprintf(buf, size,
                     "seat %d plays %s but must play the QS "
                     "(dump_queen)",
                     s, played);
            return;
        case ENGINE_REFUSE_MUST_LEAD_QUEEN:
            snprintf(buf, size, "seat %d leads %s but must lead the QS", s,
                     played);
            return;
        default:
            break;
        }
    } else if (a->kind == ENGINE_ACT_PASS || a->kind == ENGINE_ACT_DISCARD) {
        switch (why) {
        case ENGINE_REFUSE_PASS_COUNT:
            snprintf(buf, size, "seat %d %s %d cards (%s), not %d", s, verb,
                     a->ncards,
                     card_list(a->cards, a->ncards, list, sizeof list),
                     d->count);
            return;
        case ENGINE_REFUSE_NOT_IN_HAND:
            snprintf(buf, size, "seat %d %s %s, which it does not hold", s,
                     verb, card);
            return;
        case ENGINE_REFUSE_DUPLICATE_CARD:
            snprintf(buf, size, "seat %d %s %s twice", s, verb, card);
            return;
        case ENGINE_REFUSE_BAD_CARD:
            snprintf(buf, size,
                     "seat %d %s %s, which is not in this game's "
                     "pack",
                     s, verb, card);
            return;
        default:
            break;
        }
    } else if (a->kind == ENGINE_ACT_PASS_BLIND &&
               why == ENGINE_REFUSE_BLIND_NOT_ALLOWED) {
        snprintf(buf, size,
                 "seat %d may not pass blind (pass_blind is off, "
                 "or the pass is scatter)",
                 s);
        return;
    }
    snprintf(buf, size, "seat %d: %s", s, engine_refusal_text(why));
}

/* Takes one action; on refusal, the error names hand and action. */
static int act(struct replay *rp, int hand, int action,
               const struct engine_action *a)
{
    if (rp->step)
        rp->step(rp->ctx, &rp->g, hand, action, a);
    struct engine_refusal_detail d;
    enum engine_refusal why = engine_act(&rp->g, a, rp->sink, &d);
    if (why == ENGINE_OK)
        return 0;
    char msg[MSG];
    refusal_text(&rp->g, a, why, &d, msg, sizeof msg);
    engine_fail(rp->err, rp->errlen, "hand %d, action %d: %s", hand, action,
                msg);
    return -1;
}

/* Deals hand idx as recorded, after checking it is exactly the pack. */
static int replay_deal(struct replay *rp, int idx)
{
    const struct record *rec = rp->rec;
    const struct engine_rules *r = &rec->rules;
    const struct record_hand *h = &rec->hands[idx];
    int n = rec->n, hn = idx + 1;
    if (idx > 0) {
        int want = (rec->hands[0].dealer + idx) % n;
        if (h->dealer != want) {
            engine_fail(
                rp->err, rp->errlen,
                "hand %d: dealer: seat %d, but the deal passes clockwise "
                "from seat %d (hand 1) to seat %d",
                hn, h->dealer, rec->hands[0].dealer, want);
            return -1;
        }
    }
    for (int s = 0; s < n; s++) {
        if (h->ndeal[s] != r->hand_size) {
            engine_fail(rp->err, rp->errlen,
                        "hand %d: deal: seat %d is dealt %d cards, not %d", hn,
                        s, h->ndeal[s], r->hand_size);
            return -1;
        }
    }
    if (h->nrest != r->rest_len) {
        engine_fail(rp->err, rp->errlen, "hand %d: rest: %d cards, not %d", hn,
                    h->nrest, r->rest_len);
        return -1;
    }
    uint8_t pack[ENGINE_MAX_CARDS];
    int len = 0;
    for (int k = 0; k < n * r->hand_size; k++)
        pack[len++] = h->deal[(h->dealer + 1 + k) % n][k / n];
    for (int i = 0; i < h->nrest; i++)
        pack[len++] = h->rest[i];
    /* the counts are right, so a card too many means one is missing:
     * name both */
    int count[64] = {0};
    int extra = -1, missing = -1;
    for (int i = 0; i < len; i++) {
        int c = pack[i];
        if (extra < 0 &&
            (!(r->in_play & ENGINE_BIT(c)) || count[c] == r->decks))
            extra = c;
        count[c]++;
    }
    for (int c = 0; c < 64 && missing < 0; c++)
        if ((r->in_play & ENGINE_BIT(c)) && count[c] < r->decks)
            missing = c;
    if (extra >= 0 || missing >= 0) {
        char what[64] = "";
        if (extra >= 0 && !(r->in_play & ENGINE_BIT(extra)))
            snprintf(what, sizeof what, "%s is not in this game's pack",
                     engine_card_name(extra));
        else if (extra >= 0)
            snprintf(what, sizeof what, "%s is dealt %s",
                     engine_card_name(extra),
                     r->decks == 1 ? "twice" : "3 times");
        engine_fail(rp->err, rp->errlen, "hand %d: deal: %s%s%s%s", hn, what,
                    extra >= 0 && missing >= 0 ? " and " : "",
                    missing >= 0 ? engine_card_name(missing) : "",
                    missing >= 0 ? " is missing" : "");
        return -1;
    }
    char msg[MSG];
    if (engine_deal_given(&rp->g, h->dealer, pack, len, rp->sink, msg,
                          sizeof msg)) {
        engine_fail(rp->err, rp->errlen, "hand %d: deal: %s", hn, msg);
        return -1;
    }
    if (h->pass != RECORD_NONE && h->pass != rp->g.pass_dir) {
        engine_fail(rp->err, rp->errlen,
                    "hand %d: pass: \"%s\", but the rules make it \"%s\"", hn,
                    dir_names[h->pass], dir_names[rp->g.pass_dir % NDIRS]);
        return -1;
    }
    return 0;
}

/*
 * The passes of hand idx, seat by seat. In the last hand a seat without
 * cards (and not blind) has not chosen yet; *stopped says the record ends
 * there. Returns the last action number used, or -1.
 */
static int replay_passes(struct replay *rp, int idx, bool last, bool *stopped)
{
    const struct record_hand *h = &rp->rec->hands[idx];
    int n = rp->rec->n, hn = idx + 1;
    *stopped = false;
    if (engine_phase(&rp->g) != ENGINE_PHASE_PASS) {
        for (int s = 0; s < n; s++) {
            if (h->npassed[s] || (h->blind >> s & 1)) {
                engine_fail(rp->err, rp->errlen,
                            "hand %d: passed: seat %d passes in a hand without "
                            "passing",
                            hn, s);
                return -1;
            }
        }
        return 0;
    }
    bool more = h->nplays || h->ndiscard || h->moon != RECORD_NONE ||
                h->has_points || !last;
    int waiting = -1;
    for (int s = 0; s < n; s++) {
        struct engine_action a = {.kind = ENGINE_ACT_PASS, .seat = (uint8_t)s};
        if (h->blind >> s & 1) {
            a.kind = ENGINE_ACT_PASS_BLIND;
        } else if (h->npassed[s] == 0 && !more) {
            if (waiting < 0)
                waiting = s;
            continue;
        } else {
            a.ncards = (uint8_t)h->npassed[s];
            memcpy(a.cards, h->passed[s], (size_t)h->npassed[s]);
        }
        if (act(rp, hn, s + 1, &a))
            return -1;
    }
    if (waiting >= 0) {
        *stopped = true;
        return n;
    }
    /* what a blind seat passed on is decided by the others: check it */
    for (int s = 0; s < n; s++) {
        if (!(h->blind >> s & 1))
            continue;
        uint8_t got[ENGINE_MAX_ACT_CARDS];
        int k = engine_passed_cards(&rp->g, s, got);
        if (k != h->npassed[s] || memcmp(got, h->passed[s], (size_t)k) != 0) {
            char a[64], b[64];
            engine_fail(
                rp->err, rp->errlen,
                "hand %d, action %d: seat %d passed blind, so it passed on "
                "%s, not %s",
                hn, s + 1, s, card_list(got, k, a, sizeof a),
                card_list(h->passed[s], h->npassed[s], b, sizeof b));
            return -1;
        }
    }
    return n;
}

/* Replays hand idx. Returns 0, 1 if the record stops inside it (allowed in
 * the last hand only), or -1. */
static int replay_hand(struct replay *rp, int idx, bool last)
{
    const struct record *rec = rp->rec;
    const struct record_hand *h = &rec->hands[idx];
    struct engine_game *g = &rp->g;
    int hn = idx + 1;
    if (engine_phase(g) == ENGINE_PHASE_GAME_OVER) {
        engine_fail(
            rp->err, rp->errlen,
            "hand %d: the game was over after hand %d, but the record goes "
            "on",
            hn, idx);
        return -1;
    }
    if (replay_deal(rp, idx))
        return -1;
    bool stopped;
    int action = replay_passes(rp, idx, last, &stopped);
    if (action < 0)
        return -1;
    if (stopped)
        return 1;

    bool discarded = false;
    int i = 0;
    for (;;) {
        enum engine_phase ph = engine_phase(g);
        if (ph == ENGINE_PHASE_DISCARD && h->ndiscard && !discarded) {
            struct engine_action a = {.kind = ENGINE_ACT_DISCARD,
                                      .seat = (uint8_t)engine_turn(g),
                                      .ncards = (uint8_t)h->ndiscard};
            memcpy(a.cards, h->discard, (size_t)h->ndiscard);
            if (act(rp, hn, ++action, &a))
                return -1;
            discarded = true;
            continue;
        }
        if (i == h->nplays)
            break;
        if (ph == ENGINE_PHASE_DISCARD) {
            engine_fail(rp->err, rp->errlen,
                        "hand %d, action %d: seat %d took the kitty and must "
                        "discard %d cards, but the record plays on (discard is "
                        "missing)",
                        hn, action + 1, engine_turn(g),
                        engine_discard_count(g));
            return -1;
        }
        if (ph != ENGINE_PHASE_PLAY) {
            engine_fail(
                rp->err, rp->errlen,
                "hand %d, action %d: the hand is over, but the record plays "
                "on (%s)",
                hn, action + 1, engine_card_name(h->plays[i]));
            return -1;
        }
        struct engine_action a = {.kind = ENGINE_ACT_PLAY,
                                  .seat = (uint8_t)engine_turn(g),
                                  .ncards = 1};
        a.cards[0] = h->plays[i++];
        if (act(rp, hn, ++action, &a))
            return -1;
    }

    /* the record has no more plays: is the hand over, or may it stop? */
    bool ends_here =
        last && !h->has_points && !rec->has_totals && !rec->has_winners;
    enum engine_phase ph = engine_phase(g);
    if (ph == ENGINE_PHASE_DISCARD && !discarded) {
        if (ends_here && h->moon == RECORD_NONE)
            return 1;
        engine_fail(
            rp->err, rp->errlen,
            "hand %d, action %d: seat %d must discard %d cards, but the "
            "discard is missing",
            hn, action + 1, engine_turn(g), engine_discard_count(g));
        return -1;
    }
    if (h->ndiscard && !discarded) {
        engine_fail(
            rp->err, rp->errlen,
            "hand %d: discard: given, but nobody took a kitty to exchange", hn);
        return -1;
    }
    if (ph == ENGINE_PHASE_MOON) {
        if (h->moon == RECORD_NONE) {
            if (ends_here)
                return 1;
            engine_fail(
                rp->err, rp->errlen,
                "hand %d, action %d: seat %d shot the %s and chooses, but "
                "moon is missing",
                hn, action + 1, engine_turn(g), g->moon_sun ? "sun" : "moon");
            return -1;
        }
        struct engine_action a = {.kind = ENGINE_ACT_MOON,
                                  .seat = (uint8_t)engine_turn(g),
                                  .moon = (uint8_t)h->moon};
        if (act(rp, hn, ++action, &a))
            return -1;
        ph = engine_phase(g);
    } else if (h->moon != RECORD_NONE) {
        if (rec->rules.moon != ENGINE_MOON_CHOICE)
            engine_fail(
                rp->err, rp->errlen,
                "hand %d: moon: given, but the rules are not moon=choice", hn);
        else if (ph == ENGINE_PHASE_PLAY || ph == ENGINE_PHASE_DISCARD)
            engine_fail(rp->err, rp->errlen,
                        "hand %d: moon: given, but the hand is not finished",
                        hn);
        else
            engine_fail(rp->err, rp->errlen,
                        "hand %d: moon: given, but nobody shot the moon", hn);
        return -1;
    }
    if (ph != ENGINE_PHASE_DEAL && ph != ENGINE_PHASE_GAME_OVER) {
        if (ends_here)
            return 1;
        if (!last)
            engine_fail(rp->err, rp->errlen,
                        "hand %d, action %d: the hand is not finished, but the "
                        "record goes on",
                        hn, action + 1);
        else if (h->has_points)
            engine_fail(rp->err, rp->errlen,
                        "hand %d: points: given, but the hand is not finished",
                        hn);
        else
            engine_fail(rp->err, rp->errlen,
                        "hand %d, action %d: the hand is not finished, but the "
                        "record gives the game's %s",
                        hn, action + 1, rec->has_totals ? "totals" : "winners");
        return -1;
    }
    if (h->has_points) {
        for (int s = 0; s < rec->n; s++) {
            if (h->points[s] != g->points[s]) {
                engine_fail(
                    rp->err, rp->errlen,
                    "hand %d: points: seat %d scores %d, the record says "
                    "%d",
                    hn, s, (int)g->points[s], (int)h->points[s]);
                return -1;
            }
        }
    }
    return 0;
}

/* Totals and winners, where the record gives them, against the game. */
static int replay_end(struct replay *rp)
{
    const struct record *rec = rp->rec;
    const struct engine_game *g = &rp->g;
    bool over = engine_phase(g) == ENGINE_PHASE_GAME_OVER;
    if ((rec->has_totals || rec->has_winners) && !over) {
        engine_fail(rp->err, rp->errlen, "%s: given, but the game is not over",
                    rec->has_totals ? "totals" : "winners");
        return -1;
    }
    if (rec->has_totals) {
        for (int s = 0; s < rec->n; s++) {
            if (rec->totals[s] != g->totals[s]) {
                engine_fail(rp->err, rp->errlen,
                            "totals: seat %d has %d, the record says %d", s,
                            (int)g->totals[s], (int)rec->totals[s]);
                return -1;
            }
        }
    }
    if (rec->has_winners) {
        bool same = rec->nwinners == g->nwinners;
        for (int i = 0; same && i < g->nwinners; i++)
            same = rec->winners[i] == g->winners[i];
        if (!same) {
            char a[64] = "", b[64] = "";
            size_t pa = 0, pb = 0;
            for (int i = 0; i < g->nwinners; i++)
                pa += (size_t)snprintf(a + pa, sizeof a - pa, "%s%d",
                                       i ? " " : "", g->winners[i]);
            for (int i = 0; i < rec->nwinners; i++)
                pb += (size_t)snprintf(b + pb, sizeof b - pb, "%s%d",
                                       i ? " " : "", rec->winners[i]);
            engine_fail(rp->err, rp->errlen,
                        "winners: seats %s win, the record says %s", a, b);
            return -1;
        }
    }
    return 0;
}

int record_replay(const struct record *rec, const struct engine_sink *sink,
                  record_step_fn step, void *ctx, struct engine_game *out,
                  char *err, size_t errlen)
{
    /* the game is large (a few KiB): keep it off small stacks */
    struct replay *rp = xcalloc(1, sizeof *rp);
    rp->rec = rec;
    rp->sink = sink;
    rp->step = step;
    rp->ctx = ctx;
    rp->err = err;
    rp->errlen = errlen;
    engine_game_init(&rp->g, &rec->rules, 0,
                     rec->nhands ? rec->hands[0].dealer : 0);
    int rc = 0;
    /* replay_hand stops early (returns 1) only in the last hand */
    for (int i = 0; i < rec->nhands && rc == 0; i++)
        if (replay_hand(rp, i, i == rec->nhands - 1) < 0)
            rc = -1;
    if (rc == 0)
        rc = replay_end(rp);
    if (rc == 0 && out)
        *out = rp->g;
    free(rp);
    return rc;
}

int record_check(const char *text, size_t len, char *err, size_t errlen)
{
    struct record *rec;
    if (record_parse(text, len, &rec, err, errlen))
        return -1;
    int rc = record_replay(rec, NULL, NULL, NULL, NULL, err, errlen);
    record_free(rec);
    return rc;
}

/* ---- The writer ------------------------------------------------------- */

struct record_writer {
    struct record rec; /* rules, names, the hands so far */
    int cap;           /* hands allocated */
    bool overflow;     /* the game went beyond RECORD_MAX_HANDS */
    struct engine_sink sink;
};

static void writer_dealt(struct record_writer *w, const struct engine_game *g)
{
    struct record *rec = &w->rec;
    if (rec->nhands == RECORD_MAX_HANDS) {
        w->overflow = true;
        return;
    }
    if (rec->nhands == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 16;
        if (w->cap > RECORD_MAX_HANDS)
            w->cap = RECORD_MAX_HANDS;
        rec->hands = xrealloc(rec->hands, sizeof *rec->hands * (size_t)w->cap);
    }
    struct record_hand *h = &rec->hands[rec->nhands++];
    memset(h, 0, sizeof *h);
    h->dealer = g->dealer;
    h->pass = g->pass_dir;
    h->moon = RECORD_NONE;
    int len, rest_len;
    const uint8_t *pack = engine_deal_order(g, &len);
    engine_rest(g, &rest_len);
    for (int k = 0; k < len - rest_len; k++) {
        int s = (g->dealer + 1 + k) % g->n;
        h->deal[s][h->ndeal[s]++] = pack[k];
    }
    memcpy(h->rest, pack + len - rest_len, (size_t)rest_len);
    h->nrest = rest_len;
}

static void writer_emit(void *ctx, const struct engine_game *g,
                        const struct engine_event *ev)
{
    struct record_writer *w = ctx;
    struct record *rec = &w->rec;
    if (w->overflow)
        return;
    if (ev->kind == ENGINE_EV_DEALT) {
        writer_dealt(w, g);
        return;
    }
    if (rec->nhands == 0)
        return; /* attached after the deal: nothing to add to */
    struct record_hand *h = &rec->hands[rec->nhands - 1];
    switch (ev->kind) {
    case ENGINE_EV_PASS_CHOSEN:
        /* a journal keeps the passes chosen before the exchange */
        h->npassed[ev->seat] =
            engine_passed_cards(g, ev->seat, h->passed[ev->seat]);
        h->blind = g->blind_mask;
        break;
    case ENGINE_EV_PASSED:
        /* now blind seats have passed on what reached them */
        for (int s = 0; s < g->n; s++)
            h->npassed[s] = engine_passed_cards(g, s, h->passed[s]);
        h->blind = g->blind_mask;
        break;
    case ENGINE_EV_PLAYED:
        if (h->nplays < ENGINE_MAX_CARDS)
            h->plays[h->nplays++] = (uint8_t)ev->card;
        break;
    case ENGINE_EV_DISCARDED:
        h->ndiscard = g->ndiscard;
        memcpy(h->discard, g->discard, g->ndiscard);
        break;
    case ENGINE_EV_MOON:
        if (rec->rules.moon == ENGINE_MOON_CHOICE)
            h->moon = ev->value;
        break;
    case ENGINE_EV_HAND_SCORED:
        memcpy(h->points, g->points, sizeof(int32_t) * (size_t)g->n);
        h->has_points = true;
        break;
    case ENGINE_EV_GAME_OVER:
        memcpy(rec->totals, g->totals, sizeof(int32_t) * (size_t)g->n);
        rec->has_totals = true;
        rec->nwinners = g->nwinners;
        memcpy(rec->winners, g->winners, g->nwinners);
        rec->has_winners = true;
        break;
    default:
        break;
    }
}

/* A copy of name with every byte that is not UTF-8 replaced by '?', so
 * that the reader (which insists on UTF-8) takes what the writer writes. */
static char *utf8_copy(const char *name)
{
    size_t len = strlen(name);
    char *p = xstrndup(name, len);
    for (size_t i = 0; i < len;) {
        size_t k = utf8_char((const unsigned char *)p + i, len - i);
        if (k == 0) {
            p[i++] = '?';
            continue;
        }
        i += k;
    }
    return p;
}

struct record_writer *record_writer_new(const struct engine_rules *r,
                                        const char *const *names, int n)
{
    if (!r || !r->finished || n != r->players || n < 1 ||
        n > ENGINE_MAX_PLAYERS || !names)
        return NULL;
    for (int s = 0; s < n; s++)
        if (!names[s] || strlen(names[s]) > RECORD_MAX_NAME)
            return NULL;
    struct record_writer *w = xcalloc(1, sizeof *w);
    w->rec.rules = *r;
    w->rec.n = n;
    for (int s = 0; s < n; s++)
        w->rec.names[s] = utf8_copy(names[s]);
    w->sink.emit = writer_emit;
    w->sink.ctx = w;
    return w;
}

const struct engine_sink *record_writer_sink(struct record_writer *w)
{
    return &w->sink;
}

char *record_writer_json(const struct record_writer *w)
{
    if (w->overflow)
        return NULL;
    return record_to_json(&w->rec);
}

void record_writer_free(struct record_writer *w)
{
    if (!w)
        return;
    for (int s = 0; s < ENGINE_MAX_PLAYERS; s++)
        free(w->rec.names[s]);
    free(w->rec.hands);
    free(w);
}
