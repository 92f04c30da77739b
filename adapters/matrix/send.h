/*
 * The Matrix adapter's sending: what the bot says waits in the out-queue
 * (outbox.h) for its room, or for a person until their direct room is
 * ready; everything for one room goes as one message. What the
 * homeserver's rate limit counts (sends, room creations, joins, leaves)
 * goes when the pacer (pace.h) lets it, most urgent first: a player's
 * deal or prompt, then the rooms' lines (at most a minute behind), then
 * the rest; the oldest first among equals. Also the chat ops that put
 * text in the queue.
 */
#ifndef HEARTS_MX_SEND_H
#define HEARTS_MX_SEND_H

#include <stdbool.h>
#include <stdint.h>

#include "adapters/matrix/matrix_internal.h"
#include "bot/common/chat.h"
#include "bot/common/loop.h"

/* What the queue serves next. */
struct mx_next {
    enum { MX_NEXT_NONE, MX_NEXT_CALL, MX_NEXT_ROOM, MX_NEXT_CREATE } kind;
    struct mx_call *call;
    const char *dest; /* MX_NEXT_ROOM: the room; MX_NEXT_CREATE: the person */
    int rank;         /* smaller first: see mx_rank() */
    uint64_t seq;
    int cost;
};

/* The order of the queue (smaller first) for a line of priority prio,
 * to a person (`private`) or a room. */
int mx_rank(enum chat_priority prio, bool private);

/* The most urgent thing that may start now, into *n (kind MX_NEXT_NONE:
 * nothing may). */
void mx_pick(struct mx_adapter *a, int64_t now, struct mx_next *n);

/* Starts what may start; arms the queue's next turn. */
void mx_pump(struct mx_adapter *a);

/* The loop's before-sleep hook: mx_pump. */
void mx_flush(struct loop *l, void *ctx);

/* Where text for a room or a person (`to`) waits: the room, the person's
 * direct room, or the person; NULL for nowhere. */
const char *mx_destination(const struct mx_adapter *a, const char *to);

/* Whether c is a room message (goes on after stop). */
bool mx_send_call(const struct mx_call *c);

/* The chat ops (chat.h). */
void mx_tell_tracked(struct chat_adapter *base, const char *to,
                     const char *text, enum chat_priority prio,
                     uint64_t cookie);
void mx_say(struct chat_adapter *base, const char *room, const char *text,
            enum chat_priority prio);
void mx_tell(struct chat_adapter *base, const char *nick, const char *text,
             enum chat_priority prio);
bool mx_retract(struct chat_adapter *base, uint64_t cookie);
void mx_prepare(struct chat_adapter *base, const char *nick);
bool mx_limited(const struct chat_adapter *base);

#endif
