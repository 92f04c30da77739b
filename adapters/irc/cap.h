/*
 * IRCv3 capability negotiation and SASL, as a state machine with no I/O:
 * the transport feeds it every parsed line from the server until
 * registration ends (and CAP lines after it, for cap-notify), and sends
 * the lines it asks for. It asks for what the bot uses among what the
 * server offers (sasl, account-tag, account-notify, extended-join,
 * message-tags, server-time, cap-notify), authenticates with SASL PLAIN
 * or EXTERNAL if configured, and ends negotiation with CAP END.
 *
 * Spec: https://ircv3.net/specs/extensions/capability-negotiation and
 * https://ircv3.net/specs/extensions/sasl-3.1 (read, not copied).
 */
#ifndef HEARTS_IRC_CAP_H
#define HEARTS_IRC_CAP_H

#include <stdbool.h>
#include <stddef.h>

#include "adapters/irc/line.h"

enum ircad_sasl_mech { IRCAD_SASL_NONE, IRCAD_SASL_PLAIN, IRCAD_SASL_EXTERNAL };

struct ircad_cap_config {
    enum ircad_sasl_mech mech;
    const char *username; /* PLAIN's authentication name (copied) */
    const char *password; /* PLAIN's password (copied) */
    bool required;        /* a SASL that fails ends the connection */
};

/* The capabilities the bot asks for, as bits of ircad_cap.enabled. */
enum ircad_cap_bit {
    IRCAD_CAP_SASL = 1u << 0,
    IRCAD_CAP_ACCOUNT_TAG = 1u << 1,
    IRCAD_CAP_ACCOUNT_NOTIFY = 1u << 2,
    IRCAD_CAP_EXTENDED_JOIN = 1u << 3,
    IRCAD_CAP_MESSAGE_TAGS = 1u << 4,
    IRCAD_CAP_SERVER_TIME = 1u << 5,
    IRCAD_CAP_CAP_NOTIFY = 1u << 6
};

enum ircad_cap_state {
    IRCAD_CAP_NEGOTIATING, /* CAP LS sent; lines are still exchanged */
    IRCAD_CAP_DONE,        /* CAP END sent, or the server has no CAP */
    IRCAD_CAP_FAILED       /* SASL failed and is required: close */
};

struct ircad_cap {
    struct ircad_cap_config cfg;
    char username[320], password[320];
    enum ircad_cap_state state;
    unsigned offered;     /* bits the server offers (LS, NEW, DEL) */
    unsigned enabled;     /* bits it acknowledged (ACK, minus DEL) */
    unsigned asked;       /* bits in REQs not yet answered */
    char sasl_mechs[128]; /* the server's sasl=... value, "" if none */
    int sasl_step;        /* internal */
    unsigned flags;       /* internal */
    size_t ls_bytes;      /* internal: CAP LS text taken so far */
    bool logged_in;       /* 900 seen */
    char account[IRCAD_ACCOUNT_MAX]; /* the bot's account, from 900 */
    /* why FAILED, or why SASL was given up while not required; for the
     * log ("" if nothing failed) */
    char why[256];
    bool permanent; /* FAILED for a reason a retry will not cure (904) */
};

/* Sends one line (no CR LF) to the server. */
typedef void (*ircad_cap_send_fn)(void *ctx, const char *line);

/* Sets c up for a new connection (the strings are copied). */
void ircad_cap_init(struct ircad_cap *c, const struct ircad_cap_config *cfg);

/* Sends "CAP LS 302": call when the connection is up, before anything
 * else is sent (registration waits until CAP END). */
void ircad_cap_start(struct ircad_cap *c, ircad_cap_send_fn send, void *ctx);

/*
 * Feeds one line from the server. Returns true if the line belonged to
 * negotiation (CAP, AUTHENTICATE, 900-908, a 410, a 421 about CAP or
 * AUTHENTICATE) and is consumed; false for every other line, which the
 * caller passes on. An 001 before CAP END (a server without CAP) makes the
 * state DONE (or FAILED if SASL is required) and is not consumed. May send
 * lines and change the state; each line makes at most a few lines go out.
 * Once FAILED, negotiation lines are consumed and change nothing.
 */
bool ircad_cap_feed(struct ircad_cap *c, const struct ircad_line *l,
                    ircad_cap_send_fn send, void *ctx);

/* Whether a capability (one bit) is enabled now. */
bool ircad_cap_has(const struct ircad_cap *c, unsigned bit);

#endif
