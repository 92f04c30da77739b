/*
 * Dealing and passing at a table, as people hear it: the private deal
 * with what to pass, the pass confirmed, what each received and from
 * whom (told once, in the first prompt when it can be).
 */
#ifndef HEARTS_BOT_MANAGER_DEAL_H
#define HEARTS_BOT_MANAGER_DEAL_H

#include <stdbool.h>

#include "bot/manager/table.h"
#include "bot/manager/text.h"

/* The private message after a deal: the hand and what to pass. */
void mgr_tell_deal(struct table *t, int seat);
/* "You received Q♣ K♣ K♦ from bob. " (nothing when nothing came), after
 * "You passed ... to carol. " when that confirmation was taken back. */
void mgr_sb_received(struct strbuf *sb, struct table *t, int seat);
/* After the passes: every person but `except` (about to be prompted,
 * which says it) hears what they received and their hand. */
void mgr_tell_received(struct table *t, int except);
/* Whether the seat's prompt must say what it received: not said yet, or
 * said in a line still waiting in the adapter's queue, taken back so that
 * the prompt does not wait behind it (one line instead of two). */
bool mgr_received_to_tell(struct table *t, int seat);
/* A seat's pass confirmed, in its language: "Passing Q♣ K♣ K♦ to bob;
 * waiting for carol, dave." (some seat has not passed yet). */
void mgr_sb_passed(struct strbuf *sb, struct table *t, int seat);

/* The pass a seat chose: its cards in `cards` ("" for a blind pass) as
 * look shows them, in a hand's order; returns the seat they go to, -1
 * for the others (a scatter pass). */
int mgr_pass_chosen(const struct table *t, int seat, struct render_look look,
                    char *cards, size_t len);

#endif
