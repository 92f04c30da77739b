/*
 * Inside the game manager: cards as people type them (card_words.h).
 */
#include "bot/manager/card_words.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "bot/common/msg.h"
#include "engine/engine.h"

/* TRANSLATORS: one letter per rank, 2 to ace, as players of your language
 * write them (13 ASCII letters or digits: "23456789TBDKA" for Bube, Dame,
 * König, Ass). A letter given to two ranks is read as neither, and so is
 * one that means another rank in English. */
#define RANK_LETTERS MC("letters of the ranks 2 to ace", "23456789TJQKA")
/* TRANSLATORS: one letter per suit: clubs, diamonds, hearts, spades, as
 * players of your language write them (4 ASCII letters: "KKHP" for Kreuz,
 * Karo, Herz, Pik). A letter given to two suits is read as neither, and
 * so is one that means another suit in English (the C of coeur). */
#define SUIT_LETTERS                                                           \
    MC("letters of the suits clubs, diamonds, hearts, spades", "CDHS")

/* The same entry as render.c's: what a hand shows is what is read. */
#define JOKER MC("the joker card", "Joker")

static const char en_ranks[] = "23456789TJQKA";
static const char en_suits[] = "CDHS";

/* The language's letters of the ranks and the suits; false if its
 * translators gave no usable letters (then only English is read). */
static bool letters_of(int lang, const char **ranks, const char **suits)
{
    if (lang == MSG_EN)
        return false;
    *ranks = msg_template(lang, RANK_LETTERS);
    *suits = msg_template(lang, SUIT_LETTERS);
    return strlen(*ranks) == 13 && strlen(*suits) == 4;
}

/* What the letter c (either case) means in the language's letters and in
 * English's (n of each), as bits of their indices: 0 nothing, one bit one
 * meaning, more bits more meanings. */
static unsigned meanings(const char *letters, const char *english, size_t n,
                         char c)
{
    unsigned bits = 0;
    int up = toupper((unsigned char)c);
    for (size_t i = 0; i < n && c; i++)
        if (toupper((unsigned char)letters[i]) == up || english[i] == up)
            bits |= 1u << i;
    return bits;
}

/* The one index of bits (a single meaning). */
static int index_of(unsigned bits)
{
    return __builtin_ctz(bits);
}

static bool several(unsigned bits)
{
    return (bits & (bits - 1)) != 0;
}

unsigned mgr_card_suit_meanings(int lang, char c)
{
    const char *ranks, *suits;
    if (!letters_of(lang, &ranks, &suits))
        suits = en_suits;
    return meanings(suits, en_suits, 4, c);
}

/* The next letter of s[*i..n) for a comparison that ignores case and the
 * accents of Latin-1's letters ("Comodín" is "comodin"); any other byte
 * is itself, above every letter. */
static int folded(const unsigned char *s, size_t n, size_t *i)
{
    /* U+00C0 to U+00FF, lower case without the accent; '.' for none */
    static const char latin1[] = "aaaaaa.ceeeeiiii.nooooo.ouuuuy.."
                                 "aaaaaa.ceeeeiiii.nooooo.ouuuuy.y";
    unsigned char c = s[(*i)++];
    if (c < 0x80)
        return tolower(c);
    if (c == 0xC3 && *i < n && s[*i] >= 0x80 && s[*i] <= 0xBF) {
        unsigned char t = s[(*i)++];
        char base = latin1[t - 0x80];
        return base != '.' ? base : 0x100 + t;
    }
    return 0x200 + c;
}

/* Whether text[0..len) is the language's name of the joker. */
static bool joker_named(int lang, const char *text, size_t len)
{
    const char *name = msg_template(lang, JOKER);
    const unsigned char *a = (const unsigned char *)text,
                        *b = (const unsigned char *)name;
    size_t i = 0, j = 0, n = strlen(name);
    if (!n)
        return false;
    while (i < len && j < n)
        if (folded(a, len, &i) != folded(b, n, &j))
            return false;
    return i == len && j == n;
}

int mgr_card_parse(int lang, const char *text, size_t len, int *card)
{
    if (engine_card_parse(text, len, card) == 0)
        return 0;
    if (lang != MSG_EN && joker_named(lang, text, len)) {
        *card = ENGINE_JOKER;
        return 0;
    }
    const char *ranks, *suits;
    if (len < 2 || !letters_of(lang, &ranks, &suits))
        return MGR_CARD_NONE;
    /* the card in English letters: its rank's, and its suit's letter or
     * the symbol as typed, which engine_card_parse reads */
    char english[16];
    size_t pos;
    unsigned rank = 0, suit = 0;
    if (text[0] == '1' && text[1] == '0') {
        english[0] = 'T';
        pos = 2;
    } else {
        rank = meanings(ranks, en_ranks, 13, text[0]);
        if (!rank)
            return MGR_CARD_NONE;
        english[0] = en_ranks[index_of(rank)];
        pos = 1;
    }
    size_t rest = len - pos;
    if (rest == 0 || rest + 2 > sizeof english)
        return MGR_CARD_NONE;
    if (rest == 1 && isalpha((unsigned char)text[pos])) {
        suit = meanings(suits, en_suits, 4, text[pos]);
        if (!suit)
            return MGR_CARD_NONE;
        english[1] = en_suits[index_of(suit)];
    } else {
        memcpy(english + 1, text + pos, rest);
    }
    int found;
    if (engine_card_parse(english, 1 + rest, &found))
        return MGR_CARD_NONE;
    /* a card, if each letter means one thing */
    if (several(rank))
        return MGR_CARD_RANK_AMBIGUOUS;
    if (several(suit))
        return MGR_CARD_SUIT_AMBIGUOUS;
    *card = found;
    return 0;
}
