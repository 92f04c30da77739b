/*
 * CTCP replies (ctcp.h). A PING's argument is echoed back, so it is checked
 * first: printable ASCII only (a PING's token is a number or a time), so
 * nothing the sender puts there ends our line or our CTCP, or hides or
 * reorders text (no bidi controls) where the reply is shown.
 */
#include "adapters/irc/ctcp.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int arg_safe(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++)
        if (*p < 0x20 || *p >= 0x7f || n >= IRCAD_CTCP_ARG_MAX)
            return 0;
    return 1;
}

int ircad_ctcp_reply(const char *request, const char *version, char *out,
                     size_t outlen)
{
    if (!request || !version)
        return -1;
    char buf[IRCAD_CTCP_ARG_MAX + 16];
    int n;
    if (strcasecmp(request, "VERSION") == 0) {
        if (!arg_safe(version))
            return -1;
        n = snprintf(buf, sizeof buf, "VERSION %s", version);
    } else if (strncasecmp(request, "PING", 4) == 0 &&
               (request[4] == '\0' || request[4] == ' ')) {
        const char *arg = request[4] ? request + 5 : "";
        if (!arg_safe(arg))
            return -1;
        n = *arg ? snprintf(buf, sizeof buf, "PING %s", arg)
                 : snprintf(buf, sizeof buf, "PING");
    } else {
        return -1;
    }
    if (n < 0 || (size_t)n >= outlen)
        return -1;
    memcpy(out, buf, (size_t)n + 1);
    return 0;
}
