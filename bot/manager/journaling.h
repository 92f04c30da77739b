/*
 * Writing the game journals (docs/storage.md, "Journals"): every table
 * appends what happens to data_dir/<network>/<room>/journal-<game>.jsonl
 * (storage/journal.h says the lines), fsynced before the bot announces it.
 * restore.h reads them back at start. A journal that cannot be written is
 * given up (a gap would replay as another game): the functions that write
 * return -1 then, with the cause in *lost, and the caller tells the
 * channel (mgr_table_journal_lost, say.h). Inside the manager only.
 */
#ifndef HEARTS_BOT_MANAGER_JOURNALING_H
#define HEARTS_BOT_MANAGER_JOURNALING_H

#include "bot/manager/table.h"
#include "engine/engine.h"
#include "storage/journal.h"

/* A table was opened: its journal starts with the header. */
int mgr_journal_opened(struct table *t, int *lost);
/* Writes the seats line if a seat changed since the last one. Called
 * before every channel line and at each round's end. */
int mgr_journal_sync_seats(struct table *t, int *lost);
/* The game begins (after mgr_table_begin). */
int mgr_journal_started(struct table *t, int *lost);
/* An engine event of the table's game, before it is announced. */
int mgr_journal_event(struct table *t, const struct engine_game *g,
                      const struct engine_event *ev, int *lost);
/* A slow game's turn (slow.h): its deadline, or the reminders sent,
 * changed. */
int mgr_journal_turn(struct table *t, int *lost);
/* The table closes: its journal goes, unless the bot is shutting down
 * (then it stays for the next start). Frees what the journal kept. */
void mgr_journal_closed(struct table *t);
/* The data directory's fsyncs (journals, archives, boards) go to the
 * manager's syncer, off the loop (syncer.h, storage_set_sync), from
 * start to stop (manager_new, manager_free). */
void mgr_sync_start(struct manager *m);
void mgr_sync_stop(struct manager *m);
/* Removes a journal (path) once everything written before is synced: a
 * game's journal goes only after its record is on the disk. */
void mgr_journal_remove(struct manager *m, const char *path);
/* Waits until every fsync and removal asked for so far is done. */
void mgr_sync_wait(struct manager *m);
/* Notes the seats (n of them) and opener the journal's last seats line
 * says (a table rebuilt from its journal: restore.c). */
void mgr_journal_keep_seats(struct table *t, const struct journal_seat *seats,
                            int n, int opener);

#endif
