/*
 * Reading records (record.h): one line of JSON into a struct record (the
 * format is docs/spec/game-record.md, our reading of it docs/records.md).
 *
 * The reader treats the line as hostile: json-c parses it strictly (with a
 * depth limit and UTF-8 checking), every field's type is checked before its
 * value is read (json_object_get_int returns 0 on junk), every number and
 * every list length is bounded before anything is stored, and nothing is
 * trusted to agree with anything else until the replay has checked it.
 */
#include "storage/record/record_internal.h"
#include "bot/common/err.h"
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/common/xalloc.h"
#include "bot/common/xjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A record nests five deep (record, hands, hand, deal, seat); anything
 * deeper is not a record, and the cap keeps json-c's recursion short. */
#define RECORD_MAX_DEPTH 8
#define MAX_WORD 64 /* a preset name or an option key */

/* ---- Small helpers ---------------------------------------------------- */

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
            err_set(err, errlen, "%sunknown field '%s'", where,
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
        err_set(err, errlen, "%s: a list of cards, not %s", where,
                type_text(v));
        return -1;
    }
    size_t len = json_object_array_length(v);
    if (len > (size_t)max) {
        err_set(err, errlen, "%s: %zu cards, more than %d", where, len, max);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        struct json_object *c = json_object_array_get_idx(v, i);
        if (!json_object_is_type(c, json_type_string)) {
            err_set(err, errlen, "%s[%zu]: a card like \"QS\", not %s", where,
                    i, type_text(c));
            return -1;
        }
        const char *s = json_object_get_string(c);
        size_t slen = (size_t)json_object_get_string_len(c);
        int card;
        if (engine_card_parse(s, slen, &card)) {
            struct quote q;
            err_set(err, errlen, "%s[%zu]: '%s' is not a card", where, i,
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
        err_set(err, errlen, "%s: a list of %d numbers, one per seat", where,
                n);
        return -1;
    }
    int32_t tmp[ENGINE_MAX_PLAYERS] = {0};
    for (int s = 0; s < n; s++) {
        long long x;
        struct json_object *e = json_object_array_get_idx(v, (size_t)s);
        if (get_int(e, -RECORD_MAX_POINTS, RECORD_MAX_POINTS, &x)) {
            err_set(err, errlen, "%s[%d]: a whole number within %d, not %s",
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
        err_set(err, errlen, "%s: a list of seats, not %s", where,
                type_text(v));
        return -1;
    }
    size_t len = json_object_array_length(v);
    if (len > (size_t)n || (nonempty && len == 0)) {
        err_set(err, errlen, "%s: %zu seats at a table of %d", where, len, n);
        return -1;
    }
    uint16_t m = 0;
    for (size_t i = 0; i < len; i++) {
        long long s;
        if (get_int(json_object_array_get_idx(v, i), 0, n - 1, &s)) {
            err_set(err, errlen, "%s[%zu]: a seat from 0 to %d", where, i,
                    n - 1);
            return -1;
        }
        if (m >> s & 1) {
            err_set(err, errlen, "%s: seat %lld twice", where, s);
            return -1;
        }
        m |= (uint16_t)(1u << s);
    }
    *mask = m;
    return 0;
}

/* The dealer and the pass direction of hand hn. */
static int parse_dealer_pass(struct json_object *o, int hn, int n,
                             struct record_hand *h, char *err, size_t errlen)
{
    long long dealer;
    if (get_int(field(o, "dealer"), 0, n - 1, &dealer)) {
        err_set(err, errlen, "hand %d: dealer: a seat from 0 to %d is needed",
                hn, n - 1);
        return -1;
    }
    h->dealer = (int)dealer;

    struct json_object *v = field(o, "pass");
    if (v) {
        const char *s = json_object_is_type(v, json_type_string)
                            ? json_object_get_string(v)
                            : "";
        for (int d = 0; d < RECORD_NDIRS; d++)
            if (!strcasecmp(s, record_dir_names[d]))
                h->pass = d;
        if (h->pass == RECORD_NONE) {
            err_set(err, errlen,
                    "hand %d: pass: one of left, right, across, hold, scatter, "
                    "left2, right2",
                    hn);
            return -1;
        }
    }
    return 0;
}

/* What was dealt: each seat's cards and the rest. */
static int parse_deal(struct json_object *o, int hn, int n,
                      struct record_hand *h, char *err, size_t errlen)
{
    char what[64];
    struct json_object *v = field(o, "deal");
    if (!json_object_is_type(v, json_type_array) ||
        json_object_array_length(v) != (size_t)n) {
        err_set(err, errlen,
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
    return parse_cards(field(o, "rest"), h->rest, ENGINE_MAX_CARDS, &h->nrest,
                       what, err, errlen);
}

/* What each seat passed (if given) and who passed blind. */
static int parse_passes(struct json_object *o, int hn, int n,
                        struct record_hand *h, char *err, size_t errlen)
{
    char what[64];
    struct json_object *v = field(o, "passed");
    if (v) {
        if (!json_object_is_type(v, json_type_array) ||
            json_object_array_length(v) != (size_t)n) {
            err_set(err, errlen,
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
    return 0;
}

/* The kitty-exchange discard and the plays. */
static int parse_plays(struct json_object *o, int hn, struct record_hand *h,
                       char *err, size_t errlen)
{
    char what[64];
    snprintf(what, sizeof what, "hand %d: discard", hn);
    if (parse_cards(field(o, "discard"), h->discard, ENGINE_MAX_ACT_CARDS,
                    &h->ndiscard, what, err, errlen))
        return -1;
    struct json_object *v = field(o, "plays");
    if (!v) {
        err_set(err, errlen, "hand %d: plays: a list of cards is needed", hn);
        return -1;
    }
    snprintf(what, sizeof what, "hand %d: plays", hn);
    return parse_cards(v, h->plays, ENGINE_MAX_CARDS, &h->nplays, what, err,
                       errlen);
}

/* The moon choice and the hand's points, where given. */
static int parse_moon_points(struct json_object *o, int hn, int n,
                             struct record_hand *h, char *err, size_t errlen)
{
    struct json_object *v = field(o, "moon");
    if (v) {
        const char *s = json_object_is_type(v, json_type_string)
                            ? json_object_get_string(v)
                            : "";
        if (!strcasecmp(s, "subtract")) {
            h->moon = ENGINE_MOON_SUBTRACT;
        } else if (!strcasecmp(s, "add_others")) {
            h->moon = ENGINE_MOON_ADD_OTHERS;
        } else {
            err_set(err, errlen,
                    "hand %d: moon: null, \"subtract\" or \"add_others\"", hn);
            return -1;
        }
    }
    v = field(o, "points");
    if (v) {
        char what[64];
        snprintf(what, sizeof what, "hand %d: points", hn);
        if (parse_scores(v, n, h->points, what, err, errlen))
            return -1;
        h->has_points = true;
    }
    return 0;
}

/* Hand idx of the record, field by field in the order of the format. */
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
        err_set(err, errlen, "hand %d: an object, not %s", hn, type_text(o));
        return -1;
    }
    if (check_keys(o, known, where, err, errlen))
        return -1;
    memset(h, 0, sizeof *h);
    h->pass = RECORD_NONE;
    h->moon = RECORD_NONE;
    if (parse_dealer_pass(o, hn, n, h, err, errlen) ||
        parse_deal(o, hn, n, h, err, errlen) ||
        parse_passes(o, hn, n, h, err, errlen) ||
        parse_plays(o, hn, h, err, errlen) ||
        parse_moon_points(o, hn, n, h, err, errlen))
        return -1;
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
            err_set(err, errlen, "options: %s: the value is too long",
                    quoted(key, strlen(key), &q));
            return -1;
        }
        memcpy(buf, s, len + 1);
        return 0;
    }
    case json_type_int: {
        long long x;
        if (get_int(v, -1000000000, 1000000000, &x)) {
            err_set(err, errlen, "options: %s: the number is out of range",
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
        err_set(err, errlen, "options: %s: a string or a whole number, not %s",
                quoted(key, strlen(key), &q), type_text(v));
        return -1;
    }
}

/* The preset, the player count and the options into rec->rules. */
static int parse_rules(struct json_object *root, struct record *rec, char *err,
                       size_t errlen)
{
    char msg[RECORD_MSG];
    struct json_object *v = field(root, "preset");
    if (!json_object_is_type(v, json_type_string) ||
        json_object_get_string_len(v) > MAX_WORD ||
        memchr(json_object_get_string(v), '\0',
               (size_t)json_object_get_string_len(v))) {
        err_set(err, errlen, "preset: a preset name is needed");
        return -1;
    }
    struct engine_rules r;
    struct engine_error e;
    if (engine_rules_init(&r, json_object_get_string(v), &e)) {
        err_set(err, errlen, "preset: %s",
                rule_words_error_text(msg, sizeof msg, MSG_EN, &e));
        return -1;
    }
    r.players = rec->n;
    v = field(root, "options");
    if (v && !json_object_is_type(v, json_type_object)) {
        err_set(err, errlen, "options: an object, not %s", type_text(v));
        return -1;
    }
    if (v) {
        struct json_object_iterator it = json_object_iter_begin(v);
        struct json_object_iterator end = json_object_iter_end(v);
        for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
            const char *key = json_object_iter_peek_name(&it);
            struct json_object *val = json_object_iter_peek_value(&it);
            char text[RECORD_MAX_OPTION_TEXT];
            struct quote q;
            if (strlen(key) > MAX_WORD) {
                err_set(err, errlen, "options: unknown option '%s'",
                        quoted(key, strlen(key), &q));
                return -1;
            }
            if (option_text(key, val, text, sizeof text, err, errlen))
                return -1;
            if (!strcmp(key, "players")) {
                /* the players list gives the count; a copy must agree */
                long long count;
                if (!record_integer_text(text, &count) || count != rec->n) {
                    err_set(err, errlen,
                            "options: players is %s but the record names %d "
                            "players",
                            text, rec->n);
                    return -1;
                }
                continue;
            }
            if (engine_rules_set(&r, key, text, &e)) {
                err_set(err, errlen, "options: %s",
                        rule_words_error_text(msg, sizeof msg, MSG_EN, &e));
                return -1;
            }
        }
    }
    if (engine_rules_finish(&r, &e)) {
        err_set(err, errlen, "rules: %s",
                rule_words_error_text(msg, sizeof msg, MSG_EN, &e));
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
        err_set(err, errlen, "players: a list of 2 to %d names is needed",
                ENGINE_MAX_PLAYERS);
        return -1;
    }
    int n = (int)json_object_array_length(v);
    for (int s = 0; s < n; s++) {
        struct json_object *e = json_object_array_get_idx(v, (size_t)s);
        if (!json_object_is_type(e, json_type_string)) {
            err_set(err, errlen, "players[%d]: a name, not %s", s,
                    type_text(e));
            return -1;
        }
        const char *name = json_object_get_string(e);
        size_t len = (size_t)json_object_get_string_len(e);
        if (len > RECORD_MAX_NAME || memchr(name, '\0', len)) {
            err_set(err, errlen,
                    "players[%d]: a name of at most %d bytes without NUL", s,
                    RECORD_MAX_NAME);
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
                                        "winners", "hints",  NULL};
    if (check_keys(root, known, "", err, errlen))
        return -1;
    struct json_object *v = field(root, "format");
    if (!json_object_is_type(v, json_type_string)) {
        err_set(err, errlen, "format: \"%s\" is needed", RECORD_FORMAT);
        return -1;
    }
    if (strcmp(json_object_get_string(v), RECORD_FORMAT) != 0 ||
        (size_t)json_object_get_string_len(v) != strlen(RECORD_FORMAT)) {
        struct quote q;
        err_set(err, errlen, "format: '%s' is not %s",
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
        err_set(err, errlen, "hands: a list of hands is needed");
        return -1;
    }
    size_t nh = json_object_array_length(v);
    if (nh > RECORD_MAX_HANDS) {
        err_set(err, errlen, "hands: %zu hands, more than %d", nh,
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
    v = field(root, "hints");
    if (v) {
        if (!json_object_is_type(v, json_type_boolean)) {
            err_set(err, errlen, "hints: true or false is needed");
            return -1;
        }
        rec->hints = json_object_get_boolean(v);
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
        err_set(err, errlen, "the record is longer than %u bytes",
                RECORD_MAX_LINE);
        return -1;
    }
    if (memchr(text, '\0', len)) {
        err_set(err, errlen, "the record contains a NUL byte");
        return -1;
    }
    struct json_tokener *tok = xjson_tokener(RECORD_MAX_DEPTH);
    json_tokener_set_flags(tok,
                           JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!root) {
        if (jerr == json_tokener_continue)
            err_set(err, errlen, "the JSON is incomplete (a truncated line?)");
        else if (jerr == json_tokener_success)
            err_set(err, errlen, "the record is null, not an object");
        else
            err_set(err, errlen, "bad JSON at byte %zu: %s", end,
                    json_tokener_error_desc(jerr));
        return -1;
    }
    if (!json_object_is_type(root, json_type_object)) {
        err_set(err, errlen, "the record is %s, not an object",
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
