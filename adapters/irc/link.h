/*
 * The IRC adapter's link to the server (ircad.h): connecting (the lines
 * go to a->on_line), the keep-alive that drops a link gone quiet, and
 * what follows a lost link: a reconnect with backoff, or none when no
 * retry can help.
 */
#ifndef HEARTS_IRC_LINK_H
#define HEARTS_IRC_LINK_H

#include <stdint.h>

struct ircad;

/* Opens a new connection (ST_CONNECTING), or schedules a reconnect if it
 * cannot even start. */
void ircad_link_connect(struct ircad *a);

/* We give up on the link ourselves (`why` for the log); a reconnect
 * follows. */
void ircad_link_drop(struct ircad *a, const char *why);

/* The keep-alive check runs in `ms` (at least 1): before registration it
 * enforces register_ms, after it the PING and the dead-link timeouts. */
void ircad_link_arm_keepalive(struct ircad *a, int64_t ms);

#endif
