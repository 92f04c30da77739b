/*
 * Who asked to be called when a table opens in a channel (docs/storage.md,
 * docs/playing.md's !notify). One JSON Lines file in the channel's
 * directory, notify.jsonl: a line holds one person, by their results key
 * (struct seat.key: "a:ACCOUNT" or "n:NICK@HOST"), and the nick to call
 * them by; a later line for the same key replaces the earlier one, and a
 * line without a nick forgets the person:
 *
 *     {"format":"heartsbot-notify/1","key":"a:alice","nick":"alice"}
 *     {"format":"heartsbot-notify/1","key":"a:alice"}
 *
 * Fields a line has beyond these are ignored (a newer build may add
 * some). A line that is no such object is skipped and counted, the rest
 * read; a line of a format this build does not know (a newer bot's)
 * stops the reading, and the file is then neither read nor written. The
 * file is rewritten whole (atomically) when loading finds it mostly
 * replaced lines. At most NOTIFY_MAX people a channel.
 */
#ifndef HEARTS_STORAGE_NOTIFY_H
#define HEARTS_STORAGE_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NOTIFY_FILE "notify.jsonl"
#define NOTIFY_FORMAT "heartsbot-notify/1"
/* The people of one channel at most (one more is refused). */
#define NOTIFY_MAX 1000
/* The longest key and nick (bytes). */
#define NOTIFY_KEY_MAX 199
#define NOTIFY_NICK_MAX 63
/* The longest line read back. */
#define NOTIFY_LINE_MAX 1024

struct notify_entry {
    char key[NOTIFY_KEY_MAX + 1];
    char nick[NOTIFY_NICK_MAX + 1];
    /* not stored: when (the caller's clock) they were last called, 0:
     * not since the list was loaded */
    int64_t called;
};

struct notify;

struct notify *notify_new(void);
void notify_free(struct notify *n);

/*
 * Reads path (a missing file is nobody) in place of what n held.
 * *skipped: lines that were not a person (each logged with its number
 * through storage's log hook). -1 with a message, n unchanged, if the
 * file cannot be read or holds a line of a format this build does not
 * know: the caller must not write the file then. Mostly replaced lines
 * are written anew, one per person (not while storage_read_only).
 */
int notify_load(struct notify *n, const char *path, int *skipped, char *err,
                size_t errlen);

/* The person of `key`, or NULL. */
struct notify_entry *notify_find(struct notify *n, const char *key);

/*
 * Puts the person of `key` on the list with `nick` (NULL: takes them off)
 * and appends their line to path (NULL: kept in memory only). -1 with a
 * message, nothing changed, for a key or nick that is empty, too long or
 * holds a control character, a list of NOTIFY_MAX already, or a file that
 * cannot be written. A person who stays keeps their `called`.
 */
int notify_set(struct notify *n, const char *path, const char *key,
               const char *nick, char *err, size_t errlen);

/* How many people are on the list, and the i-th (by key). */
size_t notify_count(const struct notify *n);
struct notify_entry *notify_at(struct notify *n, size_t i);

#endif
