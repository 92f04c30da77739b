/*
 * Text for cards, hands, tricks, score sheets and names (see render.h for
 * the formats). Everything is written through the capped string builder
 * (strbuf.h) over the caller's buffer, which counts the whole text,
 * snprintf-style; here it cuts only between "atoms": pieces written all
 * or nothing (a code point, a card with its colour codes, a play of a
 * trick, a line of the score sheet). Once one atom does not fit, nothing
 * more is written, so a cut text is always a prefix of the whole one, plus
 * the reset that closes a colour run the cut left open: a colour run is
 * opened with a byte held for its reset (strbuf_open).
 */
#include "bot/manager/render.h"
#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
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

/* The suits' letters (engine_card_parse's), for RENDER_CARDS_ASCII. */
static const char suit_letter[4] = {'C', 'D', 'H', 'S'};

/* TRANSLATORS: a suit's name, in a sentence ("You must follow suit:
 * clubs.") and, for screen readers, instead of its symbol: a card ("Q of
 * spades") and a hand's group ("clubs: 2 5 J"). */
static const char *const suit_word_ids[4] = {
    MC("a suit's name", "clubs"), MC("a suit's name", "diamonds"),
    MC("a suit's name", "hearts"), MC("a suit's name", "spades")};

/* TRANSLATORS: the joker card, in hands and trick lines. People play it
 * by typing this name (in any case, accents optional), or "Joker" or "JK"
 * in every language. */
#define JOKER MC("the joker card", "Joker")

/* The same letters as bot/manager/card_words.c reads: a jack, queen, king
 * and ace are shown with them in RENDER_CARDS_WORDS, so what is read
 * there can be typed back. */
#define RANK_LETTERS MC("letters of the ranks 2 to ace", "23456789TJQKA")

/* The order suits are shown in: black and red alternate. */
static const int display_suits[4] = {ENGINE_CLUBS, ENGINE_DIAMONDS,
                                     ENGINE_SPADES, ENGINE_HEARTS};

/* ---- Writing ---------------------------------------------------------- */

/* Every piece goes in whole or not at all (strbuf_add_whole). */
static void put_str(struct strbuf *sb, const char *s)
{
    strbuf_add_whole(sb, s, strlen(s));
}

/* Opens a red run, with a byte held for the reset that ends it. */
static void put_red(struct strbuf *sb)
{
    strbuf_open(sb, IRC_RED, strlen(IRC_RED), strlen(IRC_RESET));
}

/* Ends a red run; after a cut inside the run the reset still goes in, into
 * the byte held for it. */
static void put_reset(struct strbuf *sb)
{
    strbuf_release(sb, IRC_RESET, strlen(IRC_RESET));
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

static void put_cps(struct strbuf *sb, const uint32_t *cps, int n)
{
    for (int i = 0; i < n; i++) {
        char enc[UTF8_MAX];
        strbuf_add_whole(sb, enc, utf8_encode(cps[i], enc));
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
static int put_name(struct strbuf *sb, const char *name, int max)
{
    uint32_t cps[NAME_CPS];
    int n = clean_name(name, cps);
    if (n == 0) {
        put_str(sb, "?");
        return 1;
    }
    if (n <= max) {
        put_cps(sb, cps, n);
        return n;
    }
    int tag = tag_start(cps, n);
    int base = tag > 0 ? tag - 1 : n; /* without the space before it */
    if (base > max)
        base = max;
    if (base > 0 && cps[base - 1] == ' ')
        base--; /* a name cut after a space ends before it */
    put_cps(sb, cps, base);
    if (tag > 0 && n - tag <= RENDER_TAG_MAX && max >= RENDER_NAME_MAX) {
        put_str(sb, " ");
        put_cps(sb, cps + tag, n - tag);
        return base + 1 + (n - tag);
    }
    return base;
}

size_t render_name(char *buf, size_t len, const char *name)
{
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    put_name(&sb, name, RENDER_NAME_MAX);
    return sb.need;
}

/* ---- Looks and messages ----------------------------------------------- */

/* How a look is written: in RENDER_CARDS_ASCII, IRC's text has no
 * formatting at all (a client without Unicode shows no colours either);
 * the markup keeps its own codes, which the adapter turns into plain text
 * and HTML. */
static struct render_look seen(struct render_look look)
{
    if (look.cards == RENDER_CARDS_ASCII && look.style == CHAT_STYLE_IRC)
        look.style = CHAT_STYLE_PLAIN;
    if (look.cards != RENDER_CARDS_ASCII && look.cards != RENDER_CARDS_WORDS)
        look.cards = RENDER_CARDS_SYMBOLS;
    return look;
}

/* Whether red cards are red in this look. */
static bool red_cards(struct render_look look)
{
    return coloured(look.style) && look.cards != RENDER_CARDS_ASCII;
}

/* Stands in a message for the placeholder whose text is written apart
 * (a list of atoms, a mention): no name or number holds it. */
#define LIVE "\x1A"

/* The bytes of a message's text around its live placeholder. */
#define PART_SIZE 512

/* A message's text around its live placeholder, the others filled. */
struct parts {
    char before[PART_SIZE];
    char after[PART_SIZE];
};

/* Splits text, a message filled with LIVE for its live placeholder, at
 * it; a text without it (a translation that lost it) is all before. */
static void split_live(struct parts *p, const char *text)
{
    const char *at = strstr(text, LIVE);
    size_t n = at ? (size_t)(at - text) : strlen(text);
    if (n >= sizeof p->before)
        n = utf8_cut(text, n, sizeof p->before - 1);
    memcpy(p->before, text, n);
    p->before[n] = '\0';
    struct strbuf sb;
    strbuf_init(&sb, p->after, sizeof p->after);
    strbuf_addstr(&sb, at ? at + strlen(LIVE) : "");
}

/* The name of a suit in lang ("clubs"), "?" for no suit. */
static const char *suit_word(int suit, int lang)
{
    if (suit < 0 || suit > 3)
        return "?";
    return msg_template(lang, suit_word_ids[suit]);
}

/* ---- Cards ------------------------------------------------------------ */

static bool is_red(int card)
{
    int suit = engine_card_suit(card);
    return suit == ENGINE_DIAMONDS || suit == ENGINE_HEARTS;
}

/* The joker's name: English letters in ASCII, else the catalogue's. */
static const char *joker_text(struct render_look look)
{
    return look.cards == RENDER_CARDS_ASCII ? "Joker"
                                            : msg_template(look.lang, JOKER);
}

/* A rank as a look shows it: "2" to "10", and a jack to an ace by the
 * language's letters (the ones a person may type: "letters of the
 * ranks", German "B D K A"), or in ASCII by the English ones, the codes
 * read everywhere. Into out (8 bytes). */
static const char *rank_shown(int rank, struct render_look look, char *out)
{
    if (look.cards == RENDER_CARDS_ASCII || rank < 9 || rank > 12)
        return rank_text[rank];
    const char *letters = msg_template(look.lang, RANK_LETTERS);
    unsigned char c = strlen(letters) == 13 ? (unsigned char)letters[rank] : 0;
    if (c <= 0x20 || c >= 0x7F)
        return rank_text[rank]; /* not letters as asked: English */
    out[0] = (char)c;
    out[1] = '\0';
    return out;
}

/* The card's text without colour: "10♥", "10H", "10 of hearts", "Joker",
 * "??". */
static void put_card_text(struct strbuf *sb, int card, struct render_look look)
{
    char rank[8];
    if (card == ENGINE_JOKER) {
        put_str(sb, joker_text(look));
    } else if (!engine_card_valid(card)) {
        put_str(sb, "??");
    } else if (look.cards == RENDER_CARDS_WORDS) {
        char text[PART_SIZE];
        struct strbuf t;
        strbuf_init(&t, text, sizeof text);
        /* TRANSLATORS: a card for screen readers: {rank} is "2" to "10",
         * or the letter of a jack, queen, king or ace ("letters of the
         * ranks"); {suit} the suit's name ("a suit's name"). */
        msg_add(&t, look.lang, M("{rank} of {suit}"),
                MSG_S("rank", rank_shown(engine_card_rank(card), look, rank)),
                MSG_S("suit", suit_word(engine_card_suit(card), look.lang)),
                MSG_END);
        put_str(sb, text);
    } else {
        put_str(sb, rank_shown(engine_card_rank(card), look, rank));
        if (look.cards == RENDER_CARDS_ASCII) {
            char letter[2] = {suit_letter[engine_card_suit(card)], '\0'};
            put_str(sb, letter);
        } else {
            put_str(sb, suit_symbol[engine_card_suit(card)]);
        }
    }
}

/* A card as one atom, coloured on IRC. */
static void put_card(struct strbuf *sb, int card, struct render_look look)
{
    struct strbuf_mark mark = strbuf_mark(sb);
    bool red = red_cards(look) && engine_card_valid(card) && is_red(card);
    if (red)
        put_red(sb);
    put_card_text(sb, card, look);
    if (red)
        put_reset(sb);
    strbuf_commit(sb, mark);
}

size_t render_card(char *buf, size_t len, int card, struct render_look look)
{
    look = seen(look);
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    put_card(&sb, card, look);
    return sb.need;
}

size_t render_cards(char *buf, size_t len, const uint8_t *cards, int n,
                    struct render_look look)
{
    look = seen(look);
    /* words are a list read aloud: commas between the cards */
    const char *gap = look.cards == RENDER_CARDS_WORDS ? ", " : " ";
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    for (int i = 0; i < n; i++) {
        struct strbuf_mark mark = strbuf_mark(&sb);
        if (i > 0)
            put_str(&sb, gap);
        put_card(&sb, cards[i], look);
        strbuf_commit(&sb, mark);
    }
    return sb.need;
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

/* A rank (or the joker) in a hand, marked as the style marks. */
static void put_hand_token(struct strbuf *sb, int card, bool marked,
                           struct render_look look)
{
    char rank[8];
    const char *text = card == ENGINE_JOKER
                           ? joker_text(look)
                           : rank_shown(engine_card_rank(card), look, rank);
    if (!marked) {
        put_str(sb, text);
    } else if (look.style == CHAT_STYLE_IRC) {
        put_str(sb, IRC_BOLD);
        put_str(sb, text);
        put_str(sb, IRC_BOLD);
    } else if (look.style == CHAT_STYLE_MARKUP) {
        put_str(sb, MARK_CARD);
        put_str(sb, text);
        put_str(sb, MARK_CARD);
    } else {
        put_str(sb, "[");
        put_str(sb, text);
        put_str(sb, "]");
    }
}

/* What stands around a group's cards: the suit's symbol ("♣ "), its
 * letter ("C: ") or its name ("clubs: "), and what follows the last card
 * (a translation's own); nothing for the joker. */
static void group_parts(struct parts *p, int card, struct render_look look)
{
    p->before[0] = p->after[0] = '\0';
    if (card == ENGINE_JOKER)
        return;
    int suit = engine_card_suit(card);
    if (look.cards == RENDER_CARDS_SYMBOLS) {
        snprintf(p->before, sizeof p->before, "%s ", suit_symbol[suit]);
    } else if (look.cards == RENDER_CARDS_ASCII) {
        snprintf(p->before, sizeof p->before, "%c: ", suit_letter[suit]);
    } else {
        char text[PART_SIZE];
        struct strbuf t;
        strbuf_init(&t, text, sizeof text);
        /* TRANSLATORS: one suit's cards in a hand, for screen readers:
         * {suit} is the suit's name ("a suit's name"), {cards} its ranks
         * ("2 5 J"). Groups are written one after another with "; "
         * between them: "clubs: 2 5 J; diamonds: 3 Q". */
        msg_add(&t, look.lang, M("{suit}: {cards}"),
                MSG_S("suit", suit_word(suit, look.lang)), MSG_S("cards", LIVE),
                MSG_END);
        split_live(p, text);
    }
}

/*
 * One group of the hand: the suit's symbol, letter or name (none for the
 * joker) and the cards, held once or twice. What comes before the cards
 * and the first card are one atom, so a cut never leaves a suit alone.
 */
static void put_group(struct strbuf *sb, const int *cards, int n, bool first,
                      const struct engine_cards *hand, uint64_t mark,
                      struct render_look look)
{
    bool red = red_cards(look) && is_red(cards[0]);
    struct parts p;
    group_parts(&p, cards[0], look);
    int shown = 0;
    for (int i = 0; i < n; i++) {
        int copies = (hand->two & ENGINE_BIT(cards[i])) ? 2 : 1;
        bool marked = (mark & ENGINE_BIT(cards[i])) != 0;
        for (int k = 0; k < copies; k++) {
            struct strbuf_mark m = strbuf_mark(sb);
            if (shown == 0) {
                if (!first)
                    put_str(sb, look.cards == RENDER_CARDS_WORDS ? "; " : "  ");
                if (red)
                    put_red(sb);
                put_str(sb, p.before);
            } else {
                put_str(sb, " ");
            }
            put_hand_token(sb, cards[i], marked, look);
            strbuf_commit(sb, m);
            shown++;
        }
    }
    if (p.after[0]) {
        struct strbuf_mark m = strbuf_mark(sb);
        put_str(sb, p.after);
        strbuf_commit(sb, m);
    }
    if (red)
        put_reset(sb);
}

size_t render_hand(char *buf, size_t len, const struct engine_cards *hand,
                   uint64_t mark, struct render_look look)
{
    look = seen(look);
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
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
        put_group(&sb, cards, n, first, hand, mark, look);
        first = false;
    }
    if (hand->one & ENGINE_BIT(ENGINE_JOKER)) {
        static const int joker[1] = {ENGINE_JOKER};
        put_group(&sb, joker, 1, first, hand, mark, look);
    }
    return sb.need;
}

size_t render_suit(char *buf, size_t len, int suit, struct render_look look)
{
    look = seen(look);
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    if (suit < 0 || suit > 3) {
        put_str(&sb, "?");
        return sb.need;
    }
    struct strbuf_mark mark = strbuf_mark(&sb);
    bool red =
        red_cards(look) && (suit == ENGINE_DIAMONDS || suit == ENGINE_HEARTS);
    if (red)
        put_red(&sb);
    if (look.cards == RENDER_CARDS_ASCII) {
        char letter[2] = {suit_letter[suit], '\0'};
        put_str(&sb, letter);
    } else if (look.cards == RENDER_CARDS_WORDS) {
        put_str(&sb, suit_word(suit, look.lang));
    } else {
        put_str(&sb, suit_symbol[suit]);
    }
    if (red)
        put_reset(&sb);
    strbuf_commit(&sb, mark);
    return sb.need;
}

const char *render_suit_word(int suit, int lang)
{
    return suit_word(suit, lang);
}

/* ---- Tricks ----------------------------------------------------------- */

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
static void put_mention(struct strbuf *sb, const char *id, const char *name,
                        bool notify, enum chat_style style)
{
    struct strbuf_mark mark = strbuf_mark(sb);
    bool pill = style == CHAT_STYLE_MARKUP && pill_id_ok(id);
    if (pill) {
        put_str(sb, MARK_PILL);
        if (notify)
            put_str(sb, MARK_NOTIFY);
        put_str(sb, id);
        put_str(sb, MARK_PILL);
    }
    put_name(sb, name, RENDER_NAME_MAX);
    if (pill)
        put_str(sb, MARK_PILL);
    strbuf_commit(sb, mark);
}

size_t render_mention(char *buf, size_t len, const char *id, const char *name,
                      bool notify, struct render_look look)
{
    enum chat_style style = look.style;
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    put_mention(&sb, id, name, notify, style);
    return sb.need;
}

size_t render_trick(char *buf, size_t len, int trick_no, const uint8_t *cards,
                    const uint8_t *seats, int n, const char *const *names,
                    int winner, int points, struct render_look look)
{
    return render_trick_ids(buf, len, trick_no, cards, seats, n, names, NULL,
                            winner, points, look);
}

/* The outcome of a trick after its plays, one atom: " - bob takes it
 * (1 point)", " - set aside for the next winner". */
static void put_outcome(struct strbuf *sb, const char *const *names,
                        const char *const *ids, int winner, int points,
                        struct render_look look)
{
    char pts[PART_SIZE] = "", text[PART_SIZE];
    struct strbuf t;
    if (points != 0) {
        strbuf_init(&t, pts, sizeof pts);
        unsigned long n =
            points < 0 ? (unsigned long)-(long)points : (unsigned long)points;
        /* TRANSLATORS: what a trick is worth, in brackets after its
         * outcome: "bob takes it (1 point)". */
        msg_addn(&t, look.lang, MN("{n} point", "{n} points"), n,
                 MSG_I("n", points), MSG_END);
    }
    strbuf_init(&t, text, sizeof text);
    struct strbuf_mark mark = strbuf_mark(sb);
    put_str(sb, " - ");
    if (winner < 0) {
        if (points != 0)
            /* TRANSLATORS: a cancelled trick's outcome, after its plays:
             * its cards wait for whoever takes the next trick. {points}
             * is "2 points". */
            msg_add(&t, look.lang,
                    M("set aside for the next winner ({points})"),
                    MSG_S("points", pts), MSG_END);
        else
            msg_add(&t, look.lang, M("set aside for the next winner"), MSG_END);
        put_str(sb, text);
        strbuf_commit(sb, mark);
        return;
    }
    /* the console's person is "you": "you take it" */
    bool you =
        names[winner] &&
        (strcasecmp(names[winner], "you") == 0 ||
         strcmp(names[winner], msg_template(look.lang, CHAT_SOLO_NAME)) == 0);
    if (you && points != 0)
        /* TRANSLATORS: a trick's outcome when the person at the console
         * takes it, addressed as you: {player} is their name there,
         * the translation of "you" (context "the person at the console,
         * as the game's lines name them"); {points} is "1 point". */
        msg_add(&t, look.lang, M("{player} take it ({points})"),
                MSG_S("player", LIVE), MSG_S("points", pts), MSG_END);
    else if (you)
        msg_add(&t, look.lang, M("{player} take it"), MSG_S("player", LIVE),
                MSG_END);
    else if (points != 0)
        /* TRANSLATORS: a trick's outcome, after its plays ("Trick 5:
         * alice 7♣, bob K♣ - bob takes it (1 point)"): {player} takes the
         * trick; {points} is "1 point". */
        msg_add(&t, look.lang, M("{player} takes it ({points})"),
                MSG_S("player", LIVE), MSG_S("points", pts), MSG_END);
    else
        msg_add(&t, look.lang, M("{player} takes it"), MSG_S("player", LIVE),
                MSG_END);
    struct parts p;
    split_live(&p, text);
    put_str(sb, p.before);
    if (coloured(look.style))
        put_str(sb, IRC_BOLD);
    put_mention(sb, ids ? ids[winner] : NULL, names[winner], false, look.style);
    if (coloured(look.style))
        put_str(sb, IRC_BOLD);
    put_str(sb, p.after);
    strbuf_commit(sb, mark);
}

size_t render_trick_ids(char *buf, size_t len, int trick_no,
                        const uint8_t *cards, const uint8_t *seats, int n,
                        const char *const *names, const char *const *ids,
                        int winner, int points, struct render_look look)
{
    look = seen(look);
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    struct parts p = {"", ""};
    if (trick_no > 0) {
        char text[PART_SIZE];
        struct strbuf t;
        strbuf_init(&t, text, sizeof text);
        /* TRANSLATORS: a trick's line: {n} is its number, {plays} who
         * played what ("alice 7♣, bob K♣") or "no cards yet"; its outcome
         * may follow after " - ". */
        msg_add(&t, look.lang, M("Trick {n}: {plays}"), MSG_I("n", trick_no),
                MSG_S("plays", LIVE), MSG_END);
        split_live(&p, text);
    }
    struct strbuf_mark mark = strbuf_mark(&sb);
    put_str(&sb, p.before);
    if (n <= 0)
        /* TRANSLATORS: the plays of a trick nobody has played to yet:
         * "Trick 7: no cards yet". */
        put_str(&sb, msg_template(look.lang, M("no cards yet")));
    strbuf_commit(&sb, mark);
    for (int i = 0; i < n; i++) {
        mark = strbuf_mark(&sb);
        if (i > 0)
            put_str(&sb, ", ");
        put_name(&sb, names[seats[i]], RENDER_NAME_MAX);
        put_str(&sb, " ");
        put_card(&sb, cards[i], look);
        strbuf_commit(&sb, mark);
    }
    if (p.after[0]) {
        mark = strbuf_mark(&sb);
        put_str(&sb, p.after);
        strbuf_commit(&sb, mark);
    }
    if (winner == RENDER_TRICK_OPEN)
        return sb.need;
    put_outcome(&sb, names, ids, winner, points, look);
    return sb.need;
}

/* ---- Score sheets ----------------------------------------------------- */

/* A right-aligned cell: two spaces apart from the one before, unless it
 * is the first of its line. `chars` is the text's width in code points. */
static void put_cell(struct strbuf *sb, const char *text, int chars, int width,
                     bool first, enum chat_style style)
{
    if (!first) {
        if (style == CHAT_STYLE_MARKUP)
            put_str(sb, MARK_CELL);
        put_str(sb, "  ");
    }
    if (width > chars)
        strbuf_addrep(sb, ' ', (size_t)(width - chars));
    put_str(sb, text);
}

static int int_width(int32_t v)
{
    char num[16];
    return snprintf(num, sizeof num, "%" PRId32, v);
}

/* The width of a text in code points. */
static int text_width(const char *text)
{
    return (int)utf8_count(text, strlen(text));
}

/* The bytes of a score sheet's heading: the cut name, a mark after it. */
#define HEAD_SIZE (RENDER_SCORES_NAME_WIDTH * 4 + 1 + RENDER_SCORES_MARK_MAX)

/* Headings cut alike ("Ace (@ca" twice) are told apart: each becomes
 * the name before its tag, cut, with "~" and its place among them. */
static void heads_unique(char heads[][HEAD_SIZE], int *head_chars, int *width,
                         const char *const *names, int n)
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
        struct strbuf h;
        strbuf_init(&h, heads[s], sizeof heads[s]);
        put_cps(&h, cps, len);
        strbuf_add_whole(&h, suffix, (size_t)sl);
        if (width[s] < len + sl)
            width[s] = len + sl;
        head_chars[s] = len + sl;
    }
}

size_t render_scores(char *buf, size_t len, const char *const *names, int n,
                     const int32_t *const *hands_points, int nhands,
                     const int32_t *totals, int last, struct render_look look)
{
    return render_scores_marked(buf, len, names, NULL, n, hands_points, nhands,
                                totals, last, look);
}

/* Whether a mark can follow a heading: printable UTF-8 that fits (no
 * control, nothing invisible or direction-changing: render_name's rule). */
static bool mark_ok(const char *mark)
{
    if (!mark || !*mark || strlen(mark) >= RENDER_SCORES_MARK_MAX)
        return false;
    size_t n = strlen(mark);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t used = utf8_decode(mark + i, n - i, &cp);
        if (used == 0 || invisible(cp) || (cp != ' ' && other_space(cp)))
            return false;
        i += used;
    }
    return true;
}

size_t render_scores_marked(char *buf, size_t len, const char *const *names,
                            const char *const *marks, int n,
                            const int32_t *const *hands_points, int nhands,
                            const int32_t *totals, int last,
                            struct render_look look)
{
    look = seen(look);
    enum chat_style style = look.style;
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    if (n > ENGINE_MAX_PLAYERS)
        n = ENGINE_MAX_PLAYERS;
    if (n < 0)
        n = 0;
    if (nhands < 0)
        nhands = 0;
    int from = last > 0 && nhands > last ? nhands - last : 0;
    bool elided = from > 0;
    /* TRANSLATORS: the heading of a score sheet's first column, which
     * holds the hands' numbers (a hand: one deal). Short: the column is
     * as wide as the longest of this, "total" and "...". */
    const char *hand_word = msg_template(
        look.lang, MC("the score sheet's column of hands", "hand"));
    /* TRANSLATORS: the first cell of a score sheet's last row, the game's
     * totals. */
    const char *total_word =
        msg_template(look.lang, MC("the score sheet's row of totals", "total"));
    /* TRANSLATORS: the cells of a score sheet's row that stands for the
     * hands left out (only the last ones are shown in a channel). */
    const char *more_word = msg_template(
        look.lang, MC("the score sheet's row of hands left out", "..."));
    int hand_chars = text_width(hand_word);
    int total_chars = text_width(total_word);
    int more_chars = text_width(more_word);

    /* the column headings, cleaned and cut, and the columns' widths */
    char heads[ENGINE_MAX_PLAYERS][HEAD_SIZE];
    int head_chars[ENGINE_MAX_PLAYERS];
    int width[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < n; s++) {
        struct strbuf h;
        strbuf_init(&h, heads[s], sizeof heads[s]);
        head_chars[s] = put_name(&h, names[s], RENDER_SCORES_NAME_WIDTH);
        width[s] = head_chars[s];
        if (elided && width[s] < more_chars)
            width[s] = more_chars;
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
    for (int s = 0; marks && s < n; s++) {
        if (!mark_ok(marks[s]))
            continue;
        size_t at = strlen(heads[s]);
        snprintf(heads[s] + at, sizeof heads[s] - at, " %s", marks[s]);
        head_chars[s] += 1 + text_width(marks[s]);
        if (width[s] < head_chars[s])
            width[s] = head_chars[s];
    }
    int label = int_width(nhands);
    if (label < hand_chars)
        label = hand_chars;
    if (label < total_chars)
        label = total_chars;
    if (elided && label < more_chars)
        label = more_chars;

    struct strbuf_mark mark = strbuf_mark(&sb);
    if (style == CHAT_STYLE_IRC)
        put_str(&sb, IRC_BOLD);
    put_cell(&sb, hand_word, hand_chars, label, true, style);
    for (int s = 0; s < n; s++)
        put_cell(&sb, heads[s], head_chars[s], width[s], false, style);
    if (style == CHAT_STYLE_IRC)
        put_str(&sb, IRC_BOLD);
    strbuf_commit(&sb, mark);

    if (elided) {
        mark = strbuf_mark(&sb);
        put_str(&sb, "\n");
        put_cell(&sb, more_word, more_chars, label, true, style);
        for (int s = 0; s < n; s++)
            put_cell(&sb, more_word, more_chars, width[s], false, style);
        strbuf_commit(&sb, mark);
    }
    for (int k = from; k <= nhands; k++) {
        const int32_t *row = k < nhands ? hands_points[k] : totals;
        if (!row)
            break;
        char num[16];
        mark = strbuf_mark(&sb);
        put_str(&sb, "\n");
        if (k < nhands) {
            int w = snprintf(num, sizeof num, "%d", k + 1);
            put_cell(&sb, num, w, label, true, style);
        } else {
            put_cell(&sb, total_word, total_chars, label, true, style);
        }
        for (int s = 0; s < n; s++) {
            int w = snprintf(num, sizeof num, "%" PRId32, row[s]);
            put_cell(&sb, num, w, width[s], false, style);
        }
        strbuf_commit(&sb, mark);
    }
    return sb.need;
}
