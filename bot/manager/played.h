/*
 * Who played under which results key, this session (docs/playing.md,
 * "Who is who"): per network, the person as the adapter shows them (a
 * nick, followed through NICK changes, and the id: user@host on IRC)
 * and the keys their seats counted for, most recent first. So `!stats`
 * finds the record a person played under after they changed nick, and
 * `!stats NAME` the record of whoever holds NAME now. What the bot did
 * not see (a change while it was away) is not here: a disconnection
 * forgets the network's people. At most PLAYED_PEOPLE per network; a new
 * one replaces the one seen least recently, so churn cannot grow memory.
 */
#ifndef HEARTS_BOT_PLAYED_H
#define HEARTS_BOT_PLAYED_H

#include "bot/common/chat.h"

#define PLAYED_PEOPLE 1024
#define PLAYED_KEYS 4 /* keys kept per person, the most recent */

struct played;

/* An empty map (aborts if out of memory); played_free(NULL) is a no-op. */
struct played *played_new(void);
void played_free(struct played *pl);

/* The person (nick, id) on a's network played under key (not ""). */
void played_add(struct played *pl, const struct chat_adapter *a,
                const char *nick, const char *id, const char *key);
/* The person (nick, id) is now called `to`. */
void played_nick(struct played *pl, const struct chat_adapter *a,
                 const char *nick, const char *id, const char *to);
/* The person (nick, id) left the network. */
void played_quit(struct played *pl, const struct chat_adapter *a,
                 const char *nick, const char *id);
/* a's connection was lost: what happens meanwhile is not seen. */
void played_forget(struct played *pl, const struct chat_adapter *a);

/*
 * The keys the person now called `nick` (with `id`; NULL: whoever holds
 * the nick, the one seen last) played under, most recent first, into
 * keys (borrowed until the map changes), at most max. Returns how many
 * (0 for a NULL map).
 */
int played_keys(const struct played *pl, const struct chat_adapter *a,
                const char *nick, const char *id, const char **keys, int max);

#endif
