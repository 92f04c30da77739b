/*
 * Tests of the sampler of unseen cards (engine/ai/ai_sample.c) and of
 * engine_view_world: at random positions of every preset, for several
 * player counts, every sampled deal agrees with what the seat knows, and
 * the game built from it is a whole game that plays on.
 */
#include "engine/ai/ai.h"
#include "engine/ai/ai_sample.h"
#include "tests/support/invariants.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

static bool same_cards(struct engine_cards a, struct engine_cards b)
{
    return a.one == b.one && a.two == b.two;
}

static int copies(const struct engine_cards *c, int card)
{
    uint64_t b = ENGINE_BIT(card);
    return ((c->one & b) != 0) + ((c->two & b) != 0);
}

/* Checks one sampled deal against the view and the real game g. */
static void check_deal(const struct engine_game *g, const struct engine_view *v,
                       const struct ai_sampler *s, const struct ai_deal *d,
                       const char *what)
{
    const struct engine_rules *r = v->rules;
    struct engine_cards all = {0, 0};
    for (int seat = 0; seat < v->n; seat++) {
        if (seat == v->seat)
            continue;
        if (engine_cards_count(&d->hand[seat]) != v->cards_left[seat])
            fail_msg("%s: seat %d got %d cards, holds %d", what, seat,
                     engine_cards_count(&d->hand[seat]), v->cards_left[seat]);
        if (r->stock != ENGINE_STOCK_TWO_HANDED)
            for (int u = 0; u < 4; u++)
                if ((v->void_suits[seat] >> u & 1) &&
                    ((d->hand[seat].one | d->hand[seat].two) &
                     ENGINE_SUIT_MASK(u)))
                    fail_msg("%s: seat %d got suit %d it is void in", what,
                             seat, u);
        for (int c = 0; c < 64; c++)
            for (int k = copies(&d->hand[seat], c); k > 0; k--) {
                assert_true(copies(&all, c) < 2);
                uint64_t b = ENGINE_BIT((unsigned)c);
                all.two |= all.one & b;
                all.one |= b;
            }
    }
    assert_int_equal(d->nhidden, v->rest_hidden);
    for (int i = 0; i < d->nhidden; i++) {
        uint64_t b = ENGINE_BIT(d->hidden[i]);
        assert_true(copies(&all, d->hidden[i]) < 2);
        all.two |= all.one & b;
        all.one |= b;
    }
    /* exactly the unseen cards, and they include every other real hand */
    assert_true(same_cards(all, s->unseen));
    for (int seat = 0; seat < v->n; seat++) {
        if (seat == v->seat)
            continue;
        for (int c = 0; c < 64; c++)
            if (copies(&g->hand[seat], c) > copies(&s->unseen, c))
                fail_msg("%s: seat %d holds %s, not unseen", what, seat,
                         engine_card_name(c));
    }
    /* my passed cards the target still holds are in its sampled hand */
    if (r->decks == 1 && !r->pass_blind && v->npassed &&
        v->pass_dir != ENGINE_PASS_SCATTER && v->phase != ENGINE_PHASE_PASS)
        for (int i = 0; i < v->npassed; i++) {
            int t = v->pass_target, c = v->passed[i];
            if (g->hand[t].one & ENGINE_BIT(c))
                if (!(d->hand[t].one & ENGINE_BIT(c)))
                    fail_msg("%s: passed %s not with seat %d", what,
                             engine_card_name(c), t);
        }
}

/* Samples for every seat of g and checks the deals and the worlds. */
static void check_position(const struct engine_game *g, uint64_t seed,
                           const char *text)
{
    for (int seat = 0; seat < g->n; seat++) {
        struct engine_view v;
        engine_view_make(g, seat, &v);
        struct ai_sampler s;
        char what[200];
        snprintf(what, sizeof what, "%s, seat %d, phase %d, play %d", text,
                 seat, g->phase, g->nplays);
        if (ai_sampler_init(&s, &v) != 0)
            fail_msg("%s: unseen cards do not add up", what);
        if (s.relaxed)
            fail_msg("%s: knowledge found contradictory", what);
        struct engine_prng rng, rng2;
        engine_prng_seed(&rng, seed + (uint64_t)seat);
        engine_prng_seed(&rng2, seed + (uint64_t)seat);
        for (int k = 0; k < 3; k++) {
            struct ai_deal d, d2;
            ai_sample(&s, &rng, &d);
            ai_sample(&s, &rng2, &d2);
            assert_memory_equal(&d, &d2, sizeof d); /* deterministic */
            check_deal(g, &v, &s, &d, what);
            if (g->phase == ENGINE_PHASE_PASS)
                continue; /* worlds are for playing on */
            struct engine_game w;
            assert_int_equal(engine_view_world(&v, d.hand, d.hidden, seed, &w),
                             0);
            assert_true(same_cards(w.hand[seat], g->hand[seat]));
            struct prop_run ru = {.text = text, .seed = seed};
            snprintf(ru.what, sizeof ru.what, "%s", what);
            prop_check_cards(&w, &ru, "sampled world");
            struct engine_prng p;
            engine_prng_seed(&p, seed);
            engine_playout(&w, &p);
            assert_true(w.phase == ENGINE_PHASE_DEAL ||
                        w.phase == ENGINE_PHASE_GAME_OVER);
        }
    }
}

/* Plays random games of the rules and checks positions along the way. */
static void run_rules(const struct engine_rules *r, uint64_t seed,
                      const char *text)
{
    struct engine_game g;
    struct engine_prng rng;
    engine_prng_seed(&rng, seed);
    engine_game_init(&g, r, seed, 0);
    for (int hand = 0; hand < 2 && g.phase != ENGINE_PHASE_GAME_OVER; hand++) {
        engine_deal(&g, NULL);
        int steps = 0;
        while (g.phase != ENGINE_PHASE_DEAL &&
               g.phase != ENGINE_PHASE_GAME_OVER) {
            if (engine_prng_below(&rng, 4) == 0)
                check_position(&g, engine_prng_next(&rng), text);
            for (int seat = 0; seat < g.n; seat++) {
                struct engine_action a;
                if (ai_act_for(AI_RANDOM, &g, seat, &rng, &a) == 0) {
                    assert_int_equal(engine_act(&g, &a, NULL, NULL), ENGINE_OK);
                    break;
                }
            }
            assert_true(++steps < 1000);
        }
    }
}

static void test_sample_every_preset(void **state)
{
    (void)state;
    for (int p = 0; p < engine_preset_count(); p++) {
        int lo, hi;
        engine_preset_players(p, &lo, &hi);
        int counts[3] = {lo, (lo + hi) / 2, hi};
        for (int i = 0; i < 3; i++) {
            if (i && counts[i] == counts[i - 1])
                continue;
            struct engine_rules r;
            char text[80];
            snprintf(text, sizeof text, "%s", engine_preset_name(p));
            sc_rules(&r, text, counts[i]);
            snprintf(text, sizeof text, "%s, %d players", engine_preset_name(p),
                     counts[i]);
            run_rules(&r, 1000u + (uint64_t)p * 10u + (uint64_t)i, text);
        }
    }
}

/* Options the presets leave out: scatter and blind passing, two decks
 * with a kitty, face-up leftovers, a widow. */
static void test_sample_options(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int players;
    } cases[] = {
        {"standard pass_cycle=scatter", 4},
        {"standard pass_blind=on", 4},
        {"standard odd_cards=faceup_leftover", 5},
        {"standard odd_cards=widow", 5},
        {"standard odd_cards=kitty_exchange", 3},
        {"standard odd_cards=kitty_first_point", 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct engine_rules r;
        sc_rules(&r, cases[i].text, cases[i].players);
        for (uint64_t seed = 1; seed <= 3; seed++)
            run_rules(&r, seed, cases[i].text);
    }
}

/* Black Lady, dealer 3: seat 0 holds every club, seat 1 every diamond,
 * seats 2 and 3 the rest; seat 0 leads the 2♣. */
static void clubs_and_diamonds(struct engine_game *g, struct engine_rules *r)
{
    sc_rules(r, "black-lady", 4);
    const char *hands[4] = {"2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
                            "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD", NULL,
                            NULL};
    sc_start(g, r, 3, hands, NULL);
}

/* A seat void in two suits with few cards left: the deal must still put
 * the other suits' cards where they fit, every time. */
static void test_sample_voids_respected(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    clubs_and_diamonds(&g, &r);
    /* seat 1 shows void in clubs at once */
    sc_plays(&g, "2C 2D");
    check_position(&g, 7, "black-lady void");
}

/* Blind passing: seat 1 passes on, unseen, what seat 0 sent, so seat 0's
 * cards end with seat 2; seat 1's view knows nothing of them. */
static void test_sample_blind_pass(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard pass_blind=on", 4);
    const char *hands[4] = {NULL, NULL, NULL, NULL};
    sc_start(&g, &r, 3, hands, NULL);
    sc_pass(&g, 0, "5C 6C 7C");
    sc_pass_blind(&g, 1);
    sc_pass(&g, 2, "2H 3H 4H");
    sc_pass(&g, 3, "2S 3S 4S");
    check_position(&g, 3, "blind pass");
    sc_plays(&g, "2C 2D 5C 5S");
    check_position(&g, 4, "blind pass, a trick on");
}

/* Seat 2 took the QS with the KD over the 8D: it probably had no diamond
 * under the 8D, so the low diamonds go mostly to seat 3 (seat 1 is void). */
static void test_sample_weighs_overtaking(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "black-lady", 4);
    const char *hands[4] = {"8D 9D TD JD QD 2C 3C 4C 5C 6C 7C 8C 9C",
                            "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", NULL,
                            NULL};
    sc_start(&g, &r, 3, hands, NULL);
    sc_plays(&g, "8D QS KD");
    struct engine_view v;
    struct ai_sampler s;
    engine_view_make(&g, 0, &v);
    assert_int_equal(ai_sampler_init(&s, &v), 0);
    uint64_t low = sc_set("2D 3D 4D 5D 6D 7D");
    assert_true(s.unlikely[2] == low);
    assert_true(s.unlikely[1] == 0 && s.unlikely[3] == 0);
    struct engine_prng rng;
    engine_prng_seed(&rng, 11);
    int to2 = 0, to3 = 0;
    for (int i = 0; i < 400; i++) {
        struct ai_deal d;
        ai_sample(&s, &rng, &d);
        to2 += __builtin_popcountll(d.hand[2].one & low);
        to3 += __builtin_popcountll(d.hand[3].one & low);
    }
    assert_int_equal(to2 + to3, 400 * 6);
    if (to2 * 2 >= to3)
        fail_msg("seat 2 got %d low diamonds, seat 3 %d", to2, to3);
}

/* Before anyone shows a void or overtakes, the sampler deals plainly
 * (ai_sample.c's deal_plain): every card goes to every other seat with
 * the same odds, and two cards share a seat as dealt without replacement
 * (12 in 38, not 1 in 3). A seat's void ends the plain deal. */
static void test_sample_plain_odds(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    clubs_and_diamonds(&g, &r);
    struct engine_view v;
    struct ai_sampler s;
    engine_view_make(&g, 0, &v);
    assert_int_equal(ai_sampler_init(&s, &v), 0);
    assert_true(s.plain);
    assert_int_equal(s.nall, 39);
    enum { N = 6000 };
    static int at[64][ENGINE_MAX_PLAYERS];
    memset(at, 0, sizeof at);
    int together = 0;
    const int c1 = s.all[0], c2 = s.all[38];
    struct engine_prng rng;
    engine_prng_seed(&rng, 5);
    for (int i = 0; i < N; i++) {
        struct ai_deal d;
        ai_sample(&s, &rng, &d);
        check_deal(&g, &v, &s, &d, "plain");
        for (int seat = 1; seat < 4; seat++) {
            for (uint64_t m = d.hand[seat].one; m; m &= m - 1)
                at[__builtin_ctzll(m)][seat]++;
            uint64_t h = d.hand[seat].one;
            together += (h >> c1 & 1) && (h >> c2 & 1);
        }
    }
    /* 1 in 3: mean 2,000, standard deviation 36.5; five of them */
    for (int k = 0; k < s.nall; k++)
        for (int seat = 1; seat < 4; seat++)
            if (at[s.all[k]][seat] < 2000 - 183 ||
                at[s.all[k]][seat] > 2000 + 183)
                fail_msg("%s went to seat %d %d times in %d",
                         engine_card_name(s.all[k]), seat, at[s.all[k]][seat],
                         N);
    /* 12 in 38: mean 1,894.7, standard deviation 36.0 */
    if (together < 1895 - 180 || together > 1895 + 180)
        fail_msg("two cards shared a seat %d times in %d", together, N);
    /* seat 1 shows void in clubs: no longer plain */
    sc_plays(&g, "2C 2D");
    engine_view_make(&g, 0, &v);
    assert_int_equal(ai_sampler_init(&s, &v), 0);
    assert_false(s.plain);
    check_position(&g, 9, "plain, then a void");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_every_preset),
        cmocka_unit_test(test_sample_options),
        cmocka_unit_test(test_sample_voids_respected),
        cmocka_unit_test(test_sample_blind_pass),
        cmocka_unit_test(test_sample_weighs_overtaking),
        cmocka_unit_test(test_sample_plain_odds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
