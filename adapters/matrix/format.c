/*
 * Markup to body, formatted_body and mentions (format.h). One pass per
 * line: a line holding \x1F is a score-sheet row and its cells are
 * formatted one by one; any other line is formatted whole. Within a line
 * or cell a small stack of the open tags (red, bold, a marked card: each
 * at most once) keeps the HTML nested; everything open is closed at the
 * end of the line or cell.
 */
#include "adapters/matrix/format.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/sync.h"
#include "bot/common/chat.h"
#include "bot/common/strbuf.h"
#include "bot/common/utf8.h"
#include "bot/common/xalloc.h"

#define CODE_PILL CHAT_MARKUP_PILL
#define CODE_BOLD CHAT_MARKUP_BOLD
#define CODE_COLOUR CHAT_MARKUP_COLOUR
#define CODE_CARD CHAT_MARKUP_CARD
#define CODE_RESET CHAT_MARKUP_RESET
#define CODE_CELL CHAT_MARKUP_CELL

/* ---- Text -------------------------------------------------------------- */

size_t mx_utf8_seq_len(const char *s, size_t n)
{
    return *s ? utf8_decode(s, n, NULL) : 0;
}

/* Text into both outputs: escaped for HTML, control bytes dropped (a tab
 * is a space), what is not UTF-8 as U+FFFD. */
static void put_text(struct strbuf *body, struct strbuf *html, const char *s,
                     size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        if (c < 0x20 || c == 0x7f) {
            if (c == '\t') {
                strbuf_add(body, " ", 1);
                strbuf_add(html, " ", 1);
            }
            i++;
            continue;
        }
        size_t len = mx_utf8_seq_len(s + i, n - i);
        if (len == 0) {
            strbuf_add(body, "\xef\xbf\xbd", 3);
            strbuf_add(html, "\xef\xbf\xbd", 3);
            i++;
            continue;
        }
        switch (c) {
        case '&':
            esc = "&amp;";
            break;
        case '<':
            esc = "&lt;";
            break;
        case '>':
            esc = "&gt;";
            break;
        case '"':
            esc = "&quot;";
            break;
        case '\'':
            esc = "&#39;";
            break;
        default:
            break;
        }
        strbuf_add(body, s + i, len);
        if (esc)
            strbuf_addstr(html, esc);
        else
            strbuf_add(html, s + i, len);
        i += len;
    }
}

/* ---- Inline markup ----------------------------------------------------- */

enum tag { TAG_RED, TAG_BOLD, TAG_CARD };

struct line {
    struct strbuf *body, *html;
    struct mx_format *out;
    enum tag open[3]; /* the open tags, outermost first */
    int nopen;
};

#define FONT_RED "<font data-mx-color=\"" MX_RED "\" color=\"" MX_RED "\">"

static void open_tag(struct line *l, enum tag t)
{
    strbuf_addstr(l->html, t == TAG_RED ? FONT_RED : "<b>");
    if (t == TAG_CARD)
        strbuf_addstr(l->body, "[");
}

static void close_tag(struct line *l, enum tag t)
{
    strbuf_addstr(l->html, t == TAG_RED ? "</font>" : "</b>");
    if (t == TAG_CARD)
        strbuf_addstr(l->body, "]");
}

static int find_open(const struct line *l, enum tag t)
{
    for (int i = 0; i < l->nopen; i++)
        if (l->open[i] == t)
            return i;
    return -1;
}

static void push(struct line *l, enum tag t)
{
    if (find_open(l, t) >= 0)
        return;
    l->open[l->nopen++] = t;
    open_tag(l, t);
}

/* Closes t: the tags inside it are closed first and opened again after
 * (a marked card's brackets stay in the body once). */
static void pop(struct line *l, enum tag t)
{
    int at = find_open(l, t);
    if (at < 0)
        return;
    for (int i = l->nopen - 1; i > at; i--)
        strbuf_addstr(l->html, l->open[i] == TAG_RED ? "</font>" : "</b>");
    close_tag(l, t);
    for (int i = at + 1; i < l->nopen; i++) {
        strbuf_addstr(l->html, l->open[i] == TAG_RED ? FONT_RED : "<b>");
        l->open[i - 1] = l->open[i];
    }
    l->nopen--;
}

static void toggle(struct line *l, enum tag t)
{
    if (find_open(l, t) >= 0)
        pop(l, t);
    else
        push(l, t);
}

static void close_all(struct line *l)
{
    while (l->nopen > 0)
        close_tag(l, l->open[--l->nopen]);
}

static void add_mention(struct mx_format *out, const char *id)
{
    for (size_t i = 0; i < out->nmentions; i++)
        if (strcmp(out->mentions[i], id) == 0)
            return;
    if (out->nmentions >= MX_MENTIONS_MAX)
        return;
    out->mentions =
        xrealloc(out->mentions, (out->nmentions + 1) * sizeof *out->mentions);
    out->mentions[out->nmentions++] = xstrdup(id);
}

/* A user ID in a matrix.to link: percent-encoded but for the characters
 * an ID commonly has, so nothing in it means anything to HTML either. */
static void put_href_id(struct strbuf *html, const char *id)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
        bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || strchr("-._~:@", *p);
        if (keep) {
            strbuf_add(html, (const char *)p, 1);
        } else {
            char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            strbuf_add(html, esc, 3);
        }
    }
}

/*
 * A pill at s (n bytes left, s[0] is \x01): "\x01[!]id\x01name\x01".
 * Returns the bytes it takes, or 0 if it is not whole (the \x01 is then
 * a stray one and dropped).
 */
static size_t put_pill(struct line *l, const char *s, size_t n)
{
    size_t i = 1;
    bool notify = i < n && s[i] == '!';
    if (notify)
        i++;
    const char *id = s + i;
    const char *mid = memchr(id, CODE_PILL, n - i);
    if (!mid)
        return 0;
    const char *name = mid + 1;
    const char *end = memchr(name, CODE_PILL, n - (size_t)(name - s));
    if (!end)
        return 0;
    char idz[MX_ID_MAX + 1];
    size_t idlen = (size_t)(mid - id);
    bool valid = idlen <= MX_ID_MAX;
    if (valid) {
        memcpy(idz, id, idlen);
        idz[idlen] = '\0';
        valid = strlen(idz) == idlen && mx_is_user_id(idz);
    }
    if (valid) {
        strbuf_addstr(l->html, "<a href=\"https://matrix.to/#/");
        put_href_id(l->html, idz);
        strbuf_addstr(l->html, "\">");
    }
    if (end > name)
        put_text(l->body, l->html, name, (size_t)(end - name));
    else if (valid)
        put_text(l->body, l->html, idz, idlen);
    if (valid) {
        strbuf_addstr(l->html, "</a>");
        if (notify)
            add_mention(l->out, idz);
    }
    return (size_t)(end - s) + 1;
}

/* One line or cell of markup into body and HTML; closes what it opens. */
static void put_inline(struct line *l, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        /* plain text up to the next control byte, in one go */
        size_t run = i;
        while (run < n && (unsigned char)s[run] >= 0x20 && s[run] != 0x7f)
            run++;
        if (run > i) {
            put_text(l->body, l->html, s + i, run - i);
            i = run;
            continue;
        }
        unsigned char c = (unsigned char)s[i];
        if (c == CODE_COLOUR) {
            if (i + 2 < n && s[i + 1] == '0' && s[i + 2] == '4') {
                push(l, TAG_RED);
                i += 3;
            } else {
                i++;
            }
        } else if (c == CODE_RESET) {
            close_all(l);
            i++;
        } else if (c == CODE_BOLD) {
            toggle(l, TAG_BOLD);
            i++;
        } else if (c == CODE_CARD) {
            toggle(l, TAG_CARD);
            i++;
        } else if (c == CODE_PILL) {
            size_t used = put_pill(l, s + i, n - i);
            i += used ? used : 1;
        } else {
            put_text(l->body, l->html, s + i, 1); /* drops it, or a tab */
            i++;
        }
    }
    close_all(l);
}

/* ---- Lines and tables -------------------------------------------------- */

static bool is_row(const char *s, size_t n)
{
    return memchr(s, CODE_CELL, n) != NULL;
}

/* A score-sheet row: the body gets the line without \x1F (the padding
 * kept), the HTML a <tr> of cells without the padding. */
static void put_row(struct line *l, const char *s, size_t n, bool heading)
{
    const char *cell = heading ? "th" : "td";
    strbuf_addstr(l->html, "<tr>");
    size_t at = 0;
    for (;;) {
        const char *gap = memchr(s + at, CODE_CELL, n - at);
        size_t end = gap ? (size_t)(gap - s) : n;
        /* the padding goes to the body only */
        size_t from = at, to = end;
        while (from < to && s[from] == ' ')
            from++;
        while (to > from && s[to - 1] == ' ')
            to--;
        strbuf_add(l->body, s + at, from - at);
        strbuf_addstr(l->html, "<");
        strbuf_addstr(l->html, cell);
        strbuf_addstr(l->html, ">");
        put_inline(l, s + from, to - from);
        strbuf_addstr(l->html, "</");
        strbuf_addstr(l->html, cell);
        strbuf_addstr(l->html, ">");
        strbuf_add(l->body, s + to, end - to);
        if (!gap)
            break;
        at = end + 1;
    }
    strbuf_addstr(l->html, "</tr>");
}

void mx_format(const char *text, size_t len, struct mx_format *out)
{
    struct strbuf body, html;
    strbuf_init_heap(&body, STRBUF_NO_CAP);
    strbuf_init_heap(&html, STRBUF_NO_CAP);
    memset(out, 0, sizeof *out);
    struct line l = {.body = &body, .html = &html, .out = out};
    bool first = true; /* no line yet */
    bool in_table = false;
    bool after_text = false; /* the last line was not a row */
    size_t at = 0;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *s = text + at;
        size_t n = end - at;
        if (!first)
            strbuf_add(&body, "\n", 1);
        if (is_row(s, n)) {
            if (!in_table)
                strbuf_addstr(&html, "<table><thead>");
            put_row(&l, s, n, !in_table);
            if (!in_table)
                strbuf_addstr(&html, "</thead><tbody>");
            in_table = true;
            after_text = false;
        } else {
            if (in_table)
                strbuf_addstr(&html, "</tbody></table>");
            in_table = false;
            if (after_text)
                strbuf_addstr(&html, "<br>");
            put_inline(&l, s, n);
            after_text = true;
        }
        first = false;
        at = end + 1;
    }
    if (in_table)
        strbuf_addstr(&html, "</tbody></table>");
    out->body = strbuf_take(&body);
    out->html = strbuf_take(&html);
}

void mx_format_free(struct mx_format *out)
{
    if (!out)
        return;
    free(out->body);
    free(out->html);
    for (size_t i = 0; i < out->nmentions; i++)
        free(out->mentions[i]);
    free(out->mentions);
    memset(out, 0, sizeof *out);
}
