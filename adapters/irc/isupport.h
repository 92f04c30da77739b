/*
 * What the server tells about itself in RPL_ISUPPORT (005) and the bot
 * needs: its casemapping (to compare nicks), its channel prefixes (to tell
 * a channel message from a private one) and its nick length (to shorten
 * alternative nicks). Pure (tests/unit/adapters/irc/test_isupport.c).
 *
 * libircclient keeps at most 10 parameters of a line, so of a long 005
 * line only the first eight or nine tokens arrive; a token it cut off
 * leaves its default in place.
 */
#ifndef HEARTS_IRC_ISUPPORT_H
#define HEARTS_IRC_ISUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "adapters/irc/nick.h"

struct ircad_isupport {
    enum ircad_casemap casemap;
    char chantypes[16];
    size_t nicklen; /* 0: not told */
    bool whox;      /* WHOX: "WHO #chan %tcna,<token>" is understood */
    /* PREFIX: the channel modes of rank, highest first, and the prefix
     * each shows in NAMES and WHOIS ("(ov)@+" until told) */
    char prefix_modes[16];
    char prefix_chars[16];
    char bot_mode; /* BOT=<mode>: the user mode that marks a bot, 0: none */
};

/* The defaults before any 005: rfc1459, "#&", nick length unknown, no
 * WHOX, PREFIX=(ov)@+, no BOT mode. */
void ircad_isupport_init(struct ircad_isupport *s);

/* Parses a CASEMAPPING value; 0, or -1 (out untouched) if unknown.
 * rfc8265 and rfc7613 (Ergo's PRECIS) map to ascii, the closest we can
 * do without Unicode tables. */
int ircad_casemap_parse(const char *value, enum ircad_casemap *out);

/*
 * Applies the tokens of one 005 line: params[0] is our nick, the last one
 * the human text; tokens are "KEY", "KEY=VALUE" or "-KEY" (back to the
 * default). Unknown or malformed tokens are ignored. params may hold
 * NULLs; count may be 0.
 */
void ircad_isupport_parse(struct ircad_isupport *s, const char *const *params,
                          unsigned count);

/*
 * Whether `entry`, one word of RPL_WHOISCHANNELS (319: "@#chan",
 * "~@&chan" with multi-prefix), is channel `room` (under the casemapping)
 * with a prefix of channel operator or higher rank (PREFIX: the prefixes
 * up to the one of mode 'o'; without an 'o', only the highest rank).
 * The room is matched whole, so a prefix character that also starts
 * channel names ('&') is never mistaken.
 */
bool ircad_isupport_is_op(const struct ircad_isupport *s, const char *entry,
                          const char *room);

#endif
