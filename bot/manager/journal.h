/*
 * Game journals at the table (docs/storage.md, "Journals"): every table
 * appends what happens to data_dir/<network>/<room>/journal-<game>.jsonl
 * (storage/journal.h says the lines), fsynced before the bot announces
 * it; at start the manager rebuilds every table from its journal
 * (manager_restore in manager.h) and, once back in the room, tells the
 * channel and the seated people. Inside the manager only.
 */
#ifndef HEARTS_BOT_JOURNAL_H
#define HEARTS_BOT_JOURNAL_H

#include "engine/engine.h"
#include "bot/manager/table.h"

/* A table was opened: its journal starts with the header. */
void journal_table_opened(struct table *t);
/* Writes the seats line if a seat changed since the last one. Called
 * before every channel line and at each round's end. */
void journal_sync_seats(struct table *t);
/* The game begins (after table_begin). */
void journal_game_started(struct table *t);
/* An engine event of the table's game, before it is announced. */
void journal_game_event(struct table *t, const struct engine_game *g,
                        const struct engine_event *ev);
/* The table closes: its journal goes, unless the bot is shutting down
 * (then it stays for the next start). Frees what the journal kept. */
void journal_table_closed(struct table *t);
/* The adapter is connected again: a table rebuilt at start tells the
 * channel once and every seated person their hand (people the adapter
 * must first confirm get it from table_seat_ready). */
void journal_back_online(struct table *t);
/* The adapter is in its rooms: the journals found broken at start are
 * told in their rooms, once. */
void journal_connected(struct manager *m, struct chat_adapter *a);
/* A confirmed person at a rebuilt table: their hand, once. */
void journal_seat_ready(struct table *t, int seat);

#endif
