/*
 * Inside the game manager: who asked to be called when a table opens in a
 * channel (!notify, cmd_person.h), kept per channel in notify.jsonl
 * (storage/notify.h), and the call itself: when a table opens, one channel
 * line names the people who asked, are in the channel now (the adapter's
 * `present`), are not the opener nor seated, and were not called there in
 * the last MGR_NOTIFY_INTERVAL_MS; at most MGR_NOTIFY_CALL_MAX of them
 * (those called least lately first), "and N more" beyond. On Matrix each
 * name is a mention that notifies (a pill, render.h). A table rebuilt
 * at start calls nobody: the call belongs to !hearts alone.
 */
#ifndef HEARTS_BOT_MANAGER_NOTIFY_H
#define HEARTS_BOT_MANAGER_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/manager/table.h"

/* People called by one opening at most. */
#define MGR_NOTIFY_CALL_MAX 20
/* One person is called in one channel at most this often: ten minutes. */
#define MGR_NOTIFY_INTERVAL_MS (10 * 60 * 1000)

/* Whether u asked to be called in room. */
bool mgr_notify_is_on(struct manager *m, struct chat_adapter *a,
                      const char *room, const struct chat_user *u);

/*
 * Puts u on room's list (on) or off it. 0 done; 1 done for this run only
 * (the file could not be written, or is a newer bot's: why in err); -1
 * refused, nothing changed (why in err, for the log; *full set when the
 * channel's list has NOTIFY_MAX people).
 */
int mgr_notify_set(struct manager *m, struct chat_adapter *a, const char *room,
                   const struct chat_user *u, bool on, bool *full, char *err,
                   size_t errlen);

/* u, logged in to an account, is now called `nick` (a NICK, or seen
 * speaking under it): the channels' lists loaded so far call them by it
 * from now on. */
void mgr_notify_nick(struct manager *m, struct chat_adapter *a,
                     const struct chat_user *u, const char *nick);

/* A table was opened by `opener` with !hearts; `rules` says its rules in a
 * few words. Calls those who asked (the header says who), once. */
void mgr_notify_opened(struct table *t, const struct chat_user *opener,
                       const char *player, const char *rules);

/* Forgets every channel's list (at the manager's end). */
void mgr_notify_free(struct manager *m);

#endif
