/*
 * !replay (replay.h): a finished game of the room told again to the
 * asker alone, privately, a chunk of lines at a time; "more" for the
 * next chunk. Each line of a chunk counts as one answer against the
 * asker's answer limit (limit.h), so a replay never lets anyone make the
 * bot say more than the limits allow.
 */
#ifndef HEARTS_BOT_MANAGER_CMD_REPLAY_H
#define HEARTS_BOT_MANAGER_CMD_REPLAY_H

#include "bot/manager/cmd.h"

/* The most lines of one chunk. */
#define REPLAY_CHUNK_LINES 5
/* How far back "!replay N" counts finished games. */
#define REPLAY_BACK_MAX 1000

/* !replay [GAME | more], in a room or privately. */
void mgr_cmd_replay(struct cmd *c);
/* "more", privately: the next chunk of the asker's replay. */
void mgr_cmd_more(struct cmd *c);
/* Whether c is a "more" of a replay (privately "more", or "replay
 * more"): the same text again is answered, not taken for a repeat. */
bool mgr_cmd_is_more(const struct cmd *c);

#endif
