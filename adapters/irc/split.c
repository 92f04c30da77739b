/*
 * Sanitizing and splitting outgoing text (split.h). IRC gives a line 512
 * bytes including the prefix the server adds when it relays it, so a long
 * message becomes several PRIVMSGs. The cut never lands inside a UTF-8
 * sequence (a client would show two broken characters) nor between a
 * colour escape and its digits (the digits would turn into text or into a
 * different colour), and prefers a space near the end so words stay whole.
 */
#include "adapters/irc/split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/utf8.h"
#include "bot/common/xalloc.h"

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Up to `n` characters matching `ok` from s[i]; returns the index after. */
static size_t run(const char *s, size_t len, size_t i, size_t n,
                  bool (*ok)(char))
{
    while (n-- && i < len && ok(s[i]))
        i++;
    return i;
}

/* The end of the colour escape that starts at s[q] (\x03 or \x04): mIRC
 * colours are \x03 with up to two digits and optionally a comma and up to
 * two more; hex colours are \x04 with up to six hex digits, same shape.
 * The comma belongs to the escape only when a digit follows it. */
static size_t escape_end(const char *s, size_t len, size_t q)
{
    bool (*ok)(char) = s[q] == 0x03 ? is_digit : is_hex;
    size_t n = s[q] == 0x03 ? 2 : 6;
    size_t i = run(s, len, q + 1, n, ok);
    if (i > q + 1 && i + 1 < len && s[i] == ',' && ok(s[i + 1]))
        i = run(s, len, i + 1, n, ok);
    return i;
}

/* If a cut before s[p] would split a colour escape, the escape's start;
 * else p. Only the nearest escape byte can matter: an earlier escape ends
 * before the next escape byte begins. */
static size_t escape_start(const char *s, size_t len, size_t p)
{
    size_t lo = p > 14 ? p - 14 : 0;
    for (size_t q = p; q-- > lo;) {
        if (s[q] == 0x03 || s[q] == 0x04)
            return escape_end(s, len, q) > p ? q : p;
    }
    return p;
}

size_t ircad_split_cut(const char *s, size_t len, size_t max, size_t *skip)
{
    *skip = 0;
    if (len <= max)
        return len;
    /* back to the lead byte of a character max splits; malformed input
     * (a run of continuation bytes) is cut anyway */
    size_t p = escape_start(s, len, utf8_cut(s, len, max));
    /* a space in the last quarter: the chunk ends before it and the next
     * one starts after it */
    size_t lo = p - p / 4;
    for (size_t i = p; i > lo && i > 0; i--) {
        if (s[i] == ' ') {
            *skip = 1;
            return i;
        }
    }
    return p > 0 ? p : max;
}

bool ircad_target_valid(const char *target)
{
    if (!target || !*target || *target == ':')
        return false;
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)target; *p; p++) {
        if (*p <= 0x20 || *p == 0x7f || *p == ',')
            return false;
        if (++n > IRCAD_TARGET_MAX)
            return false;
    }
    return true;
}

size_t ircad_split_budget(const char *command, const char *target)
{
    /* "COMMAND target :" + CR LF + the relaying server's prefix */
    size_t fixed =
        strlen(command) + 1 + strlen(target) + 2 + 2 + IRCAD_PREFIX_RESERVE;
    return fixed < IRCAD_LINE_MAX ? IRCAD_LINE_MAX - fixed : 0;
}

int ircad_split(const char *command, const char *target, const char *text,
                ircad_line_fn fn, void *ctx)
{
    if (!command || !*command || strchr(command, ' ') ||
        !ircad_target_valid(target))
        return -1;
    size_t budget = ircad_split_budget(command, target);
    if (budget < 16)
        return -1;
    if (!text)
        return 0;

    /* a copy without CR, so cut positions count only what is sent */
    size_t tlen = strlen(text);
    char *clean = xcalloc(tlen + 1, 1);
    size_t n = 0;
    for (size_t i = 0; i < tlen; i++)
        if (text[i] != '\r')
            clean[n++] = text[i];
    clean[n] = '\0';

    char line[IRCAD_LINE_MAX];
    size_t head =
        (size_t)snprintf(line, sizeof line, "%s %s :", command, target);
    int count = 0;
    const char *seg = clean;
    const char *end = clean + n;
    while (seg < end) {
        const char *nl = memchr(seg, '\n', (size_t)(end - seg));
        size_t slen = nl ? (size_t)(nl - seg) : (size_t)(end - seg);
        const char *s = seg;
        while (slen > 0) {
            size_t skip;
            size_t take = ircad_split_cut(s, slen, budget, &skip);
            memcpy(line + head, s, take);
            line[head + take] = '\0';
            fn(ctx, line);
            count++;
            s += take + skip;
            slen -= take + skip;
        }
        seg += (nl ? (size_t)(nl - seg) + 1 : (size_t)(end - seg));
    }
    free(clean);
    return count;
}

size_t ircad_sanitize(char *out, size_t outlen, const char *in)
{
    size_t n = 0;
    bool cut = false;
    for (; in && *in; in++) {
        if (*in == '\r' || *in == '\n')
            continue;
        if (n + 1 >= outlen) {
            cut = true;
            break;
        }
        out[n++] = *in;
    }
    if (cut)
        n = utf8_trim(out, n); /* no sequence the cut left incomplete */
    out[n] = '\0';
    return n;
}
