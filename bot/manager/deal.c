/*
 * Dealing and passing, as the people at a table hear it (deal.h).
 */
#include "bot/manager/deal.h"

#include <stdio.h>
#include <string.h>

#include "bot/manager/say.h"

static void passing_text(struct table *t, int seat, struct strbuf *sb,
                         const char *verb);

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

/* "You received Q♣ K♣ K♦ from bob. " (nothing when nothing came), after
 * "You passed ... to carol. " when that confirmation was taken back. */
void mgr_sb_received(struct strbuf *sb, struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    if (t->seats[seat].passing_untold) {
        t->seats[seat].passing_untold = false;
        passing_text(t, seat, sb, "You passed");
        strbuf_addf(sb, ". ");
    }
    uint8_t got[ENGINE_MAX_ACT_CARDS];
    int k = engine_received_cards(g, seat, got);
    if (k <= 0)
        return;
    int from = passer_of(g, seat);
    render_sort(got, k);
    strbuf_addf(sb, "You received ");
    mgr_sb_cards(sb, t, got, k);
    if (from >= 0)
        strbuf_addf(sb, " from %s", mgr_seat_name(t, from));
    strbuf_addf(sb, ". ");
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
        strbuf_addf(&sb, "Your hand: ");
        mgr_sb_hand(&sb, t, &hand, 0);
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
    char label[256];
    strbuf_addf(&sb, "Hand %d at %s. Your cards: ", g->hand_no,
                mgr_room_label(t->a, t->room, label, sizeof label));
    mgr_sb_hand(&sb, t, &hand, 0);
    bool blind;
    int k = engine_pass_count(g, seat, &blind);
    if (k > 0) {
        if (g->pass_dir == ENGINE_PASS_SCATTER)
            strbuf_addf(&sb,
                        " | Pass %d cards, %d to each other player from your "
                        "left on: pass C1 C2 ...",
                        k, k / (g->n - 1));
        else
            strbuf_addf(
                &sb, " | Pass %d cards to %s: pass C1 C2 ...%s", k,
                mgr_seat_name(t, engine_pass_target(g, seat, g->pass_dir)),
                blind ? " (or \"pass blind\")" : "");
    }
    /* the deal waits behind the channel's lines of the hand before; on a
     * hand without passing the first prompt waits behind the deal */
    t->seats[seat].deal_unread = k == 0;
    mgr_table_tell(t, seat, sb.buf, CHAT_NORMAL);
}

const char *mgr_dir_word(int dir)
{
    switch (dir) {
    case ENGINE_PASS_LEFT:
        return "left";
    case ENGINE_PASS_RIGHT:
        return "right";
    case ENGINE_PASS_ACROSS:
        return "across";
    case ENGINE_PASS_SCATTER:
        return "to everyone";
    case ENGINE_PASS_LEFT2:
        return "two to the left";
    case ENGINE_PASS_RIGHT2:
        return "two to the right";
    default:
        return "none";
    }
}

void mgr_sb_passing(struct table *t, int seat, struct strbuf *sb)
{
    passing_text(t, seat, sb, "Passing");
}

/* "<verb> Q♣ K♣ K♦ to bob" (or "<verb> blind ..."). */
static void passing_text(struct table *t, int seat, struct strbuf *sb,
                         const char *verb)
{
    const struct engine_game *g = &t->game;
    int k = t->rules.pass_count;
    if (g->blind_mask >> seat & 1) {
        strbuf_addf(sb, "%s blind", verb);
    } else {
        uint8_t cards[ENGINE_MAX_ACT_CARDS];
        if (k > ENGINE_MAX_ACT_CARDS)
            k = ENGINE_MAX_ACT_CARDS;
        memcpy(cards, g->pass_cards[seat], (size_t)k);
        render_sort(cards, k);
        strbuf_addf(sb, "%s ", verb);
        mgr_sb_cards(sb, t, cards, k);
    }
    if (g->pass_dir == ENGINE_PASS_SCATTER)
        strbuf_addf(sb, " to the others");
    else
        strbuf_addf(sb, " to %s",
                    mgr_seat_name(t, engine_pass_target(g, seat, g->pass_dir)));
}

/* "; waiting for carol, dave." or "." when every seat has passed. */
void mgr_sb_waiting_for_passes(struct strbuf *sb, const struct table *t)
{
    const struct engine_game *g = &t->game;
    bool first = true;
    for (int s = 0; s < g->n; s++) {
        if (!engine_may_act(g, s))
            continue;
        strbuf_addf(sb, "%s%s", first ? "; waiting for " : ", ",
                    mgr_seat_name(t, s));
        first = false;
    }
    strbuf_addf(sb, ".");
}
