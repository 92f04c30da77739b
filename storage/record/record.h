/*
 * Game records (docs/spec/game-record.md; docs/records.md says how we
 * implement it): one game as one line of JSON, the same format for the
 * bot's journal of a game in progress, the archive of finished games and
 * the input of the replay checker.
 *
 * Three parts. A writer (record_write.c) follows a game through the
 * engine's events and writes the record at any moment. A reader
 * (record_read.c) parses one line into a plain struct, checking every
 * type, range and length (the line may be hostile). A replay
 * (record_replay.c) rebuilds the game from the struct through the engine, so
 * every pass, play, discard and moon choice is checked by the same rules code
 * that plays games, and the points, totals and winners are recomputed.
 *
 * Error messages name where the problem is: "hand H, action A: reason"
 * for an action, "hand H: field: reason" for the rest of a hand, and
 * "field: reason" for the rest of the record. Actions are numbered within
 * each hand, from 1, in the order they are taken: the passes first (seat
 * 0's pass is action 1, seat 1's action 2, ..., one per seat, blind or not;
 * none in a hold hand), then the plays and the kitty-exchange discard in
 * the order they happen (the discard right after the trick that gave the
 * kitty), and the moon choice last.
 */
#ifndef HEARTS_RECORD_H
#define HEARTS_RECORD_H

#include "engine/engine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECORD_FORMAT "hearts-record/1"

/* Hard caps on what a record may hold. A line of RECORD_MAX_LINE bytes
 * fits RECORD_MAX_HANDS hands of the largest table, and every game fits:
 * the engine ends a game after ENGINE_MAX_HANDS hands. */
#define RECORD_MAX_LINE (4u << 20)
#define RECORD_MAX_HANDS ENGINE_MAX_HANDS
#define RECORD_MAX_NAME 256          /* bytes of one player's name */
#define RECORD_MAX_POINTS 1000000000 /* |points| and |totals| */

/* `pass` and `moon` of a hand when the record leaves them out (or null). */
#define RECORD_NONE (-1)

/*
 * One hand as recorded. Cards are engine card codes; each list is in the
 * record's order. Counts never exceed their arrays.
 */
struct record_hand {
    int dealer;
    int pass; /* enum engine_pass_dir (HOLD if nothing passed), or NONE */
    int ndeal[ENGINE_MAX_PLAYERS];
    uint8_t deal[ENGINE_MAX_PLAYERS][ENGINE_MAX_CARDS];
    int nrest;
    uint8_t rest[ENGINE_MAX_CARDS];
    int npassed[ENGINE_MAX_PLAYERS];
    uint8_t passed[ENGINE_MAX_PLAYERS][ENGINE_MAX_ACT_CARDS];
    uint16_t blind; /* bit per seat that passed blind */
    int ndiscard;
    uint8_t discard[ENGINE_MAX_ACT_CARDS];
    int nplays;
    uint8_t plays[ENGINE_MAX_CARDS];
    int moon; /* ENGINE_MOON_SUBTRACT or ENGINE_MOON_ADD_OTHERS, or NONE */
    bool has_points;
    int32_t points[ENGINE_MAX_PLAYERS];
};

/*
 * A whole record. `rules` is finished (the preset, the player count from
 * `names`, then the options). Owned by whoever got it from record_parse;
 * free it with record_free.
 */
struct record {
    struct engine_rules rules;
    int n;
    char *names[ENGINE_MAX_PLAYERS]; /* NUL-terminated UTF-8 */
    int nhands;
    struct record_hand *hands;
    bool has_totals;
    int32_t totals[ENGINE_MAX_PLAYERS];
    bool has_winners;
    int nwinners;
    uint8_t winners[ENGINE_MAX_PLAYERS]; /* ascending seats */
    /* the table allowed hints (the bot's `hint`): written as "hints":
     * true, left out when false */
    bool hints;
};

/*
 * Parses one record from `len` bytes of `text` (need not be NUL-terminated;
 * surrounding blanks are allowed). Checks the JSON, every field's type,
 * range and length, the format, the preset and the options (through the
 * engine, whose messages name the nearest valid key or value), and the
 * card texts; whether the game described is legal is record_replay's job.
 * Returns 0 and sets *out to a new record (free it with record_free), or
 * -1 with a message in err (if not NULL) and *out untouched.
 */
int record_parse(const char *text, size_t len, struct record **out, char *err,
                 size_t errlen);

/* Frees a record from record_parse; NULL is a no-op. */
void record_free(struct record *rec);

/*
 * The record as one line of JSON without a newline, fields in the order of
 * the spec: options that differ from the preset, each hand's fields as far
 * as they are known, totals and winners if present. The caller frees the
 * string. Aborts if out of memory.
 */
char *record_to_json(const struct record *rec);

/*
 * Called before every action of a replay with the game as it is before the
 * action, the hand number (from 1), the action number (see above) and the
 * action about to be taken. May read the game; must not change it.
 */
typedef void (*record_step_fn)(void *ctx, const struct engine_game *g, int hand,
                               int action, const struct engine_action *a);

/*
 * Replays a parsed record through the engine: deals each hand as recorded
 * (checking the dealer rotates clockwise from the first hand's and the
 * cards are exactly the pack), takes every action in order (refusals
 * become errors), and compares the recomputed points, totals and winners
 * with the record's where it gives them. A record may stop anywhere in its
 * last hand (a journal); then it has no totals or winners. Events go to
 * `sink` (may be NULL), and `step` (may be NULL) is called before every
 * action. Returns 0 and, if `out` is not NULL, copies the final game there
 * (it refers to rec->rules: valid while rec is); or -1 with a message in
 * err (if not NULL) and *out untouched. The sink may have seen part of the
 * game by then.
 */
int record_replay(const struct record *rec, const struct engine_sink *sink,
                  record_step_fn step, void *ctx, struct engine_game *out,
                  char *err, size_t errlen);

/* record_parse then record_replay, for checking a line: 0 or -1 with a
 * message in err. */
int record_check(const char *text, size_t len, char *err, size_t errlen);

struct record_writer;

/*
 * A writer that records a game as it goes. `r` must be finished and is
 * copied; `names` are the n display names in seat order, copied (a byte
 * that is not UTF-8 becomes '?'). Returns NULL (a caller's mistake) if n
 * is not r's player count or a name is NULL or longer than
 * RECORD_MAX_NAME bytes. Aborts if out of memory.
 */
struct record_writer *record_writer_new(const struct engine_rules *r,
                                        const char *const *names, int n);

/*
 * The sink to give engine_deal, engine_deal_given and engine_act for the
 * game being recorded, from its first deal on; every event of that game
 * must reach it. The writer reads what the events do not carry from the
 * game during the callback. Valid until record_writer_free.
 */
const struct engine_sink *record_writer_sink(struct record_writer *w);

/*
 * The record of the game so far as one line of JSON (no newline), for the
 * caller to free: mid-game a journal (no totals or winners; the last hand
 * as far as it went), after the game is over the full record. Returns NULL
 * only if the game went on beyond RECORD_MAX_HANDS hands.
 */
char *record_writer_json(const struct record_writer *w);

/* Whether the game's table allows hints (struct record.hints). */
void record_writer_set_hints(struct record_writer *w, bool hints);

/* Frees the writer; NULL is a no-op. */
void record_writer_free(struct record_writer *w);

#endif
