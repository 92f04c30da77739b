/*
 * The Matrix adapter's out-queue: lines waiting for a room (or, until the
 * direct room exists, for a person), coalesced so that everything for one
 * destination within one turn of the loop goes out as ONE m.notice: on
 * Matrix a message may hold several lines, and every message counts
 * against the homeserver's rate limit. Pure (no I/O).
 *
 * Lines are cleaned on the way in: CR and control characters go but for
 * the bytes of the bot's markup (render.h, CHAT_STYLE_MARKUP), which
 * format.h turns into HTML on the way out; invalid UTF-8 is replaced, and
 * a line longer than MX_LINE_MAX is cut at a character boundary. A
 * message holds whole lines, at most MX_MESSAGE_MAX bytes of them and
 * MX_CONTENT_MAX bytes of event content; more waits for the next message.
 *
 * Each destination knows the most urgent priority among its waiting lines
 * and how long they have waited, so that a sender limited to one message
 * at a time can choose which goes next (mx_outbox_next).
 */
#ifndef HEARTS_MX_OUTBOX_H
#define HEARTS_MX_OUTBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/common/chat.h"

#define MX_LINE_MAX 2000
#define MX_MESSAGE_MAX 16000
/* Event content (JSON) a message of several lines stays within: under
 * the 65536 bytes a homeserver takes for a whole event. */
#define MX_CONTENT_MAX 48000

struct mx_outbox;

/* A new, empty queue; never NULL. */
struct mx_outbox *mx_outbox_new(void);
void mx_outbox_free(struct mx_outbox *o);

/* Queues text (one or more lines separated by '\n') for dest, at
 * CHAT_NORMAL priority. */
void mx_outbox_add(struct mx_outbox *o, const char *dest, const char *text);

/*
 * Queues text like mx_outbox_add and tracks it by `cookie` (not 0): once
 * the message holding its last line is taken off the queue, or the text
 * is dropped, the cookie shows in mx_outbox_removed.
 */
void mx_outbox_add_tracked(struct mx_outbox *o, const char *dest,
                           const char *text, uint64_t cookie);

/* mx_outbox_add_tracked at priority prio (cookie 0: not tracked), queued
 * at time `at` (the caller's clock; mx_outbox_add and
 * mx_outbox_add_tracked take the last time given). */
void mx_outbox_add_prio(struct mx_outbox *o, const char *dest, const char *text,
                        uint64_t cookie, enum chat_priority prio, int64_t at);

/* The cookies of the tracked texts that the last mx_outbox_take giving a
 * message put in it (their last line is in it) or the last mx_outbox_drop
 * dropped; valid until the next change. */
size_t mx_outbox_removed(const struct mx_outbox *o, const uint64_t **cookies);

/* Takes a tracked text back if all of it still waits (none of it taken):
 * whether it did. Its cookie is then never reported. */
bool mx_outbox_retract(struct mx_outbox *o, uint64_t cookie);

/* Whether anything waits (for dest; NULL: for anyone). */
bool mx_outbox_waiting(const struct mx_outbox *o, const char *dest);

/* The i-th destination with lines waiting (i from 0), or NULL past the
 * last. Valid until the next change. */
const char *mx_outbox_dest(const struct mx_outbox *o, size_t i);

/*
 * What waits for dest: the most urgent priority among its lines into
 * *prio, into *seq a number that orders the oldest waiting line among
 * all lines ever queued (smaller: queued earlier), and into *since when
 * it was queued. False (nothing set) if nothing waits there. Lines left
 * over after a take keep the urgency they had.
 */
bool mx_outbox_urgency(const struct mx_outbox *o, const char *dest,
                       enum chat_priority *prio, uint64_t *seq, int64_t *since);

/*
 * Takes the next message for dest off the queue: the event content as
 * JSON for the caller to free, or NULL if nothing waits. The content is
 * an m.notice with format.h's plain `body` (the lines joined by '\n'),
 * `format` org.matrix.custom.html and `formatted_body`, and `m.mentions`
 * always: {"user_ids": [...]} for the pills that notify, else {} (so
 * that no client notifies a display name that the body happens to hold).
 */
char *mx_outbox_take(struct mx_outbox *o, const char *dest);

/* A number in the order of the queue's lines, for something else that
 * waits beside them (smaller: earlier). */
uint64_t mx_outbox_tick(struct mx_outbox *o);

/* Renames a destination's lines (a person's, once their direct room is
 * known) onto another, after what waits there already; the urgency of
 * both is kept (the more urgent priority, the older line). */
void mx_outbox_move(struct mx_outbox *o, const char *from, const char *to);

/* Drops what waits for dest. */
void mx_outbox_drop(struct mx_outbox *o, const char *dest);

#endif
