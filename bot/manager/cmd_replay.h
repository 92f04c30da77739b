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
#include "storage/archive.h"

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

/* What !replay and review (cmd_teach.h) share. The room whose archive a
 * command means: the channel, or privately the one where the asker sits;
 * NULL after a refusal. */
const char *mgr_replay_room(struct cmd *c);
/* The game a word names: a number counting back (*back, 1 to
 * REPLAY_BACK_MAX) or an ID's first digits (into id, lower case). False
 * if it is neither. */
bool mgr_replay_game_word(const char *w, int *back, char *id, size_t idlen);
/* The directory of the room's archive, if it has one: false (and the
 * asker told nothing has finished there) if not. */
bool mgr_replay_archive_dir(struct cmd *c, const char *room, char *dir,
                            size_t len);
/* The game asked for (id's first digits, or `back` games back) among
 * dir's results, finished: false after a refusal. */
bool mgr_replay_find_game(struct cmd *c, const char *dir, const char *id,
                          int back, struct archive_result *r);

#endif
