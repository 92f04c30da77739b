/*
 * Text for cards, hands, tricks, score sheets and names (see render.h for
 * the formats). Everything is written through one small writer that
 * counts the whole text, snprintf-style, and cuts only between "atoms":
 * pieces written all or nothing (a code point, a card with its colour
 * codes, a play of a trick, a line of the score sheet). Once one atom does
 * not fit, nothing more is written, so a cut text is always a prefix of
 * the whole one, plus the reset that closes a colour run the cut left
 * open: room for that reset is kept while a run is open.
 */
#include "bot/manager/render.h"
#include "bot/common/utf8.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* mIRC codes. Colours always take two digits so that a digit written next
 * (a rank) is not read as part of the colour. */
#define IRC_BOLD "\x02"
#define IRC_RED "\x03\x30\x34" /* \x03 "04" */
#define IRC_RESET "\x0F"

/* The markup's own codes (render.h); red and bold are the IRC ones. */
#define MARK_CARD "\x05"
#define MARK_CELL "\x1F"
#define MARK_PILL "\x01"
#define MARK_NOTIFY "!"

/* Whether a style shows red and bold with the IRC codes. */
static bool coloured(enum chat_style style)
{
    return style == CHAT_STYLE_IRC || style == CHAT_STYLE_MARKUP;
}

static const char *const rank_text[13] = {"2", "3",  "4", "5", "6", "7", "8",
                                          "9", "10", "J", "Q", "K", "A"};

/* U+2663 ♣, U+2666 ♦, U+2665 ♥, U+2660 ♠ in the engine's suit order. */
static const char *const suit_symbol[4] = {"\xe2\x99\xa3", "\xe2\x99\xa6",
                                           "\xe2\x99\xa5", "\xe2\x99\xa0"};

static const char *const suit_names[4] = {"clubs", "diamonds", "hearts",
                                          "spades"};

/* The order suits are shown in: black and red alternate. */
static const int display_suits[4] = {ENGINE_CLUBS, ENGINE_DIAMONDS,
                                     ENGINE_SPADES, ENGINE_HEARTS};

/* ---- The writer ------------------------------------------------------- */

struct out {
    char *buf;
    size_t len;
    size_t pos;  /* bytes written */
    size_t need; /* bytes of the whole text */
    bool full;   /* something did not fit: nothing more is written */
    bool open;   /* a colour run is open: one byte is kept for its reset */
};

static struct out out_init(char *buf, size_t len)
{
    struct out o = {.buf = buf, .len = len};
    return o;
}

/* Writes n bytes as one piece: all of them, or none and nothing after. */
static void out_bytes(struct out *o, const char *s, size_t n)
{
    o->need += n;
    if (o->full)
        return;
    /* room for the bytes, a pending reset and the NUL */
    if (o->pos + n + (o->open ? 1 : 0) + 1 > o->len) {
        o->full = true;
        return;
    }
    memcpy(o->buf + o->pos, s, n);
    o->pos += n;
}

static void out_str(struct out *o, const char *s)
{
    out_bytes(o, s, strlen(s));
}

static void out_spaces(struct out *o, int n)
{
    for (int i = 0; i < n; i++)
        out_bytes(o, " ", 1);
}

/* Atoms: take a mark, write, then commit. If anything since the mark did
 * not fit, the text goes back to the mark (the writer stays full). */
static struct out out_mark(const struct out *o)
{
    return *o;
}

static void out_commit(struct out *o, const struct out *mark)
{
    if (o->full && !mark->full) {
        size_t need = o->need;
        *o = *mark;
        o->need = need;
        o->full = true;
    }
}

/* Opens a red run; the check in out_bytes then keeps a byte for its end. */
static void out_red(struct out *o)
{
    if (o->full) {
        o->need += strlen(IRC_RED);
        return;
    }
    o->open = true;
    out_bytes(o, IRC_RED, strlen(IRC_RED));
    if (o->full)
        o->open = false;
}

/* Ends a red run. When the writer is full the reset waits for out_finish,
 * which always has room for it. */
static void out_reset(struct out *o)
{
    o->need += 1;
    if (o->full || !o->open)
        return;
    o->buf[o->pos++] = IRC_RESET[0];
    o->open = false;
}

static size_t out_finish(struct out *o)
{
    if (o->open)
        o->buf[o->pos++] = IRC_RESET[0];
    if (o->len > 0)
        o->buf[o->pos] = '\0';
    return o->need;
}

/* ---- Names ------------------------------------------------------------ */

/* Characters a name may not show: controls, and the invisible or
 * direction-changing ones that let a name pose as another or reorder the
 * line around it. */
static bool invisible(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xAD ||
           cp == 0x34F || cp == 0x61C || cp == 0x115F || cp == 0x1160 ||
           cp == 0x17B4 || cp == 0x17B5 || (cp >= 0x180B && cp <= 0x180F) ||
           (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x206F) || cp == 0x3164 ||
           (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF || cp == 0xFFA0 ||
           (cp >= 0xFFF0 && cp <= 0xFFFB) || (cp >= 0x1D173 && cp <= 0x1D17A) ||
           (cp >= 0xE0000 && cp <= 0xE0FFF);
}

/* Spaces other than ' ' (no-break, en, em, ideographic ...): read as ' ',
 * so "bob" and "bob" with a trailing no-break space look alike. */
static bool other_space(uint32_t cp)
{
    return cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_xdigit(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static size_t skip_run(const unsigned char *s, size_t n, bool hex, size_t max)
{
    size_t i = 0;
    while (i < n && i < max && (hex ? is_xdigit(s[i]) : is_digit(s[i])))
        i++;
    return i;
}

/* The arguments of a colour code (\x03: "N[N][,N[N]]"; \x04: up to six
 * hex digits, the same with a comma), as mIRC reads them: a comma belongs
 * to the code only after a foreground and before a digit. */
static size_t skip_colour_args(const unsigned char *s, size_t n, bool hex)
{
    size_t max = hex ? 6 : 2;
    size_t i = skip_run(s, n, hex, max);
    if (i > 0 && i + 1 < n && s[i] == ',' &&
        skip_run(s + i + 1, n - i - 1, hex, 1) == 1)
        i += 1 + skip_run(s + i + 1, n - i - 1, hex, max);
    return i;
}

size_t render_strip_formatting(char *text)
{
    unsigned char *s = (unsigned char *)text;
    size_t n = strlen(text), from = 0, to = 0;
    while (from < n) {
        unsigned char c = s[from++];
        if (c == 0x03 || c == 0x04) {
            from += skip_colour_args(s + from, n - from, c == 0x04);
            continue;
        }
        if (c == 0x02 || c == 0x0F || c == 0x11 || c == 0x16 || c == 0x1D ||
            c == 0x1E || c == 0x1F)
            continue;
        s[to++] = c;
    }
    s[to] = '\0';
    return to;
}

/* One pass of render_clean_text; returns the new length. */
static size_t clean_pass(char *text)
{
    render_strip_formatting(text);
    unsigned char *s = (unsigned char *)text;
    size_t n = strlen(text), from = 0, to = 0;
    while (from < n) {
        uint32_t cp;
        size_t used = utf8_decode((const char *)s + from, n - from, &cp);
        if (used == 0) {
            /* not UTF-8: a byte read as Latin-1, as IRC clients do */
            cp = s[from];
            used = 1;
        }
        if (cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' ||
            cp == '\r') {
            s[to++] = ' ';
        } else if (!invisible(cp)) {
            memmove(s + to, s + from, used);
            to += used;
        }
        from += used;
    }
    s[to] = '\0';
    return to;
}

size_t render_clean_text(char *text)
{
    /* bytes left of what was dropped may meet and make a character that
     * would be dropped too ("\xef", "\x01", "\xbb\xbf": U+FEFF): again
     * until nothing changes (each pass only removes) */
    size_t n = strlen(text), was;
    do {
        was = n;
        n = clean_pass(text);
    } while (n != was);
    return n;
}

/* Code points of a name looked at, at most: a display name and a user
 * ID of the longest the Matrix spec allows, and more. */
#define NAME_CPS 600

/* The code points of a name, cleaned (render_name): into cps, at most
 * NAME_CPS. Returns how many. */
static int clean_name(const char *name, uint32_t *cps)
{
    const unsigned char *s = (const unsigned char *)(name ? name : "");
    size_t n = strlen((const char *)s);
    size_t i = 0;
    int count = 0;
    bool space = false;
    while (i < n && count < NAME_CPS) {
        uint32_t cp;
        size_t used = utf8_decode((const char *)s + i, n - i, &cp);
        if (used == 0) {
            /* not UTF-8: read the byte as Latin-1, as IRC clients do */
            cp = s[i];
            used = 1;
        }
        i += used;
        if (cp == 0x03 || cp == 0x04) {
            i += skip_colour_args(s + i, n - i, cp == 0x04);
            continue;
        }
        if (cp == ' ' || other_space(cp)) {
            space = count > 0;
            continue;
        }
        if (invisible(cp))
            continue;
        if (space) {
            if (count + 2 > NAME_CPS)
                break;
            cps[count++] = ' ';
            space = false;
        }
        cps[count++] = cp;
    }
    return count;
}

/* Where the tag of a told-apart name begins: the '(' of a last " (...)"
 * that holds no other parenthesis and follows something, or -1. */
static int tag_start(const uint32_t *cps, int n)
{
    if (n < 4 || cps[n - 1] != ')')
        return -1;
    for (int i = n - 2; i >= 2; i--) {
        if (cps[i] == ')')
            return -1;
        if (cps[i] == '(')
            return cps[i - 1] == ' ' ? i : -1;
    }
    return -1;
}

static void put_cps(struct out *o, const uint32_t *cps, int n)
{
    for (int i = 0; i < n; i++) {
        char enc[UTF8_MAX];
        out_bytes(o, enc, utf8_encode(cps[i], enc));
    }
}

/*
 * Writes a name cleaned (render_name), each code point an atom, at most
 * `max` code points; a name told apart by a tag in brackets at its end
 * ("Ace (@carol:example.org)", as a Matrix client shows two people of one
 * display name) keeps its tag whole when the tag is at most
 * RENDER_TAG_MAX code points (the name before it is cut instead), and
 * loses it when it is longer (a tag cut short tells nobody apart: the
 * table tells the seats apart then). Returns how many code points were
 * written.
 */
static int put_name(struct out *o, const char *name, int max)
{
    uint32_t cps[NAME_CPS];
    int n = clean_name(name, cps);
    if (n == 0) {
        out_bytes(o, "?", 1);
        return 1;
    }
    if (n <= max) {
        put_cps(o, cps, n);
        return n;
    }
    int tag = tag_start(cps, n);
    int base = tag > 0 ? tag - 1 : n; /* without the space before it */
    if (base > max)
        base = max;
    if (base > 0 && cps[base - 1] == ' ')
        base--; /* a name cut after a space ends before it */
    put_cps(o, cps, base);
    if (tag > 0 && n - tag <= RENDER_TAG_MAX && max >= RENDER_NAME_MAX) {
        out_bytes(o, " ", 1);
        put_cps(o, cps + tag, n - tag);
        return base + 1 + (n - tag);
    }
    return base;
}

size_t render_name(char *buf, size_t len, const char *name)
{
    struct out o = out_init(buf, len);
    put_name(&o, name, RENDER_NAME_MAX);
    return out_finish(&o);
}

/* ---- Cards ------------------------------------------------------------ */

static bool is_red(int card)
{
    int suit = engine_card_suit(card);
    return suit == ENGINE_DIAMONDS || suit == ENGINE_HEARTS;
}

/* The card's text without colour: "10♥", "Joker", "??". */
static void put_card_text(struct out *o, int card)
{
    if (card == ENGINE_JOKER) {
        out_str(o, "Joker");
    } else if (engine_card_valid(card)) {
        out_str(o, rank_text[engine_card_rank(card)]);
        out_str(o, suit_symbol[engine_card_suit(card)]);
    } else {
        out_str(o, "??");
    }
}

/* A card as one atom, coloured on IRC. */
static void put_card(struct out *o, int card, enum chat_style style)
{
    struct out mark = out_mark(o);
    bool red = coloured(style) && engine_card_valid(card) && is_red(card);
    if (red)
        out_red(o);
    put_card_text(o, card);
    if (red)
        out_reset(o);
    out_commit(o, &mark);
}

size_t render_card(char *buf, size_t len, int card, enum chat_style style)
{
    struct out o = out_init(buf, len);
    put_card(&o, card, style);
    return out_finish(&o);
}

size_t render_cards(char *buf, size_t len, const uint8_t *cards, int n,
                    enum chat_style style)
{
    struct out o = out_init(buf, len);
    for (int i = 0; i < n; i++) {
        struct out mark = out_mark(&o);
        if (i > 0)
            out_bytes(&o, " ", 1);
        put_card(&o, cards[i], style);
        out_commit(&o, &mark);
    }
    return out_finish(&o);
}

/* Where a card goes in a hand's order. */
static int sort_key(int card)
{
    if (!engine_card_valid(card))
        return 256 + card;
    int order = 0;
    while (display_suits[order] != engine_card_suit(card))
        order++;
    /* the joker is the hearts block's rank 13: after the ace */
    return order * 16 + engine_card_rank(card);
}

void render_sort(uint8_t *cards, int n)
{
    /* a hand at most: insertion sort, stable */
    for (int i = 1; i < n; i++) {
        uint8_t c = cards[i];
        int j = i;
        while (j > 0 && sort_key(cards[j - 1]) > sort_key(c)) {
            cards[j] = cards[j - 1];
            j--;
        }
        cards[j] = c;
    }
}

/* A rank (or "Joker") in a hand, marked as the style marks. */
static void put_hand_token(struct out *o, int card, bool marked,
                           enum chat_style style)
{
    const char *text =
        card == ENGINE_JOKER ? "Joker" : rank_text[engine_card_rank(card)];
    if (!marked) {
        out_str(o, text);
    } else if (style == CHAT_STYLE_IRC) {
        out_str(o, IRC_BOLD);
        out_str(o, text);
        out_str(o, IRC_BOLD);
    } else if (style == CHAT_STYLE_MARKUP) {
        out_str(o, MARK_CARD);
        out_str(o, text);
        out_str(o, MARK_CARD);
    } else {
        out_str(o, "[");
        out_str(o, text);
        out_str(o, "]");
    }
}

/*
 * One group of the hand: the suit's symbol (none for the joker) and the
 * cards, held once or twice. The symbol and the first card are one atom,
 * so a cut never leaves a symbol alone.
 */
static void put_group(struct out *o, const int *cards, int n, bool first,
                      const struct engine_cards *hand, uint64_t mark,
                      enum chat_style style)
{
    bool red = coloured(style) && is_red(cards[0]);
    int shown = 0;
    for (int i = 0; i < n; i++) {
        int copies = (hand->two & ENGINE_BIT(cards[i])) ? 2 : 1;
        bool marked = (mark & ENGINE_BIT(cards[i])) != 0;
        for (int k = 0; k < copies; k++) {
            struct out m = out_mark(o);
            if (shown == 0) {
                if (!first)
                    out_str(o, "  ");
                if (red)
                    out_red(o);
                if (cards[i] != ENGINE_JOKER) {
                    out_str(o, suit_symbol[engine_card_suit(cards[i])]);
                    out_str(o, " ");
                }
            } else {
                out_str(o, " ");
            }
            put_hand_token(o, cards[i], marked, style);
            out_commit(o, &m);
            shown++;
        }
    }
    if (red)
        out_reset(o);
}

size_t render_hand(char *buf, size_t len, const struct engine_cards *hand,
                   uint64_t mark, enum chat_style style)
{
    struct out o = out_init(buf, len);
    bool first = true;
    for (int d = 0; d < 4; d++) {
        int suit = display_suits[d];
        int cards[13];
        int n = 0;
        for (int rank = 0; rank < 13; rank++) {
            if (hand->one & ENGINE_BIT(ENGINE_CARD(suit, rank)))
                cards[n++] = ENGINE_CARD(suit, rank);
        }
        if (n == 0)
            continue;
        put_group(&o, cards, n, first, hand, mark, style);
        first = false;
    }
    if (hand->one & ENGINE_BIT(ENGINE_JOKER)) {
        static const int joker[1] = {ENGINE_JOKER};
        put_group(&o, joker, 1, first, hand, mark, style);
    }
    return out_finish(&o);
}

size_t render_suit(char *buf, size_t len, int suit, enum chat_style style)
{
    struct out o = out_init(buf, len);
    if (suit < 0 || suit > 3) {
        out_str(&o, "?");
        return out_finish(&o);
    }
    struct out mark = out_mark(&o);
    bool red =
        coloured(style) && (suit == ENGINE_DIAMONDS || suit == ENGINE_HEARTS);
    if (red)
        out_red(&o);
    out_str(&o, suit_symbol[suit]);
    if (red)
        out_reset(&o);
    out_commit(&o, &mark);
    return out_finish(&o);
}

const char *render_suit_name(int suit)
{
    if (suit < 0 || suit > 3)
        return "?";
    return suit_names[suit];
}

/* ---- Tricks ----------------------------------------------------------- */

static void put_int(struct out *o, long v)
{
    char num[24];
    int k = snprintf(num, sizeof num, "%ld", v);
    out_bytes(o, num, (size_t)k);
}

/* Whether an ID can go into a pill as it is: no control byte (it would
 * end the pill or start other markup) and not empty. */
static bool pill_id_ok(const char *id)
{
    if (!id || !*id)
        return false;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        if (*p < 0x20 || *p == 0x7F)
            return false;
    return true;
}

/* A name, as a pill for `id` in the markup style (notifying or not). */
static void put_mention(struct out *o, const char *id, const char *name,
                        bool notify, enum chat_style style)
{
    struct out mark = out_mark(o);
    bool pill = style == CHAT_STYLE_MARKUP && pill_id_ok(id);
    if (pill) {
        out_str(o, MARK_PILL);
        if (notify)
            out_str(o, MARK_NOTIFY);
        out_str(o, id);
        out_str(o, MARK_PILL);
    }
    put_name(o, name, RENDER_NAME_MAX);
    if (pill)
        out_str(o, MARK_PILL);
    out_commit(o, &mark);
}

size_t render_mention(char *buf, size_t len, const char *id, const char *name,
                      bool notify, enum chat_style style)
{
    struct out o = out_init(buf, len);
    put_mention(&o, id, name, notify, style);
    return out_finish(&o);
}

size_t render_trick(char *buf, size_t len, int trick_no, const uint8_t *cards,
                    const uint8_t *seats, int n, const char *const *names,
                    int winner, int points, enum chat_style style)
{
    return render_trick_ids(buf, len, trick_no, cards, seats, n, names, NULL,
                            winner, points, style);
}

size_t render_trick_ids(char *buf, size_t len, int trick_no,
                        const uint8_t *cards, const uint8_t *seats, int n,
                        const char *const *names, const char *const *ids,
                        int winner, int points, enum chat_style style)
{
    struct out o = out_init(buf, len);
    struct out mark = out_mark(&o);
    if (trick_no > 0) {
        out_str(&o, "Trick ");
        put_int(&o, trick_no);
        out_str(&o, ": ");
    }
    if (n <= 0)
        out_str(&o, "no cards yet");
    out_commit(&o, &mark);
    for (int i = 0; i < n; i++) {
        mark = out_mark(&o);
        if (i > 0)
            out_str(&o, ", ");
        put_name(&o, names[seats[i]], RENDER_NAME_MAX);
        out_str(&o, " ");
        put_card(&o, cards[i], style);
        out_commit(&o, &mark);
    }
    if (winner == RENDER_TRICK_OPEN)
        return out_finish(&o);
    mark = out_mark(&o);
    out_str(&o, " - ");
    if (winner >= 0) {
        if (coloured(style))
            out_str(&o, IRC_BOLD);
        put_mention(&o, ids ? ids[winner] : NULL, names[winner], false, style);
        if (coloured(style))
            out_str(&o, IRC_BOLD);
        /* the console's person is "you": "you take it" */
        out_str(&o, names[winner] && strcasecmp(names[winner], "you") == 0
                        ? " take it"
                        : " takes it");
    } else {
        out_str(&o, "set aside for the next winner");
    }
    if (points != 0) {
        out_str(&o, " (");
        put_int(&o, points);
        out_str(&o, points == 1 || points == -1 ? " point)" : " points)");
    }
    out_commit(&o, &mark);
    return out_finish(&o);
}

/* ---- Score sheets ----------------------------------------------------- */

/* A right-aligned cell: two spaces apart from the one before, unless it
 * is the first of its line. */
static void put_cell(struct out *o, const char *text, int chars, int width,
                     bool first, enum chat_style style)
{
    if (!first) {
        if (style == CHAT_STYLE_MARKUP)
            out_str(o, MARK_CELL);
        out_str(o, "  ");
    }
    out_spaces(o, width - chars);
    out_str(o, text);
}

static int int_width(int32_t v)
{
    char num[16];
    return snprintf(num, sizeof num, "%" PRId32, v);
}

/* Headings cut alike ("Ace (@ca" twice) are told apart: each becomes
 * the name before its tag, cut, with "~" and its place among them. */
static void heads_unique(char heads[][RENDER_SCORES_NAME_WIDTH * 4 + 1],
                         int *head_chars, int *width, const char *const *names,
                         int n)
{
    bool redo[ENGINE_MAX_PLAYERS] = {false};
    for (int s = 0; s < n; s++)
        for (int t = 0; t < s; t++)
            if (strcmp(heads[s], heads[t]) == 0)
                redo[s] = redo[t] = true;
    int k = 0;
    for (int s = 0; s < n; s++) {
        if (!redo[s])
            continue;
        uint32_t cps[NAME_CPS];
        int len = clean_name(names[s], cps);
        int tag = tag_start(cps, len);
        if (tag > 0)
            len = tag - 1;
        char suffix[8];
        int sl = snprintf(suffix, sizeof suffix, "~%d", ++k);
        if (len > RENDER_SCORES_NAME_WIDTH - sl)
            len = RENDER_SCORES_NAME_WIDTH - sl;
        if (len < 0)
            len = 0;
        struct out h = out_init(heads[s], sizeof heads[s]);
        put_cps(&h, cps, len);
        out_bytes(&h, suffix, (size_t)sl);
        out_finish(&h);
        if (width[s] < len + sl)
            width[s] = len + sl;
        head_chars[s] = len + sl;
    }
}

size_t render_scores(char *buf, size_t len, const char *const *names, int n,
                     const int32_t *const *hands_points, int nhands,
                     const int32_t *totals, int last, enum chat_style style)
{
    struct out o = out_init(buf, len);
    if (n > ENGINE_MAX_PLAYERS)
        n = ENGINE_MAX_PLAYERS;
    if (n < 0)
        n = 0;
    if (nhands < 0)
        nhands = 0;
    int from = last > 0 && nhands > last ? nhands - last : 0;
    bool elided = from > 0;

    /* the column headings, cleaned and cut, and the columns' widths */
    char heads[ENGINE_MAX_PLAYERS][RENDER_SCORES_NAME_WIDTH * 4 + 1];
    int head_chars[ENGINE_MAX_PLAYERS];
    int width[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < n; s++) {
        struct out h = out_init(heads[s], sizeof heads[s]);
        head_chars[s] = put_name(&h, names[s], RENDER_SCORES_NAME_WIDTH);
        out_finish(&h);
        width[s] = head_chars[s];
        if (elided && width[s] < 3)
            width[s] = 3;
        for (int k = from; k < nhands; k++) {
            int w = int_width(hands_points[k][s]);
            width[s] = w > width[s] ? w : width[s];
        }
        if (totals) {
            int w = int_width(totals[s]);
            width[s] = w > width[s] ? w : width[s];
        }
    }
    heads_unique(heads, head_chars, width, names, n);
    int label = int_width(nhands);
    if (label < 5)
        label = 5; /* "total" */

    struct out mark = out_mark(&o);
    if (style == CHAT_STYLE_IRC)
        out_str(&o, IRC_BOLD);
    put_cell(&o, "hand", 4, label, true, style);
    for (int s = 0; s < n; s++)
        put_cell(&o, heads[s], head_chars[s], width[s], false, style);
    if (style == CHAT_STYLE_IRC)
        out_str(&o, IRC_BOLD);
    out_commit(&o, &mark);

    if (elided) {
        mark = out_mark(&o);
        out_str(&o, "\n");
        put_cell(&o, "...", 3, label, true, style);
        for (int s = 0; s < n; s++)
            put_cell(&o, "...", 3, width[s], false, style);
        out_commit(&o, &mark);
    }
    for (int k = from; k <= nhands; k++) {
        const int32_t *row = k < nhands ? hands_points[k] : totals;
        if (!row)
            break;
        char num[16];
        mark = out_mark(&o);
        out_str(&o, "\n");
        if (k < nhands) {
            int w = snprintf(num, sizeof num, "%d", k + 1);
            put_cell(&o, num, w, label, true, style);
        } else {
            put_cell(&o, "total", 5, label, true, style);
        }
        for (int s = 0; s < n; s++) {
            int w = snprintf(num, sizeof num, "%" PRId32, row[s]);
            put_cell(&o, num, w, width[s], false, style);
        }
        out_commit(&o, &mark);
    }
    return out_finish(&o);
}
