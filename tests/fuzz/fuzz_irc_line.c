/*
 * libFuzzer target for server lines (adapters/irc/line.c): any bytes are
 * what a server sends. They go through the framer twice, in one chunk and
 * in chunks of pseudo-random sizes (seeded by the first byte), and both
 * must give the same lines; each line is parsed, and each part of an
 * accepted line rebuilt for libircclient. Aborts unless: framed lines are
 * non-empty, at most IRCAD_FRAME_MAX - 2 bytes and hold no CR or LF; an
 * accepted line has a command of upper-case letters or three digits (not
 * 000), valid UTF-8 everywhere and an account fit to be one; a rebuilt
 * line holds no CR, LF or NUL, is at most IRCAD_LIB_LINE_MAX bytes,
 * starts with ':' or a letter or digit, has a space after its command (so
 * libircclient never reads past its end), is valid UTF-8, parses again
 * with at most 10 parameters, the same prefix and command, and rebuilds
 * to itself. Run it as `build/tests/fuzz_irc_line -max_len=20000 DIR`.
 */
#include "adapters/irc/line.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ircad_framer framer;
static struct ircad_line line, again, third;

static bool utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        size_t n = c < 0x80   ? 1
                   : c < 0xC2 ? 0
                   : c < 0xE0 ? 2
                   : c < 0xF0 ? 3
                   : c < 0xF5 ? 4
                              : 0;
        if (n == 0)
            return false;
        for (size_t k = 1; k < n; k++)
            if ((p[k] & 0xC0) != 0x80)
                return false;
        if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) ||
            (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] > 0x8F))
            return false;
        p += n;
    }
    return true;
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

static void check_parsed(const struct ircad_line *l)
{
    const char *c = l->command;
    size_t n = strlen(c);
    if (n == 0 || l->nparams > IRCAD_PARAMS_MAX)
        abort();
    if (l->numeric) {
        if (n != 3 || l->numeric < 1 || l->numeric > 999 ||
            atoi(c) != l->numeric)
            abort();
    } else {
        for (size_t i = 0; i < n; i++)
            if (c[i] < 'A' || c[i] > 'Z')
                abort();
    }
    if (l->prefix && (!*l->prefix || !utf8_valid(l->prefix)))
        abort();
    for (unsigned k = 0; k < l->nparams; k++)
        if (!utf8_valid(l->params[k]))
            abort();
    if (l->has_account) {
        if (!*l->account || !utf8_valid(l->account))
            abort();
        for (const char *a = l->account; *a; a++)
            if ((unsigned char)*a <= 0x20 || *a == 0x7f)
                abort();
    }
}

/* The line l is small enough that its first part must be given. */
static bool must_fit(const struct ircad_line *l)
{
    size_t n = strlen(l->command) + 3;
    if (l->prefix)
        n += strlen(l->prefix) + 2;
    for (unsigned k = 0; k < l->nparams; k++)
        n += strlen(l->params[k]) + 2;
    return n <= IRCAD_LIB_LINE_MAX;
}

static void check_rebuilt(const struct ircad_line *l, const char *lib)
{
    size_t n = strlen(lib);
    if (n == 0 || n > IRCAD_LIB_LINE_MAX || strpbrk(lib, "\r\n") ||
        !(lib[0] == ':' || is_alnum(lib[0])) || !utf8_valid(lib))
        abort();
    /* after the prefix, the command and a space */
    const char *cmd = lib;
    if (*cmd == ':') {
        cmd = strchr(cmd, ' ');
        if (!cmd)
            abort();
        cmd++;
    }
    size_t cn = strlen(l->command);
    if (strncmp(cmd, l->command, cn) != 0 || cmd[cn] != ' ')
        abort();
    const char *why;
    if (ircad_line_parse(lib, n, &again, &why) != 0)
        abort();
    if (again.nparams > 10 || strcmp(again.command, l->command) != 0 ||
        (l->prefix == NULL) != (again.prefix == NULL) ||
        (l->prefix && strcmp(l->prefix, again.prefix) != 0) ||
        again.has_account || again.has_time)
        abort();
    /* the clean line is a fixed point */
    static char twice[IRCAD_LIB_LINE_MAX + 1];
    if (ircad_line_for_library(&again, 0, twice, sizeof twice) != 1 ||
        strcmp(twice, lib) != 0 ||
        ircad_line_for_library(&again, 1, twice, sizeof twice) != 0)
        abort();
}

static void check_line(const char *raw, size_t len)
{
    const char *why = NULL;
    if (ircad_line_parse(raw, len, &line, &why) != 0) {
        if (!why || !*why)
            abort();
        return;
    }
    check_parsed(&line);
    static char lib[IRCAD_LIB_LINE_MAX + 1];
    unsigned part = 0;
    while (ircad_line_for_library(&line, part, lib, sizeof lib)) {
        check_rebuilt(&line, lib);
        if (++part > IRCAD_PARAMS_MAX)
            abort();
    }
    if (part == 0 && must_fit(&line))
        abort();
    /* parsing is a function of the line alone */
    if (ircad_line_parse(raw, len, &third, &why) != 0 ||
        third.nparams != line.nparams ||
        strcmp(third.command, line.command) != 0)
        abort();
}

/* A running digest of the lines framed, to compare two framings. */
struct digest {
    uint64_t hash;
    size_t lines;
};

static void digest_add(struct digest *d, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d->hash = (d->hash ^ (unsigned char)s[i]) * 1099511628211u;
    d->hash = (d->hash ^ 0x100) * 1099511628211u;
    d->lines++;
}

/* Frames data in chunks (seed 0: as large as fit), checking each line,
 * and parsing them when `parse`. */
static void frame(const uint8_t *data, size_t size, uint32_t seed, bool parse,
                  struct digest *d)
{
    ircad_framer_init(&framer);
    size_t i = 0;
    while (i < size) {
        size_t room;
        char *dst = ircad_framer_space(&framer, &room);
        if (room == 0)
            abort();
        size_t k = size - i < room ? size - i : room;
        if (seed) {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            /* mostly small chunks, sometimes large ones */
            size_t c = seed % 8 == 0 ? 1 + seed % 4096 : 1 + seed % 16;
            k = k < c ? k : c;
        }
        memcpy(dst, data + i, k);
        ircad_framer_added(&framer, k);
        i += k;
        const char *raw;
        size_t len;
        while ((raw = ircad_framer_next(&framer, &len)) != NULL) {
            if (len == 0 || len > IRCAD_FRAME_MAX - 2 || raw[len] != '\0' ||
                memchr(raw, '\r', len) || memchr(raw, '\n', len))
                abort();
            digest_add(d, raw, len);
            if (parse)
                check_line(raw, len);
        }
    }
    d->hash ^= framer.overlong_lines;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct digest bulk = {14695981039346656037u, 0};
    struct digest chunked = bulk;
    frame(data, size, 0, true, &bulk);
    uint32_t seed = size ? 0x9e3779b9u ^ data[0] : 1;
    frame(data, size, seed ? seed : 1, false, &chunked);
    if (bulk.hash != chunked.hash || bulk.lines != chunked.lines)
        abort();
    return 0;
}
