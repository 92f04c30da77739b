/*
 * What the Matrix adapter tells the bot (report.h).
 */
#include "adapters/matrix/report.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/outbox.h"
#include "adapters/matrix/strset.h"
#include "adapters/matrix/sync.h"
#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"

/* An event from a person (from: their user ID, also the account results
 * count for) shown as `display` (NULL: not known). */
void mx_emit_person(struct mx_adapter *a, enum chat_event_kind kind,
                    const char *room, const char *from, const char *display,
                    const char *text, const char *target)
{
    if (a->stopped)
        return;
    struct chat_event ev = {
        .kind = kind,
        .room = room,
        .from = {.nick = from, .id = from, .account = from, .display = display},
        .text = text,
        .target = target};
    a->base.on_event(a->base.ctx, &a->base, &ev);
}

void mx_emit(struct mx_adapter *a, enum chat_event_kind kind, const char *room,
             const char *from, const char *text, const char *target)
{
    mx_emit_person(a, kind, room, from, NULL, text, target);
}

static void answer(struct loop *l, void *ctx)
{
    (void)l;
    struct mx_adapter *a = ctx;
    a->answer_timer = 0;
    /* taken first: a handler may ask again */
    uint64_t *reports = a->reports;
    size_t nreports = a->nreports;
    char **verifies = a->verifies;
    size_t nverifies = a->nverifies;
    a->reports = NULL;
    a->verifies = NULL;
    a->nreports = a->nverifies = 0;
    for (size_t i = 0; i < nreports; i++) {
        if (a->stopped)
            break;
        struct chat_event ev = {.kind = CHAT_SENT, .cookie = reports[i]};
        a->base.on_event(a->base.ctx, &a->base, &ev);
    }
    /* a Matrix user ID never changes hands: whoever sat down holds it,
     * unless they were last seen leaving a room (no netsplit or lost
     * connection makes anyone leave on Matrix: they meant it) */
    for (size_t i = 0; i < nverifies && !a->stopped; i++) {
        const char *v = verifies[i];
        bool here = mx_is_user_id(v) && !mx_set_has(a->left, a->nleft, v);
        struct chat_event ev = {.kind = CHAT_IDENTITY,
                                .from = {.nick = v, .id = here ? v : NULL}};
        a->base.on_event(a->base.ctx, &a->base, &ev);
    }
    free(reports);
    mx_set_free(verifies, nverifies);
}

static void answer_soon(struct mx_adapter *a)
{
    if (!a->answer_timer)
        a->answer_timer = loop_timer(a->loop, 0, answer, a);
}

/* Tracked texts are sent (or dropped): CHAT_SENT for each, soon. */
void mx_report(struct mx_adapter *a, const uint64_t *cookies, size_t n)
{
    if (a->stopped || n == 0)
        return;
    a->reports = xrealloc(a->reports, (a->nreports + n) * sizeof *a->reports);
    memcpy(a->reports + a->nreports, cookies, n * sizeof *cookies);
    a->nreports += n;
    answer_soon(a);
}

/* Drops what waits for dest, reporting its tracked texts. */
void mx_drop(struct mx_adapter *a, const char *dest)
{
    const uint64_t *cookies;
    mx_outbox_drop(a->out, dest);
    mx_report(a, cookies, mx_outbox_removed(a->out, &cookies));
}

/* Says message id in room once per run (why it is no room for cards), in
 * the adapter's language. */
void mx_say_once(struct mx_adapter *a, const char *room, const char *id)
{
    if (!mx_set_has(a->warned, a->nwarned, room)) {
        mx_set_add(&a->warned, &a->nwarned, room);
        char text[1024];
        struct strbuf sb;
        strbuf_init(&sb, text, sizeof text);
        msg_add(&sb, a->base.lang, id, MSG_END);
        mx_outbox_add(a->out, room, text);
    }
}

/* Asked after a reconnect, and for a seat seen leaving when it is to be
 * told something: answered with the ID itself (see answer). */
void mx_verify(struct chat_adapter *base, const char *nick)
{
    struct mx_adapter *a = (struct mx_adapter *)base;
    if (a->stopped || !nick)
        return;
    a->verifies =
        xrealloc(a->verifies, (a->nverifies + 1) * sizeof *a->verifies);
    a->verifies[a->nverifies++] = xstrdup(nick);
    answer_soon(a);
}
