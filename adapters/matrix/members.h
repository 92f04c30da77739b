/*
 * Who is in each room the bot is in, and the name to show for them: the
 * display name from their m.room.member event, told apart as the Matrix
 * spec says ("Calculating the display name for a user"): no display name
 * (or an empty one) shows the user ID; a display name another joined or
 * invited member of the room also has, or one that looks like a user ID
 * other than theirs, shows as "name (@user:server)". Pure (no I/O).
 *
 * Memory is bounded: at most MX_MEMBERS_MAX people per room are kept (a
 * room of 10,000 members keeps the 256 seen last: every event of theirs
 * counts as seen), with names of at most MX_NAME_MAX bytes; people who
 * leave are dropped, and a room the bot leaves is forgotten. A display
 * name shared with a member not kept is then not told apart here; the bot
 * still tells seats apart at a table (table_names_unique).
 */
#ifndef HEARTS_MX_MEMBERS_H
#define HEARTS_MX_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>

#define MX_MEMBERS_MAX 256

struct mx_members;

/* The shown name of `user` in `room` changed to `shown` (the user was a
 * member before and is one still). */
typedef void (*mx_members_fn)(void *ctx, const char *room, const char *user,
                              const char *shown);

/* A new, empty set; never NULL. */
struct mx_members *mx_members_new(void);
void mx_members_free(struct mx_members *m);

/*
 * An m.room.member event: user's membership ("join", "invite", "leave",
 * "ban", "knock") in room, with display name `name` (NULL: none). For
 * every member still there whose shown name this changes (the user, and
 * those whose name it makes shared or unique), `changed` is called (may
 * be NULL).
 */
void mx_members_set(struct mx_members *m, const char *room, const char *user,
                    const char *membership, const char *name,
                    mx_members_fn changed, void *ctx);

/*
 * The name to show for user in room, into out (outlen bytes; a name cut
 * short is cut on a character boundary); counts as seeing them. Returns
 * false (out untouched) if they are not known as a member of the room.
 */
bool mx_members_shown(struct mx_members *m, const char *room, const char *user,
                      char *out, size_t outlen);

/* Whether user is known as a joined member of room (not one invited);
 * does not count as seeing them. */
bool mx_members_joined(const struct mx_members *m, const char *room,
                       const char *user);

/* The same in any room but those `skip` says yes to (direct rooms): the
 * first found. */
bool mx_members_shown_anywhere(struct mx_members *m, const char *user,
                               bool (*skip)(void *ctx, const char *room),
                               void *ctx, char *out, size_t outlen);

/* The bot left the room: its members are forgotten. */
void mx_members_forget(struct mx_members *m, const char *room);

/* How many people are kept in room (tests). */
size_t mx_members_count(const struct mx_members *m, const char *room);

#endif
