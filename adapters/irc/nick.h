/*
 * Nicks: comparing them under the server's casemapping, taking apart the
 * "nick!user@host" origin of a message, checking a configured nick, and
 * the alternatives tried when it is in use. Pure functions
 * (tests/unit/adapters/irc/test_nick.c).
 */
#ifndef HEARTS_IRC_NICK_H
#define HEARTS_IRC_NICK_H

#include <stdbool.h>
#include <stddef.h>

/* RFC 1459 (the default): A-Z ~ a-z, [ ] \ ~ { } |, and ^ ~ ~.
 * strict-rfc1459: the same without ^ ~ ~. ascii: A-Z ~ a-z only. */
enum ircad_casemap {
    IRCAD_CASEMAP_RFC1459,
    IRCAD_CASEMAP_STRICT_RFC1459,
    IRCAD_CASEMAP_ASCII
};

/* The lower-case form of one byte under `m`. */
unsigned char ircad_casefold(enum ircad_casemap m, unsigned char c);

/* Writes name's lower-case form under `m` into out (outlen bytes, at
 * least 1; cut short if it does not fit, always NUL-terminated). NULL is
 * the empty name. */
void ircad_fold(enum ircad_casemap m, const char *name, char *out,
                size_t outlen);

/* Whether a and b are the same name under `m` (nicks and channels alike).
 * NULL equals nothing. */
bool ircad_name_equal(enum ircad_casemap m, const char *a, const char *b);

/* Whether `s` matches the glob `mask` ('*' any run, '?' one byte), case
 * folded under `m`: "NickServ!*@services.*" and "nickserv!NickServ@services.
 * libera.chat". NULL matches nothing. */
bool ircad_mask_match(enum ircad_casemap m, const char *mask, const char *s);

/*
 * Splits an origin "nick!user@host" into the nick and "user@host".
 * Returns 0, or -1 (outputs untouched) if origin is NULL, has no '!' or no
 * '@' after it, has an empty nick, user or host, or does not fit.
 */
int ircad_origin_parse(const char *origin, char *nick, size_t nicklen, char *id,
                       size_t idlen);

/* Whether `nick` can be sent as a NICK: 1 to 30 bytes, no space, control
 * character, DEL or any of , ! @ * ? : %, and not starting with a digit,
 * '-' or a channel prefix (# & + !). The server may still refuse it (432);
 * what it accepts beyond that varies (Ergo takes UTF-8). '%' is out because
 * libircclient would read it as a printf format. */
bool ircad_nick_valid(const char *nick);

/*
 * The nick to try at `attempt`: 0 the nick itself, 1 nick_, 2 nick__,
 * then the nick with three digits from `rnd`. The base is shortened so the
 * result has at most `maxlen` bytes (maxlen >= 4). out needs maxlen + 1.
 */
void ircad_nick_variant(const char *nick, unsigned attempt, unsigned rnd,
                        size_t maxlen, char *out, size_t outlen);

#endif
