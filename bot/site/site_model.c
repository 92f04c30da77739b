/*
 * A channel's model for its pages (site_internal.h): the boards (counted
 * by storage's stats_add, as the bot counts them), every person with
 * their games and rating history, every finished game's line of the
 * tables, and the last games whole. Read from results.jsonl and
 * archive.jsonl without changing either.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/common/err.h"
#include "bot/common/xalloc.h"
#include "bot/site/site_internal.h"
#include "storage/record/record.h"
#include "storage/storage.h"

/* ---- Page names ------------------------------------------------------- */

static uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

#define SIPROUND                                                               \
    do {                                                                       \
        v0 += v1;                                                              \
        v1 = rotl(v1, 13);                                                     \
        v1 ^= v0;                                                              \
        v0 = rotl(v0, 32);                                                     \
        v2 += v3;                                                              \
        v3 = rotl(v3, 16);                                                     \
        v3 ^= v2;                                                              \
        v0 += v3;                                                              \
        v3 = rotl(v3, 21);                                                     \
        v3 ^= v0;                                                              \
        v2 += v1;                                                              \
        v1 = rotl(v1, 17);                                                     \
        v1 ^= v2;                                                              \
        v2 = rotl(v2, 32);                                                     \
    } while (0)

uint64_t site_siphash(uint64_t k0, uint64_t k1, const unsigned char *m,
                      size_t len)
{
    uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1,
             v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
    size_t end = len - len % 8;
    for (size_t i = 0; i < end; i += 8) {
        uint64_t w = 0;
        for (int b = 0; b < 8; b++)
            w |= (uint64_t)m[i + (size_t)b] << (8 * b);
        v3 ^= w;
        SIPROUND;
        SIPROUND;
        v0 ^= w;
    }
    uint64_t w = (uint64_t)len << 56;
    for (size_t b = 0; b < len % 8; b++)
        w |= (uint64_t)m[end + b] << (8 * b);
    v3 ^= w;
    SIPROUND;
    SIPROUND;
    v0 ^= w;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* The name of `key` (with `salt` appended when not 0, for a collision). */
static void page_name(const char *secret, const char *key, int salt,
                      char out[SITE_PAGE_NAME])
{
    uint64_t k0 = 0, k1 = 0;
    if (secret && secret[0]) {
        /* the secret stretched into 128 bits by SipHash itself */
        size_t n = strlen(secret);
        k0 = site_siphash(0, 0, (const unsigned char *)secret, n);
        k1 = site_siphash(k0, 1, (const unsigned char *)secret, n);
    }
    char buf[256];
    int n = salt ? snprintf(buf, sizeof buf, "%s\n%d", key, salt)
                 : snprintf(buf, sizeof buf, "%s", key);
    if (n < 0 || (size_t)n >= sizeof buf)
        n = (int)sizeof buf - 1;
    snprintf(out, SITE_PAGE_NAME, "%016llx",
             (unsigned long long)site_siphash(
                 k0, k1, (const unsigned char *)buf, (size_t)n));
}

void site_page_name(const char *secret, const char *key,
                    char out[SITE_PAGE_NAME])
{
    page_name(secret, key, 0, out);
}

/* ASCII lower case, and []\~ as {}|^ (rfc1459), in place. */
static void fold_rfc1459(char *p)
{
    for (; *p; p++) {
        if (*p >= 'A' && *p <= ']')
            *p = (char)(*p + 32);
        else if (*p == '~')
            *p = '^';
    }
}

/* ---- The channel ------------------------------------------------------ */

struct site_channel *site_channel_new(const struct site *s, const char *net_enc,
                                      const char *room_enc)
{
    struct site_channel *c = xcalloc(1, sizeof *c);
    snprintf(c->net_enc, sizeof c->net_enc, "%s", net_enc);
    snprintf(c->room_enc, sizeof c->room_enc, "%s", room_enc);
    c->net = site_name_decode(net_enc);
    c->room = site_name_decode(room_enc);
    snprintf(c->dir, sizeof c->dir, "%s/%s/%s", s->data_dir, net_enc, room_enc);
    for (int i = 0; i < s->nhide; i++) {
        const char *sp = strchr(s->hide[i], ' ');
        if (!sp)
            continue;
        char net[FILE_PATH_MAX], ne[FILE_NAME_MAX + 1], re[FILE_NAME_MAX + 1];
        char room[FILE_PATH_MAX];
        snprintf(net, sizeof net, "%.*s", (int)(sp - s->hide[i]), s->hide[i]);
        file_name_encode(net, ne, sizeof ne);
        /* the config's room as written ("#Secret"), the folder's as its
         * network folds it: folded as IRC folds names (rfc1459), the
         * fold that covers every network's */
        snprintf(room, sizeof room, "%s", sp + 1);
        fold_rfc1459(room);
        file_name_encode(room, re, sizeof re);
        char folder[FILE_PATH_MAX];
        snprintf(folder, sizeof folder, "%s", c->room);
        fold_rfc1459(folder);
        char fe[FILE_NAME_MAX + 1];
        file_name_encode(folder, fe, sizeof fe);
        if (!strcmp(ne, net_enc) && !strcmp(re, fe))
            c->hide_hands = true;
    }
    c->stats = stats_new();
    c->recent = xcalloc((size_t)s->recent, sizeof *c->recent);
    c->recent_game = xcalloc((size_t)s->recent, sizeof *c->recent_game);
    return c;
}

void site_channel_free(struct site_channel *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->npeople; i++) {
        free(c->people[i].key);
        free(c->people[i].games);
        free(c->people[i].pts);
    }
    free(c->people);
    free(c->slots);
    free(c->pslots);
    free(c->games);
    free(c->recent);
    free(c->recent_game);
    stats_free(c->stats);
    free(c->net);
    free(c->room);
    free(c);
}

static uint32_t key_hash(const char *key)
{
    return (uint32_t)file_hash64(key, strlen(key));
}

int site_person_find(const struct site_channel *c, const char *key)
{
    if (!c->nslots)
        return -1;
    for (uint32_t h = key_hash(key) & (uint32_t)(c->nslots - 1);;
         h = (h + 1) & (uint32_t)(c->nslots - 1)) {
        int v = c->slots[h];
        if (!v)
            return -1;
        if (!strcmp(c->people[v - 1].key, key))
            return v - 1;
    }
}

static void slot_put(struct site_channel *c, int index)
{
    uint32_t h = key_hash(c->people[index].key) & (uint32_t)(c->nslots - 1);
    while (c->slots[h])
        h = (h + 1) & (uint32_t)(c->nslots - 1);
    c->slots[h] = index + 1;
}

/* The person whose page is `page`, or -1 (pslots: by the page name's
 * own bits, which are a hash). */
static int page_find(const struct site_channel *c, const char *page)
{
    if (!c->npslots)
        return -1;
    uint32_t mask = (uint32_t)(c->npslots - 1);
    for (uint32_t h = (uint32_t)strtoull(page + 8, NULL, 16) & mask;;
         h = (h + 1) & mask) {
        int v = c->pslots[h];
        if (!v)
            return -1;
        if (!strcmp(c->people[v - 1].page, page))
            return v - 1;
    }
}

static void pslot_put(struct site_channel *c, int index)
{
    uint32_t mask = (uint32_t)(c->npslots - 1);
    uint32_t h = (uint32_t)strtoull(c->people[index].page + 8, NULL, 16) & mask;
    while (c->pslots[h])
        h = (h + 1) & mask;
    c->pslots[h] = index + 1;
}

static int person_at(const struct site *s, struct site_channel *c,
                     const char *key)
{
    int i = site_person_find(c, key);
    if (i >= 0)
        return i;
    if (c->npeople == c->cappeople) {
        c->cappeople = c->cappeople ? c->cappeople * 2 : 64;
        c->people = xrealloc(c->people, sizeof *c->people * c->cappeople);
    }
    struct site_person *p = &c->people[c->npeople];
    memset(p, 0, sizeof *p);
    p->key = xstrdup(key);
    page_name(s->secret, key, 0, p->page);
    /* two keys of one hash: the later one's name is salted (64-bit
     * collisions do not happen by chance, but a name must be one page) */
    for (int salt = 1; page_find(c, p->page) >= 0; salt++)
        page_name(s->secret, key, salt, p->page);
    c->npeople++;
    if (c->npeople * 2 > c->nslots) {
        free(c->slots);
        free(c->pslots);
        c->nslots = c->npslots = c->nslots ? c->nslots * 2 : 128;
        c->slots = xcalloc((size_t)c->nslots, sizeof *c->slots);
        c->pslots = xcalloc((size_t)c->npslots, sizeof *c->pslots);
        for (int k = 0; k < c->npeople; k++) {
            slot_put(c, k);
            pslot_put(c, k);
        }
    } else {
        slot_put(c, c->npeople - 1);
        pslot_put(c, c->npeople - 1);
    }
    return c->npeople - 1;
}

static int board_index(const struct stats *st, const char *preset)
{
    for (int i = 0; i < st->nboards; i++)
        if (!strcmp(st->boards[i].preset, preset))
            return i;
    return -1;
}

static void add_point(struct site_person *p, int board, int game, double r)
{
    if (p->npts == p->cappts) {
        p->cappts = p->cappts ? p->cappts * 2 : 8;
        p->pts = xrealloc(p->pts, sizeof *p->pts * p->cappts);
    }
    p->pts[p->npts++] = (struct site_point){board, game, r};
}

int site_channel_add(const struct site *s, struct site_channel *c,
                     const struct archive_result *r, const struct stats_game *g)
{
    stats_add(c->stats, r, g);
    c->archived++;
    memcpy(c->last_id, r->game, sizeof c->last_id);
    c->last_finished = r->finished;
    if (!g || !r->finished || !g->finished || g->n != r->n)
        return -1;
    if (c->ngames == c->capgames) {
        c->capgames = c->capgames ? c->capgames * 2 : 256;
        c->games = xrealloc(c->games, sizeof *c->games * c->capgames);
    }
    int gi = c->ngames++;
    struct site_game *sg = &c->games[gi];
    memset(sg, 0, sizeof *sg);
    memcpy(sg->id, r->game, sizeof sg->id);
    sg->time = r->time;
    snprintf(sg->preset, sizeof sg->preset, "%s",
             engine_preset_name(g->preset));
    sg->custom = g->custom;
    sg->hints = g->hints;
    sg->n = g->n;
    memcpy(sg->totals, g->totals, sizeof sg->totals);
    sg->winners = g->winners;
    for (int i = 0; i < r->n; i++)
        if (r->seats[i].left)
            sg->left |= (uint16_t)(1u << i);
    c->recent[c->nrecent % s->recent] = *r;
    c->recent_game[c->nrecent % s->recent] = gi;
    c->nrecent++;
    /* as stats_add: a game that allowed hints on the hints board alone */
    int boards[2] = {
        board_index(c->stats, g->hints ? STATS_HINTS : sg->preset),
        g->custom && !g->hints ? board_index(c->stats, STATS_CUSTOM) : -1};
    for (int i = 0; i < r->n; i++) {
        const struct archive_seat *st = &r->seats[i];
        if (st->computer || !st->key[0])
            continue;
        bool twice = false; /* as stats_add: one person counts once */
        for (int o = 0; o < i; o++)
            twice |= !r->seats[o].computer && !strcmp(r->seats[o].key, st->key);
        if (twice)
            continue;
        int pi = person_at(s, c, st->key); /* may move c->people */
        struct site_person *p = &c->people[pi];
        snprintf(p->name, sizeof p->name, "%s", st->name);
        if (p->ngames == p->capgames) {
            p->capgames = p->capgames ? p->capgames * 2 : 8;
            p->games = xrealloc(p->games, sizeof *p->games * p->capgames);
        }
        p->games[p->ngames++] = gi * 16 + i;
        for (int b = 0; b < 2; b++) {
            if (boards[b] < 0)
                continue;
            const struct stats_player *sp =
                stats_find(&c->stats->boards[boards[b]], st->key);
            if (sp)
                add_point(p, boards[b], gi, sp->rating);
        }
    }
    return gi;
}

const struct archive_result *site_recent(const struct site *s,
                                         const struct site_channel *c, int k,
                                         int *game)
{
    if (k >= c->nrecent || k >= s->recent)
        return NULL;
    *game = c->recent_game[(c->nrecent - 1 - k) % s->recent];
    return &c->recent[(c->nrecent - 1 - k) % s->recent];
}

/* ---- Reading the files ------------------------------------------------ */

/* One line of a file read without changing it; false at the end (a last
 * line without its newline counts only if it is a whole JSON object). */
struct lines {
    FILE *f;
    char *buf;
    size_t cap;
    int64_t offset; /* of the line returned */
    int64_t next;
    int64_t limit; /* the file's size when opened: appends after it wait */
};

static bool next_line(struct lines *l, char **line, size_t *len)
{
    for (;;) {
        if (l->next >= l->limit)
            return false;
        ssize_t n = getline(&l->buf, &l->cap, l->f);
        if (n <= 0)
            return false;
        l->offset = l->next;
        l->next += n;
        bool nl = l->buf[n - 1] == '\n';
        if (l->next > l->limit ||
            (!nl && !storage_whole_json(l->buf, (size_t)n)))
            return false; /* torn, or being written now */
        *line = l->buf;
        *len = (size_t)n - nl;
        if (*len)
            return true;
    }
}

static int lines_open(struct lines *l, const char *path, bool *missing,
                      char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    int64_t size;
    int fd = file_open_read(path, &size, missing, err, errlen);
    if (fd == -2)
        return 0;
    if (fd < 0)
        return -1;
    l->f = fdopen(fd, "r");
    if (!l->f) {
        close(fd);
        return err_set(err, errlen, "%s: %s", path, strerror(errno));
    }
    l->limit = size;
    return 0;
}

static void lines_close(struct lines *l)
{
    if (l->f)
        fclose(l->f);
    free(l->buf);
}

/* The record at offset in the archive if its fingerprint is `hash`. */
static char *record_at(FILE *a, int64_t offset, uint64_t hash, bool check,
                       size_t *len)
{
    if (offset < 0 || fseeko(a, (off_t)offset, SEEK_SET))
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getline(&buf, &cap, a);
    if (n <= 0 || (size_t)n > RECORD_MAX_LINE + 1) {
        free(buf);
        return NULL;
    }
    size_t l = (size_t)n - (buf[n - 1] == '\n');
    if (check && archive_record_hash(buf, l) != hash) {
        free(buf);
        return NULL;
    }
    *len = l;
    return buf;
}

/* Every record's offset by fingerprint, for results lines whose offset
 * is wrong (an edited archive): read once, when first needed. */
struct byhash {
    uint64_t hash;
    int64_t offset;
};

static int cmp_byhash(const void *x, const void *y)
{
    const struct byhash *a = x, *b = y;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static int index_archive(const char *path, struct byhash **out, size_t *nout,
                         char *err, size_t errlen)
{
    struct lines l;
    bool missing;
    if (lines_open(&l, path, &missing, err, errlen))
        return -1;
    struct byhash *v = NULL;
    size_t n = 0, cap = 0;
    char *line;
    size_t len;
    while (l.f && next_line(&l, &line, &len)) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            v = xrealloc(v, sizeof *v * cap);
        }
        v[n++] = (struct byhash){archive_record_hash(line, len), l.offset};
    }
    lines_close(&l);
    if (n)
        qsort(v, n, sizeof *v, cmp_byhash);
    *out = v;
    *nout = n;
    return 0;
}

int site_channel_scan(const struct site_channel *c, site_game_fn fn, void *ctx,
                      char *err, size_t errlen)
{
    char apath[FILE_PATH_MAX], rpath[FILE_PATH_MAX];
    if (archive_paths(c->dir, apath, rpath, err, errlen))
        return -1;
    struct lines res;
    bool missing;
    if (lines_open(&res, rpath, &missing, err, errlen))
        return -1;
    if (!res.f)
        return 0;
    int64_t asize;
    bool amissing;
    int afd = file_open_read(apath, &asize, &amissing, err, errlen);
    if (afd == -1) {
        lines_close(&res);
        return -1;
    }
    FILE *a = afd >= 0 ? fdopen(afd, "r") : NULL;
    if (afd >= 0 && !a)
        close(afd);
    struct byhash *idx = NULL;
    size_t nidx = 0;
    bool indexed = false;
    int rc = 0;
    char *line;
    size_t len;
    while (!rc && next_line(&res, &line, &len)) {
        struct archive_result r;
        if (archive_result_parse(line, len, &r, NULL, 0)) {
            if (storage_json_newer(line, len, ARCHIVE_RESULTS_FORMAT)) {
                rc = err_set(err, errlen,
                             "%s: a line of a newer heartsbot (this one "
                             "reads %s)",
                             rpath, ARCHIVE_RESULTS_FORMAT);
                break;
            }
            continue; /* damage: skipped, as the boards skip it */
        }
        size_t rlen = 0;
        char *rec =
            a ? record_at(a, r.offset, r.record_hash, r.has_hash, &rlen) : NULL;
        if (!rec && a && r.has_hash) {
            if (!indexed && index_archive(apath, &idx, &nidx, err, errlen) == 0)
                indexed = true;
            size_t lo = 0, hi = nidx;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (idx[mid].hash < r.record_hash)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < nidx && idx[lo].hash == r.record_hash)
                rec = record_at(a, idx[lo].offset, r.record_hash, true, &rlen);
        }
        rc = fn(ctx, &r, rec, rlen);
        free(rec);
    }
    free(idx);
    if (a)
        fclose(a);
    lines_close(&res);
    return rc;
}
