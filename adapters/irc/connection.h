/*
 * The connection layer: one connection to an IRC server (TCP or TLS),
 * driven by our poll() loop, handing up parsed lines and taking finished
 * lines to send. Below it, our own transport (libcurl's connect-only
 * mode: name resolution off the loop, several addresses, TLS) checks and
 * normalises every line (line.h), negotiates capabilities and SASL
 * (cap.h) and answers PING; libircclient parses what is left and
 * dispatches it. Nothing else in the adapter includes libircclient.h.
 *
 * A connection is used once: after it closes, the adapter opens a new one.
 */
#ifndef HEARTS_IRC_CONNECTION_H
#define HEARTS_IRC_CONNECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/irc/cap.h"
#include "bot/common/loop.h"

/*
 * One line from the server. `command` is the verb ("PRIVMSG", "JOIN",
 * "PONG", ...), a numeric as three digits ("001") with `numeric` set, or
 * "CTCP" for a CTCP request (params[0] its body without the \x01s, e.g.
 * "VERSION"; the original target is not known). PRIVMSG and NOTICE keep
 * their target in params[0], whoever it is. `origin` may be NULL and any
 * params[i] for i < nparams may be NULL: check before use. Everything
 * lives only during the callback.
 */
struct ircad_msg {
    const char *command;
    int numeric;
    const char *origin;
    const char *const *params;
    unsigned nparams;
    /* the line's account tag (account-tag): the sender's services
     * account; NULL when the line carried none (the sender is logged out,
     * or the server does not tag) */
    const char *account;
};

struct ircad_conn_handlers {
    /* A line arrived. May send, and may close the connection. */
    void (*msg)(void *ctx, const struct ircad_msg *m);
    /* The connection is gone (refused, reset, closed by the server, TLS
     * refused, SASL failed); `why` is for the log. `permanent`: a retry
     * cannot help until the config changes (a refused SASL password). The
     * connection is freed after this returns: drop the pointer. Not
     * called after ircad_conn_close. */
    void (*closed)(void *ctx, const char *why, bool permanent);
    /* The output buffer, full at an earlier ircad_conn_send, has room. */
    void (*drain)(void *ctx);
    void *ctx;
};

struct ircad_conn_params {
    const char *name; /* the network's name, for the log */
    const char *host; /* name, IPv4, or IPv6 (contains ':') */
    int port;
    const char *password; /* server password, or NULL / "" */
    const char *nick;     /* must satisfy ircad_nick_valid */
    const char *username;
    const char *realname;
    bool tls;
    bool tls_verify;           /* false: not checked (logged loudly) */
    const char *tls_ca_file;   /* NULL / "": the system's store */
    const char *tls_cert_file; /* NULL / "": no client certificate */
    const char *tls_key_file;  /* NULL / "": in tls_cert_file */
    struct ircad_cap_config sasl;
    /* tests only (NULL in the bot): "name:port:addr[,addr...]" given to
     * libcurl's resolver cache (CURLOPT_RESOLVE), so that a test can give
     * a name several addresses without a DNS server */
    const char *test_resolve;
};

struct ircad_conn;

/*
 * Starts connecting: name resolution, TCP and TLS happen off the loop in
 * libcurl. Returns 0 and sets *out; or -1 with a reason in err. Once
 * connected it sends CAP LS 302, then PASS, NICK and USER (the server
 * holds registration until negotiation and SASL end with CAP END).
 */
int ircad_conn_open(struct loop *l, const struct ircad_conn_params *p,
                    const struct ircad_conn_handlers *h,
                    struct ircad_conn **out, char *err, size_t errlen);

/* Results of ircad_conn_send; the same values as queue.h's IRCAD_SENT,
 * IRCAD_FULL and IRCAD_SEND_ERROR. */
#define IRCAD_CONN_SENT 0
#define IRCAD_CONN_FULL 1
#define IRCAD_CONN_ERROR (-1)

/*
 * Queues one line (no CR LF, at most 510 bytes) in the connection's 16 KiB
 * output buffer and writes it from the loop. Returns IRCAD_CONN_FULL
 * before the connection is up or while the buffer has no room; the drain
 * handler runs once the buffer is empty again. The line is sent verbatim.
 */
int ircad_conn_send(struct ircad_conn *c, const char *line);

/*
 * Writes the output buffer as far as the socket takes it now, without
 * blocking (for stop). Returns 0 if it is now empty, -1 if not (or if
 * called from a handler of this connection, where it does nothing).
 */
int ircad_conn_flush(struct ircad_conn *c);

/* Whether a capability (an enum ircad_cap_bit) is enabled on this
 * connection now (cap-notify may take it away). */
bool ircad_conn_cap(const struct ircad_conn *c, unsigned bit);

/*
 * Closes and frees the connection. With `flush`, first writes what the
 * output buffer holds as far as the socket takes it without blocking.
 * Safe from a handler of this connection: the close then happens when the
 * handler returns. The closed handler is not called.
 */
void ircad_conn_close(struct ircad_conn *c, bool flush);

#endif
