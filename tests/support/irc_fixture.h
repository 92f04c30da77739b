/*
 * A scripted IRC server in the test's own process, and the fixture the
 * IRC adapter's tests share (tests/unit/adapters/irc/test_*.c): a
 * listening socket on 127.0.0.1 (or ::1) on the test's loop, answering
 * registration, CAP, USERHOST, JOIN and PING the way a server does and
 * recording every line it receives; an adapter made from a config that
 * points at it; and the events the adapter hands up, recorded.
 */
#ifndef HEARTS_TESTS_IRC_FIXTURE_H
#define HEARTS_TESTS_IRC_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/irc/irc_adapter.h"
#include "bot/common/loop.h"
#include "adapters/irc/irc_config.h"

#define IRCFX_MAX_LINES 512

struct ircfx_server {
    struct loop *l;
    int lfd, cfd;
    int port;
    int accepts;
    char buf[4096];
    size_t len;
    char *lines[IRCFX_MAX_LINES]; /* every line received, all connections */
    int nlines;
    /* per connection */
    bool have_nick, have_user, registered;
    bool capping; /* CAP LS answered, CAP END not yet seen */
    char nick[64];
    /* behaviour */
    int taken;            /* refuse this many NICKs before registration */
    bool ignore_ping;     /* do not answer PING */
    bool grant_nick;      /* accept a NICK change after registration */
    const char *isupport; /* the 005 tokens */
    const char *version;  /* the software 002 and 004 name, if any */
    int pong_delay_ms;    /* answer PING this late */
    const char *known[8]; /* USERHOST answers: "nick=+user@host" */
    const char *caps;     /* offered in CAP LS, every REQ acknowledged;
                             NULL: no CAP (like ngircd before 27) */
    char pong_due[64];    /* the PONG waiting for its delay */
};

/* Sends one line (CR LF added) to the connected client, if any. */
__attribute__((format(printf, 2, 3))) void
ircfx_srv_send(struct ircfx_server *s, const char *fmt, ...);

/* Closes the client's connection (the server stays up). */
void ircfx_srv_drop_client(struct ircfx_server *s);

/* Listens on 127.0.0.1, or on ::1 with v6; false if that is impossible
 * here (no IPv6). */
bool ircfx_srv_start(struct ircfx_server *s, struct loop *l, bool v6);

/* Closes the client and the listener; frees the recorded lines. */
void ircfx_srv_stop(struct ircfx_server *s);

/* The index of the first line starting with `prefix` from `from` on, or
 * -1. */
int ircfx_srv_find(const struct ircfx_server *s, const char *prefix, int from);

/* How many lines start with `prefix`. */
int ircfx_srv_count(const struct ircfx_server *s, const char *prefix);

struct ircfx_event {
    enum chat_event_kind kind;
    char room[64], nick[64], id[128], text[512], target[64], account[128];
    bool has_room, has_id;
    uint64_t cookie;
};

struct ircfx {
    struct loop *l;
    struct ircfx_server srv;
    struct chat_adapter *a;
    struct protocol_room chans[2];
    struct irc_config cfg;
    struct ircfx_event ev[128];
    int nev;
    bool (*done)(struct ircfx *);
    int64_t deadline;
    uint64_t t_check;
    /* said once into the adapter when DISCONNECTED arrives */
    const char *say_on_disconnect;
};

/* The adapter's event handler: records the event in f->ev (ctx is f). */
void ircfx_on_event(void *ctx, struct chat_adapter *a,
                    const struct chat_event *ev);

/* How many events of `kind` were recorded. */
int ircfx_count_events(const struct ircfx *f, enum chat_event_kind kind);

/* Runs the loop until done(f) or `ms` pass; returns done(f). */
bool ircfx_run_until(struct ircfx *f, bool (*done)(struct ircfx *), int64_t ms);

/* A done() that never is: runs the loop for the whole time. */
bool ircfx_never(struct ircfx *f);

/* Timings for tests: short register and backoff, long keep-alive. */
extern const struct ircad_timing ircfx_fast;

/* The fixture; false (and nothing to free) if the server cannot listen
 * on the asked family. */
bool ircfx_init_family(struct ircfx *f, bool v6);

/* The fixture on 127.0.0.1 (fails the test if it cannot listen). */
void ircfx_init(struct ircfx *f);

/* Makes the adapter from f->cfg, with timings t (NULL: ircfx_fast). */
void ircfx_make(struct ircfx *f, const struct ircad_timing *t);

/* Frees the adapter, the server and the loop. */
void ircfx_free(struct ircfx *f);

/* Makes the adapter from f->cfg (as the test set it after ircfx_init),
 * with the default timings, starts it and waits until it registered. */
void ircfx_start(struct ircfx *f);

/* The fixture with the default config and timings, started and
 * registered. */
void ircfx_up(struct ircfx *f);

/* CONNECTED arrived and the server saw a JOIN. */
bool ircfx_connected(struct ircfx *f);

/* A PRIVMSG "end" arrived (tests send it last). */
bool ircfx_saw_end(struct ircfx *f);

/* Two CHAT_IDENTITY events arrived. */
bool ircfx_two_identities(struct ircfx *f);

/* Bytes as they are: no CR LF added, NUL allowed. */
void ircfx_srv_send_raw(struct ircfx_server *s, const void *data, size_t len);

#endif
