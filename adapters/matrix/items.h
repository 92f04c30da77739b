/*
 * What each item of a /sync answer or an application-service
 * transaction (sync.h) does in the Matrix adapter: messages become
 * CHAT_MESSAGE (room NULL in a person's direct room), memberships
 * CHAT_JOIN, CHAT_PART and CHAT_KICK; invites are joined, kicks
 * rejoined; the rooms' facts (rooms.h) take in their state.
 */
#ifndef HEARTS_MX_ITEMS_H
#define HEARTS_MX_ITEMS_H

#include <stdbool.h>
#include <stddef.h>

#include "adapters/matrix/matrix_internal.h"

struct mx_item;

/* An item, held while its room's members are fetched (the first message
 * read in a room that is not a direct one starts that). */
void mx_sync_item(struct mx_adapter *a, const struct mx_item *it);

/* An item handled now. */
void mx_on_item(struct mx_adapter *a, const struct mx_item *it);

#endif
