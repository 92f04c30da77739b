/*
 * Texts being built for one message (text.h).
 */
#include "bot/manager/text.h"

#include <stdio.h>
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
                                render_look_style(mgr_table_style(t))));
}

void mgr_sb_cards(struct strbuf *sb, const struct table *t,
                  const uint8_t *cards, int n)
{
    char text[MGR_TEXT_SIZE];
    mgr_sb_rendered(sb, text,
                    render_cards(text, mgr_sb_room(sb, sizeof text), cards, n,
                                 render_look_style(mgr_table_style(t))));
}

void mgr_sb_hand(struct strbuf *sb, const struct table *t,
                 const struct engine_cards *hand, uint64_t mark)
{
    char text[MGR_TEXT_SIZE];
    mgr_sb_rendered(sb, text,
                    render_hand(text, mgr_sb_room(sb, sizeof text), hand, mark,
                                render_look_style(mgr_table_style(t))));
}

/* Whether the tally follows a card: worth points and not a plain heart
 * (the joker is numbered among the hearts). */
static bool tally_follows(const struct engine_rules *r, int card)
{
    if (!(r->scoring & ENGINE_BIT(card)))
        return false;
    return card == ENGINE_JOKER || engine_card_suit(card) != ENGINE_HEARTS ||
           (r->card_points_set & ENGINE_BIT(card));
}

/* Where the tally's cards are that nobody took: their copies unplayed,
 * on the trick or set aside (copies[c] of each in the pack). */
enum { TALLY_UNPLAYED, TALLY_ON_TRICK, TALLY_ASIDE, TALLY_PLACES };

static int copies_in(const struct engine_cards *c, int card)
{
    return (c->one >> card & 1) + (c->two >> card & 1);
}

void mgr_sb_tally(struct strbuf *sb, const struct table *t, int you)
{
    const struct engine_game *g = &t->game;
    const struct engine_rules *r = &t->rules;
    int copies[64] = {0};
    for (int i = 0; i < r->deck_len; i++)
        if (tally_follows(r, r->deck[i]))
            copies[r->deck[i] & 63]++;
    /* each copy of a followed card: taken by a seat, else on the trick,
     * set aside, or still unplayed */
    uint8_t place[TALLY_PLACES][ENGINE_MAX_CARDS];
    int nplace[TALLY_PLACES] = {0};
    for (int c = 0; c < 64; c++) {
        int left = copies[c];
        for (int s = 0; s < g->n; s++)
            left -= copies_in(&g->taken[s], c);
        int on_trick = 0;
        for (int i = 0; i < g->trick_len; i++)
            on_trick += g->trick[i] == c;
        int aside = copies_in(&g->aside, c);
        for (int k = 0; k < left; k++) {
            int where = on_trick-- > 0 ? TALLY_ON_TRICK
                        : aside-- > 0  ? TALLY_ASIDE
                                       : TALLY_UNPLAYED;
            place[where][nplace[where]++] = (uint8_t)c;
        }
    }
    /* nothing to follow yet: one short sentence, where the hand's cards
     * are longest */
    bool played = g->hearts_broken && r->hearts_lead == ENGINE_HEARTS_BROKEN;
    for (int i = 0; i < g->nplays && !played; i++)
        played = (r->scoring & ENGINE_BIT(g->plays[i] & 63)) != 0;
    for (int s = 0; s < g->n && !played; s++)
        played = g->hand_points[s] || (g->taken[s].one & r->scoring);
    if (!played) {
        strbuf_addf(sb, "No point cards played yet.");
        return;
    }
    static const char *const said[TALLY_PLACES] = {"unplayed", "on the trick",
                                                   "set aside"};
    struct strbuf_mark start = strbuf_mark(sb);
    bool any = false; /* a part is written: the next is not the first */
    if (r->hearts_lead == ENGINE_HEARTS_BROKEN) {
        strbuf_addf(sb, "%s",
                    g->hearts_broken ? "Hearts broken" : "Hearts unbroken");
        any = true;
    }
    for (int p = 0; p < TALLY_PLACES; p++) {
        if (!nplace[p])
            continue;
        strbuf_addf(sb, "%s", any ? ", " : "");
        mgr_sb_cards(sb, t, place[p], nplace[p]);
        strbuf_addf(sb, " %s", said[p]);
        any = true;
    }
    bool points = false;
    for (int s = 0; s < g->n; s++) {
        uint8_t held[ENGINE_MAX_CARDS];
        int nheld = 0;
        for (int c = 0; c < 64; c++)
            for (int k = copies[c] ? copies_in(&g->taken[s], c) : 0; k > 0; k--)
                held[nheld++] = (uint8_t)c;
        if (!g->hand_points[s] && !nheld)
            continue;
        strbuf_addf(sb, "%s%s %d",
                    points ? ", "
                    : any  ? ", points: "
                           : "Points: ",
                    s == you ? "you" : mgr_seat_name(t, s),
                    (int)g->hand_points[s]);
        if (nheld) {
            strbuf_addf(sb, " (");
            mgr_sb_cards(sb, t, held, nheld);
            strbuf_addf(sb, ")");
        }
        points = true;
    }
    if (!points)
        strbuf_addf(sb, "%s", any ? ", no points yet" : "No points yet");
    strbuf_addf(sb, ".");
    strbuf_commit(sb, start);
}

const char *mgr_seat_mark(const struct table *t, int seat, bool game_over)
{
    const struct seat *st = &t->seats[seat];
    if (!st->key[0])
        return NULL; /* a computer player's own seat */
    if (!st->human)
        return "(left)";
    if (st->away)
        return game_over ? "(left)" : "(computer)";
    return NULL;
}

const char *mgr_seat_marked(const struct table *t, int seat, char *buf,
                            size_t len)
{
    const char *mark = mgr_seat_mark(t, seat, false);
    snprintf(buf, len, "%s%s%s", mgr_seat_name(t, seat), mark ? " " : "",
             mark ? mark : "");
    return buf;
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
                                   render_look_style(CHAT_STYLE_MARKUP)));
}

enum chat_style mgr_table_style(const struct table *t)
{
    if (t->a->style == CHAT_STYLE_IRC && !t->m->cfg->colors)
        return CHAT_STYLE_PLAIN;
    return t->a->style;
}
