/*
 * The Matrix adapter's rich text: turns the bot's markup (render.h,
 * CHAT_STYLE_MARKUP) into what an m.notice carries: a plain `body`, an
 * HTML `formatted_body` and the user IDs the message mentions so that
 * they are notified (`m.mentions`). Pure (no I/O).
 *
 * Only these tags are made: <font data-mx-color color> (red runs), <b>
 * (bold, marked cards), <br> (between lines), <table> with <thead>/<th>
 * for a score sheet's first row and <tbody>/<td> for the others, and
 * <a href="https://matrix.to/#/..."> (pills). All other text is
 * HTML-escaped (& < > " '). Markup that does not balance never makes
 * unbalanced HTML: whatever is open is closed at the end of each line or
 * table cell, and a tag closed out of order closes and reopens those
 * inside it. A pill whose ID is not a user ID (mx_is_user_id) is its name
 * alone and notifies nobody. Other control bytes are dropped (a tab is a
 * space) and bytes that are not UTF-8 become U+FFFD.
 */
#ifndef HEARTS_MX_FORMAT_H
#define HEARTS_MX_FORMAT_H

#include <stddef.h>

/* Notified user IDs kept of one message (each ID once). */
#define MX_MENTIONS_MAX 32

/* Red for hearts and diamonds: reads on light and dark themes. */
#define MX_RED "#e0434b"

struct mx_format {
    char *body;      /* the lines, markup removed, joined by '\n' */
    char *html;      /* formatted_body */
    char **mentions; /* user IDs to notify */
    size_t nmentions;
};

/*
 * Formats text (len bytes, lines separated by '\n'; a last '\n' is no
 * extra line; NUL bytes are dropped) into out, whose strings the caller
 * frees with mx_format_free. Never fails (out of memory aborts).
 */
void mx_format(const char *text, size_t len, struct mx_format *out);

/* The length of the UTF-8 sequence at s (n >= 1 bytes left), or 0 if it
 * is not one (or is NUL). */
size_t mx_utf8_seq_len(const char *s, size_t n);

/* Frees out's strings (not out itself); out may be zeroed or NULL. */
void mx_format_free(struct mx_format *out);

#endif
