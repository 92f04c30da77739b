/*
 * Dealing and passing, as the people at a table hear it (deal.h).
 */
#include "bot/manager/deal.h"

#include <stdio.h>
#include <string.h>

#include "bot/common/msg.h"
#include "bot/manager/lang.h"
#include "bot/manager/say.h"

/* Who passed the cards a seat received (through seats that pass blind),
 * or -1 (a scatter pass: from everyone). */
static int passer_of(const struct engine_game *g, int seat)
{
    if (g->pass_dir == ENGINE_PASS_SCATTER)
        return -1;
    int to = seat;
    for (int hops = 0; hops < g->n; hops++) {
        int from = -1;
        for (int s = 0; s < g->n; s++)
            if (s != to && engine_pass_target(g, s, g->pass_dir) == to)
                from = s;
        if (from < 0 || from == seat)
            return -1;
        if (!(g->blind_mask >> from & 1))
            return from;
        to = from;
    }
    return -1;
}

int mgr_pass_chosen(const struct table *t, int seat, struct render_look look,
                    char *cards, size_t len)
{
    const struct engine_game *g = &t->game;
    cards[0] = '\0';
    if (!(g->blind_mask >> seat & 1)) {
        uint8_t chosen[ENGINE_MAX_ACT_CARDS];
        int k = t->rules.pass_count;
        if (k > ENGINE_MAX_ACT_CARDS)
            k = ENGINE_MAX_ACT_CARDS;
        memcpy(chosen, g->pass_cards[seat], (size_t)k);
        render_sort(chosen, k);
        mgr_cards_text(cards, len, look, chosen, k);
    }
    if (g->pass_dir == ENGINE_PASS_SCATTER)
        return -1;
    return engine_pass_target(g, seat, g->pass_dir);
}

/* "You received Q♣ K♣ K♦ from bob. " (nothing when nothing came), after
 * "You passed ... to carol. " when that confirmation was taken back. */
void mgr_sb_received(struct strbuf *sb, struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    struct render_look look = mgr_look_seat(t, seat);
    char cards[MGR_TEXT_SIZE];
    if (t->seats[seat].passing_untold) {
        t->seats[seat].passing_untold = false;
        int to = mgr_pass_chosen(t, seat, look, cards, sizeof cards);
        const char *name = to >= 0 ? mgr_seat_name(t, to) : "";
        if (cards[0] && to >= 0)
            msg_add(sb, look.lang, M("You passed {cards} to {player}."),
                    MSG_S("cards", cards), MSG_S("player", name), MSG_END);
        else if (cards[0])
            msg_add(sb, look.lang, M("You passed {cards} to the others."),
                    MSG_S("cards", cards), MSG_END);
        else if (to >= 0)
            msg_add(sb, look.lang, M("You passed blind to {player}."),
                    MSG_S("player", name), MSG_END);
        else
            msg_add(sb, look.lang, M("You passed blind to the others."),
                    MSG_END);
        strbuf_addstr(sb, " ");
    }
    uint8_t got[ENGINE_MAX_ACT_CARDS];
    int k = engine_received_cards(g, seat, got);
    if (k <= 0)
        return;
    int from = passer_of(g, seat);
    render_sort(got, k);
    mgr_cards_text(cards, sizeof cards, look, got, k);
    if (from >= 0)
        msg_add(sb, look.lang, M("You received {cards} from {player}."),
                MSG_S("cards", cards), MSG_S("player", mgr_seat_name(t, from)),
                MSG_END);
    else
        msg_add(sb, look.lang, M("You received {cards}."),
                MSG_S("cards", cards), MSG_END);
    strbuf_addstr(sb, " ");
}

/* After the passes: every person but `except` (about to be prompted, which
 * says it) hears what they received and their hand. At normal priority:
 * the leader's prompt (high) goes first. */
void mgr_tell_received(struct table *t, int except)
{
    const struct engine_game *g = &t->game;
    for (int s = 0; s < g->n; s++) {
        struct seat *st = &t->seats[s];
        if (s == except || !st->received_untold)
            continue;
        if (g->trick_no > 0) { /* old news after a restart */
            st->received_untold = st->passing_untold = false;
            continue;
        }
        st->received_untold = false;
        char sb_text[MGR_TEXT_SIZE];
        struct strbuf sb;
        strbuf_init(&sb, sb_text, sizeof sb_text);
        struct engine_cards hand = engine_hand(g, s);
        mgr_sb_received(&sb, t, s);
        char text[MGR_TEXT_SIZE];
        struct render_look look = mgr_look_seat(t, s);
        msg_add(&sb, look.lang, M("Your hand: {hand}"),
                MSG_S("hand", mgr_hand_text(text, sizeof text, look, &hand, 0)),
                MSG_END);
        uint64_t before = st->pending;
        mgr_table_tell(t, s, sb.buf, CHAT_NORMAL);
        if (st->gone || st->unconfirmed)
            st->received_untold = true; /* not sent: the prompt says it */
        else if (st->pending != before)
            st->received_cookie = st->pending;
    }
}

/* Whether the seat's prompt must say what it received: not said yet, or
 * said in a line still waiting in the adapter's queue, taken back so that
 * the prompt does not wait behind it (one line instead of two). */
bool mgr_received_to_tell(struct table *t, int seat)
{
    struct seat *st = &t->seats[seat];
    if (t->game.trick_no > 0) {
        /* news of the first trick only (a restart may find it older) */
        st->received_untold = st->passing_untold = false;
        st->received_cookie = 0;
        return false;
    }
    if (st->received_cookie && t->a->ops->retract &&
        t->a->ops->retract(t->a, st->received_cookie))
        st->received_untold = true;
    st->received_cookie = 0;
    bool tell = st->received_untold;
    st->received_untold = false;
    return tell;
}

/* The private message after a deal: the hand and what to pass. */
void mgr_tell_deal(struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    struct engine_cards hand = engine_hand(g, seat);
    struct render_look look = mgr_look_seat(t, seat);
    char label[256], text[MGR_TEXT_SIZE];
    msg_add(&sb, look.lang, M("Hand {hand} at {room}. Your cards: {cards}"),
            MSG_I("hand", g->hand_no),
            MSG_S("room", mgr_room_label(t->a, t->room, label, sizeof label)),
            MSG_S("cards", mgr_hand_text(text, sizeof text, look, &hand, 0)),
            MSG_END);
    bool blind;
    int k = engine_pass_count(g, seat, &blind);
    if (k > 0) {
        strbuf_addstr(&sb, " | ");
        int target = g->pass_dir == ENGINE_PASS_SCATTER
                         ? -1
                         : engine_pass_target(g, seat, g->pass_dir);
        const char *to = target >= 0 ? mgr_seat_name(t, target) : "";
        if (target < 0)
            /* TRANSLATORS: after a deal, when everyone passes to everyone:
             * {each} of the {n} cards go to each other player, starting
             * from the one on the left. "pass C1 C2 ..." is the command
             * with card codes: keep "pass". */
            msg_addn(&sb, look.lang,
                     MN("Pass {n} card, {each} to each other player from "
                        "your left on: pass C1 C2 ...",
                        "Pass {n} cards, {each} to each other player from "
                        "your left on: pass C1 C2 ..."),
                     (unsigned long)k, MSG_I("n", k),
                     MSG_I("each", k / (g->n - 1)), MSG_END);
        else if (blind)
            /* TRANSLATORS: after a deal: "pass C1 C2 ..." and "pass
             * blind" are commands: keep "pass" and "blind". */
            msg_addn(&sb, look.lang,
                     MN("Pass {n} card to {player}: pass C1 C2 ... (or "
                        "\"pass blind\")",
                        "Pass {n} cards to {player}: pass C1 C2 ... (or "
                        "\"pass blind\")"),
                     (unsigned long)k, MSG_I("n", k), MSG_S("player", to),
                     MSG_END);
        else
            /* TRANSLATORS: after a deal: "pass C1 C2 ..." is the command
             * with card codes: keep "pass". */
            msg_addn(&sb, look.lang,
                     MN("Pass {n} card to {player}: pass C1 C2 ...",
                        "Pass {n} cards to {player}: pass C1 C2 ..."),
                     (unsigned long)k, MSG_I("n", k), MSG_S("player", to),
                     MSG_END);
    }
    /* the deal waits behind the channel's lines of the hand before; on a
     * hand without passing the first prompt waits behind the deal */
    t->seats[seat].deal_unread = k == 0;
    mgr_table_tell(t, seat, sb.buf, CHAT_NORMAL);
}

void mgr_sb_passed(struct strbuf *sb, struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    struct render_look look = mgr_look_seat(t, seat);
    char cards[MGR_TEXT_SIZE], waiting_text[MGR_TEXT_SIZE];
    struct strbuf waiting;
    strbuf_init(&waiting, waiting_text, sizeof waiting_text);
    for (int s = 0; s < g->n; s++)
        if (engine_may_act(g, s))
            strbuf_addf(&waiting, "%s%s", waiting.len ? ", " : "",
                        mgr_seat_name(t, s));
    int to = mgr_pass_chosen(t, seat, look, cards, sizeof cards);
    const char *name = to >= 0 ? mgr_seat_name(t, to) : "";
    /* TRANSLATORS: {players} is a list of the names of those who have not
     * passed yet: "carol, dave". */
    if (cards[0] && to >= 0)
        msg_add(sb, look.lang,
                M("Passing {cards} to {player}; waiting for {players}."),
                MSG_S("cards", cards), MSG_S("player", name),
                MSG_S("players", waiting_text), MSG_END);
    else if (cards[0])
        msg_add(sb, look.lang,
                M("Passing {cards} to the others; waiting for {players}."),
                MSG_S("cards", cards), MSG_S("players", waiting_text), MSG_END);
    else if (to >= 0)
        msg_add(sb, look.lang,
                M("Passing blind to {player}; waiting for {players}."),
                MSG_S("player", name), MSG_S("players", waiting_text), MSG_END);
    else
        msg_add(sb, look.lang,
                M("Passing blind to the others; waiting for {players}."),
                MSG_S("players", waiting_text), MSG_END);
}
