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

/* The record at `offset` of the archive at `archive_path`, into a new
 * buffer (*len bytes, without its newline) for the caller to free: the
 * line from there, or a whole last line without its newline. 0, or -1
 * (no such line, longer than RECORD_MAX_LINE, or the file cannot be
 * read: errno may say why). */
int archive_record_at(const char *archive_path, int64_t offset, char **out,
                      size_t *len);

/*
 * The record of r's game in room_dir's archive.jsonl: the line at
 * r->offset, which must have r's fingerprint (a heartsbot-results/1 line,
 * without one, is taken at its offset as it always was). Only that one
 * line is read: a record that is not where its results line says is an
 * error here (the boards' rebuild finds it by its fingerprint). 0 and
 * *out (*len bytes, to free), or -1 with a message.
 */
int archive_record_of(const char *room_dir, const struct archive_result *r,
                      char **out, size_t *len, char *err, size_t errlen);

/* How far back archive_find reads results.jsonl, in bytes: some 8,000
 * games of four people (a line is about 500 bytes), read from the end in
 * growing steps; a game further back is not found. Reading it all costs
 * about 2 ms from the page cache, 40 ms from a disk. */
#define ARCHIVE_FIND_WINDOW (4 << 20)

/* What archive_find found. */
enum archive_found {
    ARCHIVE_FOUND,    /* *out is the game */
    ARCHIVE_NONE,     /* no such game within ARCHIVE_FIND_WINDOW */
    ARCHIVE_AMBIGUOUS /* the ID's prefix names more than one game */
};

/*
 * A game of room_dir's results.jsonl, read from its end (at most
 * ARCHIVE_FIND_WINDOW bytes, so the call costs the same however long the
 * file is): with `id` (4 to 16 lower-case hex digits, a prefix of the
 * game's ID), the game whose ID starts so (a game archived twice, stopped
 * at a shutdown and finished after a restart: its finished line);
 * without (NULL), the `back`-th finished game counting from the last (1:
 * the last). Lines that cannot be read are skipped. *finished (if not
 * NULL) counts the finished games seen counting back (0 for an ID: it is
 * found by each line's "game" field, only the lines whose ID starts so
 * parsed). Returns an enum archive_found
 * (0 and *out when found), or -1 with a message (a read error; a missing
 * file is ARCHIVE_NONE).
 */
int archive_find(const char *room_dir, const char *id, int back,
                 struct archive_result *out, int *finished, char *err,
                 size_t errlen);

#endif
