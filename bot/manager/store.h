/*
 * The game manager's side of storage/ (docs/storage.md): the data
 * directory's lock and writability (checked at start, retried at each
 * later need so that a disk that recovers is used again), what a channel
 * is told once while results or a game can't be kept, and archiving a
 * game that ended in its room's archive (results.h counts it). Nothing
 * here speaks: a function with something for the channel writes it into
 * `say` (sized `len`; left alone if nothing) and the caller says it
 * (say.h). Where a room's files live: mgr_room_dir (table.h).
 */
#ifndef HEARTS_BOT_MANAGER_STORE_H
#define HEARTS_BOT_MANAGER_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/manager/table.h"

/* The manager starts with storage taken to work, and storage/ logging
 * into the bot's log. */
void mgr_store_init(struct manager *m);
/* Forgets which channels were told storage does not work (it works
 * again, or the manager goes). */
void mgr_store_free(struct manager *m);
/* At the bot's start (manager_storage_start): makes the data directory,
 * takes its lock and checks it can be written; -1 with the message in err
 * if another heartsbot holds the lock, else 0 (a directory that cannot be
 * written is logged and tried again when a table needs it). */
int mgr_store_start(struct manager *m, char *err, size_t errlen);
/* Whether results can be saved now (tried again if they could not); if
 * not, the text to say once in the channel ("The game goes on." unless
 * game_over). */
bool mgr_store_ok(struct table *t, bool game_over, char *say, size_t len);
/* The text to say once in the channel, until a journal is written there
 * again (mgr_store_works), that this game will not survive a restart
 * (its journal could not be written, errno `cause`): true if there is. */
bool mgr_store_journal_lost(struct table *t, int cause, char *say, size_t len);
/* A journal was written in t's channel: a later journal failure there is
 * told again. */
void mgr_store_works(struct table *t);
/* The record of the table's game as a JSON line to archive (malloc'd),
 * or NULL (logged) if there is none. */
char *mgr_store_record(struct table *t);
/* Archives the game that ended, finished or stopped (then it counts for
 * nobody), in its room's archive.jsonl and results.jsonl, and counts it
 * on the room's leaderboards (results.h); not `now` (storage known not
 * to work, told), it waits without a try. A failure is logged (with the
 * record) and its text for the channel written into say; the game is
 * tried again at the room's next archiving, and from its journal (kept:
 * t->journal is emptied so that closing the table leaves it) at the next
 * start. */
void mgr_store_archive(struct table *t, const char *json, bool finished,
                       bool now, char *say, size_t len);

#endif
