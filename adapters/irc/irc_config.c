/*
 * The [[irc]] table of the config (irc_config.h): its keys and their
 * checks, its defaults, and the protocol's row for the registry.
 */
#include "adapters/irc/irc_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Host, nick and username are single IRC words. */
static int check_word(struct section *s, const struct section_key *k,
                      struct toml_value *v)
{
    if (!*v->s)
        return TOML_FAIL(s->r, v->pos, "'%s' is empty", k->name);
    if (strchr(v->s, ' '))
        return TOML_FAIL(s->r, v->pos, "'%s' contains a space", k->name);
    return 0;
}

static int check_nick(struct section *s, const struct section_key *k,
                      struct toml_value *v)
{
    if (check_word(s, k, v))
        return -1;
    if (strlen(v->s) > 30)
        return TOML_FAIL(s->r, v->pos, "'%s' is longer than 30 bytes", k->name);
    /* '%' is the half-operator prefix in NAMES: servers refuse it in a
     * nick, so a nick with it would never be taken */
    if (strchr(v->s, '%'))
        return TOML_FAIL(s->r, v->pos,
                         "'%s' contains '%%', the half-operator prefix, which "
                         "IRC servers refuse in a nick",
                         k->name);
    return 0;
}

/* Any '%' is fine: the bot writes its own lines (connection.c) and
 * libircclient never formats them. */
static int check_password(struct section *s, const struct section_key *k,
                          struct toml_value *v)
{
    /* PASS and IDENTIFY take one word: a server would cut it there */
    if (strchr(v->s, ' '))
        return TOML_FAIL(s->r, v->pos, "'%s' contains a space", k->name);
    return 0;
}

static int check_sasl(struct section *s, const struct section_key *k,
                      struct toml_value *v)
{
    static const char *const names[] = {"none", "plain", "external"};
    return section_check_one_of(s, k, v, names, 3);
}

static int check_answers(struct section *s, const struct section_key *k,
                         struct toml_value *v)
{
    static const char *const names[] = {"notice", "privmsg"};
    return section_check_one_of(s, k, v, names, 2);
}

static int check_invites(struct section *s, const struct section_key *k,
                         struct toml_value *v)
{
    static const char *const names[] = {"off", "ops", "admins"};
    return section_check_one_of(s, k, v, names, 3);
}

/* The admin contact goes into the realname: printable text that fits
 * beside it on the USER line. */
static int check_contact(struct section *s, const struct section_key *k,
                         struct toml_value *v)
{
    return section_check_text(s, k, v, 100);
}

/* SASL PLAIN's names and password: any text but NUL (its separator) and
 * control characters, at most 300 bytes (the base64 of the three fits a
 * few AUTHENTICATE lines). */
static int check_sasl_word(struct section *s, const struct section_key *k,
                           struct toml_value *v)
{
    return section_check_text(s, k, v, 300);
}

/* One entry of channels: "#chan" or "#chan RULES", checked against the
 * entries before it. */
static int channel_parse(struct section *sec, const struct toml_value *it,
                         const struct protocol_room *prev, int nprev,
                         struct protocol_room *out)
{
    const char *s = it->s;
    if (section_has_control(s))
        return TOML_FAIL(sec->r, it->pos,
                         "an entry of 'channels' contains a control "
                         "character");
    size_t n = strcspn(s, " ");
    int shown = n > 50 ? 50 : (int)n;
    if (n == 0)
        return TOML_FAIL(sec->r, it->pos,
                         "an entry of 'channels' must start with the channel "
                         "name (\"#channel\" or \"#channel RULES\")");
    if (s[0] != '#' && s[0] != '&')
        return TOML_FAIL(sec->r, it->pos,
                         "channel '%.*s' must start with # or &", shown, s);
    if (n == 1)
        return TOML_FAIL(sec->r, it->pos, "channel '%c' has no name after it",
                         s[0]);
    if (n > 50)
        return TOML_FAIL(sec->r, it->pos,
                         "channel name '%.*s...' is longer than 50 bytes",
                         shown, s);
    if (memchr(s, ',', n))
        return TOML_FAIL(sec->r, it->pos, "channel '%.*s' contains a ','",
                         shown, s);
    /* IRC channel names ignore case */
    for (int j = 0; j < nprev; j++)
        if (strlen(prev[j].name) == n && strncasecmp(prev[j].name, s, n) == 0)
            return TOML_FAIL(sec->r, it->pos, "channel '%.*s' is listed twice",
                             shown, s);
    return section_room_rules(sec, it, n, out);
}

static int store_channels(struct section *s, const struct section_key *k,
                          struct toml_value *v)
{
    (void)k;
    struct irc_config *irc = s->base;
    return section_rooms(s, v, channel_parse, "channels", &irc->channels,
                         &irc->nchannels);
}

#define IRC(field) offsetof(struct irc_config, field)

static const struct section_key irc_keys[] = {
    {"name", TOML_STRING, IRC(name), 0, 0, section_check_name},
    {"host", TOML_STRING, IRC(host), 0, 0, check_word},
    {"port", TOML_INT, IRC(port), 1, 65535, NULL},
    {"nick", TOML_STRING, IRC(nick), 0, 0, check_nick},
    {"username", TOML_STRING, IRC(username), 0, 0, check_word},
    {"realname", TOML_STRING, IRC(realname), 0, 0, NULL},
    {"password", TOML_STRING, IRC(password), 0, 0, check_password},
    {"nickserv_password", TOML_STRING, IRC(nickserv_password), 0, 0,
     check_password},
    {"channels", TOML_ARRAY, 0, 0, 0, store_channels},
    {"flood_burst", TOML_INT, IRC(flood_burst), 1, 100, NULL},
    {"flood_interval_ms", TOML_INT, IRC(flood_interval_ms), 1, 60000, NULL},
    {"flood_min_interval_ms", TOML_INT, IRC(flood_min_interval_ms), 0, 60000,
     NULL},
    {"flood_max_interval_ms", TOML_INT, IRC(flood_max_interval_ms), 0, 60000,
     NULL},
    {"nickserv_account", TOML_STRING, IRC(nickserv_account), 0, 0,
     check_password},
    {"services_mask", TOML_STRING, IRC(services_mask), 0, 0, check_word},
    {"tls", TOML_BOOL, IRC(tls), 0, 0, NULL},
    {"tls_verify", TOML_BOOL, IRC(tls_verify), 0, 0, NULL},
    {"tls_ca_file", TOML_STRING, IRC(tls_ca_file), 0, 0, section_check_path},
    {"tls_cert_file", TOML_STRING, IRC(tls_cert_file), 0, 0,
     section_check_path},
    {"tls_key_file", TOML_STRING, IRC(tls_key_file), 0, 0, section_check_path},
    {"sasl_mechanism", TOML_STRING, IRC(sasl_mechanism), 0, 0, check_sasl},
    {"sasl_username", TOML_STRING, IRC(sasl_username), 0, 0, check_sasl_word},
    {"sasl_password", TOML_STRING, IRC(sasl_password), 0, 0, check_sasl_word},
    {"sasl_required", TOML_BOOL, IRC(sasl_required), 0, 0, NULL},
    {"answers", TOML_STRING, IRC(answers), 0, 0, check_answers},
    {"invites", TOML_STRING, IRC(invites), 0, 0, check_invites},
    {"admin_contact", TOML_STRING, IRC(admin_contact), 0, 0, check_contact},
};

_Static_assert(sizeof irc_keys / sizeof irc_keys[0] <= SECTION_MAX_KEYS,
               "a section has room for every key of [[irc]]");

static void defaults(void *cfg)
{
    struct irc_config *irc = cfg;
    irc->port = 6667;
    irc->flood_burst = 4;
    irc->flood_interval_ms = 1100;
    irc->tls_verify = true;
    irc->sasl_required = true;
}

/* The end of an [[irc]]: its required keys, and the defaults that depend
 * on other keys. */
static int finish(struct section *s)
{
    struct irc_config *irc = s->base;
    static const char *const required[] = {"name", "host", "nick"};
    const char *const have[] = {irc->name, irc->host, irc->nick};
    for (int i = 0; i < 3; i++)
        if (!have[i])
            return TOML_FAIL(s->r, s->pos, "this [[irc]] has no '%s'",
                             required[i]);
    section_default(&irc->username, irc->nick);
    section_default(&irc->realname, "heartsbot");
    section_default(&irc->password, "");
    section_default(&irc->nickserv_password, "");
    section_default(&irc->nickserv_account, "");
    section_default(&irc->services_mask, "NickServ!*@services.*");
    section_default(&irc->tls_ca_file, "");
    section_default(&irc->tls_cert_file, "");
    section_default(&irc->tls_key_file, "");
    section_default(&irc->sasl_mechanism, "none");
    section_default(&irc->sasl_username, "");
    section_default(&irc->sasl_password, "");
    section_default(&irc->answers, "notice");
    section_default(&irc->invites, "admins");
    section_default(&irc->admin_contact, "");
    if (irc->tls && !section_was_set(s, "port"))
        irc->port = 6697;
    if (strcmp(irc->sasl_mechanism, "plain") == 0 && !*irc->sasl_password)
        return TOML_FAIL(s->r, s->pos,
                         "this [[irc]] has sasl_mechanism = \"plain\" but no "
                         "'sasl_password'");
    if (strcmp(irc->sasl_mechanism, "external") == 0 && !*irc->tls_cert_file)
        return TOML_FAIL(s->r, s->pos,
                         "this [[irc]] has sasl_mechanism = \"external\" but "
                         "no 'tls_cert_file' (EXTERNAL is the client "
                         "certificate)");
    if ((*irc->tls_cert_file || *irc->tls_ca_file || *irc->tls_key_file) &&
        !irc->tls)
        return TOML_FAIL(s->r, s->pos,
                         "this [[irc]] names TLS files but has tls = false");
    /* the pace starts at flood_interval_ms; an unset floor (0) is picked
     * by the adapter from the server's software (adapters/irc/pace.h), an
     * unset ceiling allows four times slower */
    if (irc->flood_min_interval_ms > irc->flood_interval_ms)
        irc->flood_min_interval_ms = irc->flood_interval_ms;
    if (!irc->flood_max_interval_ms)
        irc->flood_max_interval_ms = irc->flood_interval_ms <= 15000
                                         ? irc->flood_interval_ms * 4
                                         : 60000;
    if (irc->flood_max_interval_ms < irc->flood_interval_ms)
        irc->flood_max_interval_ms = irc->flood_interval_ms;
    return 0;
}

void irc_config_free(struct irc_config *irc)
{
    free(irc->name);
    free(irc->host);
    free(irc->nick);
    free(irc->username);
    free(irc->realname);
    free(irc->password);
    free(irc->nickserv_password);
    free(irc->nickserv_account);
    free(irc->services_mask);
    free(irc->tls_ca_file);
    free(irc->tls_cert_file);
    free(irc->tls_key_file);
    free(irc->sasl_mechanism);
    free(irc->sasl_username);
    free(irc->sasl_password);
    free(irc->answers);
    free(irc->invites);
    free(irc->admin_contact);
    section_rooms_free(irc->channels, irc->nchannels);
}

static void free_cfg(void *cfg)
{
    irc_config_free(cfg);
}

static const struct protocol_room *rooms(const void *cfg, int *n)
{
    const struct irc_config *irc = cfg;
    *n = irc->nchannels;
    return irc->channels;
}

const struct protocol_config irc_config_section = {
    .name = "irc",
    .keys = irc_keys,
    .nkeys = sizeof irc_keys / sizeof irc_keys[0],
    .size = sizeof(struct irc_config),
    .defaults = defaults,
    .finish = finish,
    .free = free_cfg,
    .rooms = rooms,
};
