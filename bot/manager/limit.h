/*
 * How often the bot answers one person. Every message that is not a seated
 * player's game action costs its sender a token from a small bucket (a
 * burst, then one every interval); the same text again within the quiet
 * time gets no answer at all. Without this, one person typing "x" in a
 * loop fills the out-queue that deals and trick lines share, and every
 * table on the network stalls behind the replies.
 *
 * A shared bucket (limit_shared) bounds everyone's private chatter
 * together, so three people flooding at once cannot take the network's
 * output either. People are told apart by network and identity (user@host
 * on IRC). The
 * table holds at most LIMIT_PEOPLE of them: a new one replaces the one
 * heard from longest ago, so a flood of distinct nicks cannot grow memory.
 *
 * A room's memory of its answers (limit_echo) keeps a channel from
 * hearing the same answer twice in a row of askers: twenty !status would
 * otherwise be twenty lines naming every player.
 * Pure: the clock is passed in (tests/unit/bot/manager/test_limit.c).
 */
#ifndef HEARTS_BOT_LIMIT_H
#define HEARTS_BOT_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define LIMIT_PEOPLE 256

struct limit;

/* The limits: `burst` answers at once, then one every `interval_ms`
 * (0: no limit); an identical message within `quiet_ms` of the last one
 * is not answered (0: repeats are answered). */
struct limit_rules {
    int burst;
    int64_t interval_ms;
    int64_t quiet_ms;
};

/* What to do with one message. */
enum limit_verdict {
    LIMIT_ANSWER, /* answer as usual */
    LIMIT_WARN,   /* the bucket just ran dry: say once to slow down */
    LIMIT_QUIET   /* no answer */
};

/* An empty table; aborts if out of memory. */
struct limit *limit_new(void);

/* Frees it; NULL is a no-op. */
void limit_free(struct limit *l);

/* Counts a message `text` from the person (network, id) at `now` (ms) and
 * says whether to answer it. Strings are borrowed for the call. */
enum limit_verdict limit_check(struct limit *l, const struct limit_rules *r,
                               const char *network, const char *id,
                               const char *text, int64_t now);

/* Takes one more answer from the person's bucket (r's burst and
 * interval; the repeat rule aside) for a line of an answer that has
 * more than one (a replay's chunk): whether there was one. Nobody is
 * told anything. */
bool limit_take(struct limit *l, const struct limit_rules *r,
                const char *network, const char *id, int64_t now);

/* The shared bucket over everyone's private chatter, on top of each
 * person's: a flood from many people (or identities) together still gets
 * `burst` answers, then one every `interval_ms` (0: no limit). Takes a
 * token and returns whether there was one. */
bool limit_shared(struct limit *l, int burst, int64_t interval_ms, int64_t now);

/* The same for a message of the person (network, id), who is to be told
 * once when the bucket drops their answers: LIMIT_ANSWER (a token taken),
 * LIMIT_WARN (none, and they were not told since the bucket was last
 * full: tell them, which takes a token the bucket may owe, up to a second
 * burst) or LIMIT_QUIET (drop it without a word). */
enum limit_verdict limit_shared_for(struct limit *l, const char *network,
                                    const char *id, int burst,
                                    int64_t interval_ms, int64_t now);

/* Whether the person (network, id) may be given a hint nobody asked for
 * (a "did you mean" to a word in a channel that may be another bot's
 * command) at `now`: at most one every `interval_ms`. Takes it if so. */
bool limit_hint(struct limit *l, const char *network, const char *id,
                int64_t interval_ms, int64_t now);

/* How many people the table holds (for tests). */
int limit_people(const struct limit *l);

/* What a room heard lately: the last LIMIT_ECHO_KEEP answers said there
 * (a hash of each) and when. All zero: nothing heard. */
#define LIMIT_ECHO_KEEP 8
struct limit_echo {
    uint64_t hash[LIMIT_ECHO_KEEP];
    int64_t at[LIMIT_ECHO_KEEP];
    bool used[LIMIT_ECHO_KEEP];
};

/* Whether the room heard `text` within `window_ms` before `now` (0: never
 * counts as heard). If not, it is heard now: kept, in place of the
 * answer heard longest ago. A text heard stays as heard then (asking
 * again does not stretch the window). */
bool limit_echo_heard(struct limit_echo *e, const char *text, int64_t window_ms,
                      int64_t now);

#endif
