/*
 * Journal lines (journal.h): written and read with json-c, plain (no
 * spaces) so that a hand costs few bytes.
 */
#include "storage/journal.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/err.h"
#include "bot/common/xalloc.h"
#include "bot/common/xjson.h"
#include "storage/storage.h"

/* ---- Writing ---------------------------------------------------------- */

static struct json_object *jcards(const uint8_t *cards, int n)
{
    struct json_object *a = xjson(json_object_new_array());
    for (int i = 0; i < n; i++)
        xjson_push(a, json_object_new_string(engine_card_name(cards[i])));
    return a;
}

/* The object as one line with its '\n'; the object is freed. */
static char *line_of(struct json_object *o)
{
    const char *s = xjson_plain(o);
    size_t len = strlen(s);
    char *out = xmalloc(len + 2);
    memcpy(out, s, len);
    out[len] = '\n';
    out[len + 1] = '\0';
    json_object_put(o);
    return out;
}

char *journal_header(const char *game, const char *network, const char *room,
                     const char *rules, long long opened, int turn_timeout,
                     bool hints)
{
    struct json_object *o = xjson(json_object_new_object());
    xjson_set(o, "format",
              json_object_new_string(hints          ? JOURNAL_FORMAT
                                     : turn_timeout ? JOURNAL_FORMAT_2
                                                    : JOURNAL_FORMAT_1));
    xjson_set(o, "game", json_object_new_string(game));
    xjson_set(o, "network", json_object_new_string(network));
    xjson_set(o, "room", json_object_new_string(room));
    xjson_set(o, "rules", json_object_new_string(rules));
    xjson_set(o, "opened", json_object_new_int64(opened));
    if (turn_timeout)
        xjson_set(o, "turn_timeout", json_object_new_int(turn_timeout));
    if (hints)
        xjson_set(o, "hints", json_object_new_boolean(1));
    return line_of(o);
}

char *journal_seats(const struct journal_seat *seats, int n, int opener)
{
    struct json_object *o = xjson(json_object_new_object());
    struct json_object *a = xjson(json_object_new_array());
    for (int s = 0; s < n; s++) {
        const struct journal_seat *st = &seats[s];
        struct json_object *v = NULL;
        if (st->used) {
            v = xjson(json_object_new_object());
            xjson_set(v, "nick", json_object_new_string(st->nick));
            if (st->display[0])
                xjson_set(v, "display", json_object_new_string(st->display));
            /* a person replaced by a computer keeps who they were: the
             * results count the game for them */
            if (st->id[0])
                xjson_set(v, "id", json_object_new_string(st->id));
            if (st->key[0])
                xjson_set(v, "key", json_object_new_string(st->key));
            if (st->away)
                xjson_set(v, "away", json_object_new_boolean(1));
            if (st->autoplay)
                xjson_set(v, "autoplay", json_object_new_int(st->autoplay));
            /* a computer is a seat with a level */
            if (!st->human)
                xjson_set(v, "level", json_object_new_int(st->level));
        }
        /* an empty seat is null */
        if (json_object_array_add(a, v))
            abort();
    }
    xjson_set(o, "seats", a);
    if (opener >= 0)
        xjson_set(o, "opener", json_object_new_int(opener));
    return line_of(o);
}

char *journal_start(void)
{
    struct json_object *o = xjson(json_object_new_object());
    xjson_set(o, "start", json_object_new_boolean(1));
    return line_of(o);
}

char *journal_turn(uint32_t turn, long long deadline, int reminded,
                   long long channel)
{
    struct json_object *o = xjson(json_object_new_object());
    xjson_set(o, "turn", json_object_new_int64(turn));
    xjson_set(o, "deadline", json_object_new_int64(deadline));
    if (reminded)
        xjson_set(o, "reminded", json_object_new_int(reminded));
    if (channel)
        xjson_set(o, "channel", json_object_new_int64(channel));
    return line_of(o);
}

char *journal_event(const struct engine_game *g, const struct engine_event *ev)
{
    struct json_object *o;
    uint8_t cards[ENGINE_MAX_CARDS];
    switch (ev->kind) {
    case ENGINE_EV_DEALT: {
        int len, rest_len;
        const uint8_t *pack = engine_deal_order(g, &len);
        engine_rest(g, &rest_len);
        o = xjson(json_object_new_object());
        xjson_set(o, "dealer", json_object_new_int(g->dealer));
        struct json_object *deal = xjson(json_object_new_array());
        int dealt = len - rest_len;
        for (int s = 0; s < g->n; s++) {
            int k = 0;
            for (int i = 0; i < dealt; i++)
                if ((g->dealer + 1 + i) % g->n == s)
                    cards[k++] = pack[i];
            xjson_push(deal, jcards(cards, k));
        }
        xjson_set(o, "deal", deal);
        xjson_set(o, "rest", jcards(pack + dealt, rest_len));
        return line_of(o);
    }
    case ENGINE_EV_PASS_CHOSEN:
        o = xjson(json_object_new_object());
        xjson_set(o, "pass", json_object_new_int(ev->seat));
        if (g->blind_mask >> ev->seat & 1) {
            xjson_set(o, "blind", json_object_new_boolean(1));
        } else {
            int k = engine_passed_cards(g, ev->seat, cards);
            xjson_set(o, "cards", jcards(cards, k));
        }
        return line_of(o);
    case ENGINE_EV_PASSED: {
        /* only a blind seat's cards are new: what reached it */
        if (!g->blind_mask)
            return NULL;
        o = xjson(json_object_new_object());
        struct json_object *a = xjson(json_object_new_array());
        for (int s = 0; s < g->n; s++) {
            int k =
                g->blind_mask >> s & 1 ? engine_passed_cards(g, s, cards) : 0;
            xjson_push(a, jcards(cards, k));
        }
        xjson_set(o, "blind", a);
        return line_of(o);
    }
    case ENGINE_EV_PLAYED:
        o = xjson(json_object_new_object());
        xjson_set(o, "play",
                  json_object_new_string(engine_card_name(ev->card)));
        return line_of(o);
    case ENGINE_EV_DISCARDED:
        o = xjson(json_object_new_object());
        xjson_set(o, "discard", jcards(g->discard, g->ndiscard));
        return line_of(o);
    case ENGINE_EV_MOON:
        if (g->rules->moon != ENGINE_MOON_CHOICE)
            return NULL;
        o = xjson(json_object_new_object());
        xjson_set(o, "moon",
                  json_object_new_string(ev->value == ENGINE_MOON_ADD_OTHERS
                                             ? "add_others"
                                             : "subtract"));
        return line_of(o);
    default:
        return NULL;
    }
}

/* ---- Reading ---------------------------------------------------------- */

static int get_string(struct json_object *o, const char *key, char *out,
                      size_t outlen, bool required, char *err, size_t errlen)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || !v) {
        if (required)
            return err_set(err, errlen, "%s: missing", key);
        out[0] = '\0';
        return 0;
    }
    if (!json_object_is_type(v, json_type_string))
        return err_set(err, errlen, "%s: not a string", key);
    size_t len = (size_t)json_object_get_string_len(v);
    const char *s = json_object_get_string(v);
    if (len >= outlen || memchr(s, '\0', len))
        return err_set(err, errlen, "%s: too long", key);
    memcpy(out, s, len + 1);
    return 0;
}

static int get_int(struct json_object *o, const char *key, long long min,
                   long long max, long long *out, char *err, size_t errlen)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || !v ||
        !json_object_is_type(v, json_type_int))
        return err_set(err, errlen, "%s: not a number", key);
    long long x = json_object_get_int64(v);
    if (x < min || x > max)
        return err_set(err, errlen, "%s: out of range", key);
    *out = x;
    return 0;
}

static int get_cards(struct json_object *v, const char *what, uint8_t *cards,
                     int max, int *n, char *err, size_t errlen)
{
    if (!v || !json_object_is_type(v, json_type_array))
        return err_set(err, errlen, "%s: not a list of cards", what);
    size_t len = json_object_array_length(v);
    if (len > (size_t)max)
        return err_set(err, errlen, "%s: too many cards", what);
    for (size_t i = 0; i < len; i++) {
        struct json_object *c = json_object_array_get_idx(v, i);
        int card;
        if (!c || !json_object_is_type(c, json_type_string) ||
            engine_card_parse(json_object_get_string(c),
                              (size_t)json_object_get_string_len(c), &card))
            return err_set(err, errlen, "%s: not a card", what);
        cards[i] = (uint8_t)card;
    }
    *n = (int)len;
    return 0;
}

static int parse_header(struct json_object *o, struct journal_line *out,
                        char *err, size_t errlen)
{
    char format[64];
    /* the room even of a header refused: where to say so */
    out->kind = JOURNAL_HEADER;
    if (get_string(o, "room", out->room, sizeof out->room, false, err, errlen))
        out->room[0] = '\0';
    if (get_string(o, "format", format, sizeof format, true, err, errlen))
        return -1;
    if (storage_format_newer(format, JOURNAL_FORMAT)) {
        out->newer = true;
        return err_set(err, errlen,
                       "format \"%s\" is of a newer heartsbot (this one "
                       "reads %s)",
                       format, JOURNAL_FORMAT);
    }
    bool v1 = strcmp(format, JOURNAL_FORMAT_1) == 0;
    bool v3 = strcmp(format, JOURNAL_FORMAT) == 0;
    if (!v1 && !v3 && strcmp(format, JOURNAL_FORMAT_2) != 0)
        return err_set(err, errlen,
                       "format \"%s\" is not one this bot reads (%s)", format,
                       JOURNAL_FORMAT);
    out->kind = JOURNAL_HEADER;
    if (get_string(o, "game", out->game, sizeof out->game, true, err, errlen) ||
        get_string(o, "network", out->network, sizeof out->network, true, err,
                   errlen) ||
        get_string(o, "room", out->room, sizeof out->room, true, err, errlen) ||
        get_string(o, "rules", out->rules, sizeof out->rules, true, err,
                   errlen) ||
        get_int(o, "opened", 0, INT64_MAX, &out->opened, err, errlen))
        return -1;
    struct json_object *x;
    out->turn_timeout = 0;
    if (!v1 && json_object_object_get_ex(o, "turn_timeout", &x)) {
        long long k;
        if (get_int(o, "turn_timeout", JOURNAL_TURN_MIN, JOURNAL_TURN_MAX, &k,
                    err, errlen))
            return -1;
        out->turn_timeout = (int)k;
    }
    out->hints = false;
    if (v3 && json_object_object_get_ex(o, "hints", &x)) {
        if (!json_object_is_type(x, json_type_boolean))
            return err_set(err, errlen, "hints: true or false is needed");
        out->hints = json_object_get_boolean(x);
    }
    if (!out->room[0])
        return err_set(err, errlen, "room: empty");
    return 0;
}

static int parse_seats(struct json_object *a, struct json_object *o,
                       struct journal_line *out, char *err, size_t errlen)
{
    if (!json_object_is_type(a, json_type_array) ||
        json_object_array_length(a) < 1 ||
        json_object_array_length(a) > ENGINE_MAX_PLAYERS)
        return err_set(err, errlen, "seats: not a list of seats");
    out->kind = JOURNAL_SEATS;
    out->nseats = (int)json_object_array_length(a);
    for (int s = 0; s < out->nseats; s++) {
        struct json_object *v = json_object_array_get_idx(a, (size_t)s);
        struct journal_seat *st = &out->seats[s];
        memset(st, 0, sizeof *st);
        if (!v)
            continue;
        if (!json_object_is_type(v, json_type_object))
            return err_set(err, errlen, "seats: seat %d: not an object", s);
        st->used = true;
        if (get_string(v, "nick", st->nick, sizeof st->nick, true, err,
                       errlen) ||
            get_string(v, "display", st->display, sizeof st->display, false,
                       err, errlen) ||
            get_string(v, "id", st->id, sizeof st->id, false, err, errlen) ||
            get_string(v, "key", st->key, sizeof st->key, false, err, errlen))
            return -1;
        if (!st->nick[0])
            return err_set(err, errlen, "seats: seat %d: no nick", s);
        struct json_object *x;
        long long k;
        st->human = !json_object_object_get_ex(v, "level", &x);
        if (st->human && !st->id[0])
            return err_set(err, errlen, "seats: seat %d: a person without id",
                           s);
        if (json_object_object_get_ex(v, "away", &x))
            st->away = json_object_get_boolean(x);
        if (json_object_object_get_ex(v, "autoplay", &x)) {
            if (get_int(v, "autoplay", 0, 2, &k, err, errlen))
                return -1;
            st->autoplay = (int)k;
        }
        if (json_object_object_get_ex(v, "level", &x)) {
            if (get_int(v, "level", 0, 100, &k, err, errlen))
                return -1;
            st->level = (int)k;
        }
    }
    out->opener = -1;
    struct json_object *x;
    if (json_object_object_get_ex(o, "opener", &x)) {
        long long k;
        if (get_int(o, "opener", 0, out->nseats - 1, &k, err, errlen))
            return -1;
        out->opener = (int)k;
    }
    return 0;
}

static int parse_deal(struct json_object *o, struct journal_line *out,
                      char *err, size_t errlen)
{
    struct json_object *deal, *rest;
    long long dealer;
    out->kind = JOURNAL_DEAL;
    if (get_int(o, "dealer", 0, ENGINE_MAX_PLAYERS - 1, &dealer, err, errlen))
        return -1;
    out->dealer = (int)dealer;
    json_object_object_get_ex(o, "deal", &deal);
    if (!deal || !json_object_is_type(deal, json_type_array) ||
        json_object_array_length(deal) < 1 ||
        json_object_array_length(deal) > ENGINE_MAX_PLAYERS)
        return err_set(err, errlen, "deal: not a list of hands");
    out->n = (int)json_object_array_length(deal);
    for (int s = 0; s < out->n; s++)
        if (get_cards(json_object_array_get_idx(deal, (size_t)s), "deal",
                      out->deal[s], ENGINE_MAX_CARDS, &out->ndeal[s], err,
                      errlen))
            return -1;
    json_object_object_get_ex(o, "rest", &rest);
    return get_cards(rest, "rest", out->rest, ENGINE_MAX_CARDS, &out->nrest,
                     err, errlen);
}

static int parse_pass(struct json_object *o, struct journal_line *out,
                      char *err, size_t errlen)
{
    long long seat;
    out->kind = JOURNAL_PASS;
    if (get_int(o, "pass", 0, ENGINE_MAX_PLAYERS - 1, &seat, err, errlen))
        return -1;
    out->seat = (int)seat;
    struct json_object *x;
    if (json_object_object_get_ex(o, "blind", &x) &&
        json_object_get_boolean(x)) {
        out->blind = true;
        out->ncards = 0;
        return 0;
    }
    json_object_object_get_ex(o, "cards", &x);
    return get_cards(x, "cards", out->cards, ENGINE_MAX_ACT_CARDS, &out->ncards,
                     err, errlen);
}

static int parse_blind(struct json_object *a, struct journal_line *out,
                       char *err, size_t errlen)
{
    out->kind = JOURNAL_BLIND;
    if (json_object_array_length(a) > ENGINE_MAX_PLAYERS)
        return err_set(err, errlen, "blind: too many seats");
    out->n = (int)json_object_array_length(a);
    for (int s = 0; s < out->n; s++)
        if (get_cards(json_object_array_get_idx(a, (size_t)s), "blind",
                      out->passed[s], ENGINE_MAX_ACT_CARDS, &out->npassed[s],
                      err, errlen))
            return -1;
    return 0;
}

static int parse_turn(struct json_object *o, struct journal_line *out,
                      char *err, size_t errlen)
{
    long long k;
    struct json_object *x;
    out->kind = JOURNAL_TURN;
    if (get_int(o, "turn", 0, UINT32_MAX, &k, err, errlen))
        return -1;
    out->turn = (uint32_t)k;
    if (get_int(o, "deadline", 1, INT32_MAX * 4LL, &out->deadline, err, errlen))
        return -1;
    out->reminded = 0;
    if (json_object_object_get_ex(o, "reminded", &x)) {
        if (get_int(o, "reminded", 0, 3, &k, err, errlen))
            return -1;
        out->reminded = (int)k;
    }
    out->channel = 0;
    if (json_object_object_get_ex(o, "channel", &x) &&
        get_int(o, "channel", 0, INT32_MAX * 4LL, &out->channel, err, errlen))
        return -1;
    return 0;
}

static int parse_object(struct json_object *o, struct journal_line *out,
                        char *err, size_t errlen)
{
    struct json_object *x;
    if (json_object_object_get_ex(o, "deadline", &x))
        return parse_turn(o, out, err, errlen);
    if (json_object_object_get_ex(o, "format", &x))
        return parse_header(o, out, err, errlen);
    if (json_object_object_get_ex(o, "seats", &x))
        return parse_seats(x, o, out, err, errlen);
    if (json_object_object_get_ex(o, "start", &x)) {
        out->kind = JOURNAL_START;
        return 0;
    }
    if (json_object_object_get_ex(o, "deal", &x))
        return parse_deal(o, out, err, errlen);
    if (json_object_object_get_ex(o, "pass", &x))
        return parse_pass(o, out, err, errlen);
    if (json_object_object_get_ex(o, "blind", &x) &&
        json_object_is_type(x, json_type_array))
        return parse_blind(x, out, err, errlen);
    if (json_object_object_get_ex(o, "play", &x)) {
        int n;
        out->kind = JOURNAL_PLAY;
        struct json_object *one = xjson(json_object_new_array());
        json_object_array_add(one, json_object_get(x));
        int rc = get_cards(one, "play", out->cards, 1, &n, err, errlen);
        json_object_put(one);
        out->ncards = 1;
        return rc;
    }
    if (json_object_object_get_ex(o, "discard", &x)) {
        out->kind = JOURNAL_DISCARD;
        return get_cards(x, "discard", out->cards, ENGINE_MAX_ACT_CARDS,
                         &out->ncards, err, errlen);
    }
    if (json_object_object_get_ex(o, "moon", &x)) {
        char mode[16];
        out->kind = JOURNAL_MOON;
        if (get_string(o, "moon", mode, sizeof mode, true, err, errlen))
            return -1;
        if (!strcmp(mode, "subtract"))
            out->moon = ENGINE_MOON_SUBTRACT;
        else if (!strcmp(mode, "add_others"))
            out->moon = ENGINE_MOON_ADD_OTHERS;
        else
            return err_set(err, errlen, "moon: \"%s\" is no choice", mode);
        return 0;
    }
    return err_set(err, errlen, "a line of no known kind");
}

int journal_parse(const char *text, size_t len, struct journal_line *out,
                  char *err, size_t errlen)
{
    if (len > JOURNAL_MAX_LINE)
        return err_set(err, errlen, "line too long");
    struct json_tokener *tok = xjson_tokener(JSON_TOKENER_DEFAULT_DEPTH);
    struct json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    bool whole = json_tokener_get_error(tok) == json_tokener_success &&
                 (size_t)json_tokener_get_parse_end(tok) == len;
    json_tokener_free(tok);
    int rc;
    if (!o || !whole || !json_object_is_type(o, json_type_object))
        rc = err_set(err, errlen, "not a JSON object");
    else
        rc = parse_object(o, out, err, errlen);
    json_object_put(o);
    return rc;
}

/* ---- Into a record ---------------------------------------------------- */

int journal_record_add(struct record *rec, const struct journal_line *l,
                       char *err, size_t errlen)
{
    if (l->kind == JOURNAL_DEAL) {
        if (rec->nhands == RECORD_MAX_HANDS)
            return err_set(err, errlen, "too many hands");
        if (l->n != rec->n || l->dealer >= rec->n)
            return err_set(err, errlen, "deal: %d seats at a table of %d", l->n,
                           rec->n);
        struct record_hand *hands =
            xrealloc(rec->hands, sizeof *hands * (size_t)(rec->nhands + 1));
        rec->hands = hands;
        struct record_hand *h = &hands[rec->nhands++];
        memset(h, 0, sizeof *h);
        h->dealer = l->dealer;
        h->pass = RECORD_NONE;
        h->moon = RECORD_NONE;
        memcpy(h->ndeal, l->ndeal, sizeof h->ndeal);
        memcpy(h->deal, l->deal, sizeof h->deal);
        h->nrest = l->nrest;
        memcpy(h->rest, l->rest, sizeof h->rest);
        return 0;
    }
    if (l->kind < JOURNAL_PASS || l->kind == JOURNAL_TURN)
        return 0;
    if (rec->nhands == 0)
        return err_set(err, errlen, "an action before the first deal");
    struct record_hand *h = &rec->hands[rec->nhands - 1];
    switch (l->kind) {
    case JOURNAL_PASS:
        if (l->seat >= rec->n)
            return err_set(err, errlen, "pass: no seat %d", l->seat);
        if (l->blind)
            h->blind |= (uint16_t)(1u << l->seat);
        h->npassed[l->seat] = l->ncards;
        memcpy(h->passed[l->seat], l->cards, (size_t)l->ncards);
        break;
    case JOURNAL_BLIND:
        if (l->n != rec->n)
            return err_set(err, errlen, "blind: %d seats at a table of %d",
                           l->n, rec->n);
        for (int s = 0; s < l->n; s++) {
            if (!(h->blind >> s & 1))
                continue;
            h->npassed[s] = l->npassed[s];
            memcpy(h->passed[s], l->passed[s], (size_t)l->npassed[s]);
        }
        break;
    case JOURNAL_PLAY:
        if (h->nplays == ENGINE_MAX_CARDS)
            return err_set(err, errlen, "too many plays");
        h->plays[h->nplays++] = l->cards[0];
        break;
    case JOURNAL_DISCARD:
        h->ndiscard = l->ncards;
        memcpy(h->discard, l->cards, (size_t)l->ncards);
        break;
    case JOURNAL_MOON:
        h->moon = l->moon;
        break;
    default:
        break;
    }
    return 0;
}
