/*
 * Who is logged in to which services account, for the people the bot
 * shares a channel with: learned from extended-join (JOIN #chan account
 * :realname), account-notify (ACCOUNT name, ACCOUNT *), the account tag of
 * a line, a WHOX reply to the WHO the adapter sends after joining, and
 * RPL_WHOISACCOUNT (330); following NICK, forgotten on QUIT and when the
 * person leaves the last channel the bot shares with them. The adapter
 * hands the answer to the manager as chat_user.account.
 *
 * Pure: no I/O; memory grows with the people seen, up to a bound (the
 * least recently touched entry makes room). "Unknown" (never told, or
 * forgotten) is not "logged out" (told so). Tests:
 * tests/unit/adapters/irc/test_accounts.c.
 */
#ifndef HEARTS_IRC_ACCOUNTS_H
#define HEARTS_IRC_ACCOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/irc/nick.h"

/* People tracked at most on one connection. */
#define IRCAD_ACCOUNTS_MAX 4096
/* The longest nick tracked (bytes, NUL included); longer ones are not. */
#define IRCAD_ACCOUNTS_NICK_MAX 64

enum ircad_account_state {
    IRCAD_ACCOUNT_UNKNOWN, /* never told, or forgotten */
    IRCAD_ACCOUNT_NONE,    /* known to be logged out */
    IRCAD_ACCOUNT_KNOWN    /* logged in to an account */
};

struct ircad_account_entry;

struct ircad_accounts {
    enum ircad_casemap casemap;
    size_t max; /* entries at most */
    struct ircad_account_entry *e;
    size_t n, cap;
    unsigned *heads; /* hash buckets: entry index + 1, 0 for none */
    size_t nbuckets;
    uint64_t clock; /* for the least recently touched */
};

/* An empty tracker of at most `max` people (0: IRCAD_ACCOUNTS_MAX). */
void ircad_accounts_init(struct ircad_accounts *t, size_t max);

/* Frees what the tracker holds; it can be used again after init. */
void ircad_accounts_free(struct ircad_accounts *t);

/* Forgets everyone (a new connection) and takes the casemapping names are
 * compared under from now on. */
void ircad_accounts_reset(struct ircad_accounts *t, enum ircad_casemap m);

/*
 * What is known of `nick`: the state, and for KNOWN the account in
 * *account (valid until the next change to the tracker; untouched
 * otherwise). account may be NULL.
 */
enum ircad_account_state ircad_accounts_get(const struct ircad_accounts *t,
                                            const char *nick,
                                            const char **account);

/*
 * `nick` is in the bot's channel number `chan` (0..63; another number
 * counts for no channel, so the person is only forgotten on QUIT), with
 * `account`: a name, "*" or NULL for logged out (extended-join), or with
 * `known` false, nothing said about the account (a plain JOIN). A name
 * that is empty, too long or holds a space or control character is
 * taken as not said.
 */
void ircad_accounts_join(struct ircad_accounts *t, const char *nick, int chan,
                         bool known, const char *account);

/*
 * An account change for someone already tracked (account-notify, a tag,
 * 330): `account` a name, or "*" / NULL for logged out. Nobody new is
 * added: a person in no shared channel would never be forgotten.
 */
void ircad_accounts_set(struct ircad_accounts *t, const char *nick,
                        const char *account);

/* `nick` left channel number `chan` (PART, KICK): forgotten once in no
 * channel the bot shares. */
void ircad_accounts_part(struct ircad_accounts *t, const char *nick, int chan);

/* The bot itself left channel number `chan`: everyone it shared only that
 * channel with is forgotten. */
void ircad_accounts_left(struct ircad_accounts *t, int chan);

/* `from` is now called `to` (NICK); a stale entry for `to` is replaced. */
void ircad_accounts_rename(struct ircad_accounts *t, const char *from,
                           const char *to);

/* `nick` left the network (QUIT). */
void ircad_accounts_forget(struct ircad_accounts *t, const char *nick);

/* Whether `nick` is known to be in a channel the bot shares with them:
 * then the bot sees their NICK and QUIT. */
bool ircad_accounts_seen(const struct ircad_accounts *t, const char *nick);

/* Whether `nick` is known to be in the bot's channel number `chan`. */
bool ircad_accounts_in(const struct ircad_accounts *t, const char *nick,
                       int chan);

/* How many people are tracked (tests, figures). */
size_t ircad_accounts_count(const struct ircad_accounts *t);

#endif
