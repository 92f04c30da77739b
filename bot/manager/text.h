/*
 * Inside the game manager: what goes into a message being built (a
 * strbuf, bot/common/strbuf.h) about a table: cards, hands and seats in
 * the table's style (render.h).
 */
#ifndef HEARTS_BOT_MANAGER_TEXT_H
#define HEARTS_BOT_MANAGER_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/common/strbuf.h"
#include "bot/manager/table.h"

/* The bytes of a message's text, its NUL included: a message is built in
 * a strbuf over a buffer of this size (bot/common/strbuf.h). */
#define MGR_TEXT_SIZE 2048

/* A render_* call's text (render.h), which needed `need` bytes: appended
 * to sb, which is cut if the renderer cut it. */
void mgr_sb_rendered(struct strbuf *sb, const char *text, size_t need);
/* The size of buffer (at most `most`) to give a renderer whose text goes
 * at the end of sb: what sb has room for, and the NUL. */
size_t mgr_sb_room(const struct strbuf *sb, size_t most);
void mgr_sb_card(struct strbuf *sb, const struct table *t, int card);
void mgr_sb_cards(struct strbuf *sb, const struct table *t,
                  const uint8_t *cards, int n);
void mgr_sb_hand(struct strbuf *sb, const struct table *t,
                 const struct engine_cards *hand, uint64_t mark);
/* A seat's name; in the markup style (render.h) a person's is a pill for
 * their user ID, notifying them if `notify` (it is their turn). */
void mgr_sb_seat(struct strbuf *sb, const struct table *t, int seat,
                 bool notify);
/*
 * The running tally of the hand being played, one sentence: whether
 * hearts are broken (where they must be broken to be led), where the
 * cards the tally follows are (every card worth points but the plain
 * hearts: the Q♠, a bonus card, a card given its own value, the joker)
 * while not taken, and the points each seat took this hand, each with
 * the followed cards it took; seats with nothing left out. `you` is the
 * seat named "you" (-1: none).
 *   "Hearts unbroken, Q♠ on the trick, no points yet."
 *   "Hearts broken, 10♦ unplayed, points: bob 15 (Q♠), you 2."
 */
void mgr_sb_tally(struct strbuf *sb, const struct table *t, int you);
/* The mark of a person's seat a computer plays: "(left)" after !leave
 * (and, at the game's end, for a person away: both count as having
 * left), "(computer)" while they are away; NULL for anyone else. */
const char *mgr_seat_mark(const struct table *t, int seat, bool game_over);
/* The seat's name with its mark (mgr_seat_mark) after it, in buf:
 * "bob (computer)". */
const char *mgr_seat_marked(const struct table *t, int seat, char *buf,
                            size_t len);
/* A person's user ID for a pill (render.h), NULL for a computer. */
const char *mgr_seat_user_id(const struct table *t, int seat);
/* The style the table's lines are written in: the adapter's, plain on IRC
 * without colours. */
enum chat_style mgr_table_style(const struct table *t);

#endif
