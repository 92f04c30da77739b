/*
 * Inside the game manager: a card as a person types it. The English codes
 * and the suit symbols are understood in every language (engine.h:
 * engine_card_parse); a language's own letters (the catalogue's "letters
 * of the ranks" and "letters of the suits") only where the English reading
 * fails and the letter means one rank or one suit in that language and
 * nothing else in English: a German "DH" is Dame Herz (the queen of
 * hearts), but "QD" stays the queen of diamonds; the German K (Kreuz,
 * Karo) is no suit at all, nor the French C (coeur: English clubs).
 */
#ifndef HEARTS_BOT_MANAGER_CARD_WORDS_H
#define HEARTS_BOT_MANAGER_CARD_WORDS_H

#include <stddef.h>

/* The card text[0..len) names in language lang: 0 and *card, or -1. */
int mgr_card_parse(int lang, const char *text, size_t len, int *card);

#endif
