/*
 * The game manager: one Hearts table per room per network, driven by the
 * neutral chat events of the adapters (chat.h) and by the loop's timers.
 * It parses the commands of shared/spec/chat.md, runs the rules engine,
 * lets computer players act for empty and absent seats, deals hands and
 * prompts by private message, announces tricks and scores in the room, and
 * writes every finished game's record to the data directory.
 */
#ifndef HEARTS_BOT_MANAGER_H
#define HEARTS_BOT_MANAGER_H

#include "bot/common/chat.h"
#include "bot/config.h"
#include "bot/common/loop.h"

struct manager;

/* A manager for this config (borrowed: it must outlive the manager, or be
 * replaced with manager_reload). Aborts if out of memory. */
struct manager *manager_new(struct loop *l, const struct config *cfg);

/* Rebuilds every table of this adapter's network from its journal in
 * data_dir (bot/manager/journal.c). Call once per adapter at start, before it
 * connects; a journal that cannot be replayed is moved aside. */
void manager_restore(struct manager *m, struct chat_adapter *a);

/* At the bot's start (store.c): makes the data directory, takes its lock
 * and checks it can be written. -1 with the message in err if another
 * heartsbot holds the lock (the bot must not start); otherwise 0, and a
 * directory that cannot be written is logged and tried again when a table
 * needs it. */
int manager_storage_start(struct manager *m, char *err, size_t errlen);

/* The event handler to give adapters, with the manager as ctx. */
void manager_on_event(void *ctx, struct chat_adapter *a,
                      const struct chat_event *ev);

/* Takes a new config (SIGHUP): timeouts, prefix, colours, admins and
 * default rules apply from the next action on; tables keep running. The
 * old config may be freed after this returns. */
void manager_reload(struct manager *m, const struct config *cfg);

/* Tells every table the bot is going away and ends the games unscored.
 * Call before stopping the adapters. */
void manager_shutdown(struct manager *m, const char *why);

/* How many tables are open (for logs and tests). */
int manager_tables(const struct manager *m);

/* How many computer decisions are on their way back to the tables (tests:
 * the loop has work to do while this is above 0). */
int manager_thinking(const struct manager *m);

/* Frees the manager and its tables; NULL is a no-op. */
void manager_free(struct manager *m);

#endif
