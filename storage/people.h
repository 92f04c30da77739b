/*
 * What people chose for themselves (docs/storage.md): their language,
 * how their cards are shown. One JSON Lines file in the data directory,
 * people.jsonl: a line holds one person's settings on one network, and
 * a later line for the same person replaces the earlier one:
 *
 *     {"format":"heartsbot-people/1","net":"libera","key":"a:alice",
 *      "lang":"de"}
 *
 * A person is their results key (struct seat.key: "a:ACCOUNT" or
 * "n:NICK@HOST"). A line without settings forgets the person. The file
 * is rewritten whole (atomically) when loading finds it mostly replaced
 * lines. A line that is no such object is skipped and counted, the rest
 * read: an editor's mistake loses that line only.
 */
#ifndef HEARTS_STORAGE_PEOPLE_H
#define HEARTS_STORAGE_PEOPLE_H

#include <stdbool.h>
#include <stddef.h>

#define PEOPLE_FILE "people.jsonl"
#define PEOPLE_FORMAT "heartsbot-people/1"
/* The people remembered at most (a set for one more is refused). */
#define PEOPLE_MAX 100000
/* The settings a person may have, and their names' and values' lengths. */
#define PEOPLE_SETTINGS_MAX 8
#define PEOPLE_NAME_MAX 16
#define PEOPLE_VALUE_MAX 32
/* The longest line read back. */
#define PEOPLE_LINE_MAX 1024

struct people;

struct people *people_new(void);
void people_free(struct people *p);

/*
 * Reads path (a missing file is nobody). *skipped: lines that were not a
 * person's settings (each with its line number in the log through
 * storage's log hook). -1 with a message if the file cannot be read or
 * holds a line of a format this bot does not know (a newer bot's): p is
 * unchanged then, and the caller must not write the file. Mostly
 * replaced lines are written anew, one per person (not while
 * storage_read_only).
 */
int people_load(struct people *p, const char *path, int *skipped, char *err,
                size_t errlen);

/* The person's setting, or NULL. */
const char *people_get(const struct people *p, const char *net, const char *key,
                       const char *name);

/*
 * Sets (value NULL: forgets) a setting of a person and appends their line
 * to path (NULL: kept in memory only). The name is [a-z_], the value printable
 * ASCII without spaces or quotes. -1 with a message, and nothing changed, for a
 * bad name, value, net or key, too many people or settings, or a file that
 * cannot be written.
 */
int people_set(struct people *p, const char *path, const char *net,
               const char *key, const char *name, const char *value, char *err,
               size_t errlen);

/* How many people have settings. */
size_t people_count(const struct people *p);

#endif
