/*
 * The commands of a seated player (cmd_play.h).
 */
#include "bot/manager/cmd_play.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bot/common/rule_words.h"
#include "bot/manager/deal.h"
#include "bot/manager/presence.h"
#include "bot/manager/render.h"
#include "bot/manager/say.h"
#include "bot/manager/text.h"
#include "bot/manager/turn.h"

void mgr_cmd_pass_in_channel(struct cmd *c)
{
    mgr_cmd_reply(c, "Passed cards are secret: tell me privately, \"pass C1 C2 "
                     "C3\".");
}

/* The seated person's table, or NULL after a reply saying why. */
static struct table *my_table(struct cmd *c, int *seat)
{
    struct table *t;
    if (c->room) {
        t = mgr_table_find(c->m, c->a, c->room);
        if (!t || (*seat = mgr_cmd_seat_of(t, c->u)) < 0) {
            mgr_cmd_reply(c, "You are not playing at this table.");
            return NULL;
        }
    } else {
        t = mgr_table_of_person(c->m, c->a, c->u->nick, seat);
        if (!t) {
            mgr_cmd_reply(
                c, "You are not at a table. %s%s", mgr_cmd_prefix(c->m),
                c->a->solo ? "hearts opens one." : "join one in a channel.");
            return NULL;
        }
        if (!mgr_same_person(t, *seat, c->u)) {
            mgr_cmd_reply(
                c, "That seat belongs to someone else who had your nick.");
            return NULL;
        }
    }
    if (!t->playing) {
        char label[256];
        mgr_cmd_reply(c, "The game at %s has not started yet.",
                      mgr_room_label(t->a, t->room, label, sizeof label));
        return NULL;
    }
    if (t->seats[*seat].away) {
        mgr_cmd_reply(
            c, "A computer player has your seat: tell me \"back\" to take "
               "it again.");
        return NULL;
    }
    return t;
}

/* "bob", "bob and carol", "bob, carol and dave": the seats that have not
 * passed yet. */
static void still_to_pass(struct strbuf *sb, const struct table *t)
{
    const struct engine_game *g = &t->game;
    int n = 0, k = 0;
    for (int s = 0; s < g->n; s++)
        n += engine_may_act(g, s);
    for (int s = 0; s < g->n; s++)
        if (engine_may_act(g, s)) {
            k++;
            strbuf_addf(sb, "%s%s",
                        k == 1   ? ""
                        : k == n ? " and "
                                 : ", ",
                        mgr_seat_name(t, s));
        }
}

/* Why the seat's action came at the wrong time, and what the table waits
 * for instead. */
static void not_now(struct cmd *c, struct table *t, int seat)
{
    const struct engine_game *g = &t->game;
    char names_text[MGR_TEXT_SIZE];
    struct strbuf names;
    strbuf_init(&names, names_text, sizeof names_text);
    int turn = engine_turn(g);
    switch (engine_phase(g)) {
    case ENGINE_PHASE_PASS:
        if (engine_may_act(g, seat)) {
            mgr_cmd_reply(c, "Cards are being passed: \"pass\" and %d cards.",
                          t->rules.pass_count);
            break;
        }
        still_to_pass(&names, t);
        mgr_cmd_reply(c, "You passed already; waiting for %s to pass.",
                      names.buf);
        break;
    case ENGINE_PHASE_PLAY:
        mgr_cmd_reply(c, "We are playing tricks now: \"play\" a card.");
        break;
    case ENGINE_PHASE_DEAL:
        mgr_cmd_reply(c, "Not now: the next hand is about to be dealt.");
        break;
    default:
        if (turn >= 0 && turn != seat)
            mgr_cmd_reply(c, "Not now: waiting for %s.",
                          mgr_seat_name(t, turn));
        else
            mgr_cmd_reply(c, "Not now.");
        break;
    }
}

static void explain(struct cmd *c, struct table *t, int seat,
                    enum engine_refusal why,
                    const struct engine_refusal_detail *d)
{
    char card_text[MGR_TEXT_SIZE];
    struct strbuf card;
    strbuf_init(&card, card_text, sizeof card_text);
    if (d->card >= 0 && d->card < 64 && engine_card_valid(d->card))
        mgr_sb_card(&card, t, d->card);
    switch (why) {
    case ENGINE_REFUSE_NOT_YOUR_TURN:
        mgr_cmd_reply(c, "Not your turn: %s plays now.",
                      d->seat >= 0 ? mgr_seat_name(t, d->seat)
                                   : "someone else");
        break;
    case ENGINE_REFUSE_WRONG_PHASE:
    case ENGINE_REFUSE_ALREADY_PASSED:
        not_now(c, t, seat);
        break;
    case ENGINE_REFUSE_NOT_IN_HAND:
        mgr_cmd_reply(c, "You don't hold %s.", card.buf);
        break;
    case ENGINE_REFUSE_BAD_CARD:
        mgr_cmd_reply(c, "%s is not in this game's pack.", card.buf);
        break;
    case ENGINE_REFUSE_DUPLICATE_CARD:
        mgr_cmd_reply(c, "You named %s twice.", card.buf);
        break;
    case ENGINE_REFUSE_PASS_COUNT:
        mgr_cmd_reply(c, "Name exactly %d cards.", d->count);
        break;
    case ENGINE_REFUSE_BLIND_NOT_ALLOWED:
        mgr_cmd_reply(c, "Blind passing is not allowed here.");
        break;
    case ENGINE_REFUSE_MUST_FOLLOW:
        mgr_cmd_reply(c, "You must follow suit: %s.",
                      render_suit_name(d->suit));
        break;
    case ENGINE_REFUSE_HEARTS_NOT_BROKEN:
        mgr_cmd_reply(c, "Hearts are not broken yet: lead another suit.");
        break;
    case ENGINE_REFUSE_FIRST_TRICK_POINTS:
        mgr_cmd_reply(c, "No points on the first trick: play a card without "
                         "points.");
        break;
    case ENGINE_REFUSE_MUST_LEAD_CARD:
        mgr_cmd_reply(c, "You must lead %s.", card.buf);
        break;
    case ENGINE_REFUSE_MUST_DUMP_QUEEN:
        mgr_cmd_reply(c,
                      "You must play %s now (the queen goes at the first safe "
                      "chance).",
                      card.buf);
        break;
    case ENGINE_REFUSE_MUST_LEAD_QUEEN:
        mgr_cmd_reply(c, "Hearts are not broken: lead %s.", card.buf);
        break;
    case ENGINE_REFUSE_BAD_MOON_CHOICE:
        mgr_cmd_reply(c, "Say \"moon add\" or \"moon subtract\".");
        break;
    case ENGINE_REFUSE_NOT_SHOOTER:
        mgr_cmd_reply(c, "Only the shooter chooses.");
        break;
    default: {
        char words[100];
        mgr_cmd_reply(c, "That won't do: %s.",
                      rule_words_refusal_text(words, sizeof words,
                                              mgr_cmd_lang_of(c), why));
        break;
    }
    }
}

/* Scans the cards in words[from..], blank- or comma-separated ("KS,AS,
 * KC"), into out (up to max; out may be NULL to count). Returns how many,
 * -1 at a word that is no card (*bad and *badlen name it), or -2 when
 * there are more than max. */
int mgr_cmd_scan_cards(const struct cmd *c, int from, uint8_t *out, int max,
                       const char **bad, size_t *badlen)
{
    int n = 0;
    for (int i = from; i < c->nwords; i++) {
        for (const char *w = c->words[i]; *w;) {
            size_t len = strcspn(w, ",");
            int card;
            if (len > 0) {
                if (engine_card_parse(w, len, &card)) {
                    *bad = w;
                    *badlen = len;
                    return -1;
                }
                if (n == max)
                    return -2;
                if (out)
                    out[n] = (uint8_t)card;
                n++;
            }
            w += len;
            w += *w == ',';
        }
    }
    return n;
}

/* Reads cards from words[from..]; replies and returns -1 on a bad one. */
static int read_cards(struct cmd *c, int from, uint8_t *out, int max)
{
    const char *bad = NULL;
    size_t len = 0;
    int n = mgr_cmd_scan_cards(c, from, out, max, &bad, &len);
    if (n == -1)
        mgr_cmd_reply(c,
                      "'%.*s' is not a card: write them like QS, 10h, t♦ or "
                      "Q♠.",
                      (int)(len > 40 ? 40 : len), bad);
    else if (n == -2)
        mgr_cmd_reply(c, "Too many cards.");
    return n < 0 ? -1 : n;
}

static void do_action(struct cmd *c, struct table *t, int seat,
                      struct engine_action *a)
{
    struct engine_refusal_detail d;
    enum engine_refusal why = mgr_table_act(t, seat, a, &d);
    if (why)
        explain(c, t, seat, why, &d);
}

/* A private play before one's turn: kept, and played at the turn if it
 * is legal then. Returns false (nothing done) if it is no such play. */
static bool queue_play(struct cmd *c, struct table *t, int seat, int card)
{
    const struct engine_game *g = &t->game;
    struct engine_cards hand = engine_hand(g, seat);
    if (c->room || engine_phase(g) != ENGINE_PHASE_PLAY ||
        engine_turn(g) == seat || !((hand.one | hand.two) & ENGINE_BIT(card)))
        return false;
    struct seat *st = &t->seats[seat];
    st->queued = true;
    st->queued_card = (uint8_t)card;
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    mgr_sb_card(&sb, t, card);
    mgr_cmd_reply(
        c,
        "Not your turn yet: %s plays now. I'll play %s for you at your "
        "turn if it is legal then (\"play none\" to take it back).",
        mgr_seat_name(t, engine_turn(g)), sb.buf);
    return true;
}

void mgr_cmd_play(struct cmd *c)
{
    int seat;
    struct table *t = my_table(c, &seat);
    if (!t)
        return;
    if (c->nwords == 2 && strcasecmp(c->words[1], "none") == 0) {
        mgr_cmd_reply(c, t->seats[seat].queued
                             ? "Taken back: I'll ask you at your "
                               "turn."
                             : "No card was waiting.");
        t->seats[seat].queued = false;
        return;
    }
    uint8_t cards[ENGINE_MAX_ACT_CARDS];
    int n = read_cards(c, 1, cards, 1);
    if (n < 0)
        return;
    if (n != 1) {
        mgr_cmd_reply(c, "Play which card? Like \"play QS\".");
        return;
    }
    if (queue_play(c, t, seat, cards[0]))
        return;
    struct engine_action a = {.kind = ENGINE_ACT_PLAY, .ncards = 1};
    a.cards[0] = cards[0];
    do_action(c, t, seat, &a);
}

void mgr_cmd_autoplay(struct cmd *c)
{
    static const char *const modes[] = {"last", "on", "off"};
    static const char *const meaning[] = {
        "I play the last card of each hand for you",
        ("I play the last card of each hand, and every card that is your "
         "only legal one, for you"),
        "I always ask you"};
    int seat;
    struct table *t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t || !mgr_same_person(t, seat, c->u)) {
        mgr_cmd_reply(c, "You are not at a table. %sjoin one in a channel.",
                      mgr_cmd_prefix(c->m));
        return;
    }
    struct seat *st = &t->seats[seat];
    if (c->nwords > 1) {
        int k = 0;
        while (k < 3 && strcasecmp(c->words[1], modes[k]) != 0)
            k++;
        if (k == 3) {
            mgr_cmd_reply(c, "autoplay on, off or last.");
            return;
        }
        st->autoplay = (enum seat_autoplay)k;
    }
    mgr_cmd_reply(c, "Autoplay %s: %s (this game).", modes[st->autoplay],
                  meaning[st->autoplay]);
}

void mgr_cmd_pass(struct cmd *c)
{
    int seat;
    struct table *t = my_table(c, &seat);
    if (!t)
        return;
    struct engine_action a = {.kind = ENGINE_ACT_PASS};
    if (c->nwords == 2 && strcasecmp(c->words[1], "blind") == 0) {
        a.kind = ENGINE_ACT_PASS_BLIND;
    } else {
        int n = read_cards(c, 1, a.cards, ENGINE_MAX_ACT_CARDS);
        if (n < 0)
            return;
        a.ncards = (uint8_t)n;
    }
    do_action(c, t, seat, &a);
}

void mgr_cmd_discard(struct cmd *c)
{
    int seat;
    struct table *t = my_table(c, &seat);
    if (!t)
        return;
    struct engine_action a = {.kind = ENGINE_ACT_DISCARD};
    int n = read_cards(c, 1, a.cards, ENGINE_MAX_ACT_CARDS);
    if (n < 0)
        return;
    a.ncards = (uint8_t)n;
    do_action(c, t, seat, &a);
}

void mgr_cmd_moon(struct cmd *c)
{
    int seat;
    struct table *t = my_table(c, &seat);
    if (!t)
        return;
    struct engine_action a = {.kind = ENGINE_ACT_MOON};
    const char *w = c->nwords > 1 ? c->words[1] : "";
    if (strcasecmp(w, "add") == 0)
        a.moon = ENGINE_MOON_ADD_OTHERS;
    else if (strcasecmp(w, "subtract") == 0 || strcasecmp(w, "sub") == 0)
        a.moon = ENGINE_MOON_SUBTRACT;
    else {
        mgr_cmd_reply(c, "Say \"moon add\" or \"moon subtract\".");
        return;
    }
    do_action(c, t, seat, &a);
}

void mgr_cmd_hand(struct cmd *c)
{
    int seat;
    struct table *t = my_table(c, &seat);
    if (!t)
        return;
    const struct engine_game *g = &t->game;
    struct engine_cards hand = engine_hand(g, seat);
    if (!hand.one && !hand.two) {
        /* the hand is over (the next deal, or a moon choice, is due) */
        if (engine_phase(g) == ENGINE_PHASE_MOON && engine_may_act(g, seat))
            mgr_cmd_reply(
                c,
                "You hold no cards: the hand is over and you shot the %s. "
                "Tell me \"moon subtract\" or \"moon add\".",
                g->moon_sun ? "sun" : "moon");
        else
            mgr_cmd_reply(c, "You hold no cards until the next deal.");
        return;
    }
    char sb_text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, sb_text, sizeof sb_text);
    /* while the others choose, the cards passed are no longer ours */
    bool passing =
        engine_phase(g) == ENGINE_PHASE_PASS && !engine_may_act(g, seat);
    if (passing && !(g->blind_mask >> seat & 1))
        for (int i = 0; i < t->rules.pass_count && i < ENGINE_MAX_ACT_CARDS;
             i++) {
            uint64_t bit = ENGINE_BIT(g->pass_cards[seat][i]);
            if (hand.two & bit)
                hand.two &= ~bit;
            else
                hand.one &= ~bit;
        }
    strbuf_addf(&sb, "Your hand: ");
    uint64_t legal = engine_turn(g) == seat ? engine_legal_plays(g) : 0;
    mgr_sb_hand(&sb, t, &hand, legal);
    if (legal)
        strbuf_addf(&sb, " (your turn: the marked cards are playable)");
    if (passing) {
        strbuf_addf(&sb, " (");
        mgr_sb_passing(t, seat, &sb);
        strbuf_addf(&sb, "; waiting for ");
        still_to_pass(&sb, t);
        strbuf_addf(&sb, " to pass)");
    }
    if (t->seats[seat].queued) {
        strbuf_addf(&sb, " (waiting to play ");
        mgr_sb_card(&sb, t, t->seats[seat].queued_card);
        strbuf_addf(&sb, ")");
    }
    mgr_cmd_reply(c, "%s", sb.buf);
}

void mgr_cmd_back(struct cmd *c)
{
    int seat;
    struct table *t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (!t || !mgr_same_person(t, seat, c->u)) {
        mgr_cmd_reply(c, "You have no seat to come back to.");
        return;
    }
    if (!t->seats[seat].away && !t->seats[seat].gone) {
        mgr_cmd_reply(c, "You are playing already.");
        return;
    }
    mgr_cmd_shown_as_seat(c, t, seat);
    char text[800];
    snprintf(text, sizeof text, "%s %s back.", mgr_cmd_subject(c),
             mgr_cmd_verb(c, "is", "are"));
    mgr_table_say(t, text);
    mgr_table_back(t, seat);
}
