/*
 * The Matrix adapter's out-queue and pacing (send.h).
 *
 * Lines for a room are taken off the out-queue only when their message
 * goes, so everything that waited for a room meanwhile goes as one
 * message. A refusal (429) teaches the pacer and puts the call back in
 * the queue; a room creation, charged twice, waits for two slots and
 * backs off if it is refused again.
 */
#include "adapters/matrix/send.h"

#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/direct.h"
#include "adapters/matrix/joins.h"
#include "adapters/matrix/names.h"
#include "adapters/matrix/outbox.h"
#include "adapters/matrix/report.h"
#include "adapters/matrix/strset.h"
#include "adapters/matrix/sync.h"
#include "adapters/matrix/wire.h"
#include "bot/common/xalloc.h"

static void sent(struct mx_adapter *a, struct mx_call *c, long status,
                 const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    mx_set_del(a->sending, &a->nsending, c->key);
    struct mx_dm *d = mx_dm_of_room(a, c->key);
    if (d && d->awaiting && c->ncookies) {
        /* read once they join: counted as sent then */
        d->held = xrealloc(d->held, (d->nheld + c->ncookies) * sizeof *d->held);
        memcpy(d->held + d->nheld, c->cookies, c->ncookies * sizeof *d->held);
        d->nheld += c->ncookies;
        c->ncookies = 0;
        mx_await_arm(a);
    }
}

static void send_failed(struct mx_adapter *a, struct mx_call *c, long status,
                        const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    mx_set_del(a->sending, &a->nsending, c->key);
}

/* Lines for people whose direct room is ready go into it; a direct room
 * known but not checked is checked; someone without one may have made
 * one (adopt). */
static void route_people(struct mx_adapter *a)
{
    if (!a->direct_known)
        return;
    for (size_t i = 0;;) {
        const char *dest = mx_outbox_dest(a->out, i);
        if (!dest)
            break;
        if (dest[0] == '@' && !mx_dm_find(a, dest) && mx_dm_adopt(a, dest)) {
            i = 0;
            continue;
        }
        struct mx_dm *d = dest[0] == '@' ? mx_dm_find(a, dest) : NULL;
        if (d && d->state == MX_DM_READY) {
            char *user = xstrdup(dest);
            mx_outbox_move(a->out, user, d->room);
            free(user);
            i = 0; /* the list changed */
            continue;
        }
        if (d)
            mx_dm_check(a, d);
        i++;
    }
    for (size_t i = 0; i < a->nwants;) {
        if (!mx_dm_find(a, a->wants[i].user))
            mx_dm_adopt(a, a->wants[i].user);
        struct mx_dm *d = mx_dm_find(a, a->wants[i].user);
        if (d && d->state == MX_DM_READY) {
            mx_want_del(a, a->wants[i].user);
            continue;
        }
        if (d)
            mx_dm_check(a, d);
        i++;
    }
}

/* The longest a room's lines wait behind people's (mx_pick). */
#define MX_ROOM_LAG_MS 60000

/* The order of the queue (smaller first): a person's lines (what they
 * need to act on: a deal, a prompt, the cards they received) before a
 * room's (what everyone reads), and among a person's lines those that
 * are not LOW in the order they came (a deal is NORMAL for IRC's sake,
 * and must not wait behind another's HIGH pass confirmation); then by
 * priority. */
int mx_rank(enum chat_priority prio, bool private)
{
    if (private)
        return prio == CHAT_LOW ? 4 : 0;
    return (int)prio * 2 + 1;
}

static void consider(struct mx_next *n, int kind, struct mx_call *c,
                     const char *dest, int rk, uint64_t seq, int cost)
{
    if (n->kind != MX_NEXT_NONE &&
        (rk > n->rank || (rk == n->rank && seq >= n->seq)))
        return;
    n->kind = kind;
    n->call = c;
    n->dest = dest;
    n->rank = rk;
    n->seq = seq;
    n->cost = cost;
}

/* Whether a message for room may go: none in flight there, the bot in
 * it, and, for a direct room, ready. */
static bool room_open(const struct mx_adapter *a, const char *room)
{
    if (room[0] != '!' || mx_set_has(a->sending, a->nsending, room))
        return false;
    const struct mx_cfg_room *cr = mx_cfg_by_id(a, room);
    const struct mx_dm *d = mx_dm_of_room(a, room);
    return !(cr && cr->out) && !(d && d->state != MX_DM_READY);
}

/* The rank of what waits for dest in the out-queue, into *rk (with the
 * order of its oldest line in *seq), if anything waits there: a room's
 * lines wait behind people's at most MX_ROOM_LAG_MS, so what the table
 * reads stays at most a minute behind under a limit. */
static bool waiting_rank(const struct mx_adapter *a, const char *dest,
                         int64_t now, int *rk, uint64_t *seq)
{
    enum chat_priority prio;
    int64_t since;
    if (!mx_outbox_urgency(a->out, dest, &prio, seq, &since))
        return false;
    bool room = dest[0] != '@' && !mx_dm_of_room(a, dest);
    *rk = mx_rank(prio, !room);
    if (room && now - since >= MX_ROOM_LAG_MS)
        *rk = 0;
    return true;
}

/* The most urgent thing that may start now (the oldest among equals):
 * a queued call, a room's next message, or a direct room to make (one
 * at a time, for someone with lines waiting or sitting down). Nothing
 * starts while something more urgent waits for its turn (a room's
 * message behind the one in flight, a creation behind another): should
 * the homeserver's limit be near, its slots go to what matters first, and
 * what waits meanwhile coalesces. */
void mx_pick(struct mx_adapter *a, int64_t now, struct mx_next *n)
{
    *n = (struct mx_next){.kind = MX_NEXT_NONE};
    int barrier = INT32_MAX;
    uint64_t seq;
    int rk, waiting;
    for (struct mx_call *c = a->calls; c; c = c->next) {
        if (!c->parked)
            continue;
        rk = mx_rank(c->prio, mx_dm_creation(c) || (c->done == sent &&
                                                    mx_dm_of_room(a, c->key)));
        /* a send or a creation is as urgent as the lines that wait
         * behind it (its room's, its person's): else those would hold
         * back the very call they wait for */
        if ((mx_dm_creation(c) || c->done == sent) &&
            waiting_rank(a, c->key, now, &waiting, &seq) && waiting < rk)
            rk = waiting;
        if (c->not_before > now)
            barrier = rk < barrier ? rk : barrier; /* its timer comes */
        else
            consider(n, MX_NEXT_CALL, c, NULL, rk, c->seq, c->cost);
    }
    bool create = a->direct_known && a->ncreating == 0;
    for (size_t i = 0;; i++) {
        const char *dest = mx_outbox_dest(a->out, i);
        if (!dest)
            break;
        if (!waiting_rank(a, dest, now, &rk, &seq))
            continue;
        bool person = dest[0] == '@';
        if (room_open(a, dest))
            consider(n, MX_NEXT_ROOM, NULL, dest, rk, seq, 1);
        else if (person && create && !mx_dm_find(a, dest))
            consider(n, MX_NEXT_CREATE, NULL, dest, rk, seq, 2);
        else if ((person && a->direct_known && !mx_dm_find(a, dest)) ||
                 (dest[0] == '!' && mx_set_has(a->sending, a->nsending, dest)))
            barrier = rk < barrier ? rk : barrier; /* its turn comes */
    }
    for (size_t i = 0; a->direct_known && i < a->nwants; i++) {
        if (mx_dm_find(a, a->wants[i].user))
            continue;
        /* before a room's lines: the deal must not wait for it */
        rk = mx_rank(CHAT_NORMAL, true);
        if (create)
            consider(n, MX_NEXT_CREATE, NULL, a->wants[i].user, rk,
                     a->wants[i].seq, 2);
        else
            barrier = rk < barrier ? rk : barrier;
    }
    if (n->kind != MX_NEXT_NONE && n->rank > barrier)
        n->kind = MX_NEXT_NONE;
}

static void pace_due(struct loop *l, void *ctx)
{
    (void)l;
    struct mx_adapter *a = ctx;
    a->pace_timer = 0;
    mx_pump(a);
}

/* The queue's next turn at `when` (an earlier one stays). */
static void pace_arm(struct mx_adapter *a, int64_t when)
{
    if (a->pace_timer && a->pace_timer_at <= when)
        return;
    loop_cancel(a->loop, a->pace_timer);
    int64_t wait = when - loop_now(a->loop);
    a->pace_timer_at = when;
    a->pace_timer = loop_timer(a->loop, wait > 0 ? wait : 0, pace_due, a);
}

/* Starts what mx_pick chose. */
static void go(struct mx_adapter *a, const struct mx_next *n, bool probe,
               int64_t now)
{
    struct mx_call *c = n->call;
    if (n->kind == MX_NEXT_ROOM) {
        char *room = xstrdup(n->dest);
        char *content = mx_outbox_take(a->out, room);
        const uint64_t *cookies;
        size_t ncookies = mx_outbox_removed(a->out, &cookies);
        char txn[64];
        mx_txn_next(&a->txn, txn, sizeof txn);
        char *r = mx_url_encode(room), *t = mx_url_encode(txn);
        char *path = mx_printf("/rooms/%s/send/m.room.message/%s", r, t);
        free(r);
        free(t);
        mx_set_add(&a->sending, &a->nsending, room);
        c = mx_call_new(a, "PUT", path, content, room, sent, send_failed);
        c->teaches = true;
        mx_call_paced(c, 1, n->rank / 2, n->seq);
        if (ncookies) {
            c->cookies = xcalloc(ncookies, sizeof *c->cookies);
            memcpy(c->cookies, cookies, ncookies * sizeof *cookies);
            c->ncookies = ncookies;
        }
        free(room);
    } else if (n->kind == MX_NEXT_CREATE) {
        c = mx_dm_create(a, n->dest, n->rank / 2, n->seq);
    }
    c->parked = false;
    c->probe = probe;
    c->started = now;
    mx_pace_start(&a->pace, c->cost, probe, now);
    mx_call_send(a, c);
}

/* Starts what may start: everything that may while the homeserver has
 * not limited the bot (a message per room in flight, one creation);
 * after that, one thing at a time, when the pacer says. */
void mx_pump(struct mx_adapter *a)
{
    if (!a->token)
        return;
    route_people(a);
    mx_made_settle(a);
    int64_t now = loop_now(a->loop);
    for (int guard = 0; guard < 100000; guard++) {
        struct mx_next n;
        mx_pick(a, now, &n);
        if (n.kind == MX_NEXT_NONE)
            break;
        int64_t when = mx_pace_when(&a->pace, n.cost, now);
        bool probe = false;
        if (when > now) {
            if (when == INT64_MAX)
                break; /* one under way: its answer comes first */
            if (n.cost == 1 && mx_pace_probe_due(&a->pace, now)) {
                probe = true;
            } else {
                pace_arm(a, when);
                break;
            }
        }
        go(a, &n, probe, now);
    }
    /* a creation backing off goes again at its time */
    int64_t first = INT64_MAX;
    for (struct mx_call *c = a->calls; c; c = c->next)
        if (c->parked && c->not_before > now && c->not_before < first)
            first = c->not_before;
    if (first != INT64_MAX)
        pace_arm(a, first);
}

/* Before every sleep. */
void mx_flush(struct loop *l, void *ctx)
{
    (void)l;
    mx_pump(ctx);
}

/* Where text for a room or a person waits: the room, the person's
 * direct room, or (until that is found, checked or made in mx_pump, once
 * m.direct is known: a restart must not make new rooms for the players
 * of a resumed game) the person; NULL for nowhere. */
const char *mx_destination(const struct mx_adapter *a, const char *to)
{
    const struct mx_cfg_room *r = mx_cfg_by_name(a, to);
    if (!r)
        r = mx_cfg_by_id(a, to);
    if (r && r->lost)
        return NULL;
    if (r)
        return r->id ? r->id : a->cfg.rooms[r->i].name; /* held till joined */
    if (mx_is_room_id(to))
        return to;
    if (!mx_is_user_id(to) || strcmp(to, a->cfg.user_id) == 0)
        return NULL;
    const char *room = mx_dm_room(a, to);
    return room ? room : to;
}

void mx_tell_tracked(struct chat_adapter *base, const char *to,
                     const char *text, enum chat_priority prio, uint64_t cookie)
{
    struct mx_adapter *a = (struct mx_adapter *)base;
    if (a->stopped)
        return;
    const char *dest = to ? mx_destination(a, to) : NULL;
    if (!dest || !text) {
        mx_report(a, &cookie, cookie ? 1 : 0);
        return;
    }
    if (dest[0] == '!' && !mx_dm_of_room(a, dest))
        mx_fetch_room(a, dest, false); /* its name, for direct messages */
    mx_outbox_add_prio(a->out, dest, text, cookie, prio, loop_now(a->loop));
}

void mx_say(struct chat_adapter *base, const char *room, const char *text,
            enum chat_priority prio)
{
    if (room && !mx_is_user_id(room))
        mx_tell_tracked(base, room, text, prio, 0);
}

void mx_tell(struct chat_adapter *base, const char *nick, const char *text,
             enum chat_priority prio)
{
    if (nick && mx_is_user_id(nick))
        mx_tell_tracked(base, nick, text, prio, 0);
}

bool mx_retract(struct chat_adapter *base, uint64_t cookie)
{
    return mx_outbox_retract(((struct mx_adapter *)base)->out, cookie);
}

/* Someone sat down: their direct room is found, checked or made now. */
void mx_prepare(struct chat_adapter *base, const char *nick)
{
    struct mx_adapter *a = (struct mx_adapter *)base;
    if (a->stopped || !mx_is_user_id(nick) || strcmp(nick, a->cfg.user_id) == 0)
        return;
    struct mx_dm *d = mx_dm_find(a, nick);
    if (d) {
        if (a->token)
            mx_dm_check(a, d);
        return;
    }
    for (size_t i = 0; i < a->nwants; i++)
        if (strcmp(a->wants[i].user, nick) == 0)
            return;
    a->wants = xrealloc(a->wants, (a->nwants + 1) * sizeof *a->wants);
    a->wants[a->nwants].user = xstrdup(nick);
    a->wants[a->nwants].seq = mx_outbox_tick(a->out);
    a->nwants++;
}

/* The homeserver rate-limits the bot now (pace.h). */
bool mx_limited(const struct chat_adapter *base)
{
    return ((const struct mx_adapter *)base)->pace.limited;
}

bool mx_send_call(const struct mx_call *c)
{
    return c->done == sent;
}
