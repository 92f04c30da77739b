/*
 * The site's HTML helpers (site_internal.h): every text from outside is
 * escaped here for where it goes, and every page starts and ends here,
 * with its Content-Security-Policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/common/utf8.h"
#include "bot/common/xalloc.h"
#include "bot/site/site_internal.h"
#include "bot/site/site_text.h"
#include "engine/engine.h"

/* Characters that reorder text around them (the bidi controls and
 * marks): dropped, so that a name cannot turn the text after it. */
static bool bidi_control(uint32_t cp)
{
    return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
           cp == 0x200E || cp == 0x200F || cp == 0x061C;
}

/* Characters shown as U+FFFD: C0 and C1 controls, DEL, the line and
 * paragraph separators, and the non-characters a page cannot hold. */
static bool control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 ||
           cp == 0x2029 || (cp >= 0xFDD0 && cp <= 0xFDEF) ||
           (cp & 0xFFFE) == 0xFFFE;
}

void site_html_text(struct strbuf *sb, const char *s, size_t max)
{
    size_t n = strlen(s), chars = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_decode(s + i, n - i, &cp);
        if (max && chars == max) {
            strbuf_addstr(sb, "…");
            return;
        }
        if (!len) {
            strbuf_addstr(sb, UTF8_REPLACEMENT);
            i += utf8_bad_len(s + i, n - i);
            chars++;
            continue;
        }
        i += len;
        if (bidi_control(cp))
            continue;
        chars++;
        if (control(cp)) {
            strbuf_addstr(sb, UTF8_REPLACEMENT);
            continue;
        }
        switch (cp) {
        case '&':
            strbuf_addstr(sb, "&amp;");
            break;
        case '<':
            strbuf_addstr(sb, "&lt;");
            break;
        case '>':
            strbuf_addstr(sb, "&gt;");
            break;
        case '"':
            strbuf_addstr(sb, "&quot;");
            break;
        case '\'':
            strbuf_addstr(sb, "&#39;");
            break;
        default:
            strbuf_add(sb, s + i - len, len);
        }
    }
}

void site_text_cut(const char *s, size_t max, char *out, size_t outlen)
{
    size_t n = strlen(s), i = 0, chars = 0;
    while (i < n && chars < max) {
        size_t len = utf8_decode(s + i, n - i, NULL);
        i += len ? len : utf8_bad_len(s + i, n - i);
        chars++;
    }
    snprintf(out, outlen, "%.*s%s", (int)i, s, i < n ? "…" : "");
}

void site_html_name(struct strbuf *sb, const char *s)
{
    strbuf_addstr(sb, "<bdi>");
    site_html_text(sb, s, SITE_NAME_CHARS);
    strbuf_addstr(sb, "</bdi>");
}

void site_url_segment(struct strbuf *sb, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '_' ||
            *p == '~')
            strbuf_addc(sb, (char)*p);
        else
            strbuf_addf(sb, "%%%02X", *p);
    }
}

bool site_card_red(int card)
{
    if (!engine_card_valid(card))
        return false;
    const char *name = engine_card_name(card);
    return strcmp(name, "JK") && (name[1] == 'D' || name[1] == 'H');
}

void site_card_text(struct strbuf *sb, int card)
{
    if (!engine_card_valid(card)) {
        strbuf_addstr(sb, "?");
        return;
    }
    const char *name = engine_card_name(card);
    if (!strcmp(name, "JK")) {
        strbuf_addstr(sb, "Joker");
        return;
    }
    if (name[0] == 'T')
        strbuf_addstr(sb, "10");
    else
        strbuf_addc(sb, name[0]);
    switch (name[1]) {
    case 'C':
        strbuf_addstr(sb, "♣");
        break;
    case 'D':
        strbuf_addstr(sb, "♦");
        break;
    case 'H':
        strbuf_addstr(sb, "♥");
        break;
    case 'S':
        strbuf_addstr(sb, "♠");
        break;
    default:
        strbuf_addstr(sb, "?");
    }
}

void site_html_cards(struct strbuf *sb, const uint8_t *v, int n)
{
    bool in_red = false;
    for (int i = 0; i < n; i++) {
        bool red = site_card_red(v[i]);
        if (in_red && !red)
            strbuf_addstr(sb, "</span>");
        if (i)
            strbuf_addc(sb, ' ');
        if (red && !in_red)
            strbuf_addstr(sb, "<span class=r>");
        in_red = red;
        site_card_text(sb, v[i]);
    }
    if (in_red)
        strbuf_addstr(sb, "</span>");
}

void site_html_head(struct strbuf *sb, const char *root, const char *title,
                    const char *h1, bool script)
{
    strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"" ST_LANG "\">\n<head>\n"
                      "<meta charset=\"utf-8\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, "
                      "initial-scale=1\">\n"
                      "<meta http-equiv=\"Content-Security-Policy\" "
                      "content=\"default-src 'none'; style-src 'self'; "
                      "script-src 'self'; img-src 'self' data:; "
                      "base-uri 'none'; form-action 'none'\">\n"
                      "<meta name=\"referrer\" content=\"no-referrer\">\n"
                      "<title>");
    site_html_text(sb, title, SITE_TITLE_CHARS);
    strbuf_addf(sb, "</title>\n<link rel=\"stylesheet\" href=\"%ssite.css\">\n",
                root);
    if (script)
        strbuf_addf(sb, "<script src=\"%sreplay.js\" defer></script>\n", root);
    strbuf_addstr(sb, "</head>\n<body>\n<main>\n<h1>");
    if (h1)
        strbuf_addstr(sb, h1);
    else
        site_html_text(sb, title, SITE_TITLE_CHARS);
    strbuf_addstr(sb, "</h1>\n");
}

void site_html_foot(struct strbuf *sb, const char *root)
{
    strbuf_addf(sb,
                "</main>\n<footer><p><a href=\"%sindex.html\">" ST_HOME
                "</a>. " ST_FOOTER "</p></footer>\n</body>\n</html>\n",
                root);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *site_name_decode(const char *enc)
{
    size_t n = strlen(enc);
    char *out = xmalloc(n + 4);
    size_t o = 0;
    if (!strcmp(enc, "%00")) {
        out[0] = '\0';
        return out;
    }
    for (size_t i = 0; i < n; i++) {
        if (enc[i] == '~') {
            memcpy(out + o, "…", strlen("…"));
            o += strlen("…");
            break;
        }
        int hi, lo;
        if (enc[i] == '%' && i + 2 < n + 1 && (hi = hexval(enc[i + 1])) >= 0 &&
            (lo = hexval(enc[i + 2])) >= 0) {
            out[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[o++] = enc[i];
        }
    }
    out[o] = '\0';
    return out;
}

void site_html_time(struct strbuf *sb, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[40];
    if (!gmtime_r(&tt, &tm) ||
        !strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm))
        snprintf(buf, sizeof buf, "?");
    strbuf_addstr(sb, buf);
}
