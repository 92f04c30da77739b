/*
 * Turns, timers and prompts: a table's game moves on (mgr_advance) until
 * a person must act. Computer players decide for their seats, for absent
 * people and for those whose time is up (a searching level off the loop,
 * bot/think.h); a person is prompted privately and their turn timed (the
 * timer starts once the prompt is written), reminded half way; the next
 * deal and the next trick wait for the channel's lines; a table with
 * nobody at it pauses, then ends.
 */
#ifndef HEARTS_BOT_MANAGER_TURN_H
#define HEARTS_BOT_MANAGER_TURN_H

#include <stdbool.h>

#include "bot/manager/table.h"

/* The game begins: it is announced, dealt and moves on. */
void mgr_table_start(struct table *t);
/* The manager's thinking worker (think.h), started if it is not yet:
 * its decisions come back to the tables, its explanations to
 * cmd_teach.h. */
struct think *mgr_think_worker(struct manager *m);
/* The seat's action (a->seat is set here); on success the game moves on. */
enum engine_refusal mgr_table_act(struct table *t, int seat,
                                  struct engine_action *a,
                                  struct engine_refusal_detail *d);
/* A running game moves on from where it is (nothing if none). */
void mgr_table_resume(struct table *t);
/* The game moves on until a person must act, or it waits (a decision
 * thought off the loop, the channel's lines, a timer). */
void mgr_advance(struct table *t);
/* The turn timer (and its reminder) of the people who must act; it waits
 * for their last line to be written, and does not run while offline. */
void mgr_arm_turn(struct table *t);
/* The time of the people who must act is up: a computer decides for
 * them (after max_timeouts in a row it has the seat, except in a slow
 * game, slow.h). */
void mgr_time_up(struct table *t);
/* Whether a person who must act has not yet been sent their last line
 * (the prompt, the deal): their time starts when it leaves. */
bool mgr_turn_waits(const struct table *t);
/* Which of t->trick_said the next trick waits for: [1], trick N's line;
 * [0], trick N-1's, where the network makes each message cost a slot. */
int mgr_trick_lag(const struct table *t);

#endif
