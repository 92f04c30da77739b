/*
 * A table's own turn length (`!hearts standard turn_timeout=1d`) and slow
 * games: a table whose turns last an hour or more. A slow game's turn has
 * a deadline on the wall clock, journaled, so that a restart keeps it and
 * the reminders already sent; people are reminded at a pace that suits
 * hours (privately half way and shortly before the end, the channel at most
 * every few hours); when the time is up a computer player makes that one
 * decision and the person keeps the seat; leaving the channel does not
 * give the seat away; the lobby waits as long as a turn.
 */
#ifndef HEARTS_BOT_MANAGER_SLOW_H
#define HEARTS_BOT_MANAGER_SLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/manager/table.h"

/* The bounds of turn_timeout= (a config's max_turn_timeout may lower the
 * upper one), in seconds. */
#define SLOW_TURN_MIN 30
#define SLOW_TURN_MAX (7 * 86400)
/* A table whose turns last this long or longer is a slow game. */
#define SLOW_GAME_S 3600
/* The channel hears a slow game's reminders at most this often. */
#define SLOW_CHANNEL_GAP_S (3 * 3600)
/* A slow game looks at the wall clock at least this often (tests make it
 * short: struct manager.slow_check_ms). */
#define SLOW_CHECK_MS 60000
/* The option's name, as typed after !hearts. */
#define SLOW_OPTION "turn_timeout"

/* "1d", "12h", "90m", "45s" or plain seconds "300": the seconds in *out
 * (at most SLOW_TURN_MAX * 2, so that a value too large is told as out of
 * bounds, not as unreadable). 0, or -1 if it is none of those. */
int mgr_duration_parse(const char *s, int *out);
/* Seconds as the option's units, the largest first: "1d", "11h30m",
 * "7m30s", "45s", "0s". */
char *mgr_duration_text(char *out, size_t len, int64_t seconds);

/* Takes the options `option`= (a table's own, not the engine's:
 * turn_timeout, hints) out of `args` (words separated by spaces): `rest`
 * gets the other words, in order; `value` the last option's value (""
 * if it does not fit) and *found whether there was one. 0, or -1 if
 * rest is too small. */
int mgr_option_take(const char *args, const char *option, char *rest,
                    size_t restlen, char *value, size_t valuelen, bool *found);

/* Takes the turn_timeout= options out of `args` (words separated by
 * spaces): `rest` gets the other words, in order; `value` the last
 * option's value ("" if it does not fit) and *found whether there was
 * one. 0, or -1 if rest is too small. */
int mgr_slow_take(const char *args, char *rest, size_t restlen, char *value,
                  size_t valuelen, bool *found);

/* The table's turn length, seconds: its own, else the config's. */
int mgr_turn_seconds(const struct table *t);
/* Whether the table is a slow game (its own turns of SLOW_GAME_S or
 * more). */
bool mgr_slow(const struct table *t);
/* The wall clock, Unix seconds (struct manager.wall, else time()). */
int64_t mgr_wall(const struct manager *m);

/* The table's rules as people see them: the rules text, then
 * "turn_timeout=1d" if it has its own, then "hints=on" if it allows
 * hints; returns out. */
const char *mgr_table_rules_shown(const struct table *t, char *out, size_t len);
/* A deadline as people read it: "2026-12-03 10:00 UTC". */
void mgr_slow_deadline_text(char *out, size_t len, int64_t when);
/* The time left of a slow game's turn at `now`, rounded up to a minute
 * ("13h59m"), or "0s"; returns out. */
char *mgr_slow_left_text(char *out, size_t len, const struct table *t,
                         int64_t now);
/* Whether a slow game's deadline is the current turn's. */
bool mgr_slow_current(const struct table *t);

/* Which turn the game is at, for a deadline: the hand, the cards played,
 * the phase (a pass is one turn for everyone who passes). */
uint32_t mgr_slow_turn_key(const struct table *t);
/* A slow game's turn: its deadline is kept if it is the same turn,
 * else set (and journaled); its timer armed for the next reminder or the
 * deadline. */
void mgr_slow_arm(struct table *t);

#endif
