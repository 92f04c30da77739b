/*
 * Dealing and passing at a table, as people hear it: the private deal
 * with what to pass, the pass confirmed, what each received and from
 * whom (told once, in the first prompt when it can be), and the words
 * for a passing direction.
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
/* "Passing Q♣ K♣ K♦ to bob" for a seat that has chosen its pass. */
void mgr_sb_passing(struct table *t, int seat, struct strbuf *sb);
/* "; waiting for carol, dave." or "." when every seat has passed. */
void mgr_sb_waiting_for_passes(struct strbuf *sb, const struct table *t);
/* "left", "across", "to everyone"... for an engine passing direction. */
const char *mgr_dir_word(int dir);

#endif
