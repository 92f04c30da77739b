/*
 * UTF-8 (utf8.h). The second byte of a sequence carries every check of
 * RFC 3629 (Unicode's table 3-7): E0 needs A0..BF (no overlong form), ED
 * 80..9F (no surrogate), F0 90..BF (no overlong form), F4 80..8F (nothing
 * past U+10FFFF); every other byte after the lead is 80..BF.
 */
#include "bot/common/utf8.h"

static bool is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/*
 * The length the lead byte c promises (1 to 4), 0 if it cannot lead, and
 * the range of the byte after it.
 */
static size_t lead_len(unsigned char c, unsigned char *lo, unsigned char *hi)
{
    *lo = 0x80;
    *hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return 2;
    if (c >= 0xE0 && c <= 0xEF) {
        if (c == 0xE0)
            *lo = 0xA0;
        else if (c == 0xED)
            *hi = 0x9F;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (c == 0xF0)
            *lo = 0x90;
        else if (c == 0xF4)
            *hi = 0x8F;
        return 4;
    }
    return 0;
}

/* The bytes of s[0..n) that are right for the sequence its lead starts:
 * need if whole, else fewer (at least 1). */
static size_t scan(const unsigned char *s, size_t n, size_t *need)
{
    unsigned char lo, hi;
    *need = lead_len(s[0], &lo, &hi);
    if (*need == 0)
        return 1;
    size_t i = 1;
    for (; i < *need && i < n; i++) {
        unsigned char b = s[i];
        if (i == 1 ? (b < lo || b > hi) : !is_cont(b))
            break;
    }
    return i;
}

size_t utf8_decode(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t need;
    if (n == 0 || scan(u, n, &need) != need || need == 0)
        return 0;
    if (cp) {
        static const unsigned char mask[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
        uint32_t v = u[0] & mask[need];
        for (size_t i = 1; i < need; i++)
            v = v << 6 | (u[i] & 0x3Fu);
        *cp = v;
    }
    return need;
}

size_t utf8_bad_len(const char *s, size_t n)
{
    size_t need;
    if (n == 0)
        return 0;
    return scan((const unsigned char *)s, n, &need);
}

size_t utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp > 0x10FFFF)
        return 0;
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

bool utf8_valid(const char *s, size_t n, size_t *bad)
{
    for (size_t i = 0; i < n;) {
        size_t k = utf8_decode(s + i, n - i, NULL);
        if (k == 0) {
            if (bad)
                *bad = i;
            return false;
        }
        i += k;
    }
    return true;
}

size_t utf8_count(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; count++) {
        size_t k = utf8_decode(s + i, n - i, NULL);
        i += k ? k : utf8_bad_len(s + i, n - i);
    }
    return count;
}

size_t utf8_cut(const char *s, size_t n, size_t max)
{
    if (max >= n)
        return n;
    const unsigned char *u = (const unsigned char *)s;
    /* back over at most three continuation bytes to their lead */
    size_t i = max;
    while (i > 0 && max - i < UTF8_MAX - 1 && is_cont(u[i]))
        i--;
    if (is_cont(u[i]))
        return max; /* no lead in reach: not a character to keep whole */
    size_t need;
    scan(u + i, n - i, &need);
    /* the character at i reaches past max: it goes */
    return need > 1 && i + need > max && i < max ? i : max;
}

size_t utf8_trim(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = n;
    while (i > 0 && n - i < UTF8_MAX - 1 && is_cont(u[i - 1]))
        i--;
    if (i == 0)
        return n;
    unsigned char lo, hi;
    size_t want = lead_len(u[i - 1], &lo, &hi);
    return want > n - (i - 1) ? i - 1 : n;
}
