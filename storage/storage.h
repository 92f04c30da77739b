/*
 * Flat files under the bot's data directory (docs/storage.md): whole-line
 * appends, reading JSON Lines with a torn last line dropped, and the lock
 * that keeps a second bot out. Names, paths, directories, atomic
 * replacement and whole-file reads are the common file primitives
 * (bot/common/file.h), which these are built on.
 *
 * Every function that can fail returns 0, or -1 with a message that names
 * the file and the reason in `err` (errlen bytes, may be NULL) and errno
 * set to the cause (storage_reason words it); none of them aborts on bad
 * input or a failing disk. Paths are never truncated:
 * a path that does not fit is an error. Files are opened without following
 * symbolic links (a link where a file should be is an error).
 */
#ifndef HEARTS_STORAGE_H
#define HEARTS_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Appends one line (len bytes, which must end with '\n' and hold no other
 * newline) to path, creating it (mode 0600) if missing, and fsyncs it
 * before returning, or has it synced by the sync fn if one is set
 * (storage_set_sync: the line is written before it returns either way). On a
 * short or failed write the file is cut back to its old length: it never keeps
 * part of a line. A file that does not end with '\n' gets one first if its last
 * line is one whole JSON object (an editor left it so); any other last line
 * without '\n' was torn by a crash and is cut off first (logged).
 */
int storage_append(const char *path, const char *line, size_t len, char *err,
                   size_t errlen);

/*
 * storage_append in two steps, for a caller that must not wait for the
 * disk (the bot's loop, bot/syncer.h): storage_append_unsynced writes the
 * line as storage_append does (cut back on a failed write) and closes the
 * file, unsynced: the line is the kernel's then, so it survives a crash
 * or kill of the process, not yet one of the machine. *created: the
 * file is new. storage_sync_path, on any thread, then fsyncs the file at
 * path (every line written to it so far) and, if `created`, its
 * directory; a file removed since is nothing to sync (0). A failed fsync
 * there cannot take a line back (others may have read it): the caller is
 * told, and decides.
 */
int storage_append_unsynced(const char *path, const char *line, size_t len,
                            bool *created, char *err, size_t errlen);
int storage_sync_path(const char *path, bool created, char *err, size_t errlen);

/*
 * Where the fsyncs of storage_append and storage_replace go: fn(ctx,
 * path, created) returns 0 when it takes path to sync soon, on a thread
 * of its own (bot/syncer.h), with its directory if `created`; otherwise
 * they are done at once. With no fn (the default: tools and tests), they
 * are done at once. Set and cleared on the thread that writes (the
 * bot's loop), before and after its writes.
 */
typedef int (*storage_sync_fn)(void *ctx, const char *path, bool created);
void storage_set_sync(storage_sync_fn fn, void *ctx);
/* Clears the sync fn if ctx is the one it was set with. */
void storage_unset_sync(void *ctx);

/*
 * file_replace for a file derived from others and rebuilt when wrong
 * (leaderboard.json): with a sync fn set, the file is replaced without
 * its fsyncs and named to the fn (file_replace_unsynced); otherwise it
 * is file_replace.
 */
int storage_replace(const char *path, const void *data, size_t len, char *err,
                    size_t errlen);

/*
 * Reads path as JSON Lines: calls fn for each whole line (without its
 * '\n', NUL-terminated; empty lines are skipped), in order, with its
 * number from 1. A last line without '\n' is whole if it is one whole
 * JSON object (storage_whole_json: an editor or `$(cat f)` left it so)
 * and is read like any other; otherwise it was torn by a crash: it is
 * dropped, logged, and cut off the file so that the next append starts
 * a fresh line. A line longer than max_line bytes is an error. fn
 * returns 0 to go on, non-zero to stop (storage_read_lines then returns
 * that value). A missing file is no lines (0; *missing set if not NULL).
 */
typedef int (*storage_line_fn)(void *ctx, char *line, size_t len, long lineno);
int storage_read_lines(const char *path, size_t max_line, storage_line_fn fn,
                       void *ctx, bool *missing, char *err, size_t errlen);

/*
 * Reads path as JSON Lines of one format (people.jsonl, notify.jsonl):
 * calls fn with each line that is a JSON object whose "format" is the
 * string `format`; a line that is not one, or that fn refuses (non-zero),
 * is skipped, counted in *skipped and logged as "PATH:LINE: not WHAT:
 * skipped". A line of another "format" stops the reading: -1 with a
 * message that names the line and says that what the file `holds` is not
 * read nor written (a newer bot's file: the caller must not write it).
 * *lines: the lines read. A missing file is no lines. The object lives
 * only during the call.
 */
struct json_object;
typedef int (*storage_object_fn)(void *ctx, struct json_object *o);
int storage_read_objects(const char *path, size_t max_line, const char *format,
                         const char *what, const char *holds,
                         storage_object_fn fn, void *ctx, int *skipped,
                         long *lines, char *err, size_t errlen);

/* Whether s is printable UTF-8 of 1 to max bytes: no control character.
 * What a key or name read back from a file must be. */
bool storage_text_ok(const char *s, size_t max);

/*
 * storage_read_lines from byte `from` (the start of a line; lineno counts
 * from there), telling fn each line's byte offset in the file. With
 * skip_long, a line longer than max_line (damage: a run of zero bytes,
 * say) is skipped and logged and reading goes on, instead of an error.
 */
typedef int (*storage_line_at_fn)(void *ctx, char *line, size_t len,
                                  long lineno, int64_t offset);
int storage_scan_lines(const char *path, int64_t from, size_t max_line,
                       bool skip_long, storage_line_at_fn fn, void *ctx,
                       bool *missing, char *err, size_t errlen);

/* Whether len bytes of text are one whole JSON object (blanks after it
 * allowed): a complete line, as opposed to part of one. */
bool storage_whole_json(const char *text, size_t len);

/*
 * Whether `format` (a file's "format" value, "heartsbot-journal/3") is a
 * later version of the format `known` names ("heartsbot-journal/1"): the
 * same kind before the last '/' and a greater decimal version after it.
 * Such a file was written by a newer heartsbot: the readers refuse it
 * and keep it as it is, never guess at it or write over it.
 */
bool storage_format_newer(const char *format, const char *known);

/* Whether len bytes of text are a JSON object whose "format" is
 * storage_format_newer than `known`: asked of a line a reader refused, to
 * tell a newer heartsbot's line from damage. */
bool storage_json_newer(const char *text, size_t len, const char *known);

/* A 64-bit FNV-1a hash of len bytes. */
uint64_t storage_hash64(const void *data, size_t len);

/*
 * Removes from dir what a kill in the middle of file_replace leaves:
 * regular files named "<name>.tmp-PID-N" whose PID is no other live
 * process of ours (never a link, a directory or any other name). Each
 * removal is logged; *removed counts them. 0, or -1 with a message (dir
 * is a link, or cannot be read).
 */
int storage_clean_temps(const char *dir, int *removed, char *err,
                        size_t errlen);

/*
 * Renames path aside to path + ".bad-<time>" (a journal that cannot be
 * replayed), so that it is kept for a person to look at.
 */
int storage_move_aside(const char *path, char *err, size_t errlen);

/* Removes path if it exists (and fsyncs its directory). */
int storage_remove(const char *path, char *err, size_t errlen);

/*
 * Takes data_dir's lock for the life of the process (a file "lock" with
 * the pid in it, held by flock: a killed bot does not leave it stuck).
 * -2 with "another heartsbot (pid N) is already using data directory
 * DATA_DIR" if another process holds it; -1 if it cannot be taken (the
 * directory cannot be written). The lock's file stays open (close-on-exec)
 * until exit or storage_unlock.
 */
int storage_lock(const char *data_dir, char *err, size_t errlen);

/* Whether this process holds the lock; letting go of it (tests: a bot
 * keeps it). */
bool storage_locked(void);
void storage_unlock(void);

/* A few words for the channel on why a write failed, from the errno a
 * storage or file (file.h) function left: "the disk is full". A static
 * string, in English: a message of the catalogue (bot/common/msg.h), so
 * msg_template gives it in a person's language. */
const char *storage_reason(int err);

/*
 * Where storage reports what no caller asked about: a torn last line
 * dropped by storage_read_lines (error false), a failed cut-back (error
 * true). The default writes to standard error; the bot passes its log.
 * NULL restores the default. Not thread-safe: set it once at start.
 */
typedef void (*storage_log_fn)(bool error, const char *msg);
void storage_set_log(storage_log_fn fn);
/* Says a printf text through the hook (the other storage files' too). */
void storage_log(bool error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Only reading (heartsbot --check): while on, the readers here change no
 * file. A torn last line is reported through the log hook, not cut off,
 * and people.jsonl is not written anew (people.h). Not thread-safe: set
 * it once at start.
 */
void storage_set_read_only(bool on);
bool storage_read_only(void);

/*
 * Whether data_dir can be written now: creates, writes, fsyncs and
 * removes a probe file. Checked at start and after a failed write.
 */
int storage_check(const char *data_dir, char *err, size_t errlen);

#endif
