/*
 * The commands about a room's table: open it (!hearts), sit down and
 * stand up, add computer players, start and stop, and what it is
 * (!status, !scores, !rules, !presets).
 */
#ifndef HEARTS_BOT_MANAGER_CMD_TABLE_H
#define HEARTS_BOT_MANAGER_CMD_TABLE_H

#include "bot/manager/cmd.h"

/* Stops the table with the line `id` in the room's language ({player}:
 * `player`, if not NULL). */
void mgr_cmd_stop_with(struct table *t, const char *id, const char *player);

void mgr_cmd_hearts(struct cmd *c);
void mgr_cmd_join(struct cmd *c);
void mgr_cmd_leave(struct cmd *c);
void mgr_cmd_bot(struct cmd *c);
void mgr_cmd_start(struct cmd *c);
void mgr_cmd_stop(struct cmd *c);
/* !part: the bot leaves the channel, asked by an admin, or by an operator
 * of it (asked of the network: the answer comes as CHAT_OPERATOR) while
 * no game is on there. */
void mgr_cmd_part(struct cmd *c);
/* Leaves c->room for c->u, an admin or an operator there: a game on
 * there ends unscored if an admin asks, else it holds the bot. */
void mgr_cmd_part_now(struct cmd *c, bool admin);
void mgr_cmd_status(struct cmd *c);
void mgr_cmd_scores(struct cmd *c);
void mgr_cmd_rules(struct cmd *c);
void mgr_cmd_presets(struct cmd *c);

#endif
