/*
 * A Matrix adapter for the unit tests of its files, never started: no
 * server is asked anything (calls wait for a token that never comes, and
 * the loop never runs), so what a file decides can be looked at in
 * struct mx_adapter (matrix_internal.h) and in the events it reports.
 */
#ifndef HEARTS_TEST_MX_FIXTURE_H
#define HEARTS_TEST_MX_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/matrix_adapter.h"
#include "adapters/matrix/matrix_internal.h"
#include "adapters/matrix/sync.h"
#include "bot/common/loop.h"
#include "bot/common/xalloc.h"

#define FX_EVENTS 32

struct fx_event {
    enum chat_event_kind kind;
    char *room, *nick, *id, *display, *text, *target;
    uint64_t cookie;
};

struct fx {
    struct loop *loop;
    struct mx_adapter *a;
    struct fx_event ev[FX_EVENTS];
    int nev;
};

static inline char *fx_dup(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static inline void fx_on_event(void *ctx, struct chat_adapter *ad,
                               const struct chat_event *ev)
{
    (void)ad;
    struct fx *f = ctx;
    if (f->nev == FX_EVENTS)
        return;
    f->ev[f->nev++] = (struct fx_event){.kind = ev->kind,
                                        .room = fx_dup(ev->room),
                                        .nick = fx_dup(ev->from.nick),
                                        .id = fx_dup(ev->from.id),
                                        .display = fx_dup(ev->from.display),
                                        .text = fx_dup(ev->text),
                                        .target = fx_dup(ev->target),
                                        .cookie = ev->cookie};
}

static inline void fx_clear(struct fx *f)
{
    for (int i = 0; i < f->nev; i++) {
        free(f->ev[i].room);
        free(f->ev[i].nick);
        free(f->ev[i].id);
        free(f->ev[i].display);
        free(f->ev[i].text);
        free(f->ev[i].target);
    }
    f->nev = 0;
}

/* An adapter for @bot:hs with the configured rooms `rooms` (NULL-ended:
 * IDs or aliases), never started. */
static inline void fx_init(struct fx *f, const char *const *rooms)
{
    memset(f, 0, sizeof *f);
    f->loop = loop_new();
    struct protocol_room ch[8];
    int n = 0;
    for (; rooms && rooms[n] && n < 8; n++)
        ch[n] = (struct protocol_room){.name = (char *)rooms[n],
                                        .rules = (char *)"standard"};
    struct matrix_config cfg = {.name = (char *)"mx",
                                .homeserver = (char *)"http://127.0.0.1:9",
                                .user_id = (char *)"@bot:hs",
                                .password = (char *)"",
                                .access_token = (char *)"",
                                .device_id = (char *)"",
                                .rooms = n ? ch : NULL,
                                .nrooms = n,
                                .auto_join_invites = true,
                                .rejoin_delay_ms = 1000};
    f->a = (struct mx_adapter *)mx_adapter_new(f->loop, &cfg, NULL, fx_on_event,
                                               f);
}

static inline void fx_free(struct fx *f)
{
    f->a->base.ops->free(&f->a->base);
    loop_free(f->loop);
    fx_clear(f);
}

/* An item of a sync, its strings lent. */
static inline struct mx_item fx_item(enum mx_item_kind kind, const char *room,
                                     const char *sender)
{
    return (struct mx_item){
        .kind = kind, .room = (char *)room, .sender = (char *)sender};
}

#endif
