/*
 * UTF-8 as RFC 3629 has it: no overlong forms, no surrogates, nothing past
 * U+10FFFF. Decoding, validating, counting and cutting at a character
 * boundary, for every part of the bot. Lengths are in bytes; no function
 * needs a NUL, none reads past s[n).
 */
#ifndef HEARTS_COMMON_UTF8_H
#define HEARTS_COMMON_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* U+FFFD, what stands in for bytes that are not UTF-8. */
#define UTF8_REPLACEMENT "\xEF\xBF\xBD"
/* The most bytes one character takes. */
#define UTF8_MAX 4

/*
 * The character at s[0..n) (n >= 1): its length in bytes (1 to 4), with
 * its code point in *cp (cp may be NULL); 0 if s does not start a whole,
 * valid character.
 */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);

/*
 * For s[0..n) (n >= 1) that utf8_decode refuses: the length of its maximal
 * invalid subpart (1 to 3), the bytes one U+FFFD stands for as Unicode
 * recommends. For a valid character, its length.
 */
size_t utf8_bad_len(const char *s, size_t n);

/*
 * Writes cp as UTF-8 into out (room for UTF8_MAX bytes, no NUL); returns
 * the bytes written, or 0 if cp is a surrogate or past U+10FFFF.
 */
size_t utf8_encode(uint32_t cp, char *out);

/*
 * Whether s[0..n) is all whole, valid UTF-8. If not and bad is not NULL,
 * *bad is the offset of the first byte that does not start a valid
 * character.
 */
bool utf8_valid(const char *s, size_t n, size_t *bad);

/* The characters in s[0..n); each maximal invalid subpart counts one (as
 * the U+FFFD it would be shown as). */
size_t utf8_count(const char *s, size_t n);

/*
 * The longest prefix of s[0..n) of at most max bytes that does not end
 * inside a character: max itself if s[max] starts a character (or max >=
 * n), else the start of the character that max splits.
 */
size_t utf8_cut(const char *s, size_t n, size_t max);

/*
 * s[0..n) without a torn character at its end (a sequence whose lead byte
 * promises more bytes than follow): the length to keep.
 */
size_t utf8_trim(const char *s, size_t n);

#endif
