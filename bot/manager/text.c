/*
 * Texts being built for one message (text.h).
 */
#include "bot/manager/text.h"

#include <string.h>

#include "bot/manager/render.h"

void mgr_sb_rendered(struct strbuf *sb, const char *text, size_t need)
{
    size_t len = strlen(text);
    strbuf_add(sb, text, len);
    if (need > len) /* the renderer cut it where it may be cut */
        sb->cut = true;
}

size_t mgr_sb_room(const struct strbuf *sb, size_t most)
{
    size_t n = strbuf_room(sb) + 1;
    return n < most ? n : most;
}

void mgr_sb_card(struct strbuf *sb, const struct table *t, int card)
{
    char text[MGR_TEXT_SIZE];
    mgr_sb_rendered(sb, text,
                    render_card(text, mgr_sb_room(sb, sizeof text), card,
                                mgr_table_style(t)));
}

void mgr_sb_cards(struct strbuf *sb, const struct table *t,
                  const uint8_t *cards, int n)
{
    char text[MGR_TEXT_SIZE];
    mgr_sb_rendered(sb, text,
                    render_cards(text, mgr_sb_room(sb, sizeof text), cards, n,
                                 mgr_table_style(t)));
}

void mgr_sb_hand(struct strbuf *sb, const struct table *t,
                 const struct engine_cards *hand, uint64_t mark)
{
    char text[MGR_TEXT_SIZE];
    mgr_sb_rendered(sb, text,
                    render_hand(text, mgr_sb_room(sb, sizeof text), hand, mark,
                                mgr_table_style(t)));
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

void mgr_sb_seat(struct strbuf *sb, const struct table *t, int seat,
                 bool notify)
{
    if (mgr_table_style(t) != CHAT_STYLE_MARKUP || !mgr_seat_user_id(t, seat)) {
        strbuf_addf(sb, "%s", mgr_seat_name(t, seat));
        return;
    }
    char text[MGR_TEXT_SIZE];
    mgr_sb_rendered(sb, text,
                    render_mention(text, mgr_sb_room(sb, sizeof text),
                                   mgr_seat_user_id(t, seat),
                                   mgr_seat_name(t, seat), notify,
                                   CHAT_STYLE_MARKUP));
}

enum chat_style mgr_table_style(const struct table *t)
{
    if (t->a->style == CHAT_STYLE_IRC && !t->m->cfg->colors)
        return CHAT_STYLE_PLAIN;
    return t->a->style;
}
