/*
 * The channels the bot joined by an invite (invites.h), remembered across
 * restarts in data_dir/<enc(network)>/irc-channels.json:
 *
 *     {"version": 1, "channels": ["#one", "#two"]}
 *
 * written atomically (file_replace) whenever the list changes, read when
 * the adapter is made (then joined with the configured channels). A file
 * that cannot be read, is not this format, or is of a newer version is
 * refused with a log line: no channel of it is joined, and it is never
 * overwritten (an operator decides what to do with it).
 */
#ifndef HEARTS_IRC_REMEMBERED_H
#define HEARTS_IRC_REMEMBERED_H

#include <stdbool.h>
#include <stddef.h>

struct ircad;

/* The version this build writes and the newest it reads. */
#define IRCAD_REMEMBERED_VERSION 1
/* The file is this big at most (64 channels of 50 bytes fit well). */
#define IRCAD_REMEMBERED_MAX 16384

/*
 * Parses the file's text (len bytes): 0 with the channel names in
 * *names (count *n; free each and the array), or -1 with the reason
 * (not JSON, no version or a newer one, no list, an entry that is no
 * channel name, more than `max` entries). Pure. A name is a
 * channel (# or &, at most CHANNEL_NAME_MAX bytes, a valid target).
 */
int ircad_remembered_parse(const char *text, size_t len, int max, char ***names,
                           int *n, char *err, size_t errlen);

/* The file's text for the invited channels of the adapter, for tests
 * and saving (free it). */
char *ircad_remembered_text(const struct ircad *a);

/* Sets the data directory (NULL or "": nothing remembered) and adds the
 * remembered channels to the adapter's. */
void ircad_remembered_load(struct ircad *a, const char *data_dir);

/* Writes the invited channels (logged if it cannot). */
void ircad_remembered_save(struct ircad *a);

#endif
