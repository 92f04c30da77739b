/*
 * How fast the bot may act on a homeserver that rate-limits it: a model
 * of the server's bucket learned from its 429 answers, so that the bot
 * spends each slot as it frees up instead of running into the limit.
 * Pure (tests/unit/adapters/matrix/test_pace.c).
 *
 * Synapse (and homeservers like it) keeps a bucket per user: a burst of
 * actions at once, then `rate` a second; a refusal (429 M_LIMIT_EXCEEDED)
 * names in retry_after_ms when the next single action fits, and is not
 * counted. Some actions cost more than one slot: a room creation is
 * charged for the request and again for the creator's join, so retried
 * the moment one slot is free it is refused again, for ever.
 *
 * Until the first 429 the pacer is open: every action may start. After
 * it the pacer is limited: one action at a time, each when the model says
 * enough slots are free. The model: `free_at`, the time one slot is free
 * (a refusal's time plus its wait); `interval`, the time a slot takes to
 * come back; and at most MX_PACE_BURST slots saved up while idle (the
 * server may save more; the model stays on the safe side).
 *
 * The interval is learned from refusals of sends (one slot of the message
 * limit alone): at each, the server's bucket will hold one slot less than
 * full at its time plus its wait; between two such moments it took in
 * the slots of the actions started after the first and accepted, so the
 * interval is the time between them over that count. That is exact for
 * Synapse's bucket, as long as the bot kept it full: a pause of more than
 * two intervals between two actions lets it drain, and the measure is
 * not taken. A refusal's wait alone only bounds the interval from below
 * (it is the time left of one slot), which is what a first refusal
 * teaches. An action of two slots waits a tenth of an interval more than
 * the model says.
 *
 * Every MX_PACE_PROBE_MS an action that must otherwise wait goes at once
 * as a probe: accepted, it shows that the limit was lifted or is looser
 * (an admin exempted the bot), and the pacer opens again; refused, it
 * teaches like any refusal, at no cost (a refused action is not counted).
 */
#ifndef HEARTS_MX_PACE_H
#define HEARTS_MX_PACE_H

#include <stdbool.h>
#include <stdint.h>

/* Slots the model lets save up: enough for a room creation. */
#define MX_PACE_BURST 2
/* Added to every wait the server names: it rounds down, and an action
 * that arrives a millisecond early is refused. */
#define MX_PACE_MARGIN_MS 25
/* How often an action that must wait goes anyway, as a probe. */
#define MX_PACE_PROBE_MS 30000
/* The longest interval learned (a server cannot park the bot for long
 * between two messages by naming absurd waits). */
#define MX_PACE_INTERVAL_MAX_MS 120000

struct mx_pace {
    bool limited;       /* a refusal came and no probe got through since */
    int64_t interval;   /* learned time per slot (ms); 0: none yet */
    int64_t free_at;    /* one slot is free from then (loop time, ms) */
    int64_t last_probe; /* when the last probe went */
    int busy;           /* actions under way */
    /* the last send's refusal: when the bucket holds one slot less than
     * full (its time plus its wait), when it came, and the slots of the
     * actions started since then and accepted */
    bool anchored;
    int64_t anchor;
    int64_t refused_at;
    int64_t charges;
    int64_t last_start; /* when the last action started */
};

/* A new, open pacer. */
void mx_pace_init(struct mx_pace *p);

/*
 * The time from which an action of `cost` slots (1 or more) may start:
 * `now` when the pacer is open, else when the model has that many slots
 * free (at most MX_PACE_BURST are ever counted on). While limited, an
 * action under way holds the next back: the time returned is then
 * INT64_MAX, until it ends.
 */
int64_t mx_pace_when(const struct mx_pace *p, int cost, int64_t now);

/* Whether an action that would have to wait may go now as a probe. */
bool mx_pace_probe_due(const struct mx_pace *p, int64_t now);

/* An action of `cost` slots starts at `now` (a probe if `probe`): its
 * slots are spent in the model. Every start is ended by exactly one of
 * mx_pace_accepted, mx_pace_refused or mx_pace_ended. */
void mx_pace_start(struct mx_pace *p, int cost, bool probe, int64_t now);

/* An action of `cost` slots that started at `started` was accepted. An
 * accepted probe opens the pacer: then true. */
bool mx_pace_accepted(struct mx_pace *p, int cost, bool probe, int64_t started);

/*
 * The action was refused with 429 and retry_after_ms `wait` (>= 0). The
 * pacer is limited from now: one slot is free at now + wait. Only actions
 * that cost one slot of the message limit alone (a send) teach the
 * interval (`teaches`); a room creation or a join may have been refused
 * by another of the server's limits, or after one of its slots was
 * charged, so it only teaches when nothing else has yet.
 */
void mx_pace_refused(struct mx_pace *p, int64_t wait, bool teaches,
                     int64_t now);

/* The action ended otherwise (an error, no answer): nothing learned; it
 * may or may not have been counted, so its slots stay spent. */
void mx_pace_ended(struct mx_pace *p);

#endif
