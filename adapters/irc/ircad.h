/*
 * The IRC adapter's state, shared by the files that make the adapter
 * (irc_adapter.h is what the rest of the bot sees): the struct, its
 * states, and the few helpers every part uses (timers, events, who we
 * are). Nothing outside adapters/irc/ and its tests includes this.
 *
 * The parts, each calling only the ones before it:
 *   ircad.c     these helpers
 *   output.c    the out-queue: pushing lines, pumping them to the link,
 *               the QUIT of a stop
 *   link.c      the connection's life: connect, keep-alive, loss,
 *               reconnect with backoff
 *   channels.c  channels and their members: joins, kicks, rejoins, who
 *               is logged in to which services account
 *   invites.c   INVITE: who may move the bot into a channel, asked of the
 *               server (WHOIS) without joining first
 *   identity.c  registration, our nick (alternatives, regain), NickServ,
 *               USERHOST questions, the server's software and features
 *   inbound.c   the command table: each line from the server to its
 *               handlers; messages from people
 *   adapter.c   the chat_adapter ops and construction
 *
 * Strings from a line live only during its handler; events hand them on
 * for the duration of the manager's callback and nothing is kept.
 */
#ifndef HEARTS_IRC_IRCAD_H
#define HEARTS_IRC_IRCAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/irc/accounts.h"
#include "adapters/irc/backoff.h"
#include "adapters/irc/connection.h"
#include "adapters/irc/flood.h"
#include "adapters/irc/irc_config.h"
#include "adapters/irc/timing.h"
#include "bot/common/chat.h"
#include "bot/common/loop.h"
#include "adapters/irc/isupport.h"
#include "adapters/irc/queue.h"
#include "bot/common/random.h"

#define NICK_MAX 64
#define ID_MAX 256
/* USERHOST questions in flight at most (one nick each). */
#define QUERY_MAX 256
/* An account handed to the manager at most (bytes, NUL included). */
#define ACCOUNT_MAX 128
/* Channels the bot is in at most on one network, configured and invited
 * (the accounts tracker numbers them 0..63). */
#define CHANNELS_MAX 64
/* The longest channel name the bot joins (bytes, NUL not included). */
#define CHANNEL_NAME_MAX 50
/* WHOIS questions about inviters in flight at most. */
#define INVITE_ASKS_MAX 4

/* Who may /invite the bot into a channel ([[irc]] invites). */
enum invite_policy {
    INVITES_OFF,   /* nobody */
    INVITES_OPS,   /* a channel operator there, or a bot admin */
    INVITES_ADMINS /* a bot admin */
};

/* An inviter the bot asked the server about (WHOIS): are they an
 * operator of `room`? RPL_WHOISCHANNELS (319) says, RPL_ENDOFWHOIS (318)
 * ends the answer. */
struct invite_ask {
    bool leave; /* for a !part (CHAT_OPERATOR), not an invite */
    char nick[NICK_MAX];
    char id[ID_MAX];
    char room[CHANNEL_NAME_MAX + 1];
    bool op;       /* a 319 showed them op or higher there */
    int64_t asked; /* when (a question unanswered for long is dropped) */
};

/* Why we asked the server who someone is (USERHOST, answered in order). */
enum query_kind {
    Q_SERVICES, /* is NickServ the services client the config names? */
    Q_VERIFY    /* the manager asked (verify): answer with CHAT_IDENTITY */
};

struct query {
    enum query_kind kind;
    char nick[NICK_MAX];
};

enum state {
    ST_IDLE,       /* made, not started */
    ST_CONNECTING, /* TCP and registration */
    ST_REGISTERED, /* 001 seen: in business */
    ST_WAITING,    /* between connections, the reconnect timer runs */
    ST_STOPPING,   /* stop() was called: the queue drains, then QUIT */
    ST_STOPPED     /* done: nothing more happens */
};

struct ircad {
    struct chat_adapter base; /* first: the ops get &base */
    struct loop *loop;
    char *name, *host, *nick, *username, *realname, *password, *nickserv;
    char *ns_account;    /* the account IDENTIFY names */
    char *services_mask; /* who NickServ must be */
    bool tls, tls_verify;
    char *tls_ca, *tls_cert, *tls_key;
    enum ircad_sasl_mech sasl_mech;
    char *sasl_user, *sasl_pass;
    bool sasl_required;
    bool answer_notice; /* answers to channel commands by NOTICE */
    char *test_resolve; /* ircad_set_test_resolve, NULL */
    int pushed;         /* lines one text became (op_tell_tracked) */
    int port;
    char **channels;
    bool *kicked;  /* per channel: rejoin when t_rejoin fires */
    bool *joined;  /* per channel: we are in it */
    bool *invited; /* per channel: joined by an invite (remembered) */
    bool *dropped; /* per channel: left by a !part; its number stays */
    int nchannels, capchannels;
    enum invite_policy invites;
    struct invite_ask asks[INVITE_ASKS_MAX];
    int nasks;
    struct bucket invite_rate; /* invites answered at all */
    char *data_dir;            /* the bot's ("": invites are not remembered) */
    bool remembered_bad;       /* its file was refused: never overwritten */
    bool bot_mode_set;         /* this connection: MODE +<BOT> sent */
    int flood_burst;
    int64_t flood_interval_ms;
    struct ircad_flood pace; /* the interval follows the server's lag */
    int64_t floor_cfg;       /* flood_min_interval_ms; 0: by the server */
    bool server_seen;        /* this connection's server is identified */
    struct ircad_timing t;
    bool unusable; /* the config cannot work: start refuses */
    /* where the link hands each line from the server (inbound.c) */
    void (*on_line)(void *ctx, const struct ircad_msg *m);

    struct ircad_queue q;
    struct bucket ctcp;
    struct ircad_backoff backoff;
    struct random_state rng; /* the digits of alternative nicks */

    enum state state;
    struct ircad_conn *conn;
    struct ircad_isupport isup;
    char cur_nick[NICK_MAX];
    unsigned nick_attempt;
    size_t nick_maxlen;
    int64_t conn_started;
    int64_t ping_sent;  /* when our keep-alive PING was queued, 0: none */
    int64_t last_alive; /* the last PONG to a PING of ours (or 001) */
    unsigned ka_token;  /* the keep-alive PING's token: "ka<n>" */
    char *quit_line;    /* while stopping: the QUIT to send last */
    struct query queries[QUERY_MAX]; /* a ring, oldest at qhead */
    int qhead, nqueries;
    /* cookies of tracked lines the queue dropped: reported as CHAT_SENT
     * on the next round, never from inside the manager's call */
    uint64_t *late;
    size_t nlate, caplate;
    /* who is logged in to which services account (accounts.h), and the
     * account the events of the line being handled carry ("": none) */
    struct ircad_accounts accts;
    char ev_account[ACCOUNT_MAX];

    uint64_t t_kick, t_refill, t_keepalive, t_reconnect, t_regain, t_rejoin;
    uint64_t t_stop;
};

/* Cancels the timer *id (if armed) and zeroes it. */
void ircad_cancel(struct ircad *a, uint64_t *id);

/* Cancels every timer. */
void ircad_cancel_all(struct ircad *a);

/* stop() was called: no events, no new lines. */
bool ircad_stopping(const struct ircad *a);

/* Hands an event to the manager (not once stopping); a person's event
 * carries the line's account (ev_account). */
void ircad_emit(struct ircad *a, enum chat_event_kind kind, const char *room,
                const char *nick, const char *id, const char *text,
                const char *target);

/* CHAT_SENT for a tracked line. */
void ircad_emit_sent(struct ircad *a, uint64_t cookie);

/* Whether `nick` is the nick we have now (under the server's mapping). */
bool ircad_is_me(const struct ircad *a, const char *nick);

/* The sender of a message, as nick (NICK_MAX) and "user@host" (ID_MAX);
 * -1 if the origin is a server or malformed (then it is not a person we
 * talk to). */
int ircad_sender(const struct ircad_msg *m, char *nick, char *id);

/* Whether a queue key (a casefolded target) is a person, not a channel.
 * `ctx` is the struct ircad. */
bool ircad_is_person(void *ctx, const char *key);

#endif
