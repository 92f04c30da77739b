/*
 * The IRC adapter's output (ircad.h): lines go into the out-queue
 * (queue.h) keyed by their destination, and out to the link as the token
 * bucket, the lag-driven pacing (flood.h) and the connection's buffer
 * allow, on the next loop round, never from inside the library's parser.
 * Before registration only protocol lines go; once stopping, the QUIT
 * goes last.
 */
#ifndef HEARTS_IRC_OUTPUT_H
#define HEARTS_IRC_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "adapters/irc/queue.h"
#include "bot/common/chat.h"

struct ircad;

/* Pumps on the next loop round (while there is a link). */
void ircad_out_kick(struct ircad *a);

/* Queues one finished line for `target` (NULL for protocol lines); a full
 * queue is logged. */
void ircad_out_push_to(struct ircad *a, enum ircad_prio prio,
                       const char *target, const char *line);

/* Queues a protocol line. */
void ircad_out_push(struct ircad *a, enum ircad_prio prio, const char *line);

/* Queues `text` for a channel or a person as PRIVMSGs, sanitized and split
 * (split.h); counts the lines in a->pushed. Nothing once stopping. */
void ircad_out_text(struct ircad *a, const char *target, const char *text,
                    enum chat_priority prio);
/* The same as NOTICEs: in the person's queue, in order with their
 * PRIVMSGs. */
void ircad_out_notice(struct ircad *a, const char *target, const char *text,
                      enum chat_priority prio);

/* Drops what waits for a person who left (QUIT, or the last channel the
 * bot shares with them): under that nick it may reach someone else, and
 * the bot would not see where they went. `why` is for the log. */
void ircad_out_drop_person(struct ircad *a, const char *nick, const char *why);

/* A person changed nick: what waits for them follows them. What still
 * waits for the new nick was made for someone who held it before and
 * left it unseen (the server let this person take it): it is dropped,
 * never delivered to the new holder. */
void ircad_out_follow_nick(struct ircad *a, const char *from, const char *to);

/* The queue dropped a tracked line (its cap, a clear): it will never be
 * written, so whoever waits for it stops waiting, on the next round.
 * `ctx` is the struct ircad (the queue's dropped handler). */
void ircad_out_dropped(void *ctx, uint64_t cookie);

/* The bucket's interval, as the pacing decides; logged when it moves. */
void ircad_out_set_interval(struct ircad *a, int64_t ms);

/* The connection's output buffer has room again: pumps. `ctx` is the
 * struct ircad. */
void ircad_out_drain(void *ctx);

/* Sends the QUIT (a->quit_line) and closes. Without `force` it waits for
 * room in the connection's buffer (the drain handler pumps again); with
 * it, it makes room by writing the buffer out, and closes even if the
 * QUIT cannot go. */
void ircad_out_quit(struct ircad *a, bool force);

/* The end of a stop: timers cancelled, the queue and the QUIT dropped,
 * ST_STOPPED. */
void ircad_out_finish_stop(struct ircad *a);

#endif
