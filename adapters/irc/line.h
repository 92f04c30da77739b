/*
 * Lines from an IRC server, before anything else reads them: framing
 * (lines end at LF, CR LF or a lone CR; empty lines are skipped; a line
 * longer than IRCAD_FRAME_MAX is dropped whole), parsing (IRCv3 message
 * tags, prefix, command, up to IRCAD_PARAMS_MAX parameters), the checks
 * that refuse a line nobody could act on, and the clean line that
 * libircclient is given (never one of the shapes that crash or stall it:
 * see ../shared/STYLE.md and docs/bot.md).
 *
 * Everything here is pure: no I/O, no allocation, no globals.
 */
#ifndef HEARTS_IRC_LINE_H
#define HEARTS_IRC_LINE_H

#include <stdbool.h>
#include <stddef.h>

/* The longest line accepted: 8191 bytes of tags and 512 of message (the
 * IRCv3 limits), CR LF included. */
#define IRCAD_FRAME_MAX 8703
/* Parameters kept; a line with more is refused. */
#define IRCAD_PARAMS_MAX 15
/* An account name from a tag, a JOIN or ACCOUNT at most (bytes, NUL
 * included); a longer one is ignored as if absent. */
#define IRCAD_ACCOUNT_MAX 128
/* The longest line given to libircclient (its buffers are 1 KiB; CR LF
 * not counted). */
#define IRCAD_LIB_LINE_MAX 1000

/*
 * The framer: bytes in, complete lines out. Fill it through
 * ircad_framer_space / ircad_framer_added, then take lines with
 * ircad_framer_next until it returns NULL.
 */
struct ircad_framer {
    char buf[IRCAD_FRAME_MAX + 1];
    size_t start;   /* the first byte not yet returned */
    size_t len;     /* bytes held, from start on */
    size_t scanned; /* of those, bytes known to hold no line end */
    bool overlong;  /* skipping the rest of a line that was too long */
    unsigned long overlong_lines; /* lines dropped for length, in all */
};

void ircad_framer_init(struct ircad_framer *f);

/* Where the next bytes read from the network go, and how many fit
 * (never 0: a full buffer without a line end starts dropping). */
char *ircad_framer_space(struct ircad_framer *f, size_t *room);

/* n bytes were written at ircad_framer_space. */
void ircad_framer_added(struct ircad_framer *f, size_t n);

/*
 * The next complete line without its ending, NUL-terminated, its length
 * (which counts any NUL bytes inside it) in *len; NULL when no complete
 * line is held. Valid until the next call on f.
 */
const char *ircad_framer_next(struct ircad_framer *f, size_t *len);

/* Bytes held that do not yet make a complete line. */
size_t ircad_framer_pending(const struct ircad_framer *f);

/*
 * One parsed line. The pointers point into `store`; the struct is
 * self-contained (copying it by value is not: pointers would dangle).
 */
struct ircad_line {
    /* the tags we use, unescaped: account (account-tag), time
     * (server-time); has_* false when the tag is absent */
    bool has_account;
    char account[IRCAD_ACCOUNT_MAX];
    bool has_time;
    char time[40];
    const char *prefix;  /* without ':', NULL if none */
    const char *command; /* a verb in upper case, or three digits */
    int numeric;         /* 1..999 for a numeric, else 0 */
    const char *params[IRCAD_PARAMS_MAX];
    unsigned nparams;
    char store[IRCAD_FRAME_MAX + 1];
};

/*
 * Parses and checks one framed line (len bytes; may hold NUL). Returns 0,
 * or -1 and a short reason for the log in *why (a static string) when the
 * line is refused:
 * - NUL bytes, no command, a command that is neither letters nor three
 *   digits, the numeric 000, more than IRCAD_PARAMS_MAX parameters;
 * - a command that only a person sends (PRIVMSG, NICK, JOIN, PART, QUIT,
 *   KICK, MODE, TOPIC, INVITE, ACCOUNT, AWAY, CHGHOST) without a prefix
 *   to say who (a NOTICE may come without one: servers send those); a
 *   prefix that is empty or holds a space;
 * - too few parameters for the command (PRIVMSG/NOTICE 2, NICK/JOIN/PART
 *   1, KICK 2, a numeric 1, PING 1, CAP 2, AUTHENTICATE 1, ACCOUNT 1);
 * - a CTCP that libircclient would misread (a text that is a lone \x01;
 *   DCC requests, which the bot never takes).
 * Invalid UTF-8 in the prefix or a parameter becomes U+FFFD, and a
 * command is upper-cased.
 */
int ircad_line_parse(const char *raw, size_t len, struct ircad_line *out,
                     const char **why);

/*
 * The line as libircclient may see it, into out (outlen bytes, CR LF not
 * included): ":prefix COMMAND middle... :last" without tags, at most
 * IRCAD_LIB_LINE_MAX bytes (the last parameter cut at a UTF-8 boundary
 * if need be) and at most 10 parameters. An RPL_ISUPPORT (005) with more
 * tokens than fit is given in parts: `part` counts from 0. Returns 1 if
 * the part exists (and was written), 0 if there is no such part.
 *
 * The last parameter has its ':' only when it is empty, holds a space or
 * starts with ':' (so the line rebuilt from this one is this one); a line
 * without parameters ends with a space (libircclient reads past the end
 * of a bare command). Other lines with more than 10 parameters keep the
 * first 9 and the last; each 005 part keeps the nick and the trailing
 * text and as many tokens as fit. If the prefix, command and the other
 * parameters alone pass the limit, nothing is written and 0 is returned
 * even for part 0: the line is not given at all (never a cut prefix or
 * target). out is untouched when 0 is returned.
 */
int ircad_line_for_library(const struct ircad_line *l, unsigned part, char *out,
                           size_t outlen);

#endif
