/*
 * Adaptive pacing: the interval between our lines follows the server's
 * lag, measured by PING/PONG round trips while lines flow (as mature IRC
 * bots do). A server that throttles a client (ngIRCd stops reading it,
 * InspIRCd and Ergo delay it: "fakelag") answers our PING late once we
 * send faster than it likes; a PONG that comes back quickly means it keeps
 * up. So: while the lag stays low the interval shrinks a little (an
 * eighth) toward the floor; as soon as it grows the interval doubles,
 * up to the ceiling (AIMD). The lag counts above the lowest round trip
 * seen on the connection, so a distant server is not mistaken for a
 * throttling one.
 *
 * A server that kills a flooding client without delaying it first
 * (InspIRCd with fakelag off) shows no lag before the kill: there the
 * floor must be a rate it accepts. So the floor depends on what the server
 * is (ircad_flood_for_server, from the version in RPL_MYINFO): faster only
 * on servers known to delay a flooding client, the configured
 * flood_interval_ms elsewhere (docs/hosting.md).
 *
 * Pure: the clock is passed in (tests/unit/adapters/irc/test_flood.c).
 */
#ifndef HEARTS_IRC_FLOOD_H
#define HEARTS_IRC_FLOOD_H

#include <stdbool.h>
#include <stdint.h>

/* Lag above the lowest round trip: below LOW we speed up, above HIGH we
 * slow down, in between we hold. */
#define IRCAD_FLOOD_LOW_MS 150
#define IRCAD_FLOOD_HIGH_MS 500
/* A probe goes after this many lines and this much time since the last
 * one, and only while lines are waiting. */
#define IRCAD_FLOOD_PROBE_LINES 6
#define IRCAD_FLOOD_PROBE_MS 1500
/* At the floor, probes come this many times more rarely. */
#define IRCAD_FLOOD_FLOOR_RARER 4

struct ircad_flood {
    int64_t interval_ms; /* now */
    int64_t min_ms, max_ms;
    int64_t base_ms; /* lowest round trip seen, -1: none yet */
    /* the probe */
    unsigned token;     /* of the PING in flight, or of the last one */
    bool out;           /* a PING is in flight */
    bool overdue_seen;  /* its lateness already slowed us down */
    int64_t probe_sent; /* when it was written */
    int64_t last_probe;
    int lines; /* lines sent since the last probe */
};

/* Starts at `start_ms`, between `min_ms` and `max_ms` (clamped so that
 * 1 <= min <= start <= max). */
void ircad_flood_init(struct ircad_flood *p, int64_t start_ms, int64_t min_ms,
                      int64_t max_ms);

/* Whether the pacing can change at all (min < max). */
bool ircad_flood_adaptive(const struct ircad_flood *p);

/* One lag measurement (a round trip in ms): adjusts the interval. */
void ircad_flood_lag(struct ircad_flood *p, int64_t rtt_ms);

/* A chat line was written. */
void ircad_flood_line_sent(struct ircad_flood *p);

/* Whether to send a probe now, `waiting` telling whether lines are
 * waiting (a probe measures a flow, not silence). */
bool ircad_flood_want_probe(const struct ircad_flood *p, int64_t now,
                            bool waiting);

/* A probe with this token is queued ("PING :lag<token>"): the next token. */
unsigned ircad_flood_next_token(struct ircad_flood *p);

/* The probe was written at `now`. */
void ircad_flood_probe_sent(struct ircad_flood *p, int64_t now);

/* A PONG with `token` came back at `now`; false if it is not ours. */
bool ircad_flood_pong(struct ircad_flood *p, unsigned token, int64_t now);

/* A probe still out at `now` past the slow-down lag counts as that lag,
 * once: a server that holds our lines is noticed before it answers. */
void ircad_flood_tick(struct ircad_flood *p, int64_t now);

/* Forgets the probe and the lowest round trip (a new connection); keeps
 * the interval's bounds and goes back to `start_ms`. */
void ircad_flood_reset(struct ircad_flood *p, int64_t start_ms);

/* What a server's software lets the pace do when flood_min_interval_ms
 * is 0 (auto). */
struct ircad_flood_server {
    const char *server; /* the software recognised, or "an unknown server" */
    int64_t floor_ms;   /* the fastest interval */
    const char *why;    /* for the log */
};

/* The pace for the server whose version string (RPL_MYINFO's third
 * parameter, or the "running version" of RPL_YOURHOST) is `version`
 * (hostile text: only matched, never trusted further). `fallback_ms` is
 * the configured pace: unknown servers and servers that kill rather than
 * delay keep it as floor, and no floor is slower than it. */
void ircad_flood_for_server(const char *version, int64_t fallback_ms,
                            struct ircad_flood_server *out);

/* Moves the floor (a server identified): the interval stays within the
 * new bounds (min_ms <= max_ms is kept). */
void ircad_flood_set_floor(struct ircad_flood *p, int64_t min_ms);

#endif
