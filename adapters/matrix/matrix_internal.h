/*
 * Inside the Matrix adapter (matrix_adapter.h): the state every one of
 * its files shares, one struct per [[matrix]] account, and the few
 * helpers all of them use. Only the adapter's own files include it.
 *
 * The files, one concern each (each with its header), from the top
 * down: each includes only the headers of the files below it, and the
 * few calls up go through struct mx_hooks.
 *   adapter.c     the chat_adapter ops table, start, stop, free; the hooks
 *   sync_loop.c   the start sequence and the /sync long-poll
 *   appservice.c  the application-service mode: transactions pushed
 *   login.c       the session file, the password login, the device keys
 *   items.c       what each event of a sync or transaction does
 *   send.c        the out-queue: routing lines, the pacer, what goes next
 *   names.c       display names, and a room's members, name and alias
 *   direct.c      people's direct rooms: found, checked, made, dropped;
 *                 the bot's m.direct account data: read, merged, written
 *   joins.c       the configured rooms: joins, kicks, rejoins
 *   calls.c       every request as a call; the retry policy in one place
 *   report.c      events to the bot, the answers given from a timer, and
 *                 a room's notice said once
 *   wire.c, strset.c   small pure helpers
 * The parsers and stores they use: http, sync, retry, pace, session,
 * outbox, members, rooms, listen, registration, format.
 */
#ifndef HEARTS_MX_INTERNAL_H
#define HEARTS_MX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/matrix/pace.h"
#include "adapters/matrix/registration.h"
#include "adapters/matrix/retry.h"
#include "adapters/matrix/session.h"
#include "bot/common/bucket.h"
#include "bot/common/chat.h"
#include "bot/common/loop.h"
#include "adapters/matrix/matrix_config.h"

/* The client-server API's prefix. */
#define MX_API "/_matrix/client/v3"

/* Message event IDs remembered against a homeserver that pushes one
 * twice in two transactions. */
#define MX_AS_RECENT 256

struct mx_call;     /* calls.h */
struct mx_cfg_room; /* joins.h */
struct mx_dm;       /* direct.h */
struct mx_want;     /* direct.h */
struct mx_hold;     /* names.h */
struct mx_http;     /* http.h */
struct mx_outbox;   /* outbox.h */
struct mx_members;  /* members.h */
struct mx_rooms;    /* rooms.h */
struct mx_listen;   /* listen.h */
struct mx_request;  /* listen.h */
struct mx_item;     /* sync.h */
struct mx_adapter;

/* What a file calls in a file above it, set by mx_adapter_new (as
 * Redis's ae and networking hand each other callbacks): every file
 * includes only the headers of the files below it. */
struct mx_hooks {
    /* calls.c, the token refused: log in again (login.c) */
    void (*login)(struct mx_adapter *a);
    /* login.c and appservice.c, a token there: the start goes on
     * (mx_begin, sync_loop.c) */
    void (*begin)(struct mx_adapter *a);
    /* joins.c and direct.c, a join or the m.direct read answered:
     * the first sync, unless something else holds it (sync_loop.c) */
    void (*first_sync)(struct mx_adapter *a);
    /* names.c, a held event let go: what it does (items.c) */
    void (*item)(struct mx_adapter *a, const struct mx_item *it);
};

/* Invites acted on for rooms outside the config: a burst of 10, then one
 * every 10 s (a table's four people opening direct chats at once fit). */
#define MX_INVITE_BURST 10
#define MX_INVITE_INTERVAL_MS 10000

struct mx_adapter {
    struct chat_adapter base;
    struct mx_hooks hooks;
    struct loop *loop;
    struct mx_http *http;
    struct matrix_config cfg; /* strings owned */
    char *session_path;       /* NULL: nothing kept */
    char *session_dir;
    char *data_dir;
    char *base_url;
    struct mx_session s;
    struct mx_txn txn;
    char *token; /* in use */
    int64_t retry_base_ms, retry_cap_ms;
    uint64_t seed;

    struct mx_call *calls;
    struct mx_call *sync;
    char *good_since; /* a since the server last answered well */
    uint64_t sync_timer;
    struct mx_retry sync_retry;
    bool started, stopped, connected, logging_in;
    bool first_sync_done;
    bool direct_known; /* m.direct read: a missing direct room is made */
    bool direct_busy;  /* an m.direct read and write in flight */
    bool direct_again; /* another direct room to record after it */
    struct mx_cfg_room *rooms; /* cfg.nrooms */
    int joins_pending;         /* the first sync waits for the rooms' joins */
    bool told_limited;         /* the note on rate limits is in the log */
    struct mx_pace pace;       /* the homeserver's rate limit, as learned */
    uint64_t pace_timer;       /* the queue's next turn */
    int64_t pace_timer_at;

    struct mx_outbox *out;
    char **sending; /* rooms with a message in flight */
    size_t nsending;
    char **creating; /* people whose direct room is being created */
    size_t ncreating;
    struct mx_dm *dms;
    size_t ndms;
    struct mx_want *wants;
    size_t nwants;
    char **dead; /* rooms that are no direct room any more: not taken from
                    m.direct again, and taken out of it */
    size_t ndead;
    char **made; /* rooms the bot created, not (yet) anyone's direct room */
    size_t nmade;
    /* the invites acted on (joined or declined), for rooms not in the
     * config: beyond it an invite is left unanswered (items.c) */
    struct bucket invite_rate;
    char **warn_joined; /* encrypted direct rooms to say so in, once joined */
    size_t nwarn_joined;
    uint64_t await_timer;
    char **joins_seen; /* "room user": joins in rooms not (yet) known as
                          direct, the last JOINS_SEEN_MAX */
    size_t njoins_seen;
    char **warned; /* rooms told about encryption */
    size_t nwarned;
    struct mx_members *members; /* display names per room (members.h) */
    struct mx_rooms *facts;     /* names, creators, encryption (rooms.h) */
    char **fetching;            /* "room user": member events being fetched */
    size_t nfetching;
    char **fetched; /* rooms whose members, name and alias were asked for */
    size_t nfetched;
    struct mx_hold *holds; /* rooms whose events wait for that answer */
    size_t nholds;
    uint64_t hold_timer;

    /* answers to the ops, given from a timer (never from inside an op) */
    uint64_t *reports; /* CHAT_SENT cookies */
    size_t nreports;
    char **verifies; /* CHAT_IDENTITY questions */
    size_t nverifies;
    char **left; /* people last seen leaving a room (verify: gone) */
    size_t nleft;
    uint64_t answer_timer;

    /* application-service mode */
    struct mx_registration reg;
    struct mx_listen *listen;
    struct mx_request **txq; /* transactions that wait for the start */
    size_t ntxq;
    char *recent[MX_AS_RECENT]; /* the last message events handled */
    size_t nrecent;
};

/* (Re)arms *timer to call fn(a) at loop time `when` (INT64_MAX: never). */
void mx_timer_at(struct mx_adapter *a, uint64_t *timer, int64_t when,
                 loop_timer_fn fn);

#endif
