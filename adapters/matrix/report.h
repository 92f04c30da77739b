/*
 * What the Matrix adapter tells the bot: events (nothing once stopped),
 * and the answers to its ops that are given from a timer, never from
 * inside the op: CHAT_SENT for tracked texts, CHAT_IDENTITY for verify.
 * Also what it tells a room of its own accord: why the room is no place
 * for cards, once.
 */
#ifndef HEARTS_MX_REPORT_H
#define HEARTS_MX_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "adapters/matrix/matrix_internal.h"
#include "bot/common/chat.h"

/* An event from a person (from: their user ID, also the account results
 * count for) shown as `display` (NULL: not known). */
void mx_emit_person(struct mx_adapter *a, enum chat_event_kind kind,
                    const char *room, const char *from, const char *display,
                    const char *text, const char *target);

/* An event without a display name. */
void mx_emit(struct mx_adapter *a, enum chat_event_kind kind, const char *room,
             const char *from, const char *text, const char *target);

/* Tracked texts are sent (or dropped): CHAT_SENT for each, soon. */
void mx_report(struct mx_adapter *a, const uint64_t *cookies, size_t n);

/* Drops what waits for dest, reporting its tracked texts. */
void mx_drop(struct mx_adapter *a, const char *dest);

/* Says message id (M(), msg.h) in room once per run (why it is no room
 * for cards), in the adapter's language (chat_adapter.lang): the room's
 * people may not have told the bot theirs. */
void mx_say_once(struct mx_adapter *a, const char *room, const char *id);

/* The verify op: answered soon with CHAT_IDENTITY. */
void mx_verify(struct chat_adapter *base, const char *nick);

#endif
