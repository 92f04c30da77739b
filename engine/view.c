/*
 * What one seat may know of a game: the input of computer players, built
 * so that a player can never see another seat's hand or the face-down
 * cards it has not taken.
 */
#include "engine/engine.h"
#include "engine/internal.h"

#include <string.h>

/* The game as `seat` may know it (engine_view.known) and how many cards
 * of the rest it cannot see. */
static void view_known(const struct engine_game *g, int seat,
                       struct engine_view *v)
{
    const struct engine_rules *r = g->rules;
    struct engine_game *k = &v->known;
    *k = *g;
    memset(&k->rng, 0, sizeof k->rng);
    for (int s = 0; s < g->n; s++) {
        k->taken[s] = v->taken[s];
        if (s == seat)
            continue;
        k->hand[s].one = k->hand[s].two = 0;
        memset(k->pass_cards[s], ENGINE_NO_CARD, sizeof k->pass_cards[s]);
        memset(k->received[s], ENGINE_NO_CARD, sizeof k->received[s]);
        k->nreceived[s] = 0;
    }
    if (g->blind_mask >> seat & 1)
        memset(k->pass_cards[seat], ENGINE_NO_CARD, sizeof k->pass_cards[seat]);
    int dealt = g->deal_len - g->rest_len;
    memset(k->deal, ENGINE_NO_CARD, (size_t)dealt);
    uint8_t *rest = k->deal + dealt;
    bool mine = g->rest_taker == seat;
    v->rest_hidden = 0;
    if (r->stock != ENGINE_STOCK_OFF) {
        memset(rest, ENGINE_NO_CARD, g->rest_len);
        v->rest_hidden = g->rest_len - g->rest_pos;
    } else if (r->odd_cards == ENGINE_ODD_KITTY_EXCHANGE) {
        if (!mine)
            memset(rest, ENGINE_NO_CARD, g->rest_len);
        if (g->rest_taker == ENGINE_NO_CARD)
            v->rest_hidden = g->rest_len;
        else if (!mine) {
            memset(k->discard, ENGINE_NO_CARD, sizeof k->discard);
            v->rest_hidden = g->ndiscard;
        }
    } else if (r->odd_cards != ENGINE_ODD_FACEUP_LEFTOVER && !mine) {
        memset(rest, ENGINE_NO_CARD, g->rest_len);
        v->rest_hidden = g->rest_len;
    }
}

void engine_view_make(const struct engine_game *g, int seat,
                      struct engine_view *v)
{
    const struct engine_rules *r = g->rules;
    memset(v, 0, sizeof *v);
    v->rules = r;
    v->seat = seat;
    v->n = g->n;
    v->phase = (enum engine_phase)g->phase;
    v->dealer = g->dealer;
    v->hand_no = g->hand_no;
    v->hand = g->hand[seat];
    if (g->phase == ENGINE_PHASE_PLAY && g->turn == seat)
        v->legal = engine_legal_plays(g);
    v->pass_count = engine_pass_count(g, seat, &v->blind_allowed);
    v->pass_dir = g->pass_dir;
    v->pass_target = engine_pass_target(g, seat, g->pass_dir);
    if (g->phase == ENGINE_PHASE_DISCARD && g->turn == seat)
        v->discard_count = g->rest_len;
    v->turn = engine_turn(g);
    bool shooter = g->phase == ENGINE_PHASE_MOON && g->turn == seat;
    v->moon_sun = shooter && g->moon_sun;
    v->moon_best = shooter ? engine_moon_default(g) : -1;
    if (shooter)
        for (int mode = 0; mode < 2; mode++) {
            struct engine_moon_option *o = &v->moon_option[mode];
            o->over = engine_moon_outcome(g, mode, o->totals, o->winners,
                                          &o->nwinners);
        }
    v->aside = g->aside;
    v->leader = g->leader;
    v->trick_len = g->trick_len;
    memcpy(v->trick, g->trick, sizeof v->trick);
    memcpy(v->trick_seat, g->trick_seat, sizeof v->trick_seat);
    v->trick_no = g->trick_no;
    v->hearts_broken = g->hearts_broken;
    for (int i = 0; i < g->nplays; i++)
        cards_add(&v->played, g->plays[i]);
    v->nplays = g->nplays;
    v->plays = g->plays;
    v->play_seat = g->play_seat;
    for (int s = 0; s < g->n; s++) {
        v->hand_points[s] = g->hand_points[s];
        v->cards_left[s] = engine_cards_count(&g->hand[s]);
        v->totals[s] = g->totals[s];
        v->void_suits[s] = g->voids[s];
        v->taken[s] = g->taken[s];
    }
    /* face-down cards in others' tricks (a kitty, a widow, a discard) are
     * not seen: take them out of what the view shows as taken */
    if (g->rest_taker != ENGINE_NO_CARD && g->rest_taker != seat &&
        r->odd_cards != ENGINE_ODD_FACEUP_LEFTOVER &&
        r->odd_cards != ENGINE_ODD_KITTY_EXCHANGE) {
        int len;
        const uint8_t *rest = engine_rest(g, &len);
        struct engine_cards *t = &v->taken[g->rest_taker];
        for (int i = 0; i < len; i++)
            if (cards_has(t, rest[i]))
                cards_remove(t, rest[i]);
    }
    if (g->ndiscard && g->rest_taker != seat) {
        struct engine_cards *t = &v->taken[g->rest_taker];
        for (int i = 0; i < g->ndiscard; i++)
            if (cards_has(t, g->discard[i]))
                cards_remove(t, g->discard[i]);
    }
    if (r->odd_cards == ENGINE_ODD_FACEUP_LEFTOVER) {
        int len;
        const uint8_t *rest = engine_rest(g, &len);
        for (int i = 0; i < len; i++)
            v->faceup |= ENGINE_BIT(rest[i]);
    }
    if (g->rest_taker == seat) {
        int len;
        const uint8_t *rest = engine_rest(g, &len);
        for (int i = 0; i < len; i++)
            v->rest_seen |= ENGINE_BIT(rest[i]);
    }
    if (r->stock != ENGINE_STOCK_OFF)
        v->stock_left = g->rest_len - g->rest_pos;
    /* a blind seat passes on, unseen, what reaches it: it knows nothing
     * of those cards */
    if ((g->passed_mask >> seat & 1) && !(g->blind_mask >> seat & 1)) {
        uint8_t tmp[ENGINE_MAX_ACT_CARDS] = {0};
        v->npassed = engine_passed_cards(g, seat, tmp);
        memcpy(v->passed, tmp, sizeof v->passed);
    }
    if (g->phase != ENGINE_PHASE_PASS)
        v->nreceived = engine_received_cards(g, seat, v->received);
    view_known(g, seat, v);
}

int engine_view_world(const struct engine_view *v,
                      const struct engine_cards *hands, const uint8_t *hidden,
                      uint64_t seed, struct engine_game *out)
{
    const struct engine_game *k = &v->known;
    const struct engine_rules *r = v->rules;
    *out = *k;
    engine_prng_seed(&out->rng, seed);
    for (int s = 0; s < v->n; s++) {
        if (s == v->seat)
            continue;
        if (engine_cards_count(&hands[s]) != v->cards_left[s])
            return -1;
        out->hand[s] = hands[s];
    }
    if (v->rest_hidden == 0)
        return 0;
    uint8_t *rest = out->deal + out->deal_len - out->rest_len;
    if (r->stock != ENGINE_STOCK_OFF) {
        if (v->rest_hidden != out->rest_len - out->rest_pos)
            return -1;
        memcpy(rest + out->rest_pos, hidden, (size_t)v->rest_hidden);
        return 0;
    }
    int taker = out->rest_taker;
    if (r->odd_cards == ENGINE_ODD_KITTY_EXCHANGE && taker != ENGINE_NO_CARD) {
        /* another seat's discard, face down in its tricks */
        if (v->rest_hidden != out->ndiscard)
            return -1;
        for (int i = 0; i < v->rest_hidden; i++) {
            out->discard[i] = hidden[i];
            cards_add(&out->taken[taker], hidden[i]);
        }
        return 0;
    }
    /* an unseen kitty or widow: waiting, or in another seat's tricks */
    if (v->rest_hidden != out->rest_len)
        return -1;
    memcpy(rest, hidden, (size_t)v->rest_hidden);
    if (taker != ENGINE_NO_CARD)
        for (int i = 0; i < v->rest_hidden; i++)
            cards_add(&out->taken[taker], hidden[i]);
    return 0;
}
