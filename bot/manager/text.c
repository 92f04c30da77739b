/*
 * Texts being built for one message (text.h).
 */
#include "bot/manager/text.h"

#include <stdio.h>
#include <string.h>

#include "bot/common/msg.h"
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

const char *mgr_card_text(char *buf, size_t len, struct render_look look,
                          int card)
{
    render_card(buf, len, card, look);
    return buf;
}

const char *mgr_cards_text(char *buf, size_t len, struct render_look look,
                           const uint8_t *cards, int n)
{
    render_cards(buf, len, cards, n, look);
    return buf;
}

const char *mgr_hand_text(char *buf, size_t len, struct render_look look,
                          const struct engine_cards *hand, uint64_t mark)
{
    render_hand(buf, len, hand, mark, look);
    return buf;
}

const char *mgr_seat_text(char *buf, size_t len, const struct table *t,
                          int seat, bool notify, struct render_look look)
{
    if (look.style != CHAT_STYLE_MARKUP || !mgr_seat_user_id(t, seat))
        snprintf(buf, len, "%s", mgr_seat_name(t, seat));
    else
        render_mention(buf, len, mgr_seat_user_id(t, seat),
                       mgr_seat_name(t, seat), notify, look);
    return buf;
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

bool mgr_tally_empty(const struct table *t)
{
    const struct engine_game *g = &t->game;
    const struct engine_rules *r = &t->rules;
    bool played = g->hearts_broken && r->hearts_lead == ENGINE_HEARTS_BROKEN;
    for (int i = 0; i < g->nplays && !played; i++)
        played = (r->scoring & ENGINE_BIT(g->plays[i] & 63)) != 0;
    for (int s = 0; s < g->n && !played; s++)
        played = g->hand_points[s] || (g->taken[s].one & r->scoring);
    return !played;
}

void mgr_sb_tally_for(struct strbuf *sb, const struct table *t,
                      struct render_look look, int you)
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
    int lang = look.lang;
    if (mgr_tally_empty(t)) {
        /* TRANSLATORS: the running tally in !status before any card
         * worth points was played (hearts unbroken). */
        msg_add(sb, lang, M("No point cards yet."), MSG_END);
        return;
    }
    /* the tally's parts, each whole, joined by commas */
    static const char *const said[TALLY_PLACES][2] = {
        /* TRANSLATORS: a part of the running tally: cards worth points
         * nobody has played yet ("Q♠ unplayed"); {cards} is one or more
         * cards, {n} how many. */
        {MN("{cards} unplayed", "{cards} unplayed")},
        /* TRANSLATORS: a part of the running tally: cards worth points
         * on the trick being played. */
        {MN("{cards} on the trick", "{cards} on the trick")},
        /* TRANSLATORS: a part of the running tally: cards worth points
         * in a trick set aside for the next trick's winner. */
        {MN("{cards} set aside", "{cards} set aside")}};
    char parts_text[MGR_TEXT_SIZE], text[MGR_TEXT_SIZE];
    struct strbuf parts;
    strbuf_init(&parts, parts_text, sizeof parts_text);
    if (r->hearts_lead == ENGINE_HEARTS_BROKEN)
        msg_add(&parts, lang,
                /* TRANSLATORS: the first part of the running tally, in a
                 * prompt: "Hearts broken, Q♠ unplayed, points: bob 3." */
                g->hearts_broken ? M("Hearts broken") : M("Hearts unbroken"),
                MSG_END);
    for (int p = 0; p < TALLY_PLACES; p++) {
        if (!nplace[p])
            continue;
        if (parts.len)
            strbuf_addstr(&parts, ", ");
        msg_addn(&parts, lang, said[p][0], said[p][1], (unsigned long)nplace[p],
                 MSG_S("cards", mgr_cards_text(text, sizeof text, look,
                                               place[p], nplace[p])),
                 MSG_I("n", nplace[p]), MSG_END);
    }
    char points_text[MGR_TEXT_SIZE];
    struct strbuf points;
    strbuf_init(&points, points_text, sizeof points_text);
    for (int s = 0; s < g->n; s++) {
        uint8_t held[ENGINE_MAX_CARDS];
        int nheld = 0;
        for (int c = 0; c < 64; c++)
            for (int k = copies[c] ? copies_in(&g->taken[s], c) : 0; k > 0; k--)
                held[nheld++] = (uint8_t)c;
        if (!g->hand_points[s] && !nheld)
            continue;
        if (points.len)
            strbuf_addstr(&points, ", ");
        int n = (int)g->hand_points[s];
        unsigned long count = (unsigned long)(n < 0 ? -n : n);
        mgr_cards_text(text, sizeof text, look, held, nheld);
        if (s == you && nheld)
            /* TRANSLATORS: in the running tally's points, the reader's
             * own: "you 13 (Q♠)"; {cards} the cards worth points they
             * took. */
            msg_addn(&points, lang,
                     MN("you {n} ({cards})", "you {n} ({cards})"), count,
                     MSG_I("n", n), MSG_S("cards", text), MSG_END);
        else if (s == you)
            /* TRANSLATORS: in the running tally's points, the reader's
             * own: "you 2". */
            msg_addn(&points, lang, MN("you {n}", "you {n}"), count,
                     MSG_I("n", n), MSG_END);
        else if (nheld)
            /* TRANSLATORS: in the running tally's points: "bob 13 (Q♠)";
             * {cards} the cards worth points they took. */
            msg_addn(&points, lang,
                     MN("{player} {n} ({cards})", "{player} {n} ({cards})"),
                     count, MSG_S("player", mgr_seat_name(t, s)), MSG_I("n", n),
                     MSG_S("cards", text), MSG_END);
        else
            mgr_sb_points(&points, lang, mgr_seat_name(t, s), n);
    }
    bool first = parts.len == 0;
    if (!first)
        strbuf_addstr(&parts, ", ");
    if (points.len && first)
        /* TRANSLATORS: the running tally's points when nothing comes
         * before them; {scores} is "bob 13 (Q♠), you 2". */
        msg_add(&parts, lang, M("Points: {scores}"),
                MSG_S("scores", points_text), MSG_END);
    else if (points.len)
        /* TRANSLATORS: the running tally's points after its other parts:
         * "Hearts broken, points: bob 13 (Q♠), you 2." */
        msg_add(&parts, lang, M("points: {scores}"),
                MSG_S("scores", points_text), MSG_END);
    else if (first)
        msg_add(&parts, lang, M("No points yet"), MSG_END);
    else
        /* TRANSLATORS: the running tally's end when nobody took points:
         * "Hearts unbroken, Q♠ on the trick, no points yet." */
        msg_add(&parts, lang, M("no points yet"), MSG_END);
    /* whole or not at all */
    struct strbuf_mark start = strbuf_mark(sb);
    /* TRANSLATORS: the running tally in a prompt: {tally} is its parts
     * joined by commas ("Hearts broken, Q♠ unplayed, points: bob 3"). */
    msg_add(sb, lang, M("{tally}."), MSG_S("tally", parts_text), MSG_END);
    strbuf_commit(sb, start);
}

void mgr_sb_points(struct strbuf *sb, int lang, const char *name, int points)
{
    /* TRANSLATORS: a seat's points in a list of scores: "bob 13" (in
     * "Final: alice 4, bob 13"); {n} may be negative. */
    msg_addn(sb, lang, MN("{player} {n}", "{player} {n}"),
             (unsigned long)(points < 0 ? -points : points),
             MSG_S("player", name), MSG_I("n", points), MSG_END);
}

const char *mgr_seat_mark(const struct table *t, int seat, bool game_over,
                          int lang)
{
    const struct seat *st = &t->seats[seat];
    if (!st->key[0])
        return NULL; /* a computer player's own seat */
    if (!st->human || (st->away && game_over))
        /* TRANSLATORS: after a name in a score sheet's heading: the
         * person left the game (also after their points in !last); at
         * most 15 bytes of UTF-8 (an accent takes two). */
        return msg_template(lang, MC("score sheet", "(left)"));
    if (st->away)
        /* TRANSLATORS: after a name in a score sheet's heading: a
         * computer plays for the person, who is away; at most 15 bytes
         * of UTF-8 (an accent takes two). */
        return msg_template(lang, MC("score sheet", "(computer)"));
    if (st->gone)
        /* TRANSLATORS: after a name in a score sheet's heading: the
         * person left the room or the network, and the seat waits for
         * them a while (turns they miss time out); at most 15 bytes of
         * UTF-8 (an accent takes two). */
        return msg_template(lang, MC("score sheet", "(offline)"));
    return NULL;
}

const char *mgr_seat_marked(const struct table *t, int seat, bool game_over,
                            int lang, char *buf, size_t len)
{
    const struct seat *st = &t->seats[seat];
    struct strbuf sb;
    strbuf_init(&sb, buf, len);
    const char *name = mgr_seat_name(t, seat);
    if (!st->key[0] || (st->human && !st->away && !st->gone))
        strbuf_addstr(&sb, name);
    else if (st->human && !st->away)
        /* TRANSLATORS: a seat's name in a trick line or a game's final
         * scores: the person left the room or the network and the seat
         * waits for them a while (turns they miss time out). */
        msg_add(&sb, lang, M("{player} (offline)"), MSG_S("player", name),
                MSG_END);
    else if (!st->human || game_over)
        /* TRANSLATORS: a seat's name in a trick line or a game's final
         * scores: the person left the game and a computer played on. */
        msg_add(&sb, lang, M("{player} (left)"), MSG_S("player", name),
                MSG_END);
    else
        /* TRANSLATORS: a seat's name in a trick line: a computer plays
         * for the person, who is away. */
        msg_add(&sb, lang, M("{player} (computer)"), MSG_S("player", name),
                MSG_END);
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
