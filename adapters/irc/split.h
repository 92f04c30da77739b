/*
 * Sanitizing and splitting outgoing text into IRC lines. Pure functions:
 * no I/O, no allocation beyond the caller's callback, so the rules are
 * tested directly (tests/unit/adapters/irc/test_split.c).
 */
#ifndef HEARTS_IRC_SPLIT_H
#define HEARTS_IRC_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

/* RFC 1459: a line is at most 512 bytes, CR LF included. */
#define IRCAD_LINE_MAX 512
/* What a server puts in front of our line when it relays it,
 * ":nick!user@host ": reserved so the relayed line still fits. */
#define IRCAD_PREFIX_RESERVE 100
/* The longest target we accept; keeps at least ~200 bytes per chunk. */
#define IRCAD_TARGET_MAX 200

/*
 * Whether `target` can follow PRIVMSG: non-empty, at most IRCAD_TARGET_MAX
 * bytes, no space, comma, control character or DEL, not starting with ':'.
 * NULL is not valid.
 */
bool ircad_target_valid(const char *target);

/*
 * How many bytes of text fit in one "COMMAND target :text" line so that
 * the line, CR LF and IRCAD_PREFIX_RESERVE stay within IRCAD_LINE_MAX.
 * 0 if nothing fits.
 */
size_t ircad_split_budget(const char *command, const char *target);

/*
 * Where to cut `s` (len bytes, no newline) into a chunk of at most `max`
 * bytes: returns the chunk's length and sets *skip to the bytes to skip
 * after it (1 when the cut is at a space, else 0). Never cuts inside a
 * UTF-8 sequence or inside a colour escape (\x03 with its digits, \x04
 * with its hex digits); prefers the last space in the final quarter.
 * Returns len if it all fits. max must be at least 16.
 */
size_t ircad_split_cut(const char *s, size_t len, size_t max, size_t *skip);

/* Called with each finished line (no CR LF), valid during the call. */
typedef void (*ircad_line_fn)(void *ctx, const char *line);

/*
 * Turns `text` into "COMMAND target :chunk" lines: CR and NUL are dropped,
 * each LF ends a message, empty messages are skipped, and long messages are
 * cut with ircad_split_cut to ircad_split_budget. Returns the number of
 * lines given to fn, or -1 (and no line) if the target is invalid.
 */
int ircad_split(const char *command, const char *target, const char *text,
                ircad_line_fn fn, void *ctx);

/*
 * Copies `in` to out (outlen > 0) without CR, LF and NUL, cut at a UTF-8
 * boundary to fit; returns the length written. For single-line values:
 * QUIT reasons, passwords.
 */
size_t ircad_sanitize(char *out, size_t outlen, const char *in);

#endif
