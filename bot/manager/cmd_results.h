/*
 * The commands about a room's results (results.h): !top, !stats, !last,
 * and !scores when no game is running (the last game's sheet).
 */
#ifndef HEARTS_BOT_MANAGER_CMD_RESULTS_H
#define HEARTS_BOT_MANAGER_CMD_RESULTS_H

#include "bot/manager/cmd.h"

void mgr_cmd_top(struct cmd *c);
void mgr_cmd_stats(struct cmd *c);
void mgr_cmd_last(struct cmd *c);
/* !scores with no game running: the last finished game's sheet. */
void mgr_cmd_last_sheet(struct cmd *c);

#endif
