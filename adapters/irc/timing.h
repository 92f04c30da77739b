/*
 * The IRC adapter's timings (irc_adapter.h, ircad_set_timing), apart so
 * that the adapter's inside (ircad.h) and its public header share them
 * without including each other.
 */
#ifndef HEARTS_IRC_TIMING_H
#define HEARTS_IRC_TIMING_H

#include <stdint.h>

/*
 * Timings, in milliseconds; the defaults are in brackets. Tests shorten
 * them; nothing else should need to.
 */
struct ircad_timing {
    int64_t ping_after_ms;   /* silence before we send PING [90 s] */
    int64_t dead_after_ms;   /* silence before we drop the link [180 s] */
    int64_t register_ms;     /* connect to 001 at most [60 s] */
    int64_t regain_ms;       /* retry the wanted nick every [60 s] */
    int64_t rejoin_ms;       /* rejoin a channel we were kicked from [30 s] */
    int64_t backoff_base_ms; /* first reconnect delay [1 s] */
    int64_t backoff_cap_ms;  /* longest reconnect delay [300 s] */
};

#endif
