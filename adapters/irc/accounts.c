/*
 * The nick -> services account tracker (accounts.h): a small hash table of
 * casefolded nicks, entries packed in one array (a removal moves the last
 * entry into the hole), chained by index. Full, it forgets the person
 * touched least recently: a bot in busy channels keeps the people who
 * talk, and a forgotten one is "unknown", which is always safe (the
 * manager then goes by nick and user@host).
 */
#include "adapters/irc/accounts.h"

#include <stdlib.h>
#include <string.h>

#include "bot/common/xalloc.h"

/* The longest account kept (bytes, NUL included), as line.h's
 * IRCAD_ACCOUNT_MAX. */
#define ACCOUNT_MAX 128

struct ircad_account_entry {
    char nick[IRCAD_ACCOUNTS_NICK_MAX]; /* folded */
    char *account;                      /* KNOWN: the name */
    enum ircad_account_state state;
    uint64_t chans; /* the bot's channels they are in, one bit each */
    uint64_t touched;
    unsigned next; /* the next in the bucket: index + 1, 0 for none */
};

void ircad_accounts_init(struct ircad_accounts *t, size_t max)
{
    memset(t, 0, sizeof *t);
    t->max = max ? max : IRCAD_ACCOUNTS_MAX;
    t->nbuckets = 16;
    while (t->nbuckets < t->max / 4 && t->nbuckets < 1024)
        t->nbuckets *= 2;
}

static void drop_all(struct ircad_accounts *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->e[i].account);
    t->n = 0;
    if (t->heads)
        memset(t->heads, 0, t->nbuckets * sizeof *t->heads);
}

void ircad_accounts_free(struct ircad_accounts *t)
{
    drop_all(t);
    free(t->e);
    free(t->heads);
    t->e = NULL;
    t->heads = NULL;
    t->cap = 0;
}

void ircad_accounts_reset(struct ircad_accounts *t, enum ircad_casemap m)
{
    drop_all(t);
    t->casemap = m;
}

size_t ircad_accounts_count(const struct ircad_accounts *t)
{
    return t->n;
}

/* The folded form of nick in out; false if it cannot be tracked. */
static bool key_of(const struct ircad_accounts *t, const char *nick,
                   char out[IRCAD_ACCOUNTS_NICK_MAX])
{
    if (!nick || !*nick || strlen(nick) >= IRCAD_ACCOUNTS_NICK_MAX)
        return false;
    ircad_fold(t->casemap, nick, out, IRCAD_ACCOUNTS_NICK_MAX);
    return true;
}

static size_t bucket(const struct ircad_accounts *t, const char *key)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h & (t->nbuckets - 1);
}

/* The index of key's entry, or -1. */
static long find(const struct ircad_accounts *t, const char *key)
{
    if (!t->heads)
        return -1;
    for (unsigned i = t->heads[bucket(t, key)]; i; i = t->e[i - 1].next)
        if (strcmp(t->e[i - 1].nick, key) == 0)
            return (long)i - 1;
    return -1;
}

/* Where the link to entry i is kept (a bucket head or an entry's next). */
static unsigned *link_to(struct ircad_accounts *t, size_t i)
{
    unsigned *p = &t->heads[bucket(t, t->e[i].nick)];
    while (*p != i + 1)
        p = &t->e[*p - 1].next;
    return p;
}

static void remove_at(struct ircad_accounts *t, size_t i)
{
    unsigned *p = link_to(t, i);
    *p = t->e[i].next;
    free(t->e[i].account);
    size_t last = t->n - 1;
    if (i != last) {
        /* the last entry moves into the hole: relink it there */
        *link_to(t, last) = (unsigned)i + 1;
        t->e[i] = t->e[last];
    }
    t->n--;
}

/* Makes room for one more: the least recently touched goes. */
static void evict(struct ircad_accounts *t)
{
    size_t oldest = 0;
    for (size_t i = 1; i < t->n; i++)
        if (t->e[i].touched < t->e[oldest].touched)
            oldest = i;
    remove_at(t, oldest);
}

/* A new entry for key (not present), UNKNOWN and in no channel. */
static struct ircad_account_entry *add(struct ircad_accounts *t,
                                       const char *key)
{
    if (!t->heads) {
        t->heads = xcalloc(t->nbuckets, sizeof *t->heads);
    }
    if (t->n >= t->max)
        evict(t);
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        if (t->cap > t->max)
            t->cap = t->max;
        t->e = xrealloc(t->e, t->cap * sizeof *t->e);
    }
    struct ircad_account_entry *e = &t->e[t->n];
    memset(e, 0, sizeof *e);
    memcpy(e->nick, key, strlen(key) + 1);
    size_t b = bucket(t, key);
    e->next = t->heads[b];
    t->heads[b] = (unsigned)++t->n;
    return e;
}

/* Whether `account` can be a name: not empty, not too long, no space or
 * control character ("*" is handled by the callers). */
static bool account_ok(const char *account)
{
    if (!account || !*account || strlen(account) >= ACCOUNT_MAX)
        return false;
    for (const unsigned char *p = (const unsigned char *)account; *p; p++)
        if (*p <= ' ' || *p == 0x7f)
            return false;
    return true;
}

/* Sets e's account: a name, or "*" / NULL for logged out. */
static void put(struct ircad_accounts *t, struct ircad_account_entry *e,
                const char *account)
{
    e->touched = ++t->clock;
    if (!account || strcmp(account, "*") == 0) {
        free(e->account);
        e->account = NULL;
        e->state = IRCAD_ACCOUNT_NONE;
        return;
    }
    if (!account_ok(account))
        return; /* not understood: what was known stays */
    if (e->account && strcmp(e->account, account) == 0) {
        e->state = IRCAD_ACCOUNT_KNOWN;
        return;
    }
    char *copy = xstrdup(account);
    free(e->account);
    e->account = copy;
    e->state = IRCAD_ACCOUNT_KNOWN;
}

enum ircad_account_state ircad_accounts_get(const struct ircad_accounts *t,
                                            const char *nick,
                                            const char **account)
{
    char key[IRCAD_ACCOUNTS_NICK_MAX];
    if (!key_of(t, nick, key))
        return IRCAD_ACCOUNT_UNKNOWN;
    long i = find(t, key);
    if (i < 0)
        return IRCAD_ACCOUNT_UNKNOWN;
    if (t->e[i].state == IRCAD_ACCOUNT_KNOWN && account)
        *account = t->e[i].account;
    return t->e[i].state;
}

bool ircad_accounts_seen(const struct ircad_accounts *t, const char *nick)
{
    char key[IRCAD_ACCOUNTS_NICK_MAX];
    return key_of(t, nick, key) && find(t, key) >= 0;
}

static uint64_t chan_bit(int chan)
{
    return chan >= 0 && chan < 64 ? (uint64_t)1 << chan : 0;
}

bool ircad_accounts_in(const struct ircad_accounts *t, const char *nick,
                       int chan)
{
    char key[IRCAD_ACCOUNTS_NICK_MAX];
    long i = key_of(t, nick, key) ? find(t, key) : -1;
    return i >= 0 && (t->e[i].chans & chan_bit(chan)) != 0;
}

void ircad_accounts_join(struct ircad_accounts *t, const char *nick, int chan,
                         bool known, const char *account)
{
    char key[IRCAD_ACCOUNTS_NICK_MAX];
    if (!key_of(t, nick, key))
        return;
    long i = find(t, key);
    struct ircad_account_entry *e = i < 0 ? add(t, key) : &t->e[i];
    e->chans |= chan_bit(chan);
    e->touched = ++t->clock;
    if (known)
        put(t, e, account);
}

void ircad_accounts_set(struct ircad_accounts *t, const char *nick,
                        const char *account)
{
    char key[IRCAD_ACCOUNTS_NICK_MAX];
    if (!key_of(t, nick, key))
        return;
    long i = find(t, key);
    if (i >= 0)
        put(t, &t->e[i], account);
}

void ircad_accounts_part(struct ircad_accounts *t, const char *nick, int chan)
{
    char key[IRCAD_ACCOUNTS_NICK_MAX];
    if (!key_of(t, nick, key))
        return;
    long i = find(t, key);
    if (i < 0)
        return;
    t->e[i].chans &= ~chan_bit(chan);
    /* a channel without a bit (the 65th) keeps them until QUIT */
    if (!t->e[i].chans && chan_bit(chan))
        remove_at(t, (size_t)i);
}

void ircad_accounts_left(struct ircad_accounts *t, int chan)
{
    uint64_t bit = chan_bit(chan);
    if (!bit)
        return;
    for (size_t i = t->n; i-- > 0;) {
        if (!(t->e[i].chans & bit))
            continue;
        t->e[i].chans &= ~bit;
        if (!t->e[i].chans)
            remove_at(t, i);
    }
}

void ircad_accounts_rename(struct ircad_accounts *t, const char *from,
                           const char *to)
{
    char kf[IRCAD_ACCOUNTS_NICK_MAX], kt[IRCAD_ACCOUNTS_NICK_MAX];
    if (!key_of(t, from, kf))
        return;
    long i = find(t, kf);
    if (i < 0)
        return;
    if (!key_of(t, to, kt)) {
        remove_at(t, (size_t)i); /* cannot follow them: unknown */
        return;
    }
    if (strcmp(kf, kt) == 0)
        return; /* a change of case only */
    long j = find(t, kt);
    if (j >= 0) {
        /* whoever had `to` is gone unseen: their entry is stale */
        remove_at(t, (size_t)j);
        i = find(t, kf);
    }
    struct ircad_account_entry moved = t->e[i];
    t->e[i].account = NULL; /* owned by `moved` now */
    remove_at(t, (size_t)i);
    struct ircad_account_entry *e = add(t, kt);
    unsigned next = e->next;
    *e = moved;
    memcpy(e->nick, kt, strlen(kt) + 1);
    e->next = next;
    e->touched = ++t->clock;
}

void ircad_accounts_forget(struct ircad_accounts *t, const char *nick)
{
    char key[IRCAD_ACCOUNTS_NICK_MAX];
    if (!key_of(t, nick, key))
        return;
    long i = find(t, key);
    if (i >= 0)
        remove_at(t, (size_t)i);
}
