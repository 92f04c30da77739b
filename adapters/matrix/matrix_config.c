/*
 * The [[matrix]] table of the config (matrix_config.h): its keys and
 * their checks, its defaults, and the protocol's row for the registry.
 */
#include "adapters/matrix/matrix_config.h"
#include "bot/common/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* One entry of rooms: "!id:server" or "#alias:server", then rules if
 * any. Matrix IDs and aliases are compared exactly. */
static int room_parse(struct section *sec, const struct toml_value *it,
                      const struct protocol_room *prev, int nprev,
                      struct protocol_room *out)
{
    const char *s = it->s;
    if (section_has_control(s))
        return TOML_FAIL(sec->r, it->pos,
                         "an entry of 'rooms' contains a control character");
    size_t n = strcspn(s, " ");
    int shown = n > 50 ? 50 : (int)n;
    if (n == 0 || (s[0] != '!' && s[0] != '#'))
        return TOML_FAIL(sec->r, it->pos,
                         "an entry of 'rooms' must start with a room ID "
                         "(\"!id:server\") or an alias (\"#room:server\")");
    const char *colon = memchr(s, ':', n);
    if (n > 255)
        return TOML_FAIL(sec->r, it->pos,
                         "room '%.*s...' is longer than 255 bytes", shown, s);
    if (!colon || colon == s + 1 || colon == s + n - 1)
        return TOML_FAIL(sec->r, it->pos,
                         "room '%.*s' must be written '%cname:server'", shown,
                         s, s[0]);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x7f)
            return TOML_FAIL(sec->r, it->pos,
                             "room '%.*s' must be ASCII (write the room ID)",
                             shown, s);
    for (int j = 0; j < nprev; j++)
        if (strlen(prev[j].name) == n && strncmp(prev[j].name, s, n) == 0)
            return TOML_FAIL(sec->r, it->pos, "room '%.*s' is listed twice",
                             shown, s);
    return section_room_rules(sec, it, n, out);
}

static int store_rooms(struct section *s, const struct section_key *k,
                       struct toml_value *v)
{
    (void)k;
    struct matrix_config *mx = s->base;
    return section_rooms(s, v, room_parse, "rooms", &mx->rooms, &mx->nrooms);
}

/* The most entries invite_from takes. */
#define MX_INVITE_FROM_MAX 256

/* Whether s is a server name as a user ID ends in: a host name or IPv4
 * address, or an IPv6 address in brackets, then perhaps ":PORT". */
static bool server_name_valid(const char *s)
{
    size_t host;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close == s + 1 ||
            strspn(s + 1, "0123456789abcdefABCDEF:.") !=
                (size_t)(close - s - 1))
            return false;
        host = (size_t)(close - s) + 1;
    } else {
        host = strspn(s, "abcdefghijklmnopqrstuvwxyz"
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-");
        if (host == 0)
            return false;
    }
    if (host > 255)
        return false;
    if (!s[host])
        return true;
    const char *port = s + host + 1;
    size_t nd = strlen(port);
    return s[host] == ':' && nd >= 1 && nd <= 5 &&
           strspn(port, "0123456789") == nd;
}

/* invite_from: "@name:server" (a user) or ":server" (anyone of it). */
static int store_invite_from(struct section *s, const struct section_key *k,
                             struct toml_value *v)
{
    struct matrix_config *mx = s->base;
    for (int i = 0; i < v->n; i++) {
        const struct toml_value *it = &v->items[i];
        const char *e = it->s;
        int shown = strlen(e) > 50 ? 50 : (int)strlen(e);
        if (i >= MX_INVITE_FROM_MAX)
            return TOML_FAIL(s->r, it->pos, "'%s' has more than %d entries",
                             k->name, MX_INVITE_FROM_MAX);
        if (section_has_control(e))
            return TOML_FAIL(s->r, it->pos,
                             "an entry of '%s' contains a control character",
                             k->name);
        const char *colon = strchr(e, ':');
        bool user = e[0] == '@' && colon && colon > e + 1 && !strchr(e, ' ') &&
                    strlen(e) <= 255;
        if ((e[0] != '@' && e[0] != ':') || !colon || (e[0] == '@' && !user) ||
            !server_name_valid(colon + 1))
            return TOML_FAIL(s->r, it->pos,
                             "'%s': '%.*s' is neither a user ID "
                             "(\"@name:server\") nor a server "
                             "(\":server\")",
                             k->name, shown, e);
        for (int j = 0; j < i; j++)
            if (strcmp(v->items[j].s, e) == 0)
                return TOML_FAIL(s->r, it->pos, "'%s': '%.*s' is listed twice",
                                 k->name, shown, e);
    }
    section_take_strings(v, &mx->invite_from, &mx->ninvite_from);
    return 0;
}

bool matrix_config_may_invite(const struct matrix_config *c, const char *user)
{
    if (c->ninvite_from == 0)
        return true;
    const char *server = user ? strchr(user, ':') : NULL;
    if (!user || user[0] != '@' || !server)
        return false;
    for (int i = 0; i < c->ninvite_from; i++) {
        const char *e = c->invite_from[i];
        if (e[0] == ':' ? strcasecmp(e, server) == 0 : strcmp(e, user) == 0)
            return true;
    }
    return false;
}

static int check_homeserver(struct section *s, const struct section_key *k,
                            struct toml_value *v)
{
    if (strncmp(v->s, "https://", 8) != 0 && strncmp(v->s, "http://", 7) != 0)
        return TOML_FAIL(s->r, v->pos,
                         "'%s' must be a URL starting with https:// (or "
                         "http:// on a trusted network)",
                         k->name);
    if (strchr(v->s, ' ') || strchr(v->s, '?') || strchr(v->s, '#'))
        return TOML_FAIL(s->r, v->pos,
                         "'%s' must be a plain URL (no spaces, no ? or #)",
                         k->name);
    size_t n = strlen(v->s);
    while (n > 0 && v->s[n - 1] == '/')
        v->s[--n] = '\0';
    if (!strchr(v->s, ':') || strlen(strchr(v->s, ':')) <= 3)
        return TOML_FAIL(s->r, v->pos, "'%s' has no host", k->name);
    return 0;
}

static int check_user_id(struct section *s, const struct section_key *k,
                         struct toml_value *v)
{
    const char *colon = strchr(v->s, ':');
    if (v->s[0] != '@' || !colon || colon == v->s + 1 || !colon[1] ||
        strchr(v->s, ' ') || strlen(v->s) > 255)
        return TOML_FAIL(s->r, v->pos,
                         "'%s' must be a full Matrix user ID: "
                         "\"@name:server\"",
                         k->name);
    return 0;
}

/* Access tokens and device IDs go into headers and URLs: one word. */
static int check_token(struct section *s, const struct section_key *k,
                       struct toml_value *v)
{
    if (strchr(v->s, ' '))
        return TOML_FAIL(s->r, v->pos, "'%s' contains a space", k->name);
    if (strlen(v->s) > 1024)
        return TOML_FAIL(s->r, v->pos, "'%s' is longer than 1024 bytes",
                         k->name);
    return 0;
}

/* mode: how this account reaches the homeserver. */
static int check_mode(struct section *s, const struct section_key *k,
                      struct toml_value *v)
{
    struct matrix_config *mx = s->base;
    if (strcmp(v->s, "sync") == 0 || strcmp(v->s, "appservice") == 0) {
        mx->appservice = v->s[0] == 'a';
        return 0;
    }
    return TOML_FAIL(s->r, v->pos, "'%s' must be \"sync\" or \"appservice\"",
                     k->name);
}

static int check_registration(struct section *s, const struct section_key *k,
                              struct toml_value *v)
{
    if (section_check_nonempty(s, k, v))
        return -1;
    return section_check_path(s, k, v);
}

/* The listener's address, "A.B.C.D:PORT" or "[V6]:PORT", numeric (a name
 * would need a lookup at start, and a name that resolves to a public
 * address is an easy mistake): stores the port, and leaves the address
 * alone, in its canonical spelling, in v->s for listen_host. */
static int check_listen(struct section *sec, const struct section_key *k,
                        struct toml_value *v)
{
    struct matrix_config *mx = sec->base;
    char *s = v->s;
    char *host = s, *port;
    size_t hlen;
    int family = AF_INET;
    if (s[0] == '[') {
        char *close = strchr(s, ']');
        if (!close || close[1] != ':')
            return TOML_FAIL(sec->r, v->pos,
                             "'%s' must be \"[IPv6]:PORT\", as \"[::1]:9009\"",
                             k->name);
        host = s + 1;
        hlen = (size_t)(close - host);
        port = close + 2;
        family = AF_INET6;
    } else {
        char *colon = strrchr(s, ':');
        if (!colon)
            return TOML_FAIL(sec->r, v->pos,
                             "'%s' has no port: write \"ADDRESS:PORT\", as "
                             "\"127.0.0.1:9009\"",
                             k->name);
        hlen = (size_t)(colon - s);
        port = colon + 1;
        if (memchr(s, ':', hlen))
            return TOML_FAIL(sec->r, v->pos,
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
        return TOML_FAIL(sec->r, v->pos,
                         "'%s' must end in a port from 1 to 65535", k->name);
    unsigned char addr[16];
    char text[INET6_ADDRSTRLEN];
    if (hlen == 0 || hlen >= sizeof text)
        return TOML_FAIL(sec->r, v->pos,
                         "'%s' must be a numeric address and a port, as "
                         "\"127.0.0.1:9009\" or \"[::1]:9009\"",
                         k->name);
    memcpy(text, host, hlen);
    text[hlen] = '\0';
    if (inet_pton(family, text, addr) != 1)
        return TOML_FAIL(sec->r, v->pos,
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

#define MX(field) offsetof(struct matrix_config, field)

static const struct section_key matrix_keys[] = {
    {"name", TOML_STRING, MX(name), 0, 0, section_check_name},
    {"homeserver", TOML_STRING, MX(homeserver), 0, 0, check_homeserver},
    {"user_id", TOML_STRING, MX(user_id), 0, 0, check_user_id},
    {"password", TOML_STRING, MX(password), 0, 0, NULL},
    {"access_token", TOML_STRING, MX(access_token), 0, 0, check_token},
    {"device_id", TOML_STRING, MX(device_id), 0, 0, check_token},
    {"rooms", TOML_ARRAY, 0, 0, 0, store_rooms},
    {"auto_join_invites", TOML_BOOL, MX(auto_join_invites), 0, 0, NULL},
    {"invite_from", TOML_ARRAY, 0, 0, 0, store_invite_from},
    {"max_body_bytes", TOML_INT, MX(max_body_bytes), 65536, 64 << 20, NULL},
    {"sync_timeout_ms", TOML_INT, MX(sync_timeout_ms), 0, 300000, NULL},
    {"request_timeout_ms", TOML_INT, MX(request_timeout_ms), 1000, 600000,
     NULL},
    {"rejoin_delay_ms", TOML_INT, MX(rejoin_delay_ms), 0, 3600000, NULL},
    {"mode", TOML_STRING, SECTION_NO_FIELD, 0, 0, check_mode},
    {"registration", TOML_STRING, MX(registration), 0, 0, check_registration},
    {"listen", TOML_STRING, MX(listen_host), 0, 0, check_listen},
};

_Static_assert(sizeof matrix_keys / sizeof matrix_keys[0] <= SECTION_MAX_KEYS,
               "a section has room for every key of [[matrix]]");

static void defaults(void *cfg)
{
    struct matrix_config *mx = cfg;
    mx->auto_join_invites = true;
    mx->max_body_bytes = 4 << 20;
    mx->sync_timeout_ms = 30000;
    mx->request_timeout_ms = 30000;
    mx->rejoin_delay_ms = 30000;
    mx->listen_port = 9009;
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
    char cwd[4096] = "";
    const char *cwd_sep = "";
    if (path[0] != '/') {
        if (!getcwd(cwd, sizeof cwd))
            return NULL;
        /* "./bot.toml" is "bot.toml" */
        if (dlen == 1 && path[0] == '.')
            dlen = 0;
        if (cwd[strlen(cwd) - 1] != '/')
            cwd_sep = "/";
    }
    /* "dir/bot.toml", or "/bot.toml" */
    const char *dir_sep = dlen || path[0] == '/' ? "/" : "";
    size_t n =
        strlen(cwd) + strlen(cwd_sep) + dlen + strlen(dir_sep) + strlen(rel);
    char *out = xcalloc(n + 1, 1);
    snprintf(out, n + 1, "%s%s%.*s%s%s", cwd, cwd_sep, (int)dlen, path, dir_sep,
             rel);
    return out;
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
static int finish_mode(struct section *s, struct matrix_config *mx)
{
    static const char *const sync_only[] = {"password", "access_token"};
    static const char *const as_only[] = {"registration", "listen"};
    for (int i = 0; i < 2; i++) {
        const char *key = mx->appservice ? sync_only[i] : as_only[i];
        if (!section_was_set(s, key))
            continue;
        if (mx->appservice)
            return TOML_FAIL(s->r, section_where(s, key),
                             "'%s' is not used with mode = \"appservice\": "
                             "the bot acts with the as_token of its "
                             "registration file (remove '%s')",
                             key, key);
        return TOML_FAIL(s->r, section_where(s, key),
                         "'%s' is only for mode = \"appservice\" (this "
                         "[[matrix]] is in sync mode)",
                         key);
    }
    if (!mx->appservice)
        return 0;
    if (!mx->registration)
        return TOML_FAIL(s->r, s->pos,
                         "this [[matrix]] has mode = \"appservice\" but no "
                         "'registration' (the file `heartsbot "
                         "--appservice-registration CONFIG` writes)");
    if (!localpart_valid(mx->user_id))
        return TOML_FAIL(s->r, section_where(s, "user_id"),
                         "with mode = \"appservice\" the homeserver registers "
                         "'user_id': its name before ':' may hold only a-z, "
                         "0-9 and . _ = - / +");
    char *abs = path_beside(toml_path(s->r), mx->registration);
    if (!abs)
        return TOML_FAIL(s->r, section_where(s, "registration"),
                         "cannot make 'registration' absolute: the current "
                         "directory: %s",
                         strerror(errno));
    free(mx->registration);
    mx->registration = abs;
    return 0;
}

/* The end of a [[matrix]]: its required keys and its mode's. */
static int finish(struct section *s)
{
    struct matrix_config *mx = s->base;
    static const char *const required[] = {"name", "homeserver", "user_id"};
    const char *const have[] = {mx->name, mx->homeserver, mx->user_id};
    for (int i = 0; i < 3; i++)
        if (!have[i])
            return TOML_FAIL(s->r, s->pos, "this [[matrix]] has no '%s'",
                             required[i]);
    if (finish_mode(s, mx))
        return -1;
    if (mx->ninvite_from && !mx->auto_join_invites)
        return TOML_FAIL(s->r, section_where(s, "invite_from"),
                         "'invite_from' says who may invite the bot, but "
                         "auto_join_invites = false takes no invite (remove "
                         "one of them)");
    if (!mx->appservice && (!mx->password || !*mx->password) &&
        (!mx->access_token || !*mx->access_token))
        return TOML_FAIL(s->r, s->pos,
                         "this [[matrix]] needs a 'password' or an "
                         "'access_token'");
    section_default(&mx->password, "");
    section_default(&mx->access_token, "");
    section_default(&mx->device_id, "");
    section_default(&mx->registration, "");
    section_default(&mx->listen_host, "127.0.0.1");
    return 0;
}

void matrix_config_free(struct matrix_config *mx)
{
    free(mx->name);
    free(mx->homeserver);
    free(mx->user_id);
    free(mx->password);
    free(mx->access_token);
    free(mx->device_id);
    free(mx->registration);
    free(mx->listen_host);
    section_rooms_free(mx->rooms, mx->nrooms);
    for (int i = 0; i < mx->ninvite_from; i++)
        free(mx->invite_from[i]);
    free(mx->invite_from);
}

static void free_cfg(void *cfg)
{
    matrix_config_free(cfg);
}

static const struct protocol_room *rooms(const void *cfg, int *n)
{
    const struct matrix_config *mx = cfg;
    *n = mx->nrooms;
    return mx->rooms;
}

const struct protocol_config matrix_config_section = {
    .name = "matrix",
    .keys = matrix_keys,
    .nkeys = sizeof matrix_keys / sizeof matrix_keys[0],
    .size = sizeof(struct matrix_config),
    .defaults = defaults,
    .finish = finish,
    .free = free_cfg,
    .rooms = rooms,
};
