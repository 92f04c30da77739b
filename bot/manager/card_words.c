/*
 * Inside the game manager: cards as people type them (card_words.h).
 */
#include "bot/manager/card_words.h"

#include <ctype.h>
#include <string.h>

#include "bot/common/msg.h"
#include "engine/engine.h"

/* TRANSLATORS: one letter per rank, 2 to ace, as players of your language
 * write them (13 ASCII letters or digits: "23456789TBDKA" for Bube, Dame,
 * König, Ass). A letter given to two ranks is read as neither. */
#define RANK_LETTERS MC("letters of the ranks 2 to ace", "23456789TJQKA")
/* TRANSLATORS: one letter per suit: clubs, diamonds, hearts, spades, as
 * players of your language write them (4 ASCII letters: "KKHP" for Kreuz,
 * Karo, Herz, Pik). A letter given to two suits is read as neither, and
 * so is one that means another suit in English (the C of coeur). */
#define SUIT_LETTERS                                                           \
    MC("letters of the suits clubs, diamonds, hearts, spades", "CDHS")

/* The index of c (either case) in letters, if it is there once: -1 if it
 * is not there, or twice (two meanings: neither). */
static int once(const char *letters, size_t n, char c)
{
    int at = -1;
    for (size_t i = 0; i < n; i++) {
        if (toupper((unsigned char)letters[i]) != toupper((unsigned char)c))
            continue;
        if (at >= 0)
            return -1;
        at = (int)i;
    }
    return at;
}

/* What c means in the language's letters, if it means one thing there and
 * nothing else in English (a French C, coeur, is the English clubs: not
 * read as hearts). */
static int letter(const char *letters, const char *english, size_t n, char c)
{
    int at = once(letters, n, c);
    int en = once(english, n, c);
    return at >= 0 && (en < 0 || en == at) ? at : -1;
}

int mgr_card_parse(int lang, const char *text, size_t len, int *card)
{
    if (engine_card_parse(text, len, card) == 0)
        return 0;
    if (lang == MSG_EN)
        return -1;
    const char *ranks = msg_template(lang, RANK_LETTERS);
    const char *suits = msg_template(lang, SUIT_LETTERS);
    if (strlen(ranks) != 13 || strlen(suits) != 4)
        return -1; /* not letters as asked: not used */
    size_t pos = 0;
    int rank;
    if (len >= 2 && text[0] == '1' && text[1] == '0') {
        rank = 8;
        pos = 2;
    } else if (len >= 1) {
        rank = letter(ranks, "23456789TJQKA", 13, text[0]);
        pos = 1;
    } else {
        return -1;
    }
    if (rank < 0 || len != pos + 1)
        return -1;
    int suit = letter(suits, "CDHS", 4, text[pos]);
    if (suit < 0)
        return -1;
    *card = ENGINE_CARD(suit, rank);
    return 0;
}
