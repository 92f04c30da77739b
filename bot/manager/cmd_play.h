/*
 * The commands of a seated player: play, pass, discard, moon, hand, back,
 * autoplay, with the wording of every refusal of the engine; and "pass"
 * said in a channel (secret: privately only).
 */
#ifndef HEARTS_BOT_MANAGER_CMD_PLAY_H
#define HEARTS_BOT_MANAGER_CMD_PLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/manager/cmd.h"

void mgr_cmd_play(struct cmd *c);
void mgr_cmd_pass(struct cmd *c);
void mgr_cmd_pass_in_channel(struct cmd *c);
void mgr_cmd_discard(struct cmd *c);
void mgr_cmd_moon(struct cmd *c);
void mgr_cmd_hand(struct cmd *c);
void mgr_cmd_back(struct cmd *c);
void mgr_cmd_autoplay(struct cmd *c);
/* The asker's table with a game on, where they play (not away), and
 * their seat; or NULL after a reply saying why. */
struct table *mgr_cmd_my_table(struct cmd *c, int *seat);
/* Scans the cards in words[from..], blank- or comma-separated ("KS,AS,
 * KC"), into out (up to max; out may be NULL to count). Returns how many,
 * -1 at a word that is no card (*bad and *badlen name it), or -2 when
 * there are more than max. */
int mgr_cmd_scan_cards(const struct cmd *c, int from, uint8_t *out, int max,
                       const char **bad, size_t *badlen);
/* Whether the word w is a card in the asker's language (card_words.h),
 * or would be but for a letter of two meanings (which play then
 * explains). */
bool mgr_cmd_is_card(const struct cmd *c, const char *w);

#endif
