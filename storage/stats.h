/*
 * A channel's leaderboards (docs/storage.md): per preset, per person,
 * games, wins, points per hand, moons and suns shot, queens of spades
 * taken and a multiplayer Elo rating, derived from the archive
 * (archive.h) and kept in leaderboard.json so that the bot starts
 * without reading the archive. Everything here is derived: stats_rebuild
 * makes it again from archive.jsonl and results.jsonl.
 *
 * Counting (docs/storage.md says it for players): a finished game counts
 * under its preset, and also under "custom" if the table changed any
 * option of the preset; a game whose table allowed hints counts under
 * "hints" alone; a stopped game counts for nobody. Computers are
 * in the results but on no board. The rating: every pair of people in a
 * game is one Elo game scored by final placement (a lower total places
 * better, equal totals draw, a person who left places below everyone who
 * stayed); a person's change is K / (people - 1) times the sum over the
 * others of (score - expected), from everyone's rating before the game.
 */
#ifndef HEARTS_STORAGE_STATS_H
#define HEARTS_STORAGE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/archive.h"
#include "engine/engine.h"

#define STATS_FILE "leaderboard.json"
#define STATS_FORMAT "heartsbot-leaderboard/2"
/* The version before: no results_last; read while it counts the files'
 * exact sizes, rebuilt otherwise. */
#define STATS_FORMAT_V1 "heartsbot-leaderboard/1"
#define STATS_CUSTOM "custom" /* the board of games with changed options */
#define STATS_HINTS "hints"   /* the board of games that allowed hints */
#define STATS_INITIAL 1500.0
#define STATS_K 32.0
#define STATS_PROVISIONAL 10 /* games before a rating is established */
#define STATS_LAST_HANDS 32  /* hands of the last game kept for !scores */

/* One person on one board. */
struct stats_player {
    char key[200];
    char name[64]; /* as last seen at a table */
    int games, wins, hands;
    int64_t points; /* over all their hands */
    int moons, suns, queens;
    double rating;
    int rank; /* 1 = best rating; kept by the board */
};

/* One preset's board. */
struct stats_board {
    char preset[32];
    struct stats_player *p;
    int n, cap;
    int *order; /* indices into p, best rating first */
    int *slots; /* hash of keys: index + 1, 0 empty */
    int nslots;
    bool dirty; /* order and ranks wait for stats_rank */
};

/* The last finished game, for !last and !scores. */
/* Bytes of a game's changed options ("hands=2 target=50") kept for
 * !last; longer ones are cut at an option. */
#define STATS_CHANGES_SIZE 256

struct stats_last {
    bool has;
    char game[17];
    int64_t time;
    char preset[32];
    bool custom;
    /* the options changed over the preset (engine_rules_changes), "" if
     * none or not known (a file written before they were kept) */
    char changes[STATS_CHANGES_SIZE];
    int n;
    char names[ENGINE_MAX_PLAYERS][64];
    bool computer[ENGINE_MAX_PLAYERS];
    bool left[ENGINE_MAX_PLAYERS];
    int32_t totals[ENGINE_MAX_PLAYERS];
    uint16_t winners; /* bit per seat */
    int nhands;       /* in the game */
    int nlast;        /* of them kept below: the last ones */
    int32_t hands[STATS_LAST_HANDS][ENGINE_MAX_PLAYERS];
};

/* A channel's boards. */
struct stats {
    int64_t games; /* archived (results lines), stopped ones too */
    /* where the count stands: the first results_bytes of results.jsonl
     * are counted, the last of their lines game results_last ("" if none
     * or unreadable), when archive.jsonl was archive_bytes long */
    int64_t archive_bytes, results_bytes;
    char results_last[17];
    bool exact;     /* read from a heartsbot-leaderboard/1 file: current
                       only if the files have exactly the sizes counted */
    int64_t behind; /* games counted since leaderboard.json was written */
    bool on_disk;   /* leaderboard.json was read or written */
    int skipped;    /* lines that could not be read when it was read */
    int nboards;
    struct stats_board *boards;
    struct stats_last last;
};

/* What one archived game's record says, for stats_add. */
struct stats_game {
    int n, nhands;
    int preset;
    bool custom;
    char changes[STATS_CHANGES_SIZE]; /* as in stats_last */
    bool finished;                    /* the record has totals and winners */
    bool hints;                       /* the table allowed hints */
    int32_t totals[ENGINE_MAX_PLAYERS];
    int64_t points[ENGINE_MAX_PLAYERS];
    int moons[ENGINE_MAX_PLAYERS], suns[ENGINE_MAX_PLAYERS],
        queens[ENGINE_MAX_PLAYERS];
    uint16_t winners;
    int nlast;
    int32_t hands[STATS_LAST_HANDS][ENGINE_MAX_PLAYERS];
};

struct stats *stats_new(void);
void stats_free(struct stats *s);

/*
 * Replays one archived record (len bytes of JSON, hostile) through the
 * engine and fills g. 0, or -1 with the record's own message.
 */
int stats_game_from_record(const char *json, size_t len, struct stats_game *g,
                           char *err, size_t errlen);

/*
 * Counts one archived game: r its results line, g its record (NULL if the
 * record is missing or bad: then only the archive count moves). Does not
 * touch the byte counts. Ranks wait for stats_rank.
 */
void stats_add(struct stats *s, const struct archive_result *r,
               const struct stats_game *g);

/* Sorts the boards changed since the last call (order, rank): call after
 * stats_add before reading ranks. stats_parse and stats_rebuild do. */
void stats_rank(struct stats *s);

/* The board of a preset name ("standard", "custom"), or NULL. */
const struct stats_board *stats_board(const struct stats *s,
                                      const char *preset);
/* A person on a board by key, or NULL. */
const struct stats_player *stats_find(const struct stats_board *b,
                                      const char *key);
/* Whether the rating is still provisional. */
bool stats_provisional(const struct stats_player *p);

/* leaderboard.json's content (a NUL-terminated string to free). */
char *stats_json(const struct stats *s);

/*
 * Parses leaderboard.json's content. An unknown format is refused with a
 * message naming it. 0 and *out, or -1 with a message.
 */
int stats_parse(const char *text, size_t len, struct stats **out, char *err,
                size_t errlen);

/*
 * Rebuilds the boards from room_dir's archive.jsonl and results.jsonl
 * (a torn last line is dropped by the reader). Each results line is
 * paired with its record by the record's fingerprint (record_hash): the
 * record at its offset if the fingerprint matches there, else the record
 * with that fingerprint anywhere in the archive; a heartsbot-results/1
 * line by its offset alone. A record or results line that cannot be read,
 * a line of the archive longer than any record (damage) and a finished
 * game whose record is found nowhere are skipped: *skipped counts them
 * and the first one's message goes to err; everything else counts.
 * 0 and *out, or -1 (a file cannot be read, or holds a line of a newer
 * heartsbot: a later version of the record or results format, which is
 * never skipped as damage).
 */
int stats_rebuild(const char *room_dir, struct stats **out, int *skipped,
                  char *err, size_t errlen);

/* Replaces room_dir's leaderboard.json with s. */
int stats_save(const char *room_dir, const struct stats *s, char *err,
               size_t errlen);

/*
 * The boards of room_dir from leaderboard.json, caught up: the results
 * lines after the ones it counts are counted now (their records found at
 * their offsets and checked by fingerprint). 0 and *out (*caught_up the
 * games counted after it, *skipped the lines among them that could not
 * be read, the first one's message in why); 1 with the reason in why if
 * the file cannot serve (missing, unreadable, unknown version, counts
 * more than the files hold or lines that are no longer there, a game
 * after it not where its results line says): rebuild then; -1 with the
 * reason in why if it, or a line after it, is of a newer heartsbot (a
 * later version of its format): neither read nor rebuilt.
 */
int stats_open(const char *room_dir, struct stats **out, int64_t *caught_up,
               int *skipped, char *why, size_t whylen);

/*
 * The boards of room_dir: stats_open, else rebuilt from the archive and
 * saved (*rebuilt set, the reason in why). What was caught up or skipped
 * is said in why too. 0 and *out, or -1 with a message (a file of a newer
 * heartsbot among them: nothing is written).
 */
int stats_load(const char *room_dir, struct stats **out, bool *rebuilt,
               char *why, size_t whylen, char *err, size_t errlen);

/* After how many games counted since leaderboard.json was written it is
 * written again: max(16, rows / 8) over all boards, so that the bytes
 * written per game stay the same however many people a board has, and a
 * start after a crash catches up at most that many games. */
int64_t stats_checkpoint_every(const struct stats *s);

/*
 * After archive_add wrote r's game in room_dir: counts it (g NULL: its
 * record did not replay), moves the count's position to the end of the
 * files, and replaces leaderboard.json if there is none yet or once
 * stats_checkpoint_every games have been counted since it was written
 * (*saved set). 0, or -1 with a
 * message (not written: the next start catches up from the older file).
 */
int stats_counted(const char *room_dir, struct stats *s,
                  const struct archive_result *r, const struct stats_game *g,
                  bool *saved, char *err, size_t errlen);

#endif
