/*
 * Inside the game manager: what goes into a message being built (a
 * strbuf, bot/common/strbuf.h) about a table: cards, hands, seats and the
 * tally as their reader sees them (render.h), in the reader's language
 * (msg.h).
 */
#ifndef HEARTS_BOT_MANAGER_TEXT_H
#define HEARTS_BOT_MANAGER_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/common/strbuf.h"
#include "bot/manager/render.h"
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

/*
 * A card, cards, a hand, a seat's name as their reader sees them (look:
 * lang.h's mgr_look_room for the channel's lines, mgr_look_seat for a
 * seat's private ones), written into buf of len bytes (MGR_TEXT_SIZE
 * holds any hand) to be a message's placeholder (msg.h); each returns
 * buf. A seat's name is a pill for their user ID in the markup style
 * (render.h), notifying them if `notify` (it is their turn).
 */
const char *mgr_card_text(char *buf, size_t len, struct render_look look,
                          int card);
const char *mgr_cards_text(char *buf, size_t len, struct render_look look,
                           const uint8_t *cards, int n);
const char *mgr_hand_text(char *buf, size_t len, struct render_look look,
                          const struct engine_cards *hand, uint64_t mark);
const char *mgr_seat_text(char *buf, size_t len, const struct table *t,
                          int seat, bool notify, struct render_look look);

/* Whether the hand has nothing for the tally yet: no card worth points
 * played, hearts not broken where that matters. */
bool mgr_tally_empty(const struct table *t);
/*
 * The running tally of the hand being played, one sentence in look.lang:
 * whether hearts are broken (where they must be broken to be led), where
 * the cards the tally follows are (every card worth points but the plain
 * hearts: the Q♠, a bonus card, a card given its own value, the joker)
 * while not taken, and the points each seat took this hand, each with
 * the followed cards it took; seats with nothing left out. `you` is the
 * seat named "you" (-1: none): the reader's own.
 *   "Hearts unbroken, Q♠ on the trick, no points yet."
 *   "Hearts broken, 10♦ unplayed, points: bob 15 (Q♠), you 2."
 */
void mgr_sb_tally_for(struct strbuf *sb, const struct table *t,
                      struct render_look look, int you);
/* A seat's name and points in lang: "bob 15", the items of a list of
 * scores. */
void mgr_sb_points(struct strbuf *sb, int lang, const char *name, int points);
/* The mark of a person's seat a computer plays, in lang, for a score
 * sheet's heading: "(left)" after !leave (and, at the game's end, for a
 * person away: both count as having left), "(computer)" while they are
 * away, "(offline)" while the seat waits for a person who left the room
 * or the network (the grace period); NULL for anyone else. */
const char *mgr_seat_mark(const struct table *t, int seat, bool game_over,
                          int lang);
/* The seat's name with its mark (as mgr_seat_mark says) in lang, in buf:
 * "bob (computer)"; the name alone for a seat without a mark. */
const char *mgr_seat_marked(const struct table *t, int seat, bool game_over,
                            int lang, char *buf, size_t len);
/* A person's user ID for a pill (render.h), NULL for a computer. */
const char *mgr_seat_user_id(const struct table *t, int seat);

#endif
