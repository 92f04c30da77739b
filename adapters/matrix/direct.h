/*
 * People's direct rooms in the Matrix adapter. A person's is found
 * (m.direct, an invite marked direct, a room the bot made for them, a
 * room they made for the two of them) or made (one creation at a time)
 * when they sit down, or when a line for them comes first. One not made
 * in this run is checked (its whole state) before anything private goes
 * into it: only the two of them in it, not encrypted. A line sent there
 * before the person joined counts as sent when they join, or after a
 * while. A room that is no direct room any more is dead: never taken
 * from m.direct again. Which room is whose is kept in the bot's m.direct
 * account data too.
 */
#ifndef HEARTS_MX_DIRECT_H
#define HEARTS_MX_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/matrix/matrix_internal.h"
#include "bot/common/chat.h"

struct mx_direct; /* sync.h */
struct mx_item;

/* A person's direct room. One not made in this run is checked before
 * anything private goes into it. */
enum mx_dm_state { MX_DM_UNCHECKED, MX_DM_CHECKING, MX_DM_READY };

struct mx_dm {
    char *user;
    char *room;
    enum mx_dm_state state;
    bool awaiting;   /* the person is invited and has not joined */
    int64_t invited; /* since when (loop time) */
    uint64_t *held;  /* texts sent there meanwhile: CHAT_SENT when */
    size_t nheld;    /* they join, or MX_AWAIT_JOIN_MS after `invited` */
};

/* Someone who needs a direct room though no line waits for them yet. */
struct mx_want {
    char *user;
    uint64_t seq;
};

/* room is no direct room any more (struct mx_adapter's `dead`). */
void mx_mark_dead(struct mx_adapter *a, const char *room);

/* user's direct room (checked or not), or NULL. */
struct mx_dm *mx_dm_find(const struct mx_adapter *a, const char *user);

/* The direct room entry for room ID `room`, or NULL. */
struct mx_dm *mx_dm_of_room(const struct mx_adapter *a, const char *room);

/* The person whose direct room `room` is (checked or not), or NULL. */
const char *mx_dm_user(const struct mx_adapter *a, const char *room);

/* user's direct room if private lines may go into it now, else NULL. */
const char *mx_dm_room(const struct mx_adapter *a, const char *user);

/* user's direct room is `room` from now, in `state`. */
struct mx_dm *mx_dm_set(struct mx_adapter *a, const char *user,
                        const char *room, enum mx_dm_state state);

/* d may take private lines; `invited`: its person has not joined yet. */
void mx_dm_ready(struct mx_adapter *a, struct mx_dm *d, bool invited);

/* Forgets d (what it held counts as sent). */
void mx_dm_remove(struct mx_adapter *a, struct mx_dm *d);

/* user needs no direct room made for them any more. */
void mx_want_del(struct mx_adapter *a, const char *user);

/* d's room may not take private lines (`why`: "encrypted", or someone
 * else is in it): it is dead, its lines go back to its person, the room
 * is told why. */
void mx_dm_unusable(struct mx_adapter *a, struct mx_dm *d, const char *why);

/* A room's whole state into what is known of it, replacing that if
 * `anew` (a direct room's check; a room joined in application-service
 * mode). Whether it was taken. */
bool mx_feed_state(struct mx_adapter *a, const char *room, const char *body,
                   size_t len, bool anew);

/* Asks for the whole state of d's room, unless it is checked. */
void mx_dm_check(struct mx_adapter *a, struct mx_dm *d);

/* Arms the timer for the first awaiting direct room whose wait ends. */
void mx_await_arm(struct mx_adapter *a);

/* A paced createRoom for user's direct room (two slots). */
struct mx_call *mx_dm_create(struct mx_adapter *a, const char *user,
                             enum chat_priority prio, uint64_t seq);

/* A room user made for the two of them is taken as their direct room.
 * Whether one was. */
bool mx_dm_adopt(struct mx_adapter *a, const char *user);

/* Rooms the bot made that are nobody's direct room: taken or left. */
void mx_made_settle(struct mx_adapter *a);

/* A member event in d's room. */
void mx_dm_member(struct mx_adapter *a, struct mx_dm *d,
                  const struct mx_item *it);

/* Whether c is a createRoom for a direct room. */
bool mx_dm_creation(const struct mx_call *c);

/* Whether c is direct-room work that goes on after stop (a creation, a
 * room's check). */
bool mx_dm_call(const struct mx_call *c);

/*
 * The bot's m.direct account data: the map the homeserver keeps of each
 * person's direct rooms. Read at the start and merged into what the bot
 * knows; written back whole (read, merge, write, one at a time) whenever
 * a direct room is recorded, with the room in use first in its person's
 * list and dead rooms taken out.
 */

/* Takes the map the server holds: per person the first of their rooms
 * that is not dead, unless they have one already. Checked before use. */
void mx_direct_map_merge(struct mx_adapter *a, const struct mx_direct *d,
                         size_t n);

/* Reads the map at the start (direct_known once answered), then lets
 * the first sync go. */
void mx_direct_map_read(struct mx_adapter *a);

/* Writes user's direct room (and every other) into the map. */
void mx_direct_map_record(struct mx_adapter *a, const char *user);

/* The map the homeserver holds (body; NULL: none yet) as it is to be
 * written back: every direct room in use first in its person's list,
 * dead rooms taken out of every list. New JSON text. */
char *mx_direct_map_rewrite(const struct mx_adapter *a, const char *body,
                            size_t len);

/* Whether c reads or writes the map for a record (goes on after stop). */
bool mx_direct_map_call(const struct mx_call *c);

#endif
