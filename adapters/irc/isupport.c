/*
 * RPL_ISUPPORT parsing (isupport.h). Only four tokens matter to the bot;
 * everything else is skipped, and every value is checked before it is
 * used because it comes from the network.
 */
#include "adapters/irc/isupport.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void ircad_isupport_init(struct ircad_isupport *s)
{
    s->casemap = IRCAD_CASEMAP_RFC1459;
    memcpy(s->chantypes, "#&", 3);
    s->nicklen = 0;
    s->whox = false;
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
