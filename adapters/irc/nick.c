/*
 * Nick comparison, origin parsing and nick alternatives (nick.h). Servers
 * fold case by their CASEMAPPING, and RFC 1459's Scandinavian heritage
 * makes [ ] \ the upper case of { } |: two nicks that differ only there are
 * the same person to the server, so they must be to the bot.
 */
#include "adapters/irc/nick.h"

#include <stdio.h>
#include <string.h>

unsigned char ircad_casefold(enum ircad_casemap m, unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return (unsigned char)(c + ('a' - 'A'));
    if (m == IRCAD_CASEMAP_ASCII)
        return c;
    switch (c) {
    case '[':
        return '{';
    case ']':
        return '}';
    case '\\':
        return '|';
    case '^':
        return m == IRCAD_CASEMAP_RFC1459 ? '~' : c;
    default:
        return c;
    }
}

void ircad_fold(enum ircad_casemap m, const char *name, char *out,
                size_t outlen)
{
    size_t i = 0;
    for (; name && name[i] && i + 1 < outlen; i++)
        out[i] = (char)ircad_casefold(m, (unsigned char)name[i]);
    out[i] = '\0';
}

bool ircad_name_equal(enum ircad_casemap m, const char *a, const char *b)
{
    if (!a || !b)
        return false;
    const unsigned char *x = (const unsigned char *)a;
    const unsigned char *y = (const unsigned char *)b;
    for (; *x && *y; x++, y++)
        if (ircad_casefold(m, *x) != ircad_casefold(m, *y))
            return false;
    return *x == *y;
}

bool ircad_mask_match(enum ircad_casemap m, const char *mask, const char *s)
{
    if (!mask || !s)
        return false;
    /* iterative, with one backtrack point: linear enough for short masks
     * and never recursive on network input */
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*mask == '*') {
            star = mask++;
            resume = s;
        } else if (*mask == '?' ||
                   (*mask && ircad_casefold(m, (unsigned char)*mask) ==
                                 ircad_casefold(m, (unsigned char)*s))) {
            mask++;
            s++;
        } else if (star) {
            mask = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*mask == '*')
        mask++;
    return *mask == '\0';
}

int ircad_origin_parse(const char *origin, char *nick, size_t nicklen, char *id,
                       size_t idlen)
{
    if (!origin)
        return -1;
    const char *bang = strchr(origin, '!');
    if (!bang || bang == origin)
        return -1;
    const char *at = strchr(bang + 1, '@');
    if (!at || at == bang + 1 || !at[1])
        return -1;
    /* a second '!' or '@', or a space, is not a prefix a server sends */
    if (strchr(at + 1, '@') || strchr(bang + 1, '!') || strchr(origin, ' '))
        return -1;
    size_t n = (size_t)(bang - origin);
    size_t rest = strlen(bang + 1);
    if (n + 1 > nicklen || rest + 1 > idlen)
        return -1;
    memcpy(nick, origin, n);
    nick[n] = '\0';
    memcpy(id, bang + 1, rest + 1);
    return 0;
}

bool ircad_nick_valid(const char *nick)
{
    if (!nick || !*nick || strlen(nick) > 30)
        return false;
    if ((nick[0] >= '0' && nick[0] <= '9') || strchr("-#&+", nick[0]))
        return false;
    for (const unsigned char *p = (const unsigned char *)nick; *p; p++)
        if (*p <= 0x20 || *p == 0x7f || strchr(",!@*?:%", *p))
            return false;
    return true;
}

void ircad_nick_variant(const char *nick, unsigned attempt, unsigned rnd,
                        size_t maxlen, char *out, size_t outlen)
{
    char suffix[8];
    if (attempt == 0)
        suffix[0] = '\0';
    else if (attempt == 1)
        snprintf(suffix, sizeof suffix, "_");
    else if (attempt == 2)
        snprintf(suffix, sizeof suffix, "__");
    else
        snprintf(suffix, sizeof suffix, "%03u", rnd % 1000);
    size_t slen = strlen(suffix);
    if (maxlen < slen + 1)
        maxlen = slen + 1;
    if (maxlen + 1 > outlen)
        maxlen = outlen - 1;
    size_t base = strlen(nick);
    if (base + slen > maxlen)
        base = maxlen > slen ? maxlen - slen : 0;
    snprintf(out, outlen, "%.*s%s", (int)base, nick, suffix);
}
