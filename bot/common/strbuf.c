/*
 * The capped string builder (strbuf.h).
 */
#include "bot/common/strbuf.h"

#include <stdio.h>
#include <string.h>

#include "bot/common/utf8.h"
#include "bot/common/xalloc.h"

void strbuf_init(struct strbuf *sb, char *buf, size_t size)
{
    memset(sb, 0, sizeof *sb);
    sb->buf = buf;
    sb->size = size;
    sb->max = size ? size - 1 : 0;
    if (size)
        buf[0] = '\0';
}

void strbuf_init_heap(struct strbuf *sb, size_t max)
{
    memset(sb, 0, sizeof *sb);
    sb->heap = true;
    sb->max = max < STRBUF_NO_CAP ? max : STRBUF_NO_CAP;
}

void strbuf_free(struct strbuf *sb)
{
    if (sb->heap) {
        free(sb->buf);
        sb->buf = NULL;
        sb->size = 0;
    }
    strbuf_reset(sb);
}

char *strbuf_take(struct strbuf *sb)
{
    char *s = sb->buf ? sb->buf : xstrdup("");
    sb->buf = NULL;
    sb->size = 0;
    strbuf_reset(sb);
    return s;
}

void strbuf_reset(struct strbuf *sb)
{
    sb->len = 0;
    sb->need = 0;
    sb->held = 0;
    sb->cut = false;
    if (sb->buf)
        sb->buf[0] = '\0';
}

/* The bytes an append may still write, a cut builder aside. */
static size_t room(const struct strbuf *sb)
{
    return sb->max - sb->len - sb->held;
}

size_t strbuf_room(const struct strbuf *sb)
{
    return sb->cut ? 0 : room(sb);
}

/* Makes buf hold len + n bytes of text and the NUL (n <= room). */
static void grow(struct strbuf *sb, size_t n)
{
    if (!sb->heap || sb->len + n + 1 <= sb->size)
        return;
    size_t size = sb->size ? sb->size : 64;
    while (size < sb->len + n + 1)
        size *= 2;
    if (size > sb->max + 1)
        size = sb->max + 1;
    sb->buf = xrealloc(sb->buf, size);
    sb->size = size;
}

/* Writes s[0..n) (n <= room). */
static void put(struct strbuf *sb, const char *s, size_t n)
{
    if (!sb->heap && sb->size == 0)
        return; /* a fixed builder of no bytes */
    grow(sb, n);
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

bool strbuf_add(struct strbuf *sb, const char *s, size_t n)
{
    sb->need += n;
    if (sb->cut)
        return false;
    if (n <= room(sb)) {
        put(sb, s, n);
        return true;
    }
    put(sb, s, utf8_cut(s, n, room(sb)));
    sb->cut = true;
    return false;
}

bool strbuf_addstr(struct strbuf *sb, const char *s)
{
    return strbuf_add(sb, s, strlen(s));
}

bool strbuf_addc(struct strbuf *sb, char c)
{
    return strbuf_add(sb, &c, 1);
}

bool strbuf_addrep(struct strbuf *sb, char c, size_t n)
{
    char chunk[64];
    memset(chunk, c, sizeof chunk);
    bool ok = true;
    while (n > 0) {
        size_t k = n < sizeof chunk ? n : sizeof chunk;
        ok = strbuf_add(sb, chunk, k) && ok;
        n -= k;
    }
    return ok;
}

bool strbuf_add_whole(struct strbuf *sb, const char *s, size_t n)
{
    sb->need += n;
    if (sb->cut)
        return false;
    if (n > room(sb)) {
        sb->cut = true;
        return false;
    }
    put(sb, s, n);
    return true;
}

bool strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    if (sb->cut) {
        int w = vsnprintf(NULL, 0, fmt, ap);
        sb->need += w > 0 ? (size_t)w : 0;
        return false;
    }
    va_list again;
    va_copy(again, ap);
    if (!sb->heap) {
        /* straight into the buffer; a cut then drops a torn character */
        size_t r = room(sb);
        int w = sb->size ? vsnprintf(sb->buf + sb->len, r + 1, fmt, ap)
                         : vsnprintf(NULL, 0, fmt, ap);
        va_end(again);
        if (w < 0)
            return true;
        sb->need += (size_t)w;
        if ((size_t)w <= r) {
            sb->len += (size_t)w;
            return true;
        }
        if (sb->size) {
            sb->len += utf8_trim(sb->buf + sb->len, r);
            sb->buf[sb->len] = '\0';
        }
        sb->cut = true;
        return false;
    }
    int w = vsnprintf(NULL, 0, fmt, ap);
    if (w < 0) {
        va_end(again);
        return true;
    }
    size_t n = (size_t)w;
    bool ok;
    if (n <= room(sb)) {
        grow(sb, n);
        vsnprintf(sb->buf + sb->len, n + 1, fmt, again);
        sb->len += n;
        sb->need += n;
        ok = true;
    } else {
        char *text = xcalloc(n + 1, 1);
        vsnprintf(text, n + 1, fmt, again);
        ok = strbuf_add(sb, text, n);
        free(text);
    }
    va_end(again);
    return ok;
}

bool strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
    return ok;
}

struct strbuf_mark strbuf_mark(const struct strbuf *sb)
{
    struct strbuf_mark m = {sb->len, sb->held};
    return m;
}

void strbuf_commit(struct strbuf *sb, struct strbuf_mark mark)
{
    if (!sb->cut)
        return;
    if (mark.len < sb->len) {
        sb->len = mark.len;
        sb->buf[mark.len] = '\0';
    }
    sb->held = mark.held;
}

void strbuf_truncate(struct strbuf *sb, size_t len)
{
    if (len < sb->len) {
        sb->len = len;
        sb->buf[len] = '\0';
    }
    sb->cut = false;
}

bool strbuf_hold(struct strbuf *sb, size_t n)
{
    if (sb->cut || n > room(sb))
        return false;
    sb->held += n;
    return true;
}

void strbuf_release(struct strbuf *sb, const char *s, size_t n)
{
    sb->need += n;
    if (n > sb->held)
        return;
    sb->held -= n;
    put(sb, s, n);
}

bool strbuf_open(struct strbuf *sb, const char *s, size_t n, size_t closer)
{
    sb->need += n;
    if (sb->cut)
        return false;
    if (closer > room(sb) || n > room(sb) - closer) {
        sb->cut = true;
        return false;
    }
    put(sb, s, n);
    sb->held += closer;
    return true;
}
