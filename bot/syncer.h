/*
 * The syncer: the data directory's fsyncs off the event loop, so that a
 * slow disk never delays anyone's replies (a journal gets a line at every
 * card, and one fsync can take hundreds of milliseconds on a busy or
 * networked disk). The manager makes it the storage's sync hook
 * (storage_set_sync).
 *
 * The loop writes each line itself (storage_append), before it announces
 * what the line records: from then on the line is the kernel's, and a
 * bot that crashes or is killed loses nothing. It names the file here;
 * one thread fsyncs it (storage_sync_path) and the directory of a new
 * file. A file named again before its turn comes is synced once: an
 * fsync covers every line written to the file before it, so however slow
 * the disk, what waits is at most one entry a file. A removal waits for
 * every fsync asked for before it (a game's journal goes after its
 * record). What a crash of the whole machine can lose is the lines not
 * yet synced, a moment's worth.
 *
 * A failed fsync is logged here and comes back to the loop (loop_waker:
 * the callback runs on the loop thread). syncer_add and syncer_remove
 * may be called from any thread; new, wait and free from the loop's.
 */
#ifndef HEARTS_BOT_SYNCER_H
#define HEARTS_BOT_SYNCER_H

#include <stdbool.h>

#include "bot/common/loop.h"

/* At most this many files wait for their fsync; past it the caller
 * syncs its own (the loop waits, as a full queue should make it). */
#define SYNCER_MAX 256

struct syncer;

/* Called on the loop thread for a file whose fsync failed: its path, the
 * errno, and a message that names both. */
typedef void (*syncer_failed_fn)(void *ctx, const char *path, int cause,
                                 const char *err);

struct syncer *syncer_new(struct loop *l, syncer_failed_fn fn, void *ctx);

/*
 * Asks for path (written unsynced: storage_append or storage_replace
 * through the sync hook; `created`: its directory is synced too) to be
 * synced: 0. -1 when the path
 * does not fit or SYNCER_MAX other files wait already: the caller syncs
 * it (storage_sync_path).
 */
int syncer_add(struct syncer *s, const char *path, bool created);

/*
 * Asks for path to be removed (storage_remove: with its directory's
 * fsync) after every fsync asked for before it, so that a file that
 * stands for others until they are on the disk (a game's journal, for
 * its record) goes only then; if any fsync failed, it is kept (logged).
 * 0, or -1 as syncer_add: the caller removes it.
 */
int syncer_remove(struct syncer *s, const char *path);

/* Waits until every file named so far is synced. */
void syncer_wait(struct syncer *s);

/* Syncs what waits, stops the thread and frees s (NULL: nothing).
 * Failures then are only logged. */
void syncer_free(struct syncer *s);

#endif
