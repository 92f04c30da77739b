/*
 * The IRC adapter's output: the out-queue to the link (output.h).
 */
#include "adapters/irc/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/irc/ircad.h"
#include "adapters/irc/nick.h"
#include "adapters/irc/split.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"

static void pump(struct ircad *a);

static void on_kick(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_kick = 0;
    /* one at a time off the end: a handler may drop more */
    while (a->nlate > 0)
        ircad_emit_sent(a, a->late[--a->nlate]);
    pump(a);
}

void ircad_out_dropped(void *ctx, uint64_t cookie)
{
    struct ircad *a = ctx;
    if (ircad_stopping(a))
        return; /* no events after stop; and no timer may outlive free */
    if (a->nlate == a->caplate) {
        a->caplate = a->caplate ? 2 * a->caplate : 16;
        a->late = xrealloc(a->late, a->caplate * sizeof *a->late);
    }
    a->late[a->nlate++] = cookie;
    if (!a->t_kick)
        a->t_kick = loop_timer(a->loop, 0, on_kick, a);
}

static void on_sent(void *ctx, uint64_t cookie)
{
    ircad_emit_sent(ctx, cookie);
}

static void on_refill(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_refill = 0;
    pump(a);
}

/* Pumps on the next loop round, so the lines one event queues go out
 * together and never from inside the library's parser. */
void ircad_out_kick(struct ircad *a)
{
    if (a->conn && !a->t_kick)
        a->t_kick = loop_timer(a->loop, 0, on_kick, a);
}

/* The queue's key for a destination: its name casefolded, so "Bob" and
 * "bob" share one FIFO. */
static void target_key(const struct ircad *a, const char *name, char *key,
                       size_t keylen)
{
    ircad_fold(a->isup.casemap, name, key, keylen);
}

void ircad_out_push_to(struct ircad *a, enum ircad_prio prio,
                       const char *target, const char *line)
{
    char key[IRCAD_LINE_MAX];
    target_key(a, target, key, sizeof key);
    int r = ircad_queue_push(&a->q, prio, key, line);
    if (r < 0)
        log_warn("%s: output queue full (%zu bytes): a line was dropped",
                 a->name, a->q.bytes);
    else if (r > 0)
        log_warn("%s: output queue full: dropped %d lower-priority lines",
                 a->name, r);
    ircad_out_kick(a);
}

void ircad_out_push(struct ircad *a, enum ircad_prio prio, const char *line)
{
    ircad_out_push_to(a, prio, NULL, line);
}

void ircad_out_drop_person(struct ircad *a, const char *nick, const char *why)
{
    char key[IRCAD_LINE_MAX];
    target_key(a, nick, key, sizeof key);
    size_t n = ircad_queue_drop_target(&a->q, key);
    if (n)
        log_info("%s: %s %s: %zu line(s) queued for them dropped", a->name,
                 nick, why, n);
}

void ircad_out_follow_nick(struct ircad *a, const char *from, const char *to)
{
    if (!ircad_target_valid(to) || strlen(to) >= NICK_MAX) {
        ircad_out_drop_person(a, from, "took a nick we cannot write to");
        return;
    }
    char kf[IRCAD_LINE_MAX], kt[IRCAD_LINE_MAX];
    target_key(a, from, kf, sizeof kf);
    target_key(a, to, kt, sizeof kt);
    if (strcmp(kf, kt) != 0) {
        size_t stale = ircad_queue_drop_target(&a->q, kt);
        if (stale)
            log_info("%s: %zu line(s) queued for an earlier holder of %s "
                     "dropped",
                     a->name, stale, to);
    }
    size_t n = ircad_queue_retarget(&a->q, kf, kt, to);
    if (n)
        log_debug("%s: %zu queued line(s) for %s now go to %s", a->name, n,
                  from, to);
}

struct push_ctx {
    struct ircad *a;
    enum ircad_prio prio;
    const char *target;
};

static void push_line(void *ctx, const char *line)
{
    struct push_ctx *p = ctx;
    p->a->pushed++;
    ircad_out_push_to(p->a, p->prio, p->target, line);
}

static void out_lines(struct ircad *a, const char *command, const char *target,
                      const char *text, enum chat_priority prio)
{
    if (ircad_stopping(a))
        return;
    struct push_ctx p = {a,
                         prio == CHAT_HIGH     ? IRCAD_HIGH
                         : prio == CHAT_NORMAL ? IRCAD_NORMAL
                                               : IRCAD_LOW,
                         target};
    if (ircad_split(command, target, text, push_line, &p) < 0)
        log_warn("%s: not sending to the invalid target '%s'", a->name,
                 target ? target : "(null)");
}

void ircad_out_text(struct ircad *a, const char *target, const char *text,
                    enum chat_priority prio)
{
    out_lines(a, "PRIVMSG", target, text, prio);
}

void ircad_out_notice(struct ircad *a, const char *target, const char *text,
                      enum chat_priority prio)
{
    out_lines(a, "NOTICE", target, text, prio);
}

void ircad_out_set_interval(struct ircad *a, int64_t ms)
{
    if (a->q.bucket.interval_ms == ms)
        return;
    log_debug("%s: pacing %lld ms a line (lag base %lld ms)", a->name,
              (long long)ms, (long long)a->pace.base_ms);
    a->q.bucket.interval_ms = ms;
}

static int send_line(void *ctx, const char *line)
{
    struct ircad *a = ctx;
    int rc = ircad_conn_send(a->conn, line);
    if (rc == IRCAD_CONN_SENT) {
        if (strncmp(line, "PING :lag", 9) == 0)
            ircad_flood_probe_sent(&a->pace, loop_now(a->loop));
        else if (strncmp(line, "PRIVMSG ", 8) == 0 ||
                 strncmp(line, "NOTICE ", 7) == 0)
            ircad_flood_line_sent(&a->pace);
        /* the NickServ password stays out of the log */
        if (strstr(line, " :IDENTIFY "))
            log_debug("%s -> (IDENTIFY, the password not logged)", a->name);
        else
            log_debug("%s -> %s", a->name, line);
    }
    return rc;
}

void ircad_out_finish_stop(struct ircad *a)
{
    ircad_cancel_all(a);
    a->state = ST_STOPPED;
    ircad_queue_clear(&a->q);
    free(a->quit_line);
    a->quit_line = NULL;
    log_info("%s: stopped", a->name);
}

void ircad_out_quit(struct ircad *a, bool force)
{
    int rc = send_line(a, a->quit_line);
    if (rc == IRCAD_CONN_FULL && force && ircad_conn_flush(a->conn) == 0)
        rc = send_line(a, a->quit_line);
    if (rc == IRCAD_CONN_FULL && !force)
        return;
    if (rc == IRCAD_CONN_SENT)
        bucket_take(&a->q.bucket, loop_now(a->loop));
    ircad_conn_close(a->conn, true);
    a->conn = NULL;
    ircad_out_finish_stop(a);
}

/* Sends what the bucket and the connection allow; before registration
 * only protocol lines may go; when stopping, the QUIT follows the last
 * line. */
static void pump(struct ircad *a)
{
    if (!a->conn)
        return;
    bool up = a->state == ST_REGISTERED || a->state == ST_STOPPING;
    int64_t now = loop_now(a->loop);
    int64_t wait = 0;
    if (a->state == ST_REGISTERED) {
        ircad_flood_tick(&a->pace, now);
        if (ircad_flood_want_probe(&a->pace, now,
                                   ircad_queue_front(&a->q, true) != NULL)) {
            char line[32];
            snprintf(line, sizeof line, "PING :lag%u",
                     ircad_flood_next_token(&a->pace));
            ircad_out_push(a, IRCAD_URGENT, line);
        }
        ircad_out_set_interval(a, a->pace.interval_ms);
    }
    enum ircad_flush r =
        ircad_queue_flush(&a->q, now, up, send_line, on_sent, a, &wait);
    if (r == IRCAD_FLUSH_EMPTY && a->state == ST_STOPPING) {
        wait = bucket_wait(&a->q.bucket, now);
        if (wait == 0) {
            ircad_out_quit(a, false);
            return;
        }
        r = IRCAD_FLUSH_WAIT;
    }
    if (r == IRCAD_FLUSH_WAIT && !a->t_refill)
        a->t_refill = loop_timer(a->loop, wait, on_refill, a);
    /* FULL: the drain handler pumps again; ERROR: the connection is
     * failing and its closed handler follows */
}

void ircad_out_drain(void *ctx)
{
    pump(ctx);
}
