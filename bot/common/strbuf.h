/*
 * A capped string builder: text appended piece by piece into a caller's
 * buffer (fixed) or into one that grows on the heap up to a cap. It never
 * overflows and never leaves half a character: what does not fit is cut
 * at a UTF-8 boundary, the builder records that it was cut, and nothing
 * appended after a cut is written (a text is its beginning, never one
 * with a hole). The text is always NUL-terminated.
 *
 *     char line[512];
 *     struct strbuf sb;
 *     strbuf_init(&sb, line, sizeof line);
 *     strbuf_addf(&sb, "%s played %s", who, card);
 *     if (sb.cut) ...
 *
 * Atoms (a word, a coloured card) that must appear whole or not at all:
 * take struct strbuf_mark m = strbuf_mark(&sb), append the pieces, then
 * strbuf_commit(&sb, m), which takes them back if any did not fit.
 *
 * A closing sequence (the reset of a colour run) can be held back: after
 * strbuf_hold(&sb, n) appends leave n bytes free, and
 * strbuf_release(&sb, closer, n) always writes the closer there, cut or
 * not. strbuf_open appends a run's opener together with the hold for its
 * closer, so a run is open in the text exactly when its closer has room.
 */
#ifndef HEARTS_COMMON_STRBUF_H
#define HEARTS_COMMON_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf {
    char *buf;   /* the text, NUL-terminated (NULL: heap, nothing yet) */
    size_t len;  /* bytes of text */
    size_t size; /* bytes of buf */
    size_t max;  /* the most bytes of text (without the NUL) */
    size_t held; /* bytes kept free by strbuf_hold */
    size_t need; /* bytes of everything appended, written or not */
    bool heap;   /* buf is ours and grows */
    bool cut;    /* something did not fit: nothing more is written */
};

/* No cap for strbuf_init_heap beyond memory itself. */
#define STRBUF_NO_CAP ((size_t)-1 / 2)

/* Over the caller's buf of size bytes: at most size - 1 bytes of text.
 * With size 0 (buf may be NULL) nothing is written: need measures. */
void strbuf_init(struct strbuf *sb, char *buf, size_t size);

/* On the heap, growing up to max bytes of text; out of memory aborts.
 * Free with strbuf_free or take the text with strbuf_take. */
void strbuf_init_heap(struct strbuf *sb, size_t max);

/* Frees a heap builder's text (a fixed one's buffer is the caller's). */
void strbuf_free(struct strbuf *sb);

/* A heap builder's text, never NULL (the caller frees it); the builder is
 * empty again. */
char *strbuf_take(struct strbuf *sb);

/* Empty again, not cut, nothing held; a heap builder keeps its memory. */
void strbuf_reset(struct strbuf *sb);

/*
 * Appends s[0..n): all of it, or, if it does not fit, as much as ends at a
 * character boundary, and the builder is cut. Returns false if anything
 * was left out (then or before).
 */
bool strbuf_add(struct strbuf *sb, const char *s, size_t n);
bool strbuf_addstr(struct strbuf *sb, const char *s);
bool strbuf_addc(struct strbuf *sb, char c);
/* n copies of c */
bool strbuf_addrep(struct strbuf *sb, char c, size_t n);

/* Appends s[0..n) whole or not at all (then the builder is cut). */
bool strbuf_add_whole(struct strbuf *sb, const char *s, size_t n);

/* printf into the builder, cut like strbuf_add. */
bool strbuf_addf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* The bytes of text an append may still write (held bytes aside; 0 once
 * cut): what a writer of its own may fill at the end. */
size_t strbuf_room(const struct strbuf *sb);

/* Atoms: where the text is now, and back there (its length and what is
 * held) if the builder was cut since (it stays cut). */
struct strbuf_mark {
    size_t len;
    size_t held;
};
struct strbuf_mark strbuf_mark(const struct strbuf *sb);
void strbuf_commit(struct strbuf *sb, struct strbuf_mark mark);

/* Drops the text from len on (len <= sb->len); the builder is not cut
 * anymore. */
void strbuf_truncate(struct strbuf *sb, size_t len);

/* Keeps n more bytes free from appends (false, and nothing held, if they
 * are not free now). */
bool strbuf_hold(struct strbuf *sb, size_t n);
/* Gives back n held bytes and writes s[0..n) into them, even after a cut.
 * With fewer than n bytes held (the run it closes never opened, or a cut
 * atom took it back) nothing is written. The n bytes count in need either
 * way, as any append's do. */
void strbuf_release(struct strbuf *sb, const char *s, size_t n);

/* Opens a run: appends s[0..n) whole and holds `closer` bytes for what
 * will close it (strbuf_release), or neither and the builder is cut. */
bool strbuf_open(struct strbuf *sb, const char *s, size_t n, size_t closer);

#endif
