/*
 * Who is who in the Matrix adapter: display names per room (members.h),
 * asked for when a sync did not bring them (lazy loading), and, once per
 * run for a room that is not a direct one, its members, name and alias.
 * The first message read in such a room holds that room's events until
 * its members are known (at most a few seconds), so that people with the
 * same display name are told apart from their first line.
 */
#ifndef HEARTS_MX_NAMES_H
#define HEARTS_MX_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/matrix/matrix_internal.h"
#include "adapters/matrix/sync.h"

/* Room for a shown name: a display name and " (user ID)". */
#define MX_SHOWN_MAX (MX_NAME_MAX + MX_ID_MAX + 8)

/* A room's events held while its members are fetched. */
struct mx_hold {
    char *room;
    struct mx_item *items;
    size_t n;
    int64_t until; /* loop time: handled then at the latest */
};

/* members.h's callback: a name changed (told as CHAT_RENAME where a
 * table shows it). ctx is the adapter. */
void mx_renamed(void *ctx, const char *room, const char *user,
                const char *name);

/* The name to show for user in room, in out, or NULL if not known (then
 * it is asked for). */
const char *mx_shown(struct mx_adapter *a, const char *room, const char *user,
                     bool private, char *out, size_t len);

/* The room's held events, or NULL. */
struct mx_hold *mx_hold_of(const struct mx_adapter *a, const char *room);

/* Asks once per run what room is; with `hold`, its events wait. */
void mx_fetch_room(struct mx_adapter *a, const char *room, bool hold);

#endif
