/*
 * Card names: the canonical two-character form of variants.md, and the
 * lenient reader that takes what people type in chat ("10h", "q♠", "Td").
 */
#include "engine/engine.h"
#include "engine/internal.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char ranks[] = "23456789TJQKA";
static const char suits[] = "CDHS";

bool engine_card_valid(int card)
{
    if (card == ENGINE_JOKER)
        return true;
    return card >= 0 && card < 64 && engine_card_rank(card) < 13;
}

const char *engine_card_name(int card)
{
    static const char names[64][3] = {
#define N(s)                                                                   \
    {'2', s, 0}, {'3', s, 0}, {'4', s, 0}, {'5', s, 0}, {'6', s, 0},           \
        {'7', s, 0}, {'8', s, 0}, {'9', s, 0}, {'T', s, 0}, {'J', s, 0},       \
        {'Q', s, 0}, {'K', s, 0}, {'A', s, 0}
        N('C'),        {0}, {0}, {0},    N('D'), {0}, {0}, {0}, N('H'),
        {'J', 'K', 0}, {0}, {0}, N('S'), {0},    {0}, {0}
#undef N
    };
    if (!engine_card_valid(card))
        return "??";
    return names[card];
}

/* The suit written at s (a letter or a UTF-8 symbol), and its length. */
static int parse_suit(const unsigned char *s, size_t len, size_t *used)
{
    if (len >= 1) {
        const char *p = strchr(suits, toupper(s[0]));
        if (p && s[0]) {
            *used = 1;
            return (int)(p - suits);
        }
    }
    /* U+2660..U+2667: E2 99 A0..A7; black and white forms of each suit */
    if (len >= 3 && s[0] == 0xE2 && s[1] == 0x99 && s[2] >= 0xA0 &&
        s[2] <= 0xA7) {
        static const int sym[8] = {
            ENGINE_SPADES, ENGINE_HEARTS, ENGINE_DIAMONDS, ENGINE_CLUBS,
            ENGINE_SPADES, ENGINE_HEARTS, ENGINE_DIAMONDS, ENGINE_CLUBS};
        *used = 3;
        /* an emoji variation selector (U+FE0F, EF B8 8F) may follow */
        if (len >= 6 && s[3] == 0xEF && s[4] == 0xB8 && s[5] == 0x8F)
            *used = 6;
        return sym[s[2] - 0xA0];
    }
    return -1;
}

int engine_card_parse(const char *text, size_t len, int *card)
{
    const unsigned char *s = (const unsigned char *)text;
    if (len == 2 && toupper(s[0]) == 'J' && toupper(s[1]) == 'K') {
        *card = ENGINE_JOKER;
        return 0;
    }
    if (len == 5 && strncasecmp(text, "joker", 5) == 0) {
        *card = ENGINE_JOKER;
        return 0;
    }
    int rank;
    size_t pos;
    if (len >= 2 && s[0] == '1' && s[1] == '0') {
        rank = 8;
        pos = 2;
    } else if (len >= 1 && s[0] && strchr(ranks, toupper(s[0]))) {
        rank = (int)(strchr(ranks, toupper(s[0])) - ranks);
        pos = 1;
    } else {
        return -1;
    }
    size_t used;
    int suit = parse_suit(s + pos, len - pos, &used);
    if (suit < 0 || pos + used != len)
        return -1;
    *card = ENGINE_CARD(suit, rank);
    return 0;
}

int engine_cards_count(const struct engine_cards *c)
{
    return bits_count(c->one) + bits_count(c->two);
}
