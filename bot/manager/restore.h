/*
 * Resuming games after a restart (docs/storage.md, "Journals"): at start
 * manager_restore (manager.h) rebuilds every table of an adapter's network
 * from its journal, replayed through the engine, with nothing said, told
 * or journaled meanwhile; a finished game found is archived; a journal
 * that cannot be replayed is moved aside and its room told once the bot
 * is there. Once back online a rebuilt table tells its channel and its
 * people (presence.h).
 */
#ifndef HEARTS_BOT_MANAGER_RESTORE_H
#define HEARTS_BOT_MANAGER_RESTORE_H

#include "bot/manager/table.h"

/* Rebuilds every table of the adapter's network from its journal
 * (manager_restore). */
void mgr_restore(struct manager *m, struct chat_adapter *a);
/* The adapter is in its rooms: the journals found broken at start are
 * told in their rooms, once. */
void mgr_restore_connected(struct manager *m, struct chat_adapter *a);

#endif
