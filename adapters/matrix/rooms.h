/*
 * What the bot knows of each room it is in, from the room's state: its
 * name (m.room.name), canonical alias (m.room.canonical_alias), who
 * created it (m.room.create), whether encryption is on
 * (m.room.encryption: it never goes off again) and who else is in it
 * (joined or invited). Fed from /sync and from state the adapter fetches;
 * asked when a room is named to people (mx_rooms_label) and before a
 * secret goes into a direct room (private to two, not encrypted). Pure.
 *
 * Bounded: at most MX_ROOMS_MAX rooms (the one touched longest ago is
 * forgotten: a room not known is asked for again) and, per room, whether
 * it holds anyone but two given people is only known while it holds at
 * most MX_ROOMS_PEOPLE_MAX people (more: it is not private, whoever they
 * are).
 */
#ifndef HEARTS_MX_ROOMS_H
#define HEARTS_MX_ROOMS_H

#include <stdbool.h>
#include <stddef.h>

#define MX_ROOMS_MAX 4096
#define MX_ROOMS_PEOPLE_MAX 8

struct mx_rooms;
struct mx_item; /* sync.h */

/* A new, empty set; never NULL. */
struct mx_rooms *mx_rooms_new(void);
void mx_rooms_free(struct mx_rooms *r);

/* The room's name or canonical alias changed (NULL or "": none now). */
void mx_rooms_set_name(struct mx_rooms *r, const char *room, const char *name);
void mx_rooms_set_alias(struct mx_rooms *r, const char *room,
                        const char *alias);
/* Who created the room (m.room.create's sender). */
void mx_rooms_set_creator(struct mx_rooms *r, const char *room,
                          const char *user);
/* The room's state turned encryption on. */
void mx_rooms_set_encrypted(struct mx_rooms *r, const char *room);
/* user's membership in room is now `membership` (join, invite, leave,
 * ban, knock). */
void mx_rooms_set_member(struct mx_rooms *r, const char *room, const char *user,
                         const char *membership);

/*
 * How to name the room to people, into out (outlen bytes, cut on a
 * character boundary): its name, else its canonical alias, else `room`
 * itself (its ID), as the Matrix spec's room display name begins.
 */
void mx_rooms_label(const struct mx_rooms *r, const char *room, char *out,
                    size_t outlen);

/* The room's creator, or NULL if not known. Lent until the next change. */
const char *mx_rooms_creator(const struct mx_rooms *r, const char *room);

bool mx_rooms_encrypted(const struct mx_rooms *r, const char *room);

/* Whether anyone but `a` and `b` is known to be joined to or invited to
 * room (true too when more people are in it than are kept). */
bool mx_rooms_others(const struct mx_rooms *r, const char *room, const char *a,
                     const char *b);

/* Someone joined to or invited to room other than `self` (NULL if
 * nobody), and into *n how many such people are known. Lent until the
 * next change. */
const char *mx_rooms_other(const struct mx_rooms *r, const char *room,
                           const char *self, size_t *n);

/*
 * A room `user` created where only they and `self` are (joined or
 * invited), not encrypted, that `skip` (may be NULL) does not refuse:
 * the first found, or NULL. Lent until the next change.
 */
const char *mx_rooms_made_for_two(const struct mx_rooms *r, const char *user,
                                  const char *self,
                                  bool (*skip)(void *ctx, const char *room),
                                  void *ctx);

/* The membership of user in room as last seen, or NULL if not known. */
const char *mx_rooms_membership(const struct mx_rooms *r, const char *room,
                                const char *user);

/* Whether anything is known of room. */
bool mx_rooms_known(const struct mx_rooms *r, const char *room);

/* A state item of a sync or of a room's state (sync.h) into what is
 * known of its room; any other item changes nothing. */
void mx_rooms_feed(struct mx_rooms *r, const struct mx_item *it);

/* The bot is no longer in room: all of it is forgotten. */
void mx_rooms_forget(struct mx_rooms *r, const char *room);

/* How many rooms are kept (tests). */
size_t mx_rooms_count(const struct mx_rooms *r);

#endif
