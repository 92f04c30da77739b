/*
 * What every item of the Matrix parsers (adapters/matrix/sync.h) holds
 * once accepted, for the fuzz targets fuzz_matrix_sync.c and
 * fuzz_matrix_txn.c: each check aborts on a broken promise.
 */
#ifndef HEARTS_FUZZ_MATRIX_ITEMS_H
#define HEARTS_FUZZ_MATRIX_ITEMS_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/sync.h"

static inline void check_text(const char *s, size_t max, bool lines)
{
    if (!s)
        return;
    size_t n = strlen(s);
    if (n > max || !mx_utf8_valid(s, n))
        abort();
    for (size_t i = 0; !lines && i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            abort();
}

static inline void check_items(const struct mx_sync *s)
{
    for (size_t i = 0; i < s->nitems; i++) {
        const struct mx_item *it = &s->items[i];
        if (!mx_is_room_id(it->room))
            abort();
        if (it->sender && !mx_is_user_id(it->sender))
            abort();
        if (it->user && !mx_is_user_id(it->user))
            abort();
        check_text(it->event_id, MX_ID_MAX, false);
        check_text(it->msgtype, MX_ID_MAX, false);
        check_text(it->body, MX_BODY_MAX, true);
        check_text(it->name, MX_NAME_MAX, false);
        switch (it->kind) {
        case MX_ITEM_MESSAGE:
            if (!it->sender || !it->event_id || !it->body || !it->msgtype)
                abort();
            break;
        case MX_ITEM_MEMBER:
            if (!it->user || !it->membership || !it->sender)
                abort();
            break;
        case MX_ITEM_INVITE:
        case MX_ITEM_ENCRYPTED:
        case MX_ITEM_CREATE:
            if (!it->sender)
                abort();
            break;
        case MX_ITEM_ALIAS:
            if (it->name && !mx_is_alias(it->name))
                abort();
            break;
        default:
            break;
        }
    }
    for (size_t i = 0; i < s->ndirect; i++) {
        if (!mx_is_user_id(s->direct[i].user))
            abort();
        for (size_t j = 0; j < s->direct[i].nrooms; j++)
            if (!mx_is_room_id(s->direct[i].rooms[j]))
                abort();
    }
}

#endif
