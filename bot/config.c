/*
 * The bot's configuration (config.h): the core's tables, [bot] and
 * [game], and the list of networks, read with the TOML subset reader
 * (bot/common/toml.h).
 *
 * The reader tells each header, key and value in the order of the text;
 * here a `[table]` or `[[irc]]` header picks the table, and each key is
 * found among that table's keys (bot/common/section.h: the core's own, or
 * a protocol's, bot/common/protocol.h), then its value type- and
 * range-checked and stored. The config is built in a local struct and
 * copied out only when the whole file has passed, so a refused file (a bad
 * edit before SIGHUP, say) changes nothing.
 */
#include "bot/config.h"
#include "bot/common/err.h"
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/common/section.h"
#include "bot/common/toml.h"
#include "bot/common/xalloc.h"
#include "bot/think.h"
#include "engine/ai/ai.h"
#include "engine/engine.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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
#define CONFIG_MAX_NETWORKS 64 /* of one protocol */

/* Edit distance for naming the nearest valid key or table: the engine's,
 * case-sensitive as TOML keys are. */
static int distance(const char *a, size_t la, const char *b)
{
    return engine_word_distance(a, la, b, false);
}

static bool word_is(const char *w, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(w, s, n) == 0;
}

/* ---- Checks of [bot] and [game] --------------------------------------- */

static int check_log_level(struct section *s, const struct section_key *k,
                           struct toml_value *v)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    return section_check_one_of(s, k, v, names, 4);
}

static int check_prefix(struct section *s, const struct section_key *k,
                        struct toml_value *v)
{
    size_t n = strlen(v->s);
    if (n < 1 || n > 8)
        return TOML_FAIL(s->r, v->pos, "'%s' must be 1 to 8 characters",
                         k->name);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v->s[i] <= ' ' || (unsigned char)v->s[i] > '~')
            return TOML_FAIL(s->r, v->pos,
                             "'%s' must be printable ASCII without spaces",
                             k->name);
    return 0;
}

/* Rules are checked by the engine that will use them; its message names
 * the option and the nearest valid word. */
static int rules_check(void *ctx, const char *text, char *msg, size_t msglen)
{
    (void)ctx;
    struct engine_rules r;
    struct engine_error e;
    if (!engine_rules_parse(&r, text, 0, &e))
        return 0;
    rule_words_error_text(msg, msglen, MSG_EN, &e);
    return -1;
}

static int check_rules(struct section *s, const struct section_key *k,
                       struct toml_value *v)
{
    char msg[MSG];
    if (rules_check(NULL, v->s, msg, sizeof msg))
        return TOML_FAIL(s->r, v->pos, "'%s': %s", k->name, msg);
    return 0;
}

static int check_level(struct section *s, const struct section_key *k,
                       struct toml_value *v)
{
    if (ai_level_find(v->s) >= 0)
        return 0;
    char all[128] = "";
    size_t n = 0;
    for (int i = 0; i < ai_level_count() && n < sizeof all; i++)
        n += (size_t)snprintf(all + n, sizeof all - n, "%s%s", i ? ", " : "",
                              ai_level_name(i));
    return TOML_FAIL(s->r, v->pos, "'%s' must be a computer level: %s", k->name,
                     all);
}

/* 0 if word names a language of the catalogue (its code or its own
 * name), else -1 and the list. */
static int lang_check(void *ctx, const char *word, char *msg, size_t msglen)
{
    (void)ctx;
    if (msg_lang_find(word) >= 0)
        return 0;
    size_t n = (size_t)snprintf(msg, msglen, "'%s' is not a language: ", word);
    for (int i = 0; i < msg_lang_count() && n < msglen; i++)
        n += (size_t)snprintf(msg + n, msglen - n, "%s%s", i ? ", " : "",
                              msg_lang_code(i));
    return -1;
}

static int check_lang(struct section *s, const struct section_key *k,
                      struct toml_value *v)
{
    char msg[MSG];
    if (lang_check(NULL, v->s, msg, sizeof msg))
        return TOML_FAIL(s->r, v->pos, "'%s': %s", k->name, msg);
    return 0;
}

static int store_admins(struct section *s, const struct section_key *k,
                        struct toml_value *v)
{
    for (int i = 0; i < v->n; i++) {
        const struct toml_value *it = &v->items[i];
        if (!*it->s)
            return TOML_FAIL(s->r, it->pos, "an entry of '%s' is empty",
                             k->name);
        if (section_has_control(it->s))
            return TOML_FAIL(s->r, it->pos,
                             "an entry of '%s' contains a control character",
                             k->name);
        if (strchr(it->s, ' '))
            return TOML_FAIL(s->r, it->pos, "an entry of '%s' contains a space",
                             k->name);
    }
    struct config *c = s->base;
    section_take_strings(v, &c->admins, &c->nadmins);
    return 0;
}

#define BOT(field) offsetof(struct config, field)

static const struct section_key bot_keys[] = {
    {"data_dir", TOML_STRING, BOT(data_dir), 0, 0, section_check_nonempty},
    {"log_level", TOML_STRING, BOT(log_level), 0, 0, check_log_level},
    {"command_prefix", TOML_STRING, BOT(command_prefix), 0, 0, check_prefix},
    {"lang", TOML_STRING, BOT(lang), 0, 0, check_lang},
    {"colors", TOML_BOOL, BOT(colors), 0, 0, NULL},
    {"admins", TOML_ARRAY, 0, 0, 0, store_admins},
    {"reply_burst", TOML_INT, BOT(reply_burst), 1, 100, NULL},
    {"reply_interval", TOML_INT, BOT(reply_interval), 0, 3600, NULL},
    {"repeat_quiet", TOML_INT, BOT(repeat_quiet), 0, 86400, NULL},
    {"channel_repeat", TOML_INT, BOT(channel_repeat), 0, 3600, NULL},
    {"chatter_burst", TOML_INT, BOT(chatter_burst), 1, 1000, NULL},
    {"chatter_interval", TOML_INT, BOT(chatter_interval), 0, 3600, NULL},
};

/* The longest site URL: it ends answers in chat. */
#define SITE_URL_MAX 200

/* url: "" or http(s)://HOST... printable ASCII without spaces, quotes or
 * angle brackets (it is written into chat lines and pages as is). */
static int check_site_url(struct section *s, const struct section_key *k,
                          struct toml_value *v)
{
    if (!*v->s)
        return 0;
    size_t n = strlen(v->s);
    const char *host = strncmp(v->s, "https://", 8) == 0  ? v->s + 8
                       : strncmp(v->s, "http://", 7) == 0 ? v->s + 7
                                                          : NULL;
    if (!host || !*host || *host == '/')
        return TOML_FAIL(s->r, v->pos,
                         "'%s' must be an http:// or https:// address with "
                         "a host (or \"\" for none)",
                         k->name);
    if (n > SITE_URL_MAX)
        return TOML_FAIL(s->r, v->pos, "'%s' is longer than %d bytes", k->name,
                         SITE_URL_MAX);
    for (const char *c = v->s; *c; c++)
        if (*c <= ' ' || *c >= 127 || strchr("\"'<>\\`{}|^", *c))
            return TOML_FAIL(s->r, v->pos,
                             "'%s' may hold only printable ASCII without "
                             "spaces, quotes, <, >, \\, `, {, }, | or ^ "
                             "(percent-encode them)",
                             k->name);
    return 0;
}

/* hide_hands: "NETWORK ROOM" entries, one space between two words. */
static int store_hide_hands(struct section *s, const struct section_key *k,
                            struct toml_value *v)
{
    for (int i = 0; i < v->n; i++) {
        const struct toml_value *it = &v->items[i];
        const char *sp = strchr(it->s, ' ');
        if (section_has_control(it->s) || !sp || sp == it->s || !sp[1] ||
            strchr(sp + 1, ' ') || strlen(it->s) > 300)
            return TOML_FAIL(s->r, it->pos,
                             "an entry of '%s' must be \"NETWORK ROOM\": the "
                             "network's name, one space, the channel or "
                             "room (\"libera #hearts\")",
                             k->name);
    }
    struct config *c = s->base;
    section_take_strings(v, &c->site_hide_hands, &c->nsite_hide_hands);
    return 0;
}

static const struct section_key site_keys[] = {
    {"dir", TOML_STRING, BOT(site_dir), 0, 0, section_check_path},
    {"url", TOML_STRING, BOT(site_url), 0, 0, check_site_url},
    {"hide_hands", TOML_ARRAY, 0, 0, 0, store_hide_hands},
};

/* [game]: these keys, with each searching level's playouts key (its row
 * of engine/ai/ai.c names it) after bot_level. */
static const struct section_key game_head[] = {
    {"default_rules", TOML_STRING, BOT(default_rules), 0, 0, check_rules},
    {"turn_timeout", TOML_INT, BOT(turn_timeout), 5, 86400, NULL},
    {"max_timeouts", TOML_INT, BOT(max_timeouts), 1, 100, NULL},
    {"lobby_timeout", TOML_INT, BOT(lobby_timeout), 10, 86400, NULL},
    {"grace_period", TOML_INT, BOT(grace_period), 0, 86400, NULL},
    {"max_turn_timeout", TOML_INT, BOT(max_turn_timeout), 0, 7 * 86400, NULL},
    {"bot_level", TOML_STRING, BOT(bot_level), 0, 0, check_level},
};

static const struct section_key game_tail[] = {
    {"think_threads", TOML_INT, BOT(think_threads), 1, THINK_MAX_WORKERS, NULL},
    {"next_hand_delay", TOML_INT, BOT(next_hand_delay), 0, 60, NULL},
    {"unattended_pause", TOML_INT, BOT(unattended_pause), 0, 86400, NULL},
    {"unattended_end", TOML_INT, BOT(unattended_end), 1, 86400, NULL},
};

/* The most playouts a config may ask of a level per decision. */
#define PLAYOUTS_MAX 100000

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

_Static_assert(COUNT(bot_keys) <= SECTION_MAX_KEYS &&
                   COUNT(game_head) + AI_LEVEL_MAX + COUNT(game_tail) <=
                       SECTION_MAX_KEYS,
               "a section has room for every key of [bot] and [game]");

/* The keys of [game], made once from the two lists and the levels. */
static int game_keys(const struct section_key **keys)
{
    static struct section_key all[SECTION_MAX_KEYS];
    static int n;
    if (n == 0) {
        int k = 0;
        for (int i = 0; i < COUNT(game_head); i++)
            all[k++] = game_head[i];
        for (int l = 0; l < ai_level_count(); l++) {
            const struct ai_level_info *info = ai_level_get(l);
            if (info->playouts_key)
                all[k++] = (struct section_key){info->playouts_key, TOML_INT,
                                                BOT(playouts[l]),   0,
                                                PLAYOUTS_MAX,       NULL};
        }
        for (int i = 0; i < COUNT(game_tail); i++)
            all[k++] = game_tail[i];
        n = k;
    }
    *keys = all;
    return n;
}

static void config_defaults(struct config *c)
{
    memset(c, 0, sizeof *c);
    c->colors = true;
    c->turn_timeout = 90;
    c->max_timeouts = 2;
    c->lobby_timeout = 600;
    c->grace_period = 120;
    c->max_turn_timeout = 7 * 86400;
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

/* ---- The tables ------------------------------------------------------- */

/*
 * The tables a config may have: [bot] and [game], then one [[NAME]] per
 * protocol the caller gives (the bot's: adapters/registry.h). Keys before any
 * header and unknown names are matched against them in this order.
 */
struct table_def {
    const char *name; /* as in a header */
    char header[40];  /* as messages show it */
    const struct section_key *keys;
    int nkeys;
    const struct protocol *protocol; /* NULL: [bot] or [game] */
};

#define MAX_TABLES 16
/* [bot], [game] and [site] come first */
#define CORE_TABLES 3

/* The tables, for these protocols; returns how many. */
static int tables_list(const struct protocol *const *protocols,
                       struct table_def *t)
{
    int n = 0;
    t[n++] =
        (struct table_def){"bot", "[bot]", bot_keys, COUNT(bot_keys), NULL};
    t[n] = (struct table_def){"game", "[game]", NULL, 0, NULL};
    t[n].nkeys = game_keys(&t[n].keys);
    n++;
    t[n++] =
        (struct table_def){"site", "[site]", site_keys, COUNT(site_keys), NULL};
    for (int i = 0; protocols && protocols[i] && n < MAX_TABLES; i++) {
        const struct protocol *p = protocols[i];
        const struct protocol_config *pc = p->config;
        t[n] = (struct table_def){pc->name, "", pc->keys, pc->nkeys, p};
        snprintf(t[n].header, sizeof t[n].header, "[[%s]]", pc->name);
        n++;
    }
    return n;
}

/* Writes the headers of tables first..n-1 as a list: "A, B and C", with
 * `last` (" and ", " or ") before the last. */
static void tables_text(const struct table_def *t, int first, int n,
                        const char *last, char *out, size_t outlen)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = first; i < n && len < outlen; i++) {
        const char *sep = i == first ? "" : i == n - 1 ? last : ", ";
        int w = snprintf(out + len, outlen - len, "%s%s", sep, t[i].header);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

void config_network_tables(const struct protocol *const *protocols, char *out,
                           size_t outlen)
{
    struct table_def t[MAX_TABLES];
    int n = tables_list(protocols, t);
    tables_text(t, CORE_TABLES, n, " or ", out, outlen);
}

/* ---- Reading ---------------------------------------------------------- */

/* IN_SKIP: under a header that was refused, when reading on past it
 * (config_check): its keys belong to no table, and are passed over. */
enum where { IN_ROOT, IN_CORE, IN_NETWORK, IN_SKIP };

/* One read of a config file: the visitor of the TOML reader. */
struct reading {
    struct config *c;
    struct table_def tables[MAX_TABLES];
    int ntables;
    enum where where;
    struct section sec;           /* its keys and values */
    int key;                      /* the key whose value comes next */
    bool bad;                     /* a value of this table was refused */
    bool have[CORE_TABLES];       /* [bot], [game] and [site] seen */
    size_t have_pos[CORE_TABLES]; /* where */
    struct section_hooks hooks;
};

static int name_taken(void *ctx, struct section *s, const struct toml_value *v)
{
    struct reading *rd = ctx;
    /* one namespace for every protocol: it names the network's files */
    for (int i = 0; i + 1 < rd->c->nnetworks; i++) {
        const struct config_network *net = &rd->c->networks[i];
        if (net->name && strcasecmp(net->name, v->s) == 0)
            return TOML_FAIL(s->r, v->pos,
                             "another [[%s]] is already named '%s'",
                             net->protocol->config->name, v->s);
    }
    return 0;
}

/* Ends the current table: a network's must have what its protocol
 * requires. */
static int on_table_end(void *ctx, struct toml_reader *r)
{
    (void)r;
    struct reading *rd = ctx;
    if (rd->where != IN_NETWORK)
        return 0;
    struct config_network *net = &rd->c->networks[rd->c->nnetworks - 1];
    int k = section_index(&rd->sec, "name", 4);
    assert(k >= 0); /* every protocol's networks are named */
    /* after a refused value (config_check reads on) the checks across
     * keys would judge a table half read: they wait for a good one */
    if (!rd->bad && net->protocol->config->finish(&rd->sec))
        return -1;
    net->name = *(char **)(void *)((char *)net->cfg + rd->sec.keys[k].off);
    return 0;
}

/* The index of the table named, or -1. */
static int table_find(const struct reading *rd, const char *name, size_t n)
{
    for (int t = 0; t < rd->ntables; t++)
        if (word_is(name, n, rd->tables[t].name))
            return t;
    return -1;
}

static int count_of(const struct config *c, const struct protocol *p)
{
    int n = 0;
    for (int i = 0; i < c->nnetworks; i++)
        n += c->networks[i].protocol == p;
    return n;
}

/* A [[NAME]] of protocol p begins: a network with its defaults. */
static void network_push(struct config *c, const struct protocol *p)
{
    c->networks =
        xrealloc(c->networks, ((size_t)c->nnetworks + 1) * sizeof *c->networks);
    struct config_network *net = &c->networks[c->nnetworks++];
    net->protocol = p;
    net->cfg = xcalloc(1, p->config->size);
    net->name = NULL;
    p->config->defaults(net->cfg);
}

static int on_table(void *ctx, struct toml_reader *r, const char *name,
                    size_t n, bool array, size_t start, size_t name_pos)
{
    struct reading *rd = ctx;
    const struct table_def *tabs = rd->tables;
    rd->where = IN_SKIP; /* until the header is taken */
    rd->bad = false;
    int t = table_find(rd, name, n);
    if (t < 0) {
        int best = 0, bestd = 1 << 30;
        for (int i = 0; i < rd->ntables; i++) {
            int d = distance(name, n, tabs[i].name);
            if (d < bestd)
                best = i, bestd = d;
        }
        char all[256];
        tables_text(tabs, 0, rd->ntables, " and ", all, sizeof all);
        return TOML_FAIL(r, name_pos,
                         "unknown table '%.*s' (did you mean %s? the tables "
                         "are %s)",
                         n > 40 ? 40 : (int)n, name, tabs[best].header, all);
    }
    bool many = tabs[t].protocol != NULL;
    if (many && !array)
        return TOML_FAIL(r, start,
                         "%s is an array of tables: write %s, one per network",
                         tabs[t].name, tabs[t].header);
    if (!many && array)
        return TOML_FAIL(r, start, "%s is a single table: write %s",
                         tabs[t].name, tabs[t].header);
    void *base = rd->c;
    if (!many) {
        if (rd->have[t])
            return TOML_FAIL(r, start, "%s is defined twice (first at line %d)",
                             tabs[t].header, toml_line(r, rd->have_pos[t]));
        rd->have[t] = true;
        rd->have_pos[t] = start;
        rd->where = IN_CORE;
    } else {
        if (count_of(rd->c, tabs[t].protocol) == CONFIG_MAX_NETWORKS)
            return TOML_FAIL(r, start, "more than %d %s tables",
                             CONFIG_MAX_NETWORKS, tabs[t].header);
        network_push(rd->c, tabs[t].protocol);
        base = rd->c->networks[rd->c->nnetworks - 1].cfg;
        rd->where = IN_NETWORK;
    }
    section_begin(&rd->sec, r, tabs[t].header, tabs[t].keys, tabs[t].nkeys,
                  base, start, &rd->hooks);
    return 0;
}

/* A key before any table header: in none, so refused, naming the table
 * it belongs under or the nearest key of any. */
static int key_in_root(struct reading *rd, struct toml_reader *r,
                       const char *key, size_t n, size_t kpos)
{
    int shown = n > 40 ? 40 : (int)n;
    const struct section_key *best = NULL;
    int best_table = 0, bestd = 1 << 30;
    for (int t = 0; t < rd->ntables; t++)
        for (int i = 0; i < rd->tables[t].nkeys; i++) {
            int d = distance(key, n, rd->tables[t].keys[i].name);
            if (d < bestd)
                best = &rd->tables[t].keys[i], best_table = t, bestd = d;
        }
    assert(best); /* every table has keys */
    if (bestd == 0)
        return TOML_FAIL(r, kpos,
                         "'%.*s' is before any table header: it belongs under "
                         "%s",
                         shown, key, rd->tables[best_table].header);
    return TOML_FAIL(r, kpos,
                     "unknown key '%.*s' before any table header (did you "
                     "mean '%s' under %s?)",
                     shown, key, best->name, rd->tables[best_table].header);
}

/* The key in the current table, or a message naming the nearest valid
 * one; a key is set once. */
static int on_key(void *ctx, struct toml_reader *r, const char *key, size_t n,
                  size_t kpos)
{
    struct reading *rd = ctx;
    if (rd->where == IN_ROOT)
        return key_in_root(rd, r, key, n, kpos);
    if (rd->where == IN_SKIP)
        return 0;
    const struct section *s = &rd->sec;
    int found = -1, best = 0, bestd = 1 << 30;
    for (int i = 0; i < s->nkeys && found < 0; i++) {
        int d = distance(key, n, s->keys[i].name);
        if (d == 0)
            found = i;
        else if (d < bestd)
            best = i, bestd = d;
    }
    if (found < 0)
        return TOML_FAIL(
            r, kpos, "unknown key '%.*s' in %s (did you mean '%s'?)",
            n > 40 ? 40 : (int)n, key, s->header, s->keys[best].name);
    rd->key = found;
    return section_mark(&rd->sec, found, kpos);
}

static int on_value(void *ctx, struct toml_reader *r, struct toml_value *v)
{
    (void)r;
    struct reading *rd = ctx;
    if (rd->where == IN_SKIP)
        return 0;
    if (section_store(&rd->sec, rd->key, v)) {
        rd->bad = true;
        return -1;
    }
    return 0;
}

static const struct toml_visitor visitor = {
    .table_end = on_table_end,
    .table = on_table,
    .key = on_key,
    .value = on_value,
};

/* ---- Public ----------------------------------------------------------- */

/* config_parse, or with `problem` config_check's reading on: 0 if the
 * whole text was read (*problems the visitor's refusals passed to
 * problem), else -1 with the message in err and *out untouched. */
static int parse(const char *text, size_t len, const char *path,
                 const struct protocol *const *protocols, struct config *out,
                 toml_problem_fn problem, void *problem_ctx, int *problems,
                 char *err, size_t errlen)
{
    if (!path)
        path = "config";
    *problems = 0;
    if (len > CONFIG_MAX_BYTES) {
        err_set(err, errlen, "%s: larger than 1 MiB, the most a config may be",
                path);
        return -1;
    }
    struct config c;
    config_defaults(&c);
    struct reading rd = {.c = &c, .where = IN_ROOT};
    rd.ntables = tables_list(protocols, rd.tables);
    rd.hooks = (struct section_hooks){.ctx = &rd,
                                      .name_taken = name_taken,
                                      .rules_check = rules_check,
                                      .lang_check = lang_check};
    if (toml_read_all(text, len, path, &visitor, &rd, problem, problem_ctx,
                      problems, err, errlen)) {
        config_free(&c);
        return -1;
    }
    c.data_dir_given = c.data_dir != NULL;
    section_default(&c.data_dir, "data");
    section_default(&c.log_level, "info");
    section_default(&c.command_prefix, "!");
    section_default(&c.lang, "en");
    section_default(&c.default_rules, "standard");
    section_default(&c.bot_level, "easy");
    section_default(&c.site_dir, "");
    section_default(&c.site_url, "");
    /* the pages' paths are appended to the address */
    if (*c.site_url && c.site_url[strlen(c.site_url) - 1] != '/') {
        size_t n = strlen(c.site_url);
        c.site_url = xrealloc(c.site_url, n + 2);
        memcpy(c.site_url + n, "/", 2);
    }
    *out = c;
    return 0;
}

int config_parse(const char *text, size_t len, const char *path,
                 const struct protocol *const *protocols, struct config *out,
                 char *err, size_t errlen)
{
    int problems;
    return parse(text, len, path, protocols, out, NULL, NULL, &problems, err,
                 errlen);
}

/* The file's bytes (*buf to free, *len), at most a byte past the most a
 * config may be; 0, or -1 with the message. */
static int read_config(const char *path, char **out, size_t *outlen, char *err,
                       size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        err_set(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    char *buf = xrealloc(NULL, cap);
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
            err_set(err, errlen, "%s: cannot read: %s", path, strerror(e));
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
    *out = buf;
    *outlen = len;
    return 0;
}

int config_load(const char *path, const struct protocol *const *protocols,
                struct config *out, char *err, size_t errlen)
{
    char *buf;
    size_t len;
    if (read_config(path, &buf, &len, err, errlen))
        return -1;
    int rc = config_parse(buf, len, path, protocols, out, err, errlen);
    free(buf);
    return rc;
}

int config_check(const char *path, const struct protocol *const *protocols,
                 struct config *out, toml_problem_fn problem, void *ctx)
{
    char *buf = NULL, err[1024];
    size_t len = 0;
    int problems = 0;
    int rc = read_config(path, &buf, &len, err, sizeof err);
    if (rc == 0)
        rc = parse(buf, len, path, protocols, out, problem, ctx, &problems, err,
                   sizeof err);
    free(buf);
    if (rc) {
        problem(ctx, err); /* what ended the read */
        return -1;
    }
    return problems;
}

void config_keep_networks(struct config *fresh, struct config *running)
{
    struct config_network *nets = fresh->networks;
    int n = fresh->nnetworks;
    fresh->networks = running->networks;
    fresh->nnetworks = running->nnetworks;
    running->networks = nets;
    running->nnetworks = n;
}

int config_count(const struct config *c, const struct protocol *p)
{
    return count_of(c, p);
}

const void *config_section(const struct config *c, const struct protocol *p,
                           int i)
{
    for (int k = 0; k < c->nnetworks; k++)
        if (c->networks[k].protocol == p && i-- == 0)
            return c->networks[k].cfg;
    return NULL;
}

/* The entry of `room` in the list of adapter a's network, or NULL. */
static const struct protocol_room *room_entry(const struct config *c,
                                              const struct chat_adapter *a,
                                              const char *room)
{
    for (int i = 0; i < c->nnetworks; i++) {
        const struct config_network *net = &c->networks[i];
        if (strcmp(net->name, a->network) != 0)
            continue;
        int n;
        const struct protocol_room *rooms =
            net->protocol->config->rooms(net->cfg, &n);
        for (int k = 0; k < n; k++)
            if (a->ops->same_nick(a, rooms[k].name, room))
                return &rooms[k];
    }
    return NULL;
}

const char *config_room_rules(const struct config *c,
                              const struct chat_adapter *a, const char *room)
{
    const struct protocol_room *r = room_entry(c, a, room);
    return r ? r->rules : NULL;
}

const char *config_room_lang(const struct config *c,
                             const struct chat_adapter *a, const char *room)
{
    const struct protocol_room *r = room_entry(c, a, room);
    return r ? r->lang : NULL;
}

void config_free(struct config *c)
{
    if (!c)
        return;
    free(c->data_dir);
    free(c->log_level);
    free(c->command_prefix);
    free(c->lang);
    for (int i = 0; i < c->nadmins; i++)
        free(c->admins[i]);
    free(c->admins);
    free(c->default_rules);
    free(c->bot_level);
    free(c->site_dir);
    free(c->site_url);
    for (int i = 0; i < c->nsite_hide_hands; i++)
        free(c->site_hide_hands[i]);
    free(c->site_hide_hands);
    for (int i = 0; i < c->nnetworks; i++) {
        c->networks[i].protocol->config->free(c->networks[i].cfg);
        free(c->networks[i].cfg);
    }
    free(c->networks);
    memset(c, 0, sizeof *c);
}
