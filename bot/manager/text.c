/*
 * Texts being built for one message (text.h).
 */
#include "bot/manager/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bot/manager/render.h"

void mgr_sb_printf(struct sbuf *sb, const char *fmt, ...)
{
    if (sb->len >= sizeof sb->buf - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(sb->buf + sb->len, sizeof sb->buf - sb->len, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    sb->len += (size_t)w;
    if (sb->len >= sizeof sb->buf)
        sb->len = sizeof sb->buf - 1;
}

/* After a render_* call at sb->len that returned `need`: the renderers
 * may cut shorter than the room left, so a cut is measured. */
void mgr_sb_advance(struct sbuf *sb, size_t need)
{
    if (sb->len + need < sizeof sb->buf)
        sb->len += need;
    else
        sb->len = strlen(sb->buf);
}

void mgr_sb_card(struct sbuf *sb, const struct table *t, int card)
{
    mgr_sb_advance(sb, render_card(sb->buf + sb->len, sizeof sb->buf - sb->len,
                                   card, mgr_table_style(t)));
}

void mgr_sb_cards(struct sbuf *sb, const struct table *t, const uint8_t *cards,
                  int n)
{
    mgr_sb_advance(sb, render_cards(sb->buf + sb->len, sizeof sb->buf - sb->len,
                                    cards, n, mgr_table_style(t)));
}

void mgr_sb_hand(struct sbuf *sb, const struct table *t,
                 const struct engine_cards *hand, uint64_t mark)
{
    mgr_sb_advance(sb, render_hand(sb->buf + sb->len, sizeof sb->buf - sb->len,
                                   hand, mark, mgr_table_style(t)));
}

/* A person's user ID for a pill (render.h), NULL for a computer. On
 * Matrix, the only network with pills, the nick and the id are both the
 * user ID; the id has room for the longer ones. */
const char *mgr_seat_user_id(const struct table *t, int seat)
{
    const struct seat *st = &t->seats[seat];
    if (!st->human)
        return NULL;
    return st->id[0] == '@' ? st->id : st->nick;
}

void mgr_sb_seat(struct sbuf *sb, const struct table *t, int seat, bool notify)
{
    if (mgr_table_style(t) != CHAT_STYLE_MARKUP || !mgr_seat_user_id(t, seat)) {
        mgr_sb_printf(sb, "%s", mgr_seat_name(t, seat));
        return;
    }
    mgr_sb_advance(
        sb, render_mention(sb->buf + sb->len, sizeof sb->buf - sb->len,
                           mgr_seat_user_id(t, seat), mgr_seat_name(t, seat),
                           notify, CHAT_STYLE_MARKUP));
}

enum chat_style mgr_table_style(const struct table *t)
{
    if (t->a->style == CHAT_STYLE_IRC && !t->m->cfg->colors)
        return CHAT_STYLE_PLAIN;
    return t->a->style;
}
