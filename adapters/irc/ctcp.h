/*
 * Answers to CTCP requests. The bot answers VERSION and PING only (what
 * clients and network checks ask), with a NOTICE as CTCP requires; the
 * adapter rate-limits the answers. Pure (tests/unit/adapters/irc/test_ctcp.c).
 */
#ifndef HEARTS_IRC_CTCP_H
#define HEARTS_IRC_CTCP_H

#include <stddef.h>

/* How long a PING argument may be; longer ones are not answered. */
#define IRCAD_CTCP_ARG_MAX 64

/*
 * The reply body for a request body ("VERSION", "PING 1234"; the \x01
 * delimiters already removed): "VERSION <version>" or "PING <same arg>".
 * Returns 0 and fills out, or -1 (out untouched) if the request is not one
 * we answer or its argument is unsafe to echo (anything but printable
 * ASCII: control characters, \x01, bidi controls; too long).
 */
int ircad_ctcp_reply(const char *request, const char *version, char *out,
                     size_t outlen);

#endif
