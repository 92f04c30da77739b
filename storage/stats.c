/*
 * Leaderboards derived from the archive (stats.h, docs/storage.md).
 */
#include "storage/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
#include "bot/common/xjson.h"
#include "storage/record/record.h"
#include "storage/storage.h"

/* The largest leaderboard.json read back. */
#define STATS_MAX_FILE (256u << 20)

struct stats *stats_new(void)
{
    return xcalloc(1, sizeof(struct stats));
}

void stats_free(struct stats *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nboards; i++) {
        free(s->boards[i].p);
        free(s->boards[i].order);
        free(s->boards[i].slots);
    }
    free(s->boards);
    free(s);
}

/* ---- Boards ----------------------------------------------------------- */

static uint32_t hash(const char *key)
{
    uint32_t h = 2166136261u;
    for (; *key; key++)
        h = (h ^ (uint8_t)*key) * 16777619u;
    return h;
}

static int find_index(const struct stats_board *b, const char *key)
{
    if (!b->nslots)
        return -1;
    uint32_t mask = (uint32_t)b->nslots - 1;
    for (uint32_t i = hash(key) & mask;; i = (i + 1) & mask) {
        int k = b->slots[i];
        if (!k)
            return -1;
        if (!strcmp(b->p[k - 1].key, key))
            return k - 1;
    }
}

static void slot_put(struct stats_board *b, int index)
{
    uint32_t mask = (uint32_t)b->nslots - 1;
    uint32_t i = hash(b->p[index].key) & mask;
    while (b->slots[i])
        i = (i + 1) & mask;
    b->slots[i] = index + 1;
}

/* The person's index on b, added (rating STATS_INITIAL) if new. */
static int player_at(struct stats_board *b, const char *key, const char *name)
{
    int i = find_index(b, key);
    if (i >= 0)
        return i;
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 16;
        b->p = xrealloc(b->p, sizeof *b->p * (size_t)b->cap);
        b->order = xrealloc(b->order, sizeof *b->order * (size_t)b->cap);
    }
    if ((b->n + 1) * 2 > b->nslots) {
        free(b->slots);
        b->nslots = b->nslots ? b->nslots * 2 : 32;
        while ((b->n + 1) * 2 > b->nslots)
            b->nslots *= 2;
        b->slots = xcalloc((size_t)b->nslots, sizeof *b->slots);
        for (int k = 0; k < b->n; k++)
            slot_put(b, k);
    }
    struct stats_player *p = &b->p[b->n];
    memset(p, 0, sizeof *p);
    snprintf(p->key, sizeof p->key, "%s", key);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->rating = STATS_INITIAL;
    b->order[b->n] = b->n;
    p->rank = b->n + 1;
    slot_put(b, b->n);
    return b->n++;
}

static struct stats_board *board_at(struct stats *s, const char *preset)
{
    for (int i = 0; i < s->nboards; i++)
        if (!strcmp(s->boards[i].preset, preset))
            return &s->boards[i];
    s->boards =
        xrealloc(s->boards, sizeof *s->boards * (size_t)(s->nboards + 1));
    struct stats_board *b = &s->boards[s->nboards++];
    memset(b, 0, sizeof *b);
    snprintf(b->preset, sizeof b->preset, "%s", preset);
    return b;
}

const struct stats_board *stats_board(const struct stats *s, const char *preset)
{
    for (int i = 0; i < s->nboards; i++)
        if (!strcmp(s->boards[i].preset, preset))
            return &s->boards[i];
    return NULL;
}

const struct stats_player *stats_find(const struct stats_board *b,
                                      const char *key)
{
    int i = b ? find_index(b, key) : -1;
    return i < 0 ? NULL : &b->p[i];
}

bool stats_provisional(const struct stats_player *p)
{
    return p->games < STATS_PROVISIONAL;
}

/* Best rating first; then more games; then the key, so that the order
 * is the same however the board was built. Sorts pointers to the rows,
 * without a global base, so that boards of different channels may be
 * ranked on different threads (the site's writer has boards of its own). */
static int by_rating(const void *x, const void *y)
{
    const struct stats_player *a = *(const struct stats_player *const *)x;
    const struct stats_player *b = *(const struct stats_player *const *)y;
    if (a->rating != b->rating)
        return a->rating > b->rating ? -1 : 1;
    if (a->games != b->games)
        return a->games > b->games ? -1 : 1;
    return strcmp(a->key, b->key);
}

static void rank_board(struct stats_board *b)
{
    const struct stats_player **v = xcalloc((size_t)b->n + 1, sizeof *v);
    for (int i = 0; i < b->n; i++)
        v[i] = &b->p[i];
    qsort(v, (size_t)b->n, sizeof *v, by_rating);
    for (int i = 0; i < b->n; i++) {
        b->order[i] = (int)(v[i] - b->p);
        b->p[b->order[i]].rank = i + 1;
    }
    free(v);
}

void stats_rank(struct stats *s)
{
    for (int i = 0; i < s->nboards; i++) {
        if (s->boards[i].dirty)
            rank_board(&s->boards[i]);
        s->boards[i].dirty = false;
    }
}

/* ---- One game --------------------------------------------------------- */

static void on_event(void *ctx, const struct engine_game *eg,
                     const struct engine_event *ev)
{
    struct stats_game *g = ctx;
    uint64_t qs = 1ull << ENGINE_QS;
    switch (ev->kind) {
    case ENGINE_EV_TRICK:
    case ENGINE_EV_REST_TAKEN:
        if (ev->seat >= 0 && ev->seat < g->n)
            g->queens[ev->seat] += !!(ev->cards & qs) + !!(ev->cards2 & qs);
        break;
    case ENGINE_EV_MOON:
        if (ev->seat >= 0 && ev->seat < g->n) {
            if (ev->card)
                g->suns[ev->seat]++;
            else
                g->moons[ev->seat]++;
        }
        break;
    case ENGINE_EV_HAND_SCORED: {
        int k = g->nhands % STATS_LAST_HANDS;
        for (int s = 0; s < g->n; s++) {
            g->points[s] += eg->points[s];
            g->hands[k][s] = eg->points[s];
        }
        g->nhands++;
        break;
    }
    default:
        break;
    }
}

int stats_game_from_record(const char *json, size_t len, struct stats_game *g,
                           char *err, size_t errlen)
{
    struct record *rec;
    if (record_parse(json, len, &rec, err, errlen))
        return -1;
    struct stats_game t;
    memset(&t, 0, sizeof t);
    t.n = rec->n;
    t.preset = rec->rules.preset;
    /* the player count never differs from its preset (engine.h) */
    for (int i = 0; i < engine_option_count(); i++)
        if (engine_rules_differs(&rec->rules, i))
            t.custom = true;
    engine_rules_changes(&rec->rules, t.changes, sizeof t.changes);
    t.hints = rec->hints;
    struct engine_sink sink = {on_event, &t};
    struct engine_game eg;
    if (record_replay(rec, &sink, NULL, NULL, &eg, err, errlen)) {
        record_free(rec);
        return -1;
    }
    t.finished = engine_phase(&eg) == ENGINE_PHASE_GAME_OVER;
    if (t.finished) {
        memcpy(t.totals, eg.totals, sizeof t.totals);
        for (int i = 0; i < eg.nwinners; i++)
            t.winners |= (uint16_t)(1u << eg.winners[i]);
    }
    /* the kept hands in order, oldest first */
    t.nlast = t.nhands < STATS_LAST_HANDS ? t.nhands : STATS_LAST_HANDS;
    int32_t ring[STATS_LAST_HANDS][ENGINE_MAX_PLAYERS];
    memcpy(ring, t.hands, sizeof ring);
    for (int i = 0; i < t.nlast; i++)
        memcpy(t.hands[i], ring[(t.nhands - t.nlast + i) % STATS_LAST_HANDS],
               sizeof t.hands[i]);
    record_free(rec);
    *g = t;
    return 0;
}

/* A seat's place for the rating: 0 best. Who left places below all who
 * stayed; among the others a lower total is better. */
static double score_pair(const struct archive_result *r,
                         const struct stats_game *g, int a, int b)
{
    bool la = r->seats[a].left, lb = r->seats[b].left;
    if (la != lb)
        return la ? 0.0 : 1.0;
    if (la || g->totals[a] == g->totals[b])
        return 0.5;
    return g->totals[a] < g->totals[b] ? 1.0 : 0.0;
}

static void count_on(struct stats_board *b, const struct archive_result *r,
                     const struct stats_game *g)
{
    int idx[ENGINE_MAX_PLAYERS];
    int people = 0;
    for (int s = 0; s < g->n; s++) {
        idx[s] = -1;
        const struct archive_seat *st = &r->seats[s];
        if (st->computer || !st->key[0])
            continue;
        bool twice = false; /* one person never counts twice a game */
        for (int o = 0; o < s; o++)
            twice |= idx[o] >= 0 && !strcmp(r->seats[o].key, st->key);
        if (twice)
            continue;
        idx[s] = player_at(b, st->key, st->name);
        people++;
    }
    double before[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < g->n; s++)
        before[s] = idx[s] >= 0 ? b->p[idx[s]].rating : 0;
    for (int s = 0; s < g->n; s++) {
        if (idx[s] < 0)
            continue;
        struct stats_player *p = &b->p[idx[s]];
        snprintf(p->name, sizeof p->name, "%s", r->seats[s].name);
        p->games++;
        p->wins += (g->winners >> s & 1) && !r->seats[s].left;
        p->hands += g->nhands;
        p->points += g->points[s];
        p->moons += g->moons[s];
        p->suns += g->suns[s];
        p->queens += g->queens[s];
        if (people < 2)
            continue;
        double sum = 0;
        for (int o = 0; o < g->n; o++) {
            if (o == s || idx[o] < 0)
                continue;
            double expect =
                1.0 / (1.0 + pow(10.0, (before[o] - before[s]) / 400.0));
            sum += score_pair(r, g, s, o) - expect;
        }
        p->rating = before[s] + STATS_K / (people - 1) * sum;
    }
    b->dirty = true;
}

void stats_add(struct stats *s, const struct archive_result *r,
               const struct stats_game *g)
{
    s->games++;
    if (!g || !r->finished || !g->finished || g->n != r->n)
        return;
    /* a game where hints were allowed counts on the hints board alone */
    if (g->hints)
        count_on(board_at(s, STATS_HINTS), r, g);
    else
        count_on(board_at(s, engine_preset_name(g->preset)), r, g);
    if (g->custom && !g->hints)
        count_on(board_at(s, STATS_CUSTOM), r, g);
    struct stats_last *l = &s->last;
    memset(l, 0, sizeof *l);
    l->has = true;
    memcpy(l->game, r->game, sizeof l->game);
    l->time = r->time;
    snprintf(l->preset, sizeof l->preset, "%s", engine_preset_name(g->preset));
    l->custom = g->custom;
    memcpy(l->changes, g->changes, sizeof l->changes);
    l->changes[sizeof l->changes - 1] = '\0';
    l->n = g->n;
    for (int i = 0; i < g->n; i++) {
        snprintf(l->names[i], sizeof l->names[i], "%s", r->seats[i].name);
        l->computer[i] = r->seats[i].computer;
        l->left[i] = r->seats[i].left;
    }
    memcpy(l->totals, g->totals, sizeof l->totals);
    l->winners = g->winners;
    l->nhands = g->nhands;
    l->nlast = g->nlast;
    memcpy(l->hands, g->hands, sizeof l->hands);
}

/* ---- leaderboard.json ------------------------------------------------- */

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void put_str(struct strbuf *t, const char *s)
{
    strbuf_addstr(t, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            strbuf_add(t, e, 2);
        } else if (c < 0x20) {
            strbuf_addf(t, "\\u%04x", c);
        } else {
            strbuf_addc(t, *s);
        }
    }
    strbuf_addstr(t, "\"");
}

static void put_last(struct strbuf *t, const struct stats_last *l)
{
    strbuf_addstr(t, "{\"game\":");
    put_str(t, l->game);
    strbuf_addf(t, ",\"time\":%lld,\"preset\":", (long long)l->time);
    put_str(t, l->preset);
    strbuf_addf(t, ",\"custom\":%s,", l->custom ? "true" : "false");
    if (l->changes[0]) {
        strbuf_addstr(t, "\"changes\":");
        put_str(t, l->changes);
        strbuf_addstr(t, ",");
    }
    strbuf_addf(t, "\"hands\":%d,\"seats\":[", l->nhands);
    for (int s = 0; s < l->n; s++) {
        strbuf_addstr(t, s ? ",{\"name\":" : "{\"name\":");
        put_str(t, l->names[s]);
        strbuf_addf(t, ",\"computer\":%s,\"left\":%s,\"total\":%d,\"won\":%s}",
                    l->computer[s] ? "true" : "false",
                    l->left[s] ? "true" : "false", (int)l->totals[s],
                    l->winners >> s & 1 ? "true" : "false");
    }
    strbuf_addstr(t, "],\"last_hands\":[");
    for (int h = 0; h < l->nlast; h++) {
        strbuf_addstr(t, h ? ",[" : "[");
        for (int s = 0; s < l->n; s++)
            strbuf_addf(t, "%s%d", s ? "," : "", (int)l->hands[h][s]);
        strbuf_addstr(t, "]");
    }
    strbuf_addstr(t, "]}");
}

char *stats_json(const struct stats *s)
{
    struct strbuf t;
    strbuf_init_heap(&t, STRBUF_NO_CAP);
    strbuf_addf(
        &t,
        "{\"format\":\"%s\",\"archive_games\":%lld,\"archive_bytes\":%lld,"
        "\"results_bytes\":%lld,\"results_last\":",
        STATS_FORMAT, (long long)s->games, (long long)s->archive_bytes,
        (long long)s->results_bytes);
    if (s->results_last[0])
        put_str(&t, s->results_last);
    else
        strbuf_addstr(&t, "null");
    strbuf_addstr(&t, ",");
    strbuf_addstr(&t, "\"last\":");
    if (s->last.has)
        put_last(&t, &s->last);
    else
        strbuf_addstr(&t, "null");
    strbuf_addstr(&t, ",\"fields\":[\"key\",\"name\",\"games\",\"wins\","
                      "\"hands\",\"points\",\"moons\",\"suns\",\"queens\","
                      "\"rating\"],\"boards\":{");
    for (int i = 0; i < s->nboards; i++) {
        const struct stats_board *b = &s->boards[i];
        if (i)
            strbuf_addstr(&t, ",");
        put_str(&t, b->preset);
        strbuf_addstr(&t, ":[");
        for (int k = 0; k < b->n; k++) {
            const struct stats_player *p = &b->p[k];
            strbuf_addstr(&t, k ? ",\n[" : "\n[");
            put_str(&t, p->key);
            strbuf_addstr(&t, ",");
            put_str(&t, p->name);
            strbuf_addf(&t, ",%d,%d,%d,%lld,%d,%d,%d,%.17g]", p->games, p->wins,
                        p->hands, (long long)p->points, p->moons, p->suns,
                        p->queens, p->rating);
        }
        strbuf_addstr(&t, "]");
    }
    strbuf_addstr(&t, "}}\n");
    return strbuf_take(&t);
}

static int64_t jint(struct json_object *o, const char *key, bool *ok)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_int)) {
        *ok = false;
        return 0;
    }
    return json_object_get_int64(v);
}

static const char *jstr(struct json_object *o, const char *key, bool *ok)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_string)) {
        *ok = false;
        return "";
    }
    return json_object_get_string(v);
}

static bool jbool(struct json_object *o, const char *key, bool *ok)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_boolean)) {
        *ok = false;
        return false;
    }
    return json_object_get_boolean(v);
}

static int parse_last(struct json_object *o, struct stats_last *l, char *err,
                      size_t errlen)
{
    bool ok = true;
    memset(l, 0, sizeof *l);
    if (json_object_is_type(o, json_type_null))
        return 0;
    if (!json_object_is_type(o, json_type_object))
        return err_set(err, errlen, "last: an object or null");
    snprintf(l->game, sizeof l->game, "%s", jstr(o, "game", &ok));
    l->time = jint(o, "time", &ok);
    snprintf(l->preset, sizeof l->preset, "%s", jstr(o, "preset", &ok));
    l->custom = jbool(o, "custom", &ok);
    struct json_object *changes; /* optional: older files have none */
    if (json_object_object_get_ex(o, "changes", &changes)) {
        if (!json_object_is_type(changes, json_type_string))
            ok = false;
        else
            snprintf(l->changes, sizeof l->changes, "%s",
                     json_object_get_string(changes));
    }
    int64_t nh = jint(o, "hands", &ok);
    struct json_object *seats, *hands;
    if (!ok || nh < 0 || nh > RECORD_MAX_HANDS ||
        !json_object_object_get_ex(o, "seats", &seats) ||
        !json_object_is_type(seats, json_type_array) ||
        !json_object_object_get_ex(o, "last_hands", &hands) ||
        !json_object_is_type(hands, json_type_array))
        return err_set(err, errlen, "last: a field is missing or wrong");
    l->nhands = (int)nh;
    size_t n = json_object_array_length(seats);
    size_t nl = json_object_array_length(hands);
    if (n < 2 || n > ENGINE_MAX_PLAYERS || nl > STATS_LAST_HANDS ||
        (int64_t)nl > nh)
        return err_set(err, errlen, "last: too many seats or hands");
    l->n = (int)n;
    for (size_t s = 0; s < n; s++) {
        struct json_object *so = json_object_array_get_idx(seats, s);
        if (!json_object_is_type(so, json_type_object))
            return err_set(err, errlen, "last.seats: objects");
        snprintf(l->names[s], sizeof l->names[s], "%s", jstr(so, "name", &ok));
        l->computer[s] = jbool(so, "computer", &ok);
        l->left[s] = jbool(so, "left", &ok);
        int64_t total = jint(so, "total", &ok);
        if (total < -RECORD_MAX_POINTS || total > RECORD_MAX_POINTS)
            ok = false;
        l->totals[s] = (int32_t)total;
        if (jbool(so, "won", &ok))
            l->winners |= (uint16_t)(1u << s);
    }
    l->nlast = (int)nl;
    for (size_t h = 0; h < nl && ok; h++) {
        struct json_object *row = json_object_array_get_idx(hands, h);
        if (!json_object_is_type(row, json_type_array) ||
            json_object_array_length(row) != n)
            return err_set(err, errlen, "last.last_hands: a row per hand");
        for (size_t s = 0; s < n; s++) {
            struct json_object *v = json_object_array_get_idx(row, s);
            if (!json_object_is_type(v, json_type_int))
                ok = false;
            int64_t x = json_object_get_int64(v);
            if (x < -RECORD_MAX_POINTS || x > RECORD_MAX_POINTS)
                ok = false;
            l->hands[h][s] = (int32_t)x;
        }
    }
    if (!ok)
        return err_set(err, errlen, "last: a field is missing or wrong");
    l->has = true;
    return 0;
}

/* One player row: [key, name, games, wins, hands, points, moons, suns,
 * queens, rating]. */
static int parse_player(struct stats_board *b, struct json_object *row,
                        char *err, size_t errlen)
{
    if (!json_object_is_type(row, json_type_array) ||
        json_object_array_length(row) != 10)
        return err_set(err, errlen, "boards.%s: a row of 10 fields per player",
                       b->preset);
    struct json_object *f[10];
    for (int i = 0; i < 10; i++)
        f[i] = json_object_array_get_idx(row, (size_t)i);
    if (!json_object_is_type(f[0], json_type_string) ||
        !json_object_is_type(f[1], json_type_string) ||
        json_object_get_string_len(f[0]) >= 200 ||
        !json_object_get_string_len(f[0]))
        return err_set(err, errlen,
                       "boards.%s: a player's key or name is wrong", b->preset);
    int64_t v[7];
    for (int i = 0; i < 7; i++) {
        if (!json_object_is_type(f[2 + i], json_type_int))
            return err_set(err, errlen, "boards.%s: a count is not a number",
                           b->preset);
        v[i] = json_object_get_int64(f[2 + i]);
        if (v[i] < (i == 3 ? -INT64_MAX / 2 : 0) ||
            v[i] > (i == 3 ? INT64_MAX / 2 : INT32_MAX))
            return err_set(err, errlen, "boards.%s: a count is out of range",
                           b->preset);
    }
    if (!json_object_is_type(f[9], json_type_double) &&
        !json_object_is_type(f[9], json_type_int))
        return err_set(err, errlen, "boards.%s: a rating is not a number",
                       b->preset);
    double rating = json_object_get_double(f[9]);
    if (!isfinite(rating))
        return err_set(err, errlen, "boards.%s: a rating is not finite",
                       b->preset);
    const char *key = json_object_get_string(f[0]);
    if (find_index(b, key) >= 0)
        return err_set(err, errlen, "boards.%s: '%s' is there twice", b->preset,
                       key);
    int at = player_at(b, key, json_object_get_string(f[1]));
    struct stats_player *p = &b->p[at];
    p->games = (int)v[0];
    p->wins = (int)v[1];
    p->hands = (int)v[2];
    p->points = v[3];
    p->moons = (int)v[4];
    p->suns = (int)v[5];
    p->queens = (int)v[6];
    p->rating = rating;
    return 0;
}

static int parse_root(struct json_object *root, struct stats *s, char *err,
                      size_t errlen)
{
    bool ok = true;
    if (!json_object_is_type(root, json_type_object))
        return err_set(err, errlen, "not a JSON object");
    const char *format = jstr(root, "format", &ok);
    if (!ok)
        return err_set(err, errlen, "format: missing");
    s->exact = !strcmp(format, STATS_FORMAT_V1);
    if (!s->exact && strcmp(format, STATS_FORMAT))
        return err_set(err, errlen,
                       "format: unknown version '%.60s' (this bot reads %s "
                       "and %s)",
                       format, STATS_FORMAT, STATS_FORMAT_V1);
    struct json_object *lastid;
    if (!s->exact) {
        if (!json_object_object_get_ex(root, "results_last", &lastid))
            return err_set(err, errlen, "results_last: missing");
        if (!json_object_is_type(lastid, json_type_null)) {
            const char *id = json_object_get_string(lastid);
            if (!json_object_is_type(lastid, json_type_string) ||
                strlen(id) != 16 || strspn(id, "0123456789abcdef") != 16)
                return err_set(err, errlen, "results_last: a game ID or null");
            memcpy(s->results_last, id, 17);
        }
    }
    s->games = jint(root, "archive_games", &ok);
    s->archive_bytes = jint(root, "archive_bytes", &ok);
    s->results_bytes = jint(root, "results_bytes", &ok);
    struct json_object *last, *boards;
    if (!ok || s->games < 0 || s->archive_bytes < 0 || s->results_bytes < 0 ||
        !json_object_object_get_ex(root, "last", &last) ||
        !json_object_object_get_ex(root, "boards", &boards) ||
        !json_object_is_type(boards, json_type_object))
        return err_set(err, errlen, "a count, last or boards is missing");
    if (parse_last(last, &s->last, err, errlen))
        return -1;
    json_object_object_foreach(boards, name, rows)
    {
        if (strlen(name) >= sizeof s->boards[0].preset ||
            (strcmp(name, STATS_CUSTOM) && engine_preset_find(name) < 0))
            return err_set(err, errlen, "boards: unknown preset '%.40s'", name);
        if (!json_object_is_type(rows, json_type_array))
            return err_set(err, errlen, "boards.%s: a list of players", name);
        struct stats_board *b = board_at(s, name);
        size_t n = json_object_array_length(rows);
        for (size_t i = 0; i < n; i++)
            if (parse_player(b, json_object_array_get_idx(rows, i), err,
                             errlen))
                return -1;
        b->dirty = true;
    }
    return 0;
}

int stats_parse(const char *text, size_t len, struct stats **out, char *err,
                size_t errlen)
{
    struct json_tokener *tok = xjson_tokener(64);
    struct json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (!root || jerr != json_tokener_success) {
        json_object_put(root);
        return err_set(err, errlen, "not JSON: %s",
                       json_tokener_error_desc(jerr));
    }
    struct stats *s = stats_new();
    int rc = parse_root(root, s, err, errlen);
    json_object_put(root);
    if (rc) {
        stats_free(s);
        return -1;
    }
    stats_rank(s);
    *out = s;
    return 0;
}

int stats_save(const char *room_dir, const struct stats *s, char *err,
               size_t errlen)
{
    char path[FILE_PATH_MAX];
    if (file_path(path, sizeof path, err, errlen, room_dir, STATS_FILE,
                  (char *)NULL))
        return -1;
    char *json = stats_json(s);
    int rc = storage_replace(path, json, strlen(json), err, errlen);
    free(json);
    return rc;
}

/* ---- Rebuilding from the archive -------------------------------------- */

/* The figures of every record, by offset (ascending: the file's order). */
/* A game's figures as the rebuild keeps them for every record: a
 * struct stats_game without the hands for !scores (the last game's are
 * read again at the end), a tenth of its size. */
struct fig {
    int32_t totals[ENGINE_MAX_PLAYERS], points[ENGINE_MAX_PLAYERS];
    uint16_t moons[ENGINE_MAX_PLAYERS], suns[ENGINE_MAX_PLAYERS],
        queens[ENGINE_MAX_PLAYERS];
    int32_t nhands;
    uint16_t winners;
    int8_t n, preset;
    bool custom, finished, hints;
};

static void fig_of(struct fig *f, const struct stats_game *g)
{
    memset(f, 0, sizeof *f);
    for (int s = 0; s < g->n; s++) {
        f->totals[s] = g->totals[s];
        f->points[s] = (int32_t)g->points[s];
        f->moons[s] = (uint16_t)g->moons[s];
        f->suns[s] = (uint16_t)g->suns[s];
        f->queens[s] = (uint16_t)g->queens[s];
    }
    f->nhands = g->nhands;
    f->winners = g->winners;
    f->n = (int8_t)g->n;
    f->preset = (int8_t)g->preset;
    f->custom = g->custom;
    f->finished = g->finished;
    f->hints = g->hints;
}

static void game_of(struct stats_game *g, const struct fig *f)
{
    memset(g, 0, sizeof *g);
    for (int s = 0; s < f->n; s++) {
        g->totals[s] = f->totals[s];
        g->points[s] = f->points[s];
        g->moons[s] = f->moons[s];
        g->suns[s] = f->suns[s];
        g->queens[s] = f->queens[s];
    }
    g->nhands = f->nhands;
    g->winners = f->winners;
    g->n = f->n;
    g->preset = f->preset;
    g->custom = f->custom;
    g->finished = f->finished;
    g->hints = f->hints;
}

struct figures {
    int64_t *offset;
    struct fig *games;
    bool *good;     /* false: a record that did not replay */
    uint64_t *hash; /* archive_record_hash of each line */
    size_t *byhash; /* indices, by hash then offset */
    struct stats_game scratch;
    int64_t last; /* offset of the game that is stats.last, or -1 */
    size_t n, cap;
    int skipped;
    char *err;
    size_t errlen;
    char newer[300]; /* a newer heartsbot's line: the rebuild is refused */
};

/* If a line a reader refused is a later version of `known` (a newer
 * heartsbot wrote it), says so into out and returns true. */
static bool refused_newer(const char *line, size_t len, const char *known,
                          const char *file, const char *where, long long at,
                          char *out, size_t outlen)
{
    if (!storage_json_newer(line, len, known))
        return false;
    snprintf(out, outlen,
             "%s %s %lld is of a newer heartsbot (this one reads %s): "
             "upgrade again to use it",
             file, where, at, known);
    return true;
}

static void skip(int *skipped, char *err, size_t errlen, const char *file,
                 const char *where, long long at, const char *why)
{
    if (!(*skipped)++ && err && errlen)
        snprintf(err, errlen, "%s %s %lld: %s", file, where, at, why);
}

static int on_record(void *ctx, char *line, size_t len, long lineno,
                     int64_t offset)
{
    struct figures *f = ctx;
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 1024;
        f->offset = xrealloc(f->offset, sizeof *f->offset * f->cap);
        f->games = xrealloc(f->games, sizeof *f->games * f->cap);
        f->good = xrealloc(f->good, sizeof *f->good * f->cap);
        f->hash = xrealloc(f->hash, sizeof *f->hash * f->cap);
    }
    char msg[300];
    f->offset[f->n] = offset;
    f->hash[f->n] = archive_record_hash(line, len);
    f->good[f->n] =
        !stats_game_from_record(line, len, &f->scratch, msg, sizeof msg);
    if (!f->good[f->n] &&
        refused_newer(line, len, RECORD_FORMAT, ARCHIVE_FILE, "line", lineno,
                      f->newer, sizeof f->newer))
        return 1;
    if (f->good[f->n])
        fig_of(&f->games[f->n], &f->scratch);
    else
        skip(&f->skipped, f->err, f->errlen, ARCHIVE_FILE, "line", lineno, msg);
    f->n++;
    return 0;
}

static const uint64_t *sort_hash;

static int by_hash(const void *x, const void *y)
{
    uint64_t a = sort_hash[*(const size_t *)x],
             b = sort_hash[*(const size_t *)y];
    if (a != b)
        return a < b ? -1 : 1;
    return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

struct results_pass {
    struct figures *f;
    struct stats *s;
};

/* The record a results line names: the one at its offset if its
 * fingerprint matches there (a heartsbot-results/1 line: if one starts
 * there), else the first with its fingerprint anywhere; -1 if none. */
static long record_for(const struct figures *f, const struct archive_result *r)
{
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->offset[mid] < r->offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    bool at = lo < f->n && f->offset[lo] == r->offset;
    if (!r->has_hash)
        return at ? (long)lo : -1;
    if (at && f->hash[lo] == r->record_hash)
        return (long)lo;
    lo = 0;
    hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->hash[f->byhash[mid]] < r->record_hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->n && f->hash[f->byhash[lo]] == r->record_hash
               ? (long)f->byhash[lo]
               : -1;
}

static int on_result(void *ctx, char *line, size_t len, long lineno,
                     int64_t offset)
{
    struct results_pass *rp = ctx;
    struct figures *f = rp->f;
    struct archive_result r;
    char msg[300];
    (void)offset;
    if (archive_result_parse(line, len, &r, msg, sizeof msg)) {
        if (refused_newer(line, len, ARCHIVE_RESULTS_FORMAT,
                          ARCHIVE_RESULTS_FILE, "line", lineno, f->newer,
                          sizeof f->newer))
            return 1;
        skip(&f->skipped, f->err, f->errlen, ARCHIVE_RESULTS_FILE, "line",
             lineno, msg);
        rp->s->results_last[0] = '\0';
        return 0;
    }
    memcpy(rp->s->results_last, r.game, sizeof r.game);
    long i = record_for(f, &r);
    const struct stats_game *g = NULL;
    if (i >= 0 && f->good[i]) {
        game_of(&f->scratch, &f->games[i]);
        g = &f->scratch;
    }
    if (!g && r.finished) {
        snprintf(msg, sizeof msg,
                 i >= 0 ? "game %s: its record does not replay"
                        : "game %s: its record is not at byte %lld of "
                          "archive.jsonl nor anywhere in it: damaged",
                 r.game, (long long)r.offset);
        skip(&f->skipped, f->err, f->errlen, ARCHIVE_RESULTS_FILE, "line",
             lineno, msg);
    }
    stats_add(rp->s, &r, g);
    if (g && r.finished && g->finished && g->n == r.n)
        f->last = f->offset[i];
    return 0;
}

/* The last game's hands and changed options, which the rebuild did not
 * keep. */
static void last_hands(struct stats *s, const char *apath, int64_t offset)
{
    char *line;
    size_t len;
    struct stats_game g;
    if (offset < 0 || !s->last.has ||
        archive_record_at(apath, offset, &line, &len))
        return;
    if (!stats_game_from_record(line, len, &g, NULL, 0)) {
        s->last.nlast = g.nlast;
        memcpy(s->last.hands, g.hands, sizeof s->last.hands);
        memcpy(s->last.changes, g.changes, sizeof s->last.changes);
    }
    free(line);
}

int stats_rebuild(const char *room_dir, struct stats **out, int *skipped,
                  char *err, size_t errlen)
{
    char apath[FILE_PATH_MAX], rpath[FILE_PATH_MAX];
    if (archive_paths(room_dir, apath, rpath, err, errlen))
        return -1;
    char first[400] = "";
    struct figures f;
    memset(&f, 0, sizeof f);
    f.err = first;
    f.errlen = sizeof first;
    f.last = -1;
    struct stats *s = stats_new();
    struct results_pass rp = {&f, s};
    int rc = storage_scan_lines(apath, 0, RECORD_MAX_LINE + 2, true, on_record,
                                &f, NULL, err, errlen);
    if (!rc) {
        f.byhash = xcalloc(f.n, sizeof *f.byhash);
        for (size_t i = 0; i < f.n; i++)
            f.byhash[i] = i;
        sort_hash = f.hash;
        qsort(f.byhash, f.n, sizeof *f.byhash, by_hash);
        rc = storage_scan_lines(rpath, 0, ARCHIVE_RESULTS_MAX_LINE, true,
                                on_result, &rp, NULL, err, errlen);
    }
    free(f.offset);
    free(f.games);
    free(f.good);
    free(f.hash);
    free(f.byhash);
    if (f.newer[0])
        err_set(err, errlen, "%s", f.newer);
    if (rc || f.newer[0]) {
        stats_free(s);
        return -1;
    }
    last_hands(s, apath, f.last);
    archive_sizes(room_dir, &s->archive_bytes, &s->results_bytes);
    stats_rank(s);
    s->skipped = f.skipped;
    *skipped = f.skipped;
    if (f.skipped && err && errlen)
        snprintf(err, errlen, "%s", first);
    *out = s;
    return 0;
}

/* ---- Catching up from leaderboard.json -------------------------------- */

/* The results lines after the ones leaderboard.json counts. */
struct tail_pass {
    struct stats *s;
    const char *apath;
    int64_t counted;
    int skipped;
    bool lost;    /* a game not where its results line points: rebuild */
    bool newer;   /* a newer heartsbot's line: refused (why says it) */
    int64_t aend; /* the end of the last record counted */
    char *why;
    size_t whylen;
};

static int on_tail_result(void *ctx, char *line, size_t len, long lineno,
                          int64_t offset)
{
    struct tail_pass *t = ctx;
    struct archive_result r;
    char msg[300];
    (void)lineno;
    if (archive_result_parse(line, len, &r, msg, sizeof msg)) {
        if (refused_newer(line, len, ARCHIVE_RESULTS_FORMAT,
                          ARCHIVE_RESULTS_FILE, "byte", (long long)offset,
                          t->why, t->whylen)) {
            t->newer = true;
            return 1;
        }
        skip(&t->skipped, t->why, t->whylen, ARCHIVE_RESULTS_FILE, "byte",
             (long long)offset, msg);
        t->s->results_last[0] = '\0';
        return 0;
    }
    char *rec;
    size_t rlen;
    if (archive_record_at(t->apath, r.offset, &rec, &rlen)) {
        t->lost = true;
    } else {
        t->lost = r.has_hash && archive_record_hash(rec, rlen) != r.record_hash;
        if (t->lost)
            free(rec);
    }
    if (t->lost) {
        snprintf(t->why, t->whylen,
                 "game %s is not at byte %lld of archive.jsonl, where its "
                 "results line says",
                 r.game, (long long)r.offset);
        return 1;
    }
    if (r.offset + (int64_t)rlen + 1 > t->aend)
        t->aend = r.offset + (int64_t)rlen + 1;
    struct stats_game g;
    bool good = !stats_game_from_record(rec, rlen, &g, msg, sizeof msg);
    t->newer =
        !good && refused_newer(rec, rlen, RECORD_FORMAT, ARCHIVE_FILE, "byte",
                               (long long)r.offset, t->why, t->whylen);
    free(rec);
    if (t->newer)
        return 1;
    if (!good && r.finished)
        skip(&t->skipped, t->why, t->whylen, ARCHIVE_RESULTS_FILE, "byte",
             (long long)offset, "its record does not replay");
    stats_add(t->s, &r, good ? &g : NULL);
    memcpy(t->s->results_last, r.game, sizeof r.game);
    t->counted++;
    return 0;
}

/* Whether results.jsonl's first `end` bytes end with a whole line of
 * game `id` ("": any whole line). */
static bool ends_with_game(const char *rpath, int64_t end, const char *id)
{
    int fd = open(rpath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t want = ARCHIVE_RESULTS_MAX_LINE + 2;
    size_t n = end < (int64_t)want ? (size_t)end : want;
    char *buf = xmalloc(n + 1);
    ssize_t r = pread(fd, buf, n, (off_t)(end - (int64_t)n));
    close(fd);
    bool ok = r == (ssize_t)n && n > 0 && buf[n - 1] == '\n';
    if (ok && id[0]) {
        size_t start = n - 1;
        while (start > 0 && buf[start - 1] != '\n')
            start--;
        struct archive_result res;
        ok = !archive_result_parse(buf + start, n - 1 - start, &res, NULL, 0) &&
             !strcmp(res.game, id);
    }
    free(buf);
    return ok;
}

int stats_open(const char *room_dir, struct stats **out, int64_t *caught_up,
               int *skipped, char *why, size_t whylen)
{
    char path[FILE_PATH_MAX], apath[FILE_PATH_MAX], rpath[FILE_PATH_MAX];
    *caught_up = 0;
    *skipped = 0;
    if (file_path(path, sizeof path, why, whylen, room_dir, STATS_FILE,
                  (char *)NULL) ||
        archive_paths(room_dir, apath, rpath, why, whylen))
        return 1;
    int64_t abytes, rbytes;
    archive_sizes(room_dir, &abytes, &rbytes);
    char *text = NULL;
    size_t len = 0;
    bool missing = false;
    struct stats *s = NULL;
    if (file_read(path, STATS_MAX_FILE, &text, &len, &missing, why, whylen)) {
        if (missing)
            snprintf(why, whylen, "it is missing");
        return 1;
    }
    int rc = stats_parse(text, len, &s, why, whylen);
    bool newer = rc && storage_json_newer(text, len, STATS_FORMAT);
    free(text);
    if (newer)
        snprintf(why, whylen,
                 "%s is of a newer heartsbot (this one reads %s and %s): "
                 "upgrade again, or remove it to have it rebuilt",
                 STATS_FILE, STATS_FORMAT, STATS_FORMAT_V1);
    if (rc)
        return newer ? -1 : 1;
    if (s->exact ? s->archive_bytes != abytes || s->results_bytes != rbytes
                 : s->archive_bytes > abytes || s->results_bytes > rbytes) {
        snprintf(why, whylen, "it does not count the whole archive");
        stats_free(s);
        return 1;
    }
    if (s->results_bytes > 0 &&
        !ends_with_game(rpath, s->results_bytes, s->results_last)) {
        snprintf(why, whylen,
                 "results.jsonl changed before the lines it counts");
        stats_free(s);
        return 1;
    }
    struct tail_pass t = {.s = s,
                          .apath = apath,
                          .aend = s->archive_bytes,
                          .why = why,
                          .whylen = whylen};
    if (rbytes > s->results_bytes) {
        char err[300];
        rc = storage_scan_lines(rpath, s->results_bytes,
                                ARCHIVE_RESULTS_MAX_LINE, true, on_tail_result,
                                &t, NULL, err, sizeof err);
        if (rc < 0)
            snprintf(why, whylen, "%s", err);
        if (rc) {
            stats_free(s);
            return t.newer ? -1 : 1;
        }
    }
    /* the archive up to its last record counted: what follows (damage
     * that the next append cuts, say) is no part of the count */
    int64_t ignored;
    archive_sizes(room_dir, &ignored, &s->results_bytes);
    s->archive_bytes = t.aend;
    stats_rank(s);
    s->exact = false;
    s->on_disk = true;
    s->behind = t.counted;
    s->skipped = t.skipped;
    *caught_up = t.counted;
    *skipped = t.skipped;
    *out = s;
    return 0;
}

int stats_load(const char *room_dir, struct stats **out, bool *rebuilt,
               char *why, size_t whylen, char *err, size_t errlen)
{
    char path[FILE_PATH_MAX];
    *rebuilt = false;
    if (file_path(path, sizeof path, err, errlen, room_dir, STATS_FILE,
                  (char *)NULL))
        return -1;
    int64_t caught = 0;
    int skipped = 0;
    char msg[400] = "";
    struct stats *s = NULL;
    int opened = stats_open(room_dir, &s, &caught, &skipped, msg, sizeof msg);
    if (opened < 0)
        return err_set(err, errlen, "%s", msg);
    if (opened == 0) {
        if (why && whylen && skipped)
            snprintf(why, whylen,
                     "%s caught up: %lld game%s after it counted; %d line%s "
                     "skipped (%s)",
                     STATS_FILE, (long long)caught, caught == 1 ? "" : "s",
                     skipped, skipped == 1 ? "" : "s", msg);
        else if (why && whylen && caught)
            snprintf(why, whylen, "%s caught up: %lld game%s after it counted",
                     STATS_FILE, (long long)caught, caught == 1 ? "" : "s");
        *out = s;
        return 0;
    }
    /* nothing archived and no board: nothing to write yet */
    int64_t abytes, rbytes;
    archive_sizes(room_dir, &abytes, &rbytes);
    struct stat sb;
    if (!abytes && !rbytes && lstat(path, &sb)) {
        *out = stats_new();
        return 0;
    }
    char rerr[400] = "";
    if (stats_rebuild(room_dir, &s, &skipped, rerr, sizeof rerr)) {
        snprintf(err ? err : msg, err ? errlen : sizeof msg, "%s", rerr);
        return -1;
    }
    if (why && whylen) {
        if (skipped)
            snprintf(why, whylen, "%s rebuilt (%s); %d line%s skipped (%s)",
                     STATS_FILE, msg, skipped, skipped == 1 ? "" : "s", rerr);
        else
            snprintf(why, whylen, "%s rebuilt (%s)", STATS_FILE, msg);
    }
    *rebuilt = true;
    /* not kept on disk: still good in memory, and rebuilt next start */
    char serr[300];
    if (stats_save(room_dir, s, serr, sizeof serr)) {
        if (why && whylen) {
            size_t used = strlen(why);
            snprintf(why + used, whylen - used, "; not saved: %s", serr);
        }
    } else {
        s->on_disk = true;
    }
    *out = s;
    return 0;
}

int64_t stats_checkpoint_every(const struct stats *s)
{
    int64_t rows = 0;
    for (int i = 0; i < s->nboards; i++)
        rows += s->boards[i].n;
    return rows / 8 > 16 ? rows / 8 : 16;
}

int stats_counted(const char *room_dir, struct stats *s,
                  const struct archive_result *r, const struct stats_game *g,
                  bool *saved, char *err, size_t errlen)
{
    *saved = false;
    stats_add(s, r, g);
    stats_rank(s);
    archive_sizes(room_dir, &s->archive_bytes, &s->results_bytes);
    memcpy(s->results_last, r->game, sizeof r->game);
    if (++s->behind < stats_checkpoint_every(s) && s->on_disk)
        return 0;
    if (stats_save(room_dir, s, err, errlen))
        return -1;
    s->behind = 0;
    s->on_disk = true;
    *saved = true;
    return 0;
}
