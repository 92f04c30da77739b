/*
 * Lines from the IRC server to the adapter's handlers (ircad.h), through
 * one table, as WeeChat's IRC plugin does: each command (a verb, or a
 * numeric's three digits) with the fewest parameters it needs and its
 * handlers. A line with fewer is ignored (logged at debug); a command not
 * in the table only counts as life on the link. NOTICEs are never
 * answered, by the protocol's rule; CTCP VERSION and PING are,
 * rate-limited.
 */
#ifndef HEARTS_IRC_INBOUND_H
#define HEARTS_IRC_INBOUND_H

struct ircad;
struct ircad_msg;

typedef void ircad_handler_fn(struct ircad *a, const struct ircad_msg *m);

/*
 * One row. A line runs, in this order: `track` (what it tells of
 * services accounts), then the account its events carry is decided
 * (channels.h), then `handle` (its events), then `after` (who left).
 * Each may be NULL. params[i] for i < min_params exist, but may be NULL.
 */
struct ircad_command {
    const char *name;
    unsigned min_params;
    ircad_handler_fn *track;
    ircad_handler_fn *handle;
    ircad_handler_fn *after;
};

/* The row of `command` ("PRIVMSG", "001"), or NULL. */
const struct ircad_command *ircad_inbound_find(const char *command);

/* A line from the link (the connection's msg handler; `ctx` is the
 * struct ircad). Nothing once stopping. */
void ircad_inbound_line(void *ctx, const struct ircad_msg *m);

#endif
