/*
 * The out-queue of one IRC network: finished lines in four priorities and
 * one FIFO per destination, a token bucket that paces them against the server's
 * flood control, and a cap on the bytes waiting. Pure: the clock is passed in
 * and sending goes through a callback, so it is tested with a fake clock and a
 * fake connection (tests/unit/adapters/irc/test_queue.c).
 *
 * Default pacing: a burst of 4 lines, then one line every 1100 ms; the lag
 * may bring the interval down to a floor that depends on the server
 * (flood.h).
 *
 * - ngIRCd (26, conn.c): a user's commands are parsed at most 3 per pass;
 *   when more are waiting, or once the client has sent 256 bytes within one
 *   wall-clock second, it stops reading that client for 1 s (penalties add
 *   up, and an error reply such as ERR_NOSUCHNICK adds 2 s). Nothing is
 *   lost, output only slows, unless the unparsed input reaches its read
 *   buffer (2048 bytes), which disconnects the client. Four of our lines are
 *   at most 4 * 412 = 1648 bytes, below 2048; after the burst, one line per
 *   1.1 s stays just behind its one-line-per-second pace for lines over 256
 *   bytes, so no backlog builds up on the server.
 * - InspIRCd (3 and 4, default <connect> class): threshold 10 penalty
 *   points, commandrate 1000 (one command per second), fakelag on, recvq 8
 *   KiB. 4 lines then 1 per 1.1 s never reaches the threshold.
 * - Ergo (default fakelag): burst-limit 5, then 2 messages per 1 s window.
 *   4 then about 0.9 per second is below both.
 *
 * The byte cap (256 KiB) bounds memory while the network is away: at 1.1 s
 * a line it is already minutes of talk, so beyond it LOW lines (long help)
 * go first, then a new line is refused rather than reordering older ones.
 */
#ifndef HEARTS_IRC_QUEUE_H
#define HEARTS_IRC_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/common/bucket.h"

#define IRCAD_FLOOD_BURST 4
#define IRCAD_FLOOD_INTERVAL_MS 1100
#define IRCAD_QUEUE_MAX_BYTES (256 * 1024)

/* URGENT: protocol lines of the current connection (keep-alive PING, NICK,
 * JOIN, IDENTIFY); they go first and are dropped on disconnect. The other
 * three are chat.h's priorities. */
enum ircad_prio { IRCAD_URGENT, IRCAD_HIGH, IRCAD_NORMAL, IRCAD_LOW };
#define IRCAD_NPRIO 4

struct ircad_qline;
struct ircad_qtarget;

/*
 * The chat lines wait in one FIFO per destination (a channel or a nick,
 * by the key the caller gives: the name casefolded), so lines to the same
 * destination never overtake each other whatever their priorities: a deal
 * queued before a prompt to the same person arrives first. Across
 * destinations the sender picks by rank and round-robin:
 *
 *   rank = IRCAD_FAIR_TURN * (best priority waiting in the FIFO)
 *          - (chat lines sent to others since it was last served)
 *
 * the lowest rank first, ties to the destination served longest ago. So a
 * destination with a prompt waiting goes before one with only channel
 * lines, but a channel line waits at most IRCAD_FAIR_TURN lines of higher
 * priority, chatter (LOW) twice that, and many destinations of one
 * priority (one person's flood of replies, one busy table) share the
 * output line by line instead of one starving the others.
 */
struct ircad_queue {
    /* every line by level in the order pushed (URGENT: its only FIFO) */
    struct {
        struct ircad_qline *head, *tail;
    } lv[IRCAD_NPRIO];
    /* the destinations with lines waiting, in round-robin order */
    struct ircad_qtarget *rr_head, *rr_tail;
    struct ircad_qline *last; /* the line pushed last, if still queued */
    size_t lines;
    size_t bytes;
    size_t max_bytes;
    uint64_t seq; /* lines pushed so far */
    struct bucket bucket;
    /* called with the cookie of a line the cap or a clear drops */
    void (*dropped)(void *ctx, uint64_t cookie);
    void *dropped_ctx;
};

/* How many chat lines of a better priority may go ahead of a waiting
 * destination per level of difference. */
#define IRCAD_FAIR_TURN 4

/* An empty queue with a full bucket. */
void ircad_queue_init(struct ircad_queue *q, int burst, int64_t interval_ms,
                      size_t max_bytes, int64_t now);

/* Drops every line (the queue stays usable). */
void ircad_queue_clear(struct ircad_queue *q);

/* Drops the lines of one priority. */
void ircad_queue_clear_prio(struct ircad_queue *q, enum ircad_prio prio);

/* Drops the lines of every destination for which drop(ctx, key) says
 * true (tagged ones are reported to `dropped`). */
void ircad_queue_clear_targets(struct ircad_queue *q,
                               bool (*drop)(void *ctx, const char *key),
                               void *ctx);

/* Drops the lines waiting for destination `target` (tagged ones are
 * reported to `dropped`): its person left, nobody may read them under
 * that name. Returns how many were dropped. */
size_t ircad_queue_drop_target(struct ircad_queue *q, const char *target);

/*
 * The lines waiting for destination `from` now wait for `to` (a person
 * changed nick): each is rewritten to be addressed to `name` (its second
 * word, "PRIVMSG <name> :..."), keeps its priority and tag, and goes into
 * the FIFO of `to` in the order all lines were pushed, merged with any
 * already there; the destination keeps its turn in the round (the older
 * claim if both had one). A line with no name to rewrite is dropped (and
 * reported). `name` must be non-empty without space; the rewritten lines
 * may exceed the byte cap by the names' difference. `from` equal to `to`
 * renames in place (a change of case). Returns how many lines wait for
 * `to` now (0 if none waited for `from`).
 */
size_t ircad_queue_retarget(struct ircad_queue *q, const char *from,
                            const char *to, const char *name);

/*
 * Appends a copy of `line` (no CR LF) to the FIFO of `target` (any string
 * that names the destination, e.g. its casefolded name; ignored for
 * URGENT, which has a FIFO of its own). URGENT lines are always taken.
 * Otherwise, past max_bytes, the newest lines of lower priorities than
 * `prio` are dropped, lowest first; if that is not enough the line is
 * refused. Returns how many older lines were dropped, or -1 if the line
 * was refused.
 */
int ircad_queue_push(struct ircad_queue *q, enum ircad_prio prio,
                     const char *target, const char *line);

/* Gives the line pushed last (if it was taken and is still queued) a
 * cookie that ircad_queue_flush reports once the line is sent; `whole`:
 * the line is the whole of a text (so that retracting it takes back the
 * text). Returns whether there was such a line. */
bool ircad_queue_tag_last(struct ircad_queue *q, uint64_t cookie, bool whole);

/* Takes back the line tagged `cookie` if it is still waiting and is a
 * whole text: it is dropped without a report. Returns whether it was. */
bool ircad_queue_retract(struct ircad_queue *q, uint64_t cookie);

/* The next line to send (protocol lines only unless `chat`), or NULL;
 * ircad_queue_flush sends and removes it. */
const char *ircad_queue_front(const struct ircad_queue *q, bool chat);

bool ircad_queue_empty(const struct ircad_queue *q);

/* Lines waiting for one destination (0 if none). */
size_t ircad_queue_pending(const struct ircad_queue *q, const char *target);

/* Sends one line: IRCAD_SENT, IRCAD_FULL (the connection's buffer is
 * full: keep the line, retry when it drains), or IRCAD_SEND_ERROR. */
enum { IRCAD_SENT = 0, IRCAD_FULL = 1, IRCAD_SEND_ERROR = -1 };
typedef int (*ircad_send_fn)(void *ctx, const char *line);
/* A line with a cookie was sent (called after it left the queue). */
typedef void (*ircad_sent_fn)(void *ctx, uint64_t cookie);

/* Why ircad_queue_flush stopped. */
enum ircad_flush {
    IRCAD_FLUSH_EMPTY, /* nothing left that may go */
    IRCAD_FLUSH_WAIT,  /* out of tokens: call again after *wait_ms */
    IRCAD_FLUSH_FULL,  /* the connection's buffer is full */
    IRCAD_FLUSH_ERROR  /* send failed */
};

/*
 * Sends lines (protocol lines only unless `chat`) in the queue's order,
 * one token each, while tokens last and `send` accepts them. A line that
 * `send` does not take stays at the front and costs no token, so order
 * survives a full buffer. `sent` (may be NULL) hears of each tagged line.
 */
enum ircad_flush ircad_queue_flush(struct ircad_queue *q, int64_t now,
                                   bool chat, ircad_send_fn send,
                                   ircad_sent_fn sent, void *ctx,
                                   int64_t *wait_ms);

#endif
