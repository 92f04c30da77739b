/*
 * Writing records (record.h): a writer follows a game through the engine's
 * events into a struct record, and one serialiser turns a struct record
 * into its line of JSON (the format is docs/spec/game-record.md, how we
 * write it docs/records.md).
 *
 * The writer and the reader share struct record and this serialiser, so a
 * record the writer produces is by construction one the reader parses;
 * the replay checker's --fill proves they agree on the semantics too.
 */
#include "storage/record/record_internal.h"
#include "bot/common/utf8.h"
#include "bot/common/xalloc.h"
#include "bot/common/xjson.h"

#include <stdlib.h>
#include <string.h>

/* ---- Small helpers ---------------------------------------------------- */

static const char *moon_name(int mode)
{
    return mode == ENGINE_MOON_ADD_OTHERS ? "add_others" : "subtract";
}

/* ---- Writing JSON ----------------------------------------------------- */

static struct json_object *json_cards(const uint8_t *cards, int n)
{
    struct json_object *a = xjson(json_object_new_array());
    for (int i = 0; i < n; i++)
        xjson_push(a, json_object_new_string(engine_card_name(cards[i])));
    return a;
}

static struct json_object *json_ints(const int32_t *v, int n)
{
    struct json_object *a = xjson(json_object_new_array());
    for (int i = 0; i < n; i++)
        xjson_push(a, json_object_new_int64(v[i]));
    return a;
}

/* Every option that differs from the preset, integers as numbers (the
 * players list gives the player count). */
static struct json_object *json_options(const struct engine_rules *r)
{
    struct json_object *o = xjson(json_object_new_object());
    for (int i = 0; i < engine_option_count(); i++) {
        const char *key = engine_option_name(i);
        if (!strcmp(key, "players") || !engine_rules_differs(r, i))
            continue;
        char text[RECORD_MAX_OPTION_TEXT];
        long long v;
        engine_rules_get(r, i, text, sizeof text);
        if (record_integer_text(text, &v))
            xjson_set(o, key, json_object_new_int64(v));
        else
            xjson_set(o, key, json_object_new_string(text));
    }
    return o;
}

static struct json_object *json_hand(const struct record *rec,
                                     const struct record_hand *h)
{
    int n = rec->n;
    struct json_object *o = xjson(json_object_new_object());
    xjson_set(o, "dealer", json_object_new_int(h->dealer));
    if (h->pass >= 0 && h->pass < RECORD_NDIRS)
        xjson_set(o, "pass", json_object_new_string(record_dir_names[h->pass]));
    struct json_object *deal = xjson(json_object_new_array());
    for (int s = 0; s < n; s++)
        xjson_push(deal, json_cards(h->deal[s], h->ndeal[s]));
    xjson_set(o, "deal", deal);
    xjson_set(o, "rest", json_cards(h->rest, h->nrest));
    struct json_object *passed = xjson(json_object_new_array());
    for (int s = 0; s < n; s++)
        xjson_push(passed, json_cards(h->passed[s], h->npassed[s]));
    xjson_set(o, "passed", passed);
    if (h->blind) {
        struct json_object *blind = xjson(json_object_new_array());
        for (int s = 0; s < n; s++)
            if (h->blind >> s & 1)
                xjson_push(blind, json_object_new_int(s));
        xjson_set(o, "blind", blind);
    }
    if (rec->rules.odd_cards == ENGINE_ODD_KITTY_EXCHANGE || h->ndiscard)
        xjson_set(o, "discard", json_cards(h->discard, h->ndiscard));
    xjson_set(o, "plays", json_cards(h->plays, h->nplays));
    if (h->moon == RECORD_NONE) {
        if (json_object_object_add(o, "moon", NULL))
            abort();
    } else {
        xjson_set(o, "moon", json_object_new_string(moon_name(h->moon)));
    }
    if (h->has_points)
        xjson_set(o, "points", json_ints(h->points, n));
    return o;
}

char *record_to_json(const struct record *rec)
{
    struct json_object *o = xjson(json_object_new_object());
    xjson_set(o, "format", json_object_new_string(RECORD_FORMAT));
    xjson_set(o, "preset",
              json_object_new_string(engine_preset_name(rec->rules.preset)));
    xjson_set(o, "options", json_options(&rec->rules));
    struct json_object *players = xjson(json_object_new_array());
    for (int s = 0; s < rec->n; s++)
        xjson_push(players, json_object_new_string(rec->names[s]));
    xjson_set(o, "players", players);
    struct json_object *hands = xjson(json_object_new_array());
    for (int i = 0; i < rec->nhands; i++)
        xjson_push(hands, json_hand(rec, &rec->hands[i]));
    xjson_set(o, "hands", hands);
    if (rec->has_totals)
        xjson_set(o, "totals", json_ints(rec->totals, rec->n));
    if (rec->has_winners) {
        struct json_object *w = xjson(json_object_new_array());
        for (int i = 0; i < rec->nwinners; i++)
            xjson_push(w, json_object_new_int(rec->winners[i]));
        xjson_set(o, "winners", w);
    }
    if (rec->hints)
        xjson_set(o, "hints", json_object_new_boolean(1));
    const char *text = xjson_plain(o);
    char *line = xstrdup(text);
    json_object_put(o);
    return line;
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
        size_t k = utf8_decode(p + i, len - i, NULL);
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

void record_writer_set_hints(struct record_writer *w, bool hints)
{
    w->rec.hints = hints;
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
