/*
 * Inside the game manager: finished games told again to one person,
 * privately, a few lines at a time (`!replay`, docs/playing.md). A game's
 * record (storage/record/record.h) is replayed through the engine once
 * and written as lines for its reader (their language and card style:
 * render.h); the replays open are kept here, one a person, few in all,
 * each for a while. The command and its pacing: cmd_replay.h.
 */
#ifndef HEARTS_BOT_MANAGER_REPLAY_H
#define HEARTS_BOT_MANAGER_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/manager/render.h"

/* Replays open at once, everyone's together: a new one past this many
 * takes the place of the one used longest ago. */
#define REPLAY_OPEN 16
/* A replay nobody asked more of for this long is dropped (when the
 * replays are next looked at). */
#define REPLAY_IDLE_MS (10 * 60 * 1000)
/* The bytes of one replay's lines: a game that needs more (hundreds of
 * hands) is refused. With REPLAY_OPEN, 4 MiB at most in all. */
#define REPLAY_MAX_TEXT (256 * 1024)
/* A line of tricks takes 16 / players tricks (four of four players), or
 * fewer where they would pass this many bytes (always one), so that no
 * adapter has to split it. */
#define REPLAY_LINE_MAX 360

/* A game's lines for one reader. */
struct replay_text {
    char **lines;
    int n, cap;
    size_t bytes; /* of the lines' text */
};

/* What the first line says of a game besides its record: its ID and
 * when it was archived (Unix seconds). */
struct replay_about {
    char id[17];
    int64_t time;
};

/*
 * Replays a finished game's record (len bytes of JSON, hostile) through
 * the engine and writes its lines for `look` into *out (emptied first):
 * a summary (the ID, when, the rules, each player's total, the winners),
 * then for each hand how it is passed, each player's hand as dealt
 * (sorted) with what they passed, its tricks several to a line ("1: alice
 * 2♣ bob 9♣ carol K♣ dave 5♣ → carol"), and its points with the totals
 * after it. 0; 1 if the lines would pass REPLAY_MAX_TEXT bytes (*out
 * empty); -1 with the record's own message if it cannot be read or
 * replayed, or is no finished game.
 */
int mgr_replay_render(const char *json, size_t len,
                      const struct replay_about *about, struct render_look look,
                      struct replay_text *out, char *err, size_t errlen);

/* Frees the lines (the struct may be used again). */
void mgr_replay_text_free(struct replay_text *t);

/* One person's replay. */
struct replay {
    bool used;
    char key[320]; /* "network\nid" */
    int64_t at;    /* when it was opened or last asked more of */
    struct replay_text text;
    int next; /* the first line not told yet */
    int lang; /* of its own words (the chunk's end) */
};

struct replays;

struct replays *mgr_replays_new(void);
void mgr_replays_free(struct replays *rs);

/*
 * Opens the person's (network, id) replay of `text` (taken: *text is
 * emptied), in place of one they had open; replays idle for
 * REPLAY_IDLE_MS are dropped first, and with REPLAY_OPEN open the one
 * used longest ago gives way. Never NULL.
 */
struct replay *mgr_replay_open(struct replays *rs, const char *network,
                               const char *id, struct replay_text *text,
                               int lang, int64_t now);

/* The person's replay open at `now` (idle ones dropped first), or NULL. */
struct replay *mgr_replay_find(struct replays *rs, const char *network,
                               const char *id, int64_t now);

/* Drops a replay (told to its end). */
void mgr_replay_close(struct replay *r);

/* How many replays are open, and how long one may idle (tests; it is
 * REPLAY_IDLE_MS). */
int mgr_replays_count(const struct replays *rs);
void mgr_replays_set_idle(struct replays *rs, int64_t idle_ms);

#endif
