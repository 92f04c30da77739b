/*
 * The commands about the person asking (lang.h): lang.
 */
#ifndef HEARTS_BOT_MANAGER_CMD_PERSON_H
#define HEARTS_BOT_MANAGER_CMD_PERSON_H

#include "bot/manager/cmd.h"

/* lang [CODE|default]: the language of the bot's private lines to you. */
void mgr_cmd_lang(struct cmd *c);

#endif
