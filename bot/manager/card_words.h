/*
 * Inside the game manager: a card as a person types it. The English codes
 * and the suit symbols are understood in every language and always read
 * as in English (engine.h: engine_card_parse). A language's own letters
 * (the catalogue's "letters of the ranks" and "letters of the suits") are
 * read where the English reading fails, one letter for the rank (or "10")
 * and one letter or a symbol for the suit, and only a letter that means
 * one rank, or one suit, in that language and in English together: a
 * German "DH" is Dame Herz (the queen of hearts) and "DP" Dame Pik, but
 * "QD" stays the queen of diamonds; the German K (Kreuz, Karo) is no suit
 * at all, nor the French C (coeur, and clubs in English), so "DK" is
 * refused as ambiguous. The language's name of the joker ("the joker
 * card": Spanish "Comodín") is read too, in either case and with or
 * without its accents, besides the English "Joker" and "JK".
 */
#ifndef HEARTS_BOT_MANAGER_CARD_WORDS_H
#define HEARTS_BOT_MANAGER_CARD_WORDS_H

#include <stddef.h>

/* What mgr_card_parse found in a text that names no card. */
enum mgr_card_error {
    MGR_CARD_NONE = -1,           /* nothing like a card */
    MGR_CARD_RANK_AMBIGUOUS = -2, /* a card but for its rank letter
                                     (text[0]), which means two ranks */
    MGR_CARD_SUIT_AMBIGUOUS = -3  /* a card but for its suit letter (the
                                     last), which means two suits */
};

/* The card text[0..len) names in language lang: 0 and *card, else an
 * mgr_card_error. */
int mgr_card_parse(int lang, const char *text, size_t len, int *card);

/* The suits (ENGINE_CLUBS...) the letter c means in language lang and in
 * English, as bits (1 << suit); 0 if none. Two bits or more: the letter
 * is ambiguous there. */
unsigned mgr_card_suit_meanings(int lang, char c);

#endif
