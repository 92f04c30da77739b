/*
 * The lag-driven pacing controller (flood.h).
 */
#include "adapters/irc/flood.h"

#include <ctype.h>
#include <stddef.h>

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void ircad_flood_init(struct ircad_flood *p, int64_t start_ms, int64_t min_ms,
                      int64_t max_ms)
{
    p->min_ms = min_ms > 0 ? min_ms : 1;
    p->max_ms = max_ms > p->min_ms ? max_ms : p->min_ms;
    p->token = 0;
    ircad_flood_reset(p, start_ms);
}

void ircad_flood_reset(struct ircad_flood *p, int64_t start_ms)
{
    p->interval_ms = clamp(start_ms, p->min_ms, p->max_ms);
    p->base_ms = -1;
    p->out = false;
    p->overdue_seen = false;
    p->probe_sent = 0;
    p->last_probe = 0;
    p->lines = 0;
}

bool ircad_flood_adaptive(const struct ircad_flood *p)
{
    return p->min_ms < p->max_ms;
}

/* Slower at once: twice the interval. */
static void slow_down(struct ircad_flood *p)
{
    int64_t v = p->interval_ms > p->max_ms / 2 ? p->max_ms : p->interval_ms * 2;
    p->interval_ms = clamp(v, p->min_ms, p->max_ms);
}

void ircad_flood_lag(struct ircad_flood *p, int64_t rtt_ms)
{
    if (rtt_ms < 0)
        rtt_ms = 0;
    if (p->base_ms < 0 || rtt_ms < p->base_ms)
        p->base_ms = rtt_ms;
    int64_t lag = rtt_ms - p->base_ms;
    if (lag > IRCAD_FLOOD_HIGH_MS) {
        slow_down(p);
    } else if (lag < IRCAD_FLOOD_LOW_MS) {
        int64_t step = p->interval_ms / 8;
        p->interval_ms =
            clamp(p->interval_ms - (step > 0 ? step : 1), p->min_ms, p->max_ms);
    }
}

void ircad_flood_line_sent(struct ircad_flood *p)
{
    if (p->lines < 1000000)
        p->lines++;
}

bool ircad_flood_want_probe(const struct ircad_flood *p, int64_t now,
                            bool waiting)
{
    /* a probe never answered (lost with a server's hiccup) is given up
     * after a while, or we would never measure again */
    bool lost = p->out && p->probe_sent >= 0 &&
                now - p->probe_sent > 20 * IRCAD_FLOOD_HIGH_MS;
    /* a probe takes a line's place in the pace: at the floor it can only
     * find the lag growing, so it goes four times more rarely */
    int lines = IRCAD_FLOOD_PROBE_LINES;
    int64_t gap = IRCAD_FLOOD_PROBE_MS;
    if (p->interval_ms <= p->min_ms) {
        lines *= IRCAD_FLOOD_FLOOR_RARER;
        gap *= IRCAD_FLOOD_FLOOR_RARER;
    }
    return ircad_flood_adaptive(p) && waiting && (!p->out || lost) &&
           p->lines >= lines && now - p->last_probe >= gap;
}

unsigned ircad_flood_next_token(struct ircad_flood *p)
{
    p->token++;
    p->out = true;
    p->overdue_seen = false;
    p->probe_sent = -1; /* queued, not yet written */
    p->lines = 0;
    return p->token;
}

void ircad_flood_probe_sent(struct ircad_flood *p, int64_t now)
{
    p->probe_sent = now;
    p->last_probe = now;
}

bool ircad_flood_pong(struct ircad_flood *p, unsigned token, int64_t now)
{
    if (!p->out || token != p->token || p->probe_sent < 0)
        return false;
    p->out = false;
    int64_t rtt = now - p->probe_sent;
    if (p->overdue_seen) {
        /* it slowed us down already; still learn the base from it */
        if (p->base_ms < 0 || rtt < p->base_ms)
            p->base_ms = rtt;
        return true;
    }
    ircad_flood_lag(p, rtt);
    return true;
}

void ircad_flood_tick(struct ircad_flood *p, int64_t now)
{
    if (!p->out || p->overdue_seen || p->probe_sent < 0)
        return;
    int64_t base = p->base_ms < 0 ? 0 : p->base_ms;
    if (now - p->probe_sent > base + IRCAD_FLOOD_HIGH_MS) {
        p->overdue_seen = true;
        slow_down(p);
    }
}

void ircad_flood_set_floor(struct ircad_flood *p, int64_t min_ms)
{
    p->min_ms = clamp(min_ms, 1, p->max_ms);
    p->interval_ms = clamp(p->interval_ms, p->min_ms, p->max_ms);
}

/* Whether `word` (lower case) occurs in the first 64 bytes of `s`,
 * ignoring case. */
static bool mentions(const char *s, const char *word)
{
    for (size_t i = 0; i < 64 && s[i]; i++) {
        size_t k = 0;
        while (word[k] && s[i + k] &&
               tolower((unsigned char)s[i + k]) == word[k])
            k++;
        if (!word[k])
            return true;
    }
    return false;
}

/* The floors, with the reason each is safe (docs/hosting.md, the pacing
 * figures measured in tests/integration/test_pacing.py). The first whose
 * word the version mentions applies. */
static const struct {
    const char *word;
    struct ircad_flood_server pace; /* floor_ms 0: the configured pace */
} servers[] = {
    /* parses at most 3 commands a pass and, once a client sent 256 bytes
     * within a second, reads it again only the next second (at most 2048
     * bytes a read); it kills only when 2048 unparsed bytes pile up.
     * Measured on ngIRCd 26: a client sending 450-byte lines keeps up at
     * 4 a second (1800 bytes), backlogs at 5 (2250 bytes). 400 ms is 2.5
     * lines, at most 1280 bytes, a second: no byte cost needed */
    {"ngircd",
     {"ngIRCd", 400,
      "it delays a flooding client: 3 commands, 256 bytes a second"}},
    /* fakelag: a burst of 5, then 2 lines a second, delayed not killed */
    {"ergo", {"Ergo", 550, "fakelag delays a flood: 2 lines a second"}},
    {"oragono", {"Ergo", 550, "fakelag delays a flood: 2 lines a second"}},
    /* parse about 5 lines a second from the recvq and kill only when it
     * overflows: well under that */
    {"solanum",
     {"Solanum", 800, "it delays a flood in its recvq, kills on overflow"}},
    {"charybdis",
     {"Charybdis", 800, "it delays a flood in its recvq, kills on overflow"}},
    {"ratbox",
     {"ircd-ratbox", 800, "it delays a flood in its recvq, kills on overflow"}},
    {"hybrid",
     {"ircd-hybrid", 800, "it delays a flood in its recvq, kills on overflow"}},
    /* may kill without delaying first (fakelag off, or a flood kill) */
    {"inspircd",
     {"InspIRCd", 0, "it may kill a flood without delaying it first"}},
    {"unreal",
     {"UnrealIRCd", 0, "it may kill a flood without delaying it first"}},
};

void ircad_flood_for_server(const char *version, int64_t fallback_ms,
                            struct ircad_flood_server *out)
{
    static const struct ircad_flood_server unknown = {
        "an unknown server", 0, "its flood limits are not known"};
    *out = unknown;
    for (size_t i = 0; version && i < sizeof servers / sizeof servers[0]; i++)
        if (mentions(version, servers[i].word)) {
            *out = servers[i].pace;
            break;
        }
    if (out->floor_ms <= 0 || out->floor_ms > fallback_ms)
        out->floor_ms = fallback_ms;
}
