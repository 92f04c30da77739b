/*
 * A table's life: opened in a room (a lobby, closed after a while if
 * nobody starts it), the game begun (computers fill empty seats, the game
 * is set up and recorded), stopped or over (archived: say.h), and closed
 * (its timers cancelled, its journal removed; freed between loop rounds,
 * never inside a callback that may still touch it).
 */
#ifndef HEARTS_BOT_MANAGER_LIFE_H
#define HEARTS_BOT_MANAGER_LIFE_H

#include "bot/manager/table.h"

/* A table opens in room: rules_text is the engine's rules as typed,
 * turn_timeout the table's own turn length in seconds (0: the
 * config's; slow.h), hints whether it allows hints (cmd_teach.h). */
struct table *mgr_table_open(struct manager *m, struct chat_adapter *a,
                             const char *room, const struct engine_rules *r,
                             const char *rules_text, int turn_timeout,
                             bool hints);
/* The first half of starting a game (mgr_table_start, turn.h): computers
 * fill empty seats, the game is set up (not dealt) and recorded from now
 * on. */
void mgr_table_begin(struct table *t);
/* Says why, archives a game that was running (unfinished: it counts for
 * nobody) unless its journal stays for the next start, and closes. */
void mgr_table_stop(struct table *t, const char *why);
/* The game is over: its record is archived, then its journal removed and
 * the table closed. */
void mgr_table_game_over(struct table *t);
/* The table closes: freed before the next sleep. */
void mgr_table_close(struct table *t);

#endif
