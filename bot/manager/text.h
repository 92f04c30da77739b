/*
 * Inside the game manager: a text being built for one message (struct
 * sbuf, cut safely when full), and what goes into it about a table: cards,
 * hands and seats in the table's style (render.h).
 */
#ifndef HEARTS_BOT_MANAGER_TEXT_H
#define HEARTS_BOT_MANAGER_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/manager/table.h"

/* A text being built for one message; truncated safely when full. */
struct sbuf {
    char buf[2048];
    size_t len;
};

void mgr_sb_printf(struct sbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* After a render_* call at sb->len that returned `need`: the renderers
 * may cut shorter than the room left, so a cut is measured. */
void mgr_sb_advance(struct sbuf *sb, size_t need);
void mgr_sb_card(struct sbuf *sb, const struct table *t, int card);
void mgr_sb_cards(struct sbuf *sb, const struct table *t, const uint8_t *cards,
                  int n);
void mgr_sb_hand(struct sbuf *sb, const struct table *t,
                 const struct engine_cards *hand, uint64_t mark);
/* A seat's name; in the markup style (render.h) a person's is a pill for
 * their user ID, notifying them if `notify` (it is their turn). */
void mgr_sb_seat(struct sbuf *sb, const struct table *t, int seat, bool notify);
/* A person's user ID for a pill (render.h), NULL for a computer. */
const char *mgr_seat_user_id(const struct table *t, int seat);
/* The style the table's lines are written in: the adapter's, plain on IRC
 * without colours. */
enum chat_style mgr_table_style(const struct table *t);

#endif
