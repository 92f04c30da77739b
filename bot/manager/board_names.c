/*
 * The names rows of a board are shown by (board_names.h): for each board
 * asked about, each row's base name (before numbering) and two hash
 * chains in row order: rows whose base reads the same, and rows whose
 * base is such a name with "(k)" after it (the numbers taken).
 */
#include "bot/manager/board_names.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/manager/render.h"
#include "bot/common/xalloc.h"

/* Room for a folded name (a base is at most RENDER_SHOWN_SIZE bytes). */
#define CANON_SIZE (RENDER_SHOWN_SIZE + 8)

/* One board's names, for one state of it. */
struct board_names {
    struct board_names *next;
    const struct stats *s;
    const struct stats_board *b;
    /* the state they were made for */
    int n;
    int64_t games, archive_bytes, results_bytes;
    char **base;    /* per row: its name before numbering */
    int *suffix;    /* per row: k if base is "stem(k)", else 0 */
    int *same_next; /* chain of rows of one base, in row order; -1 ends */
    int *stem_next; /* chain of rows "stem(k)" of one stem; -1 ends */
    int *same_head, *stem_head; /* per slot: first row, or -1 */
    uint32_t *same_hash, *stem_hash;
    int nslots;
};

static void names_clear(struct board_names *bn)
{
    for (int i = 0; bn->base && i < bn->n; i++)
        free(bn->base[i]);
    free(bn->base);
    free(bn->suffix);
    free(bn->same_next);
    free(bn->stem_next);
    free(bn->same_head);
    free(bn->stem_head);
    free(bn->same_hash);
    free(bn->stem_hash);
}

void board_names_free(struct board_names *bn)
{
    while (bn) {
        struct board_names *next = bn->next;
        names_clear(bn);
        free(bn);
        bn = next;
    }
}

/* A name as the network compares it, case aside: equal for two names
 * exactly when same_nick or strcasecmp says they are the same (every
 * network fold lowers A-Z). */
static void canon(const struct chat_adapter *a, const char *name, char *out)
{
    if (a->ops->fold)
        a->ops->fold(a, name, out, CANON_SIZE);
    else
        snprintf(out, CANON_SIZE, "%s", name);
    for (char *p = out; *p; p++)
        *p = (char)tolower((unsigned char)*p);
}

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* "bob(12)" -> 12 with *stem_len 3; 0 if the name ends otherwise. */
static int suffix_of(const char *name, size_t *stem_len)
{
    size_t n = strlen(name);
    if (n < 4 || name[n - 1] != ')')
        return 0;
    size_t i = n - 1;
    while (i > 0 && isdigit((unsigned char)name[i - 1]))
        i--;
    if (i == n - 1 || i < 2 || name[i - 1] != '(' || name[i] == '0' ||
        n - 1 - i > 6)
        return 0;
    *stem_len = i - 1;
    return atoi(name + i);
}

/* The name a row stands for before numbering (board_names.h). */
static char *row_base(const struct chat_adapter *a,
                      const struct stats_player *p)
{
    char nick[sizeof p->key], folded[CANON_SIZE];
    const char *name = p->name;
    if (strncmp(p->key, "n:", 2) == 0) {
        /* the key's last '@' ends the nick (a host holds none); a key
         * from before hosts is the nick alone */
        const char *at = strrchr(p->key + 2, '@');
        size_t n = at ? (size_t)(at - p->key - 2) : strlen(p->key + 2);
        snprintf(nick, sizeof nick, "%.*s", (int)n, p->key + 2);
        if (a->ops->fold)
            a->ops->fold(a, p->name, folded, sizeof folded);
        else
            snprintf(folded, sizeof folded, "%s", p->name);
        if (strcmp(folded, nick) != 0)
            name = nick;
    }
    char out[RENDER_SHOWN_SIZE];
    render_name(out, sizeof out, name);
    return xstrdup(out);
}

/* Appends row i to the chain of hash h (heads per slot, row order). */
static void chain_add(int *head, uint32_t *hashes, int *next, int nslots,
                      uint32_t h, int i, int *tail)
{
    uint32_t mask = (uint32_t)nslots - 1;
    uint32_t k = h & mask;
    while (head[k] >= 0 && hashes[k] != h)
        k = (k + 1) & mask;
    next[i] = -1;
    if (head[k] < 0) {
        head[k] = i;
        hashes[k] = h;
    } else {
        next[tail[head[k]]] = i;
    }
    tail[head[k]] = i;
}

/* The first row of the chain of hash h, or -1. */
static int chain_first(const int *head, const uint32_t *hashes, int nslots,
                       uint32_t h)
{
    uint32_t mask = (uint32_t)nslots - 1;
    for (uint32_t k = h & mask; head[k] >= 0; k = (k + 1) & mask)
        if (hashes[k] == h)
            return head[k];
    return -1;
}

static void names_make(struct board_names *bn, const struct chat_adapter *a)
{
    const struct stats_board *b = bn->b;
    int n = b->n;
    bn->n = n;
    bn->games = bn->s->games;
    bn->archive_bytes = bn->s->archive_bytes;
    bn->results_bytes = bn->s->results_bytes;
    bn->nslots = 16;
    while (bn->nslots < 2 * n + 2)
        bn->nslots *= 2;
    size_t rows = (size_t)n + 1, slots = (size_t)bn->nslots;
    bn->base = xcalloc(rows, sizeof *bn->base);
    bn->suffix = xcalloc(rows, sizeof *bn->suffix);
    bn->same_next = xcalloc(rows, sizeof *bn->same_next);
    bn->stem_next = xcalloc(rows, sizeof *bn->stem_next);
    bn->same_head = xcalloc(slots, sizeof *bn->same_head);
    bn->stem_head = xcalloc(slots, sizeof *bn->stem_head);
    bn->same_hash = xcalloc(slots, sizeof *bn->same_hash);
    bn->stem_hash = xcalloc(slots, sizeof *bn->stem_hash);
    for (size_t k = 0; k < slots; k++)
        bn->same_head[k] = bn->stem_head[k] = -1;
    int *same_tail = xcalloc(rows, sizeof *same_tail);
    int *stem_tail = xcalloc(rows, sizeof *stem_tail);
    char c[CANON_SIZE];
    for (int i = 0; i < n; i++) {
        bn->base[i] = row_base(a, &b->p[i]);
        canon(a, bn->base[i], c);
        chain_add(bn->same_head, bn->same_hash, bn->same_next, bn->nslots,
                  hash(c), i, same_tail);
        size_t stem;
        bn->suffix[i] = suffix_of(bn->base[i], &stem);
        bn->stem_next[i] = -1;
        if (bn->suffix[i]) {
            c[stem] = '\0'; /* folding keeps lengths */
            chain_add(bn->stem_head, bn->stem_hash, bn->stem_next, bn->nslots,
                      hash(c), i, stem_tail);
        }
    }
    free(same_tail);
    free(stem_tail);
}

/* The board's names, made again if the board changed. */
static struct board_names *names_of(struct board_names **list,
                                    const struct chat_adapter *a,
                                    const struct stats *s,
                                    const struct stats_board *b)
{
    /* names of boards gone (another file read, the boards moved) go */
    for (struct board_names **at = list; *at;) {
        struct board_names *old = *at;
        bool current = old->s == s && old->b >= s->boards &&
                       old->b < s->boards + s->nboards;
        if (current) {
            at = &old->next;
            continue;
        }
        *at = old->next;
        names_clear(old);
        free(old);
    }
    struct board_names *bn = *list;
    while (bn && bn->b != b)
        bn = bn->next;
    if (bn && bn->n == b->n && bn->games == s->games &&
        bn->archive_bytes == s->archive_bytes &&
        bn->results_bytes == s->results_bytes)
        return bn;
    if (bn) {
        names_clear(bn);
    } else {
        bn = xcalloc(1, sizeof *bn);
        bn->next = *list;
        *list = bn;
    }
    struct board_names *next = bn->next;
    memset(bn, 0, sizeof *bn);
    bn->next = next;
    bn->s = s;
    bn->b = b;
    names_make(bn, a);
    return bn;
}

/* Whether two names read the same. */
static bool same(const struct chat_adapter *a, const char *x, const char *y)
{
    char cx[CANON_SIZE], cy[CANON_SIZE];
    canon(a, x, cx);
    canon(a, y, cy);
    return strcmp(cx, cy) == 0;
}

/* The first row of base `name`, following same_next; the chain of a hash
 * may hold other names of the same hash: skipped. */
static int first_of(const struct board_names *bn, const struct chat_adapter *a,
                    const char *name)
{
    char c[CANON_SIZE];
    canon(a, name, c);
    int i = chain_first(bn->same_head, bn->same_hash, bn->nslots, hash(c));
    while (i >= 0 && !same(a, bn->base[i], name))
        i = bn->same_next[i];
    return i;
}

static int next_of(const struct board_names *bn, const struct chat_adapter *a,
                   int i)
{
    int k = bn->same_next[i];
    while (k >= 0 && !same(a, bn->base[k], bn->base[i]))
        k = bn->same_next[k];
    return k;
}

/* Whether some row's base is name(k). */
static bool taken(const struct board_names *bn, const struct chat_adapter *a,
                  const char *name, int k)
{
    char c[CANON_SIZE];
    canon(a, name, c);
    for (int i = chain_first(bn->stem_head, bn->stem_hash, bn->nslots, hash(c));
         i >= 0; i = bn->stem_next[i]) {
        size_t stem;
        if (bn->suffix[i] != k || !suffix_of(bn->base[i], &stem))
            continue;
        char s[RENDER_SHOWN_SIZE];
        snprintf(s, sizeof s, "%.*s", (int)stem, bn->base[i]);
        if (same(a, s, name))
            return true;
    }
    return false;
}

/* The number of the pos-th row (0: the first, shown without one) of the
 * base `name`: 2, 3... skipping numbers taken. */
static int number(const struct board_names *bn, const struct chat_adapter *a,
                  const char *name, int pos)
{
    int k = 1;
    while (pos > 0) {
        k++;
        if (!taken(bn, a, name, k))
            pos--;
    }
    return k;
}

static void put_shown(const char *base, int k, char *out, size_t outlen)
{
    if (k > 1)
        snprintf(out, outlen, "%s(%d)", base, k);
    else
        snprintf(out, outlen, "%s", base);
}

void board_names_shown(struct board_names **list, const struct chat_adapter *a,
                       const struct stats *s, const struct stats_board *b,
                       int index, char *out, size_t outlen)
{
    const struct board_names *bn = names_of(list, a, s, b);
    const char *base = bn->base[index];
    int pos = 0;
    for (int i = first_of(bn, a, base); i >= 0 && i != index;
         i = next_of(bn, a, i))
        pos++;
    put_shown(base, number(bn, a, base, pos), out, outlen);
}

int board_names_find(struct board_names **list, const struct chat_adapter *a,
                     const struct stats *s, const struct stats_board *b,
                     const char *name, char *also, size_t alsolen)
{
    const struct board_names *bn = names_of(list, a, s, b);
    char want[RENDER_SHOWN_SIZE];
    render_name(want, sizeof want, name);
    also[0] = '\0';
    /* shown plainly: the first row of that base; the others numbered */
    int found = first_of(bn, a, want);
    if (found >= 0) {
        size_t pos = 0;
        int k = 1;
        for (int i = next_of(bn, a, found); i >= 0; i = next_of(bn, a, i)) {
            char shown[RENDER_SHOWN_SIZE + 16];
            put_shown(bn->base[i], number(bn, a, want, k++), shown,
                      sizeof shown);
            if (pos + 2 + strlen(shown) >= alsolen)
                break; /* the rest would not fit whole */
            pos += (size_t)snprintf(also + pos, alsolen - pos, "%s%s",
                                    pos ? ", " : "", shown);
        }
        return found;
    }
    /* shown with a number: the row of its base that has it */
    size_t stem_len = 0;
    int k = suffix_of(want, &stem_len);
    if (k < 2)
        return -1;
    want[stem_len] = '\0';
    int pos = 0;
    for (int i = first_of(bn, a, want); i >= 0; i = next_of(bn, a, i), pos++)
        if (pos > 0 && number(bn, a, want, pos) == k)
            return i;
    return -1;
}
