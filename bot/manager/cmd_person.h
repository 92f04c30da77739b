/*
 * The commands about the person asking (lang.h): lang, cards; notify
 * (notify.h).
 */
#ifndef HEARTS_BOT_MANAGER_CMD_PERSON_H
#define HEARTS_BOT_MANAGER_CMD_PERSON_H

#include "bot/manager/cmd.h"

/* lang [CODE|default]: the language of the bot's private lines to you. */
void mgr_cmd_lang(struct cmd *c);

/* cards [symbols|ascii|words]: how the bot's private lines show you
 * cards ("Q♠ 10♥", "QS 10H", "Q of spades, 10 of hearts"). */
void mgr_cmd_cards(struct cmd *c);

/* notify [on|off], in a channel: whether the bot calls you there when a
 * table opens (notify.h). */
void mgr_cmd_notify(struct cmd *c);

#endif
