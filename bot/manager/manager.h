/*
 * The game manager: one Hearts table per room per network, driven by the
 * neutral chat events of the adapters (chat.h) and by the loop's timers.
 * It parses the commands of docs/playing.md, runs the rules engine, lets
 * computer players act for empty and absent seats, deals hands and prompts
 * by private message, announces tricks and scores in the room, journals
 * every game so that it survives a restart, and archives every finished
 * game with the room's leaderboards under the data directory.
 *
 * This header is all the rest of the bot needs. The functions here are
 * manager_*; inside the manager (bot/manager/, not for adapters) every
 * function another file of the manager calls is mgr_* (mgr_table_*,
 * mgr_seat_*, mgr_journal_*, mgr_store_*, mgr_results_*, mgr_cmd_*,
 * mgr_sb_* ...), declared in the internal header of the file that defines
 * it: table.h (the structs, tables and seats), text.h, say.h, deal.h,
 * announce.h, turn.h, life.h, presence.h, journaling.h, restore.h,
 * store.h, results.h, cmd.h and the command groups, commands.h. The
 * manager's small helpers keep their own prefixes: render_, limit_,
 * played_, board_names_.
 */
#ifndef HEARTS_BOT_MANAGER_H
#define HEARTS_BOT_MANAGER_H

#include <stdbool.h>
#include <stddef.h>

#include "storage/archive.h"
#include "bot/common/chat.h"
#include "bot/common/loop.h"
#include "bot/config.h"

struct manager;

/* A manager for this config (borrowed: it must outlive the manager, or be
 * replaced with manager_reload). Aborts if out of memory. */
struct manager *manager_new(struct loop *l, const struct config *cfg);

/* Rebuilds every table of this adapter's network from its journal in
 * data_dir (restore.c). Call once per adapter at start, before it
 * connects; a journal that cannot be replayed is moved aside. */
void manager_restore(struct manager *m, struct chat_adapter *a);

/* Whether a journal would be rebuilt by manager_restore, without a
 * table and without changing the file (a torn last line is only
 * reported, through storage's log, while storage_read_only): its lines
 * read, its rules and seats checked, its game replayed through the
 * engine. 0, or -1 with why ("line 3: ...") in err; room (roomlen
 * bytes) gets the room its header names, "" if none. */
int manager_journal_check(const char *path, char *room, size_t roomlen,
                          char *err, size_t errlen);

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

/* What an admin's !reload does (the program's SIGHUP reload): 0, or -1
 * with the reason (English, for operators) in err. It may replace the
 * config with manager_reload before it returns. */
typedef int (*manager_reload_fn)(void *ctx, char *err, size_t errlen);

/* Sets what !reload calls, with ctx; unset (NULL), !reload is refused. */
void manager_on_reload(struct manager *m, manager_reload_fn fn, void *ctx);

/* Called on the loop thread for each game newly added to a channel's
 * archive, finished or stopped: the channel's directory in the data
 * directory (DATA/NET/ROOM), the network's name, the room as the network
 * folds it (the name its directory is made from), the game's results
 * line as archived and its record (a hearts-record/1 line). Everything
 * it gets is valid only during the call. */
typedef void (*manager_archived_fn)(void *ctx, const char *room_dir,
                                    const char *network, const char *room,
                                    const struct archive_result *res,
                                    const char *record);

/* Sets what is called for each archived game (the site's writer); NULL:
 * nothing. */
void manager_on_archived(struct manager *m, manager_archived_fn fn, void *ctx);

/* The site's pages are written (bot/site_writer.h) with this secret
 * (NULL or "": none are): !top, !stats and !last then end with their
 * page's address under the config's [site] url, if it has one. */
void manager_set_site(struct manager *m, const char *secret);

/* Tells every table the bot is going away and ends the games unscored
 * (saying why: a message id, M(), said in each room's language, its
 * {dir} the data directory; a journaled game is told it goes on at the
 * next start). Call before stopping the adapters. Returns how many games
 * ended. */
int manager_shutdown(struct manager *m, const char *why);

/* Whether a person is one of the config's admins (by mask, user@host or
 * account, as the admin commands check): chat_adapter.is_admin, with
 * the manager as ctx. */
bool manager_is_admin(void *ctx, const struct chat_user *u);

/* Whether a game is on in `room` of adapter `a` (protocol.h's reload
 * keeps the bot there), with the manager as ctx. */
bool manager_room_busy(void *ctx, struct chat_adapter *a, const char *room);

/* The language of what the bot says on its own ([bot] lang): for the
 * adapters' own lines (chat_adapter.lang). */
int manager_lang(const struct manager *m);

/* Message id (M()) in the language of private lines to u on a (NULL: the
 * bot's own language), its {dir} the data directory, into out (cut
 * safely): the bot's own words as it stops. */
void manager_text(struct manager *m, struct chat_adapter *a,
                  const struct chat_user *u, const char *id, char *out,
                  size_t outlen);

/* Whether the data directory could be written the last time it was
 * tried (manager_storage_start, then each table's start). */
bool manager_storage_ok(const struct manager *m);

/* How many tables are open (for logs and tests). */
int manager_tables(const struct manager *m);

/* How many computer decisions are on their way back to the tables (tests:
 * the loop has work to do while this is above 0). */
int manager_thinking(const struct manager *m);

/* Frees the manager and its tables; NULL is a no-op. */
void manager_free(struct manager *m);

/*
 * heartsbot --rebuild-stats DATA_DIR (results.c): takes the directory's
 * lock (no bot may be using it), rebuilds every channel's leaderboard.json
 * from its archive, and says what it did on stdout (problems on stderr).
 * Returns the exit code.
 */
int manager_rebuild_stats(const char *data_dir);

#endif
