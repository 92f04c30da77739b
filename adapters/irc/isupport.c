/*
 * RPL_ISUPPORT parsing (isupport.h). Only six tokens matter to the bot;
 * everything else is skipped, and every value is checked before it is
 * used because it comes from the network.
 */
#include "adapters/irc/isupport.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void ircad_isupport_init(struct ircad_isupport *s)
{
    s->casemap = IRCAD_CASEMAP_RFC1459;
    memcpy(s->chantypes, "#&", 3);
    s->nicklen = 0;
    s->whox = false;
    memcpy(s->prefix_modes, "ov", 3);
    memcpy(s->prefix_chars, "@+", 3);
    s->bot_mode = 0;
}

int ircad_casemap_parse(const char *value, enum ircad_casemap *out)
{
    if (!value)
        return -1;
    if (strcasecmp(value, "rfc1459") == 0)
        *out = IRCAD_CASEMAP_RFC1459;
    else if (strcasecmp(value, "strict-rfc1459") == 0)
        *out = IRCAD_CASEMAP_STRICT_RFC1459;
    else if (strcasecmp(value, "ascii") == 0 ||
             strcasecmp(value, "rfc8265") == 0 ||
             strcasecmp(value, "rfc7613") == 0)
        *out = IRCAD_CASEMAP_ASCII;
    else
        return -1;
    return 0;
}

/* Whether `tok` is "KEY" or starts with "KEY=", and where its value is. */
static bool key_is(const char *tok, const char *key, const char **value)
{
    size_t n = strlen(key);
    if (strncasecmp(tok, key, n) != 0)
        return false;
    if (tok[n] == '\0') {
        *value = NULL;
        return true;
    }
    if (tok[n] == '=') {
        *value = tok + n + 1;
        return true;
    }
    return false;
}

/* PREFIX=(modes)chars, as many of each, printable and without '(' ')'
 * ',' or space; "PREFIX=" (no ranks) is kept; anything malformed leaves
 * what was there. NULL: back to the default. */
static void apply_prefix(struct ircad_isupport *s, const char *v)
{
    if (!v) {
        memcpy(s->prefix_modes, "ov", 3);
        memcpy(s->prefix_chars, "@+", 3);
        return;
    }
    if (!*v) {
        s->prefix_modes[0] = s->prefix_chars[0] = '\0';
        return;
    }
    const char *close = v[0] == '(' ? strchr(v, ')') : NULL;
    if (!close)
        return;
    size_t nm = (size_t)(close - v - 1);
    const char *chars = close + 1;
    if (nm != strlen(chars) || nm >= sizeof s->prefix_modes)
        return;
    for (size_t i = 0; i < nm; i++) {
        if (!isalpha((unsigned char)v[1 + i]) ||
            !isgraph((unsigned char)chars[i]) || strchr("(),", chars[i]))
            return;
    }
    memcpy(s->prefix_modes, v + 1, nm);
    s->prefix_modes[nm] = '\0';
    memcpy(s->prefix_chars, chars, nm + 1);
}

static void apply(struct ircad_isupport *s, const char *tok)
{
    struct ircad_isupport def;
    ircad_isupport_init(&def);
    bool negate = tok[0] == '-';
    if (negate)
        tok++;
    const char *v;
    if (key_is(tok, "CASEMAPPING", &v)) {
        if (negate || !v)
            s->casemap = def.casemap;
        else
            ircad_casemap_parse(v, &s->casemap);
    } else if (key_is(tok, "CHANTYPES", &v)) {
        if (negate || !v) {
            memcpy(s->chantypes, def.chantypes, sizeof s->chantypes);
            return;
        }
        /* only punctuation can start a channel name; an empty value
         * means the server has no channels at all */
        size_t n = strlen(v);
        if (n >= sizeof s->chantypes)
            return;
        for (size_t i = 0; i < n; i++)
            if (!strchr("#&+!.~$%^*", v[i]))
                return;
        memcpy(s->chantypes, v, n + 1);
    } else if (key_is(tok, "NICKLEN", &v) || key_is(tok, "MAXNICKLEN", &v)) {
        if (negate || !v) {
            s->nicklen = 0;
            return;
        }
        char *end;
        long n = strtol(v, &end, 10);
        if (end != v && *end == '\0' && n >= 1 && n <= 512)
            s->nicklen = (size_t)n;
    } else if (key_is(tok, "WHOX", &v)) {
        s->whox = !negate;
    } else if (key_is(tok, "PREFIX", &v)) {
        apply_prefix(s, negate ? NULL : v);
    } else if (key_is(tok, "BOT", &v)) {
        /* one letter, a user mode; anything else marks nothing */
        s->bot_mode =
            !negate && v && isalpha((unsigned char)v[0]) && !v[1] ? v[0] : 0;
    }
}

void ircad_isupport_parse(struct ircad_isupport *s, const char *const *params,
                          unsigned count)
{
    if (!params)
        return;
    /* params[0] is our nick; a token never holds a space, the human text
     * at the end always does */
    for (unsigned i = 1; i < count; i++) {
        const char *tok = params[i];
        if (!tok || !*tok || strchr(tok, ' '))
            continue;
        apply(s, tok);
    }
}

bool ircad_isupport_is_op(const struct ircad_isupport *s, const char *entry,
                          const char *room)
{
    if (!entry || !room || !*room)
        return false;
    size_t ne = strlen(entry), nr = strlen(room);
    if (ne <= nr || !ircad_name_equal(s->casemap, entry + ne - nr, room))
        return false;
    /* the ranks an operator has or exceeds: up to 'o', else the top */
    const char *o = strchr(s->prefix_modes, 'o');
    size_t ranks =
        o ? (size_t)(o - s->prefix_modes) + 1 : (s->prefix_modes[0] ? 1 : 0);
    bool op = false;
    for (size_t i = 0; i < ne - nr; i++) {
        const char *p = strchr(s->prefix_chars, entry[i]);
        if (!p || !entry[i])
            return false; /* not a prefix: another channel's name */
        if ((size_t)(p - s->prefix_chars) < ranks)
            op = true;
    }
    return op;
}
