/*
 * A channel's archive (docs/storage.md): every finished or stopped game's
 * record in archive.jsonl (hearts-record/1, one line each, so that
 * `hearts-sim replay` checks the file), and beside it results.jsonl, one
 * line per archived game in the same order saying who sat where under
 * which key, whether the game finished and who left it.
 */
#ifndef HEARTS_STORAGE_ARCHIVE_H
#define HEARTS_STORAGE_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#define ARCHIVE_FILE "archive.jsonl"
#define ARCHIVE_RESULTS_FILE "results.jsonl"
#define ARCHIVE_RESULTS_FORMAT "heartsbot-results/2"
/* The version before: no "record" fingerprint; still read. */
#define ARCHIVE_RESULTS_FORMAT_V1 "heartsbot-results/1"
/* The longest results line read back. */
#define ARCHIVE_RESULTS_MAX_LINE 16384

/* One seat of an archived game. */
struct archive_seat {
    char name[64]; /* as shown at the table */
    char key[200]; /* struct seat.key: "a:ACCOUNT", "n:NICK", "" computer */
    bool computer; /* a computer player from the start */
    bool left;     /* a person who left the running game or was replaced
                      for good: takes a loss */
};

/* One results line. */
struct archive_result {
    char game[17]; /* the table's game ID, 16 hex digits */
    int64_t time;  /* when it was archived, Unix seconds */
    char preset[32];
    bool custom;    /* the table was opened with options over the preset */
    bool finished;  /* false: stopped, counts for nobody */
    int64_t offset; /* of the game's record in archive.jsonl, bytes: a
                       hint, checked against record_hash */
    bool has_hash;  /* false: a heartsbot-results/1 line, paired by
                       offset alone */
    uint64_t record_hash; /* archive_record_hash of the game's record */
    int n;
    struct archive_seat seats[ENGINE_MAX_PLAYERS];
};

/* The fingerprint that ties a results line to its record: a 64-bit
 * FNV-1a hash of the record's line (len bytes, without its newline). */
uint64_t archive_record_hash(const char *record, size_t len);

/* The results line (no newline) for the caller to free, always in the
 * current format (r->has_hash must be set). Aborts if out of memory. */
char *archive_result_json(const struct archive_result *r);

/*
 * Parses a results line (len bytes, hostile): every field checked; a
 * heartsbot-results/1 line is read too (has_hash false). 0, or -1 with a
 * message (an unknown "format" is named and refused) and *out untouched.
 */
int archive_result_parse(const char *text, size_t len,
                         struct archive_result *out, char *err, size_t errlen);

/*
 * Archives a game in room_dir: appends `record` (one line of JSON, no
 * newline) to archive.jsonl, then r's results line (r->offset set to
 * where the record starts, r->record_hash to its fingerprint) to
 * results.jsonl, each fsynced. Idempotent by game ID, so that a game
 * archived again after a crash or a failed write is archived once: if
 * results.jsonl's last lines hold r->game ended the same way (finished
 * or not), nothing is written (*added false); if archive.jsonl already
 * ends with exactly this record (the crash came between the two
 * appends), only the results line is; with `retry` (the game's archiving
 * failed or was cut short before), the archive's last
 * ARCHIVE_RETRY_WINDOW bytes are searched for the record, not only its
 * end. A game stopped (a shutdown) and later resumed and finished is
 * archived once each way. 0, or -1 with a message.
 */
#define ARCHIVE_RETRY_WINDOW (16 << 20)
int archive_add(const char *room_dir, struct archive_result *r,
                const char *record, bool retry, bool *added, char *err,
                size_t errlen);

/* The paths of room_dir's archive.jsonl and results.jsonl, into buffers
 * of FILE_PATH_MAX bytes. 0, or -1 with a message (too long). */
int archive_paths(const char *room_dir, char *archive, char *results, char *err,
                  size_t errlen);

/* The sizes of room_dir's archive.jsonl and results.jsonl (0 if
 * missing), which leaderboard.json records to tell whether it is
 * current. */
void archive_sizes(const char *room_dir, int64_t *archive_bytes,
                   int64_t *results_bytes);

#endif
