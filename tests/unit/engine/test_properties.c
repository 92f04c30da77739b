/*
 * Property tests of the engine over many simulated games: every preset for
 * every player count it allows, and a set of option mixes, played by
 * random players (random passes, blind passes where allowed, random
 * discards, random or default moon answers). At every step the invariants
 * of invariants.h hold (cards, legal plays and refusals, scoring against
 * an independent oracle, the end of the game); the same seed gives the
 * same game; games end.
 *
 * HEARTS_PROPERTY_GAMES sets roughly how many games are played in all.
 * test_random_rules.c does the same over random option combinations.
 */
#include "tests/support/invariants.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_GAMES 20000
#define MAX_HANDS 1000

struct config {
    const char *text;
    int players;
};

/* Option mixes on top of the presets (the presets themselves are run for
 * every player count from the preset table). */
static const struct config mixes[] = {
    {"standard pass_blind=on", 3},
    {"standard pass_blind=on", 4},
    {"standard pass_blind=on pass_cycle=left,right,across,left2,right2", 5},
    {"standard pass_blind=on pass_count=4", 7},
    {"standard odd_cards=kitty", 3},
    {"standard odd_cards=kitty", 6},
    {"standard odd_cards=kitty_first_point", 5},
    {"standard odd_cards=kitty_first_point", 7},
    {"standard odd_cards=kitty_exchange", 3},
    {"standard odd_cards=kitty_exchange", 6},
    {"standard odd_cards=faceup_leftover", 5},
    {"standard lowest_club_fallback=first_left_with_clubs odd_cards=kitty", 3},
    {"standard lowest_club_fallback=first_left_with_clubs "
     "odd_cards=kitty_exchange",
     5},
    {"standard sun=on", 4},
    {"standard sun=on moon=add_unless_loses", 3},
    {"omnibus match_pairs=on", 4},
    {"omnibus match_pairs=on sun=on moon_keeps_bonus=off", 5},
    {"standard tie=share", 4},
    {"standard hands=3", 4},
    {"standard hands=2 tie=share target=1000", 3},
    {"standard exact_target_reset=half", 4},
    {"standard exact_target_reset=zero moon=add_unless_loses", 4},
    {"partners partners=individual_score", 4},
    {"partners moon=add_unless_loses sun=on match_pairs=on", 4},
    {"partners partners=individual_score moon=add_unless_loses tie=share", 4},
    {"standard first_trick_points=forbidden dump_queen=on", 3},
    {"standard first_trick_points=forbidden dump_queen=on", 4},
    {"standard first_trick_points=forbidden dump_queen=on", 7},
    {"black-maria first_trick_points=forbidden dump_queen=on moon=subtract", 4},
    {"standard pass_cycle=scatter", 4},
    {"standard pass_cycle=scatter pass_count=2", 3},
    {"standard pass_cycle=left,scatter pass_count=4", 3},
    {"standard pass_cycle=scatter pass_count=4", 5},
    {"standard pass_cycle=across", 5},
    {"standard pass_cycle=left,right,left2,hold,left,right,right2,hold", 5},
    {"standard remove_table=bigd", 5},
    {"standard remove_table=modern", 6},
    {"standard queen_breaks_hearts=on lead_hearts_over_queen=off", 4},
    {"party first_trick_points=forbidden", 4},
    {"standard heart_points=spot ace_spot_value=1 card_points=QH:50", 4},
    {"modern bonus_points=5", 4},
    {"black-maria moon=choice sun=on", 4},
    {"greek moon=choice pass_blind=on", 4},
    {"joker hearts_lead=any moon=subtract", 4},
    {"joker qs_points=13 moon=choice first_trick_points=forbidden "
     "dump_queen=on",
     5},
    {"heartsette pass_count=3 pass_blind=on", 3},
    {"heartsette moon=subtract sun=on", 6},
    {"domino moon=subtract sun=on", 3},
    {"domino hearts_lead=any qs_points=13 moon=choice", 5},
    {"two-handed moon=choice sun=on pass_count=3", 2},
    {"cancellation moon=add_unless_loses sun=on", 6},
    {"cancellation pass_count=3 pass_blind=on", 7},
    {"cancellation odd_cards=kitty_first_point", 9},
    {"cancellation odd_cards=kitty_exchange", 10},
    {"cancellation odd_cards=remove match_pairs=on", 8},
    {"cancellation first_trick_points=forbidden dump_queen=on tie=share", 6},
    {"cancellation odd_cards=faceup_leftover exact_target_reset=half", 7},
};

#define NMIXES ((int)(sizeof mixes / sizeof mixes[0]))

/* ---- A game ------------------------------------------------------------ */

struct stats {
    long games, hands, moons, plays;
};

/* Plays one whole game; returns its trace. */
static struct prop_trace play_game(const struct engine_rules *r, uint64_t seed,
                                   struct prop_run *ru, struct stats *st)
{
    struct engine_game g;
    struct engine_prng p;
    struct prop_trace tr = {0, 0, 0};
    struct engine_sink sink = {prop_trace_event, &tr};
    engine_game_init(&g, r, seed, (int)(seed % (uint64_t)r->players));
    engine_prng_seed(&p, seed ^ 0xA5A5A5A5DEADBEEFull);
    int32_t before[ENGINE_MAX_PLAYERS];
    ru->hand = 0;
    for (int steps = 0;; steps++) {
        if (steps > MAX_HANDS * 400)
            fail_msg("%s: the game does not end", ru->what);
        int phase = engine_phase(&g);
        if (phase == ENGINE_PHASE_GAME_OVER)
            break;
        int scored = tr.hands_scored;
        switch (phase) {
        case ENGINE_PHASE_DEAL: {
            if (g.hand_no >= MAX_HANDS)
                fail_msg("%s: %d hands and no end", ru->what, g.hand_no);
            prop_deal(&g, before, &sink, ru);
            /* the unchecked play-out on a copy scores the same way */
            if (engine_phase(&g) == ENGINE_PHASE_PLAY &&
                engine_prng_below(&p, 4) == 0) {
                struct engine_game copy = g;
                struct engine_prng q = p;
                engine_playout(&copy, &q);
                if (copy.phase != ENGINE_PHASE_DEAL &&
                    copy.phase != ENGINE_PHASE_GAME_OVER)
                    fail_msg("%s hand %d: playout ends in phase %d", ru->what,
                             ru->hand, copy.phase);
                prop_check_cards(&copy, ru, "after engine_playout");
                prop_check_scored(&copy, before, ru);
            }
            break;
        }
        case ENGINE_PHASE_PASS: {
            /* seats choose in a random order */
            int order[ENGINE_MAX_PLAYERS];
            for (int s = 0; s < g.n; s++)
                order[s] = s;
            for (int s = g.n - 1; s > 0; s--) {
                int j = (int)engine_prng_below(&p, (uint32_t)s + 1);
                int t = order[s];
                order[s] = order[j];
                order[j] = t;
            }
            for (int i = 0; i < g.n && (int)engine_phase(&g) == phase; i++) {
                int s = order[i];
                if (!engine_may_act(&g, s))
                    continue;
                bool blind;
                int k = engine_pass_count(&g, s, &blind);
                if (k != r->pass_count)
                    fail_msg("%s hand %d: seat %d passes %d", ru->what,
                             ru->hand, s, k);
                struct engine_action a = {.kind = ENGINE_ACT_PASS,
                                          .seat = (uint8_t)s};
                if (k > 1) {
                    /* one card too few is refused and changes nothing */
                    struct engine_game b2;
                    memcpy(&b2, &g, sizeof b2);
                    prop_random_cards(&p, g.hand[s], k - 1, &a);
                    if (engine_act(&g, &a, NULL, NULL) !=
                        ENGINE_REFUSE_PASS_COUNT)
                        fail_msg("%s: a short pass was taken", ru->what);
                    prop_expect_unchanged(&g, &b2, ru, "pass");
                }
                if (blind && engine_prng_below(&p, 3) == 0) {
                    a.kind = ENGINE_ACT_PASS_BLIND;
                    a.ncards = 0;
                } else {
                    if (!blind && r->pass_blind &&
                        engine_prng_below(&p, 8) == 0) {
                        struct engine_action b = {.kind = ENGINE_ACT_PASS_BLIND,
                                                  .seat = (uint8_t)s};
                        if (engine_act(&g, &b, NULL, NULL) !=
                            ENGINE_REFUSE_BLIND_NOT_ALLOWED)
                            fail_msg("%s: blind scatter pass taken", ru->what);
                    }
                    prop_random_cards(&p, g.hand[s], k, &a);
                }
                if (engine_act(&g, &a, &sink, NULL))
                    fail_msg("%s hand %d: seat %d's pass refused", ru->what,
                             ru->hand, s);
                prop_check_cards(&g, ru, "passing");
            }
            if (engine_phase(&g) == ENGINE_PHASE_PLAY)
                prop_check_after_pass(&g, ru);
            break;
        }
        case ENGINE_PHASE_PLAY: {
            prop_check_play(&g, &p, ru);
            int c = prop_pick_bit(&p, engine_legal_plays(&g));
            if (engine_play(&g, c, &sink, NULL))
                fail_msg("%s hand %d: legal %s refused", ru->what, ru->hand,
                         engine_card_name(c));
            st->plays++;
            break;
        }
        case ENGINE_PHASE_DISCARD: {
            int k = engine_discard_count(&g);
            int s = engine_turn(&g);
            if (k != r->rest_len || s != g.rest_taker)
                fail_msg("%s hand %d: discard %d by %d", ru->what, ru->hand, k,
                         s);
            struct engine_action a = {.kind = ENGINE_ACT_DISCARD,
                                      .seat = (uint8_t)s};
            prop_random_cards(&p, g.hand[s], k, &a);
            if (engine_act(&g, &a, &sink, NULL))
                fail_msg("%s hand %d: discard refused", ru->what, ru->hand);
            break;
        }
        case ENGINE_PHASE_MOON: {
            int s = engine_turn(&g);
            int def = engine_moon_default(&g);
            if (def != ENGINE_MOON_SUBTRACT && def != ENGINE_MOON_ADD_OTHERS)
                fail_msg("%s hand %d: moon default %d", ru->what, ru->hand,
                         def);
            if (r->moon != ENGINE_MOON_CHOICE)
                fail_msg("%s hand %d: a choice under moon %d", ru->what,
                         ru->hand, r->moon);
            int mode = engine_prng_below(&p, 2)   ? def
                       : engine_prng_below(&p, 2) ? ENGINE_MOON_SUBTRACT
                                                  : ENGINE_MOON_ADD_OTHERS;
            struct engine_action a = {.kind = ENGINE_ACT_MOON,
                                      .seat = (uint8_t)s,
                                      .moon = (uint8_t)mode};
            if (engine_act(&g, &a, &sink, NULL))
                fail_msg("%s hand %d: moon answer refused", ru->what, ru->hand);
            break;
        }
        default:
            fail_msg("%s: phase %d", ru->what, phase);
        }
        prop_check_cards(&g, ru, "after an action");
        if (tr.hands_scored != scored) {
            st->hands++;
            prop_check_scored(&g, before, ru);
        }
    }
    if (g.hand_no < 1 || g.hand_no != tr.hands_scored)
        fail_msg("%s: %d hands dealt, %d scored", ru->what, g.hand_no,
                 tr.hands_scored);
    if (r->hands > 0 && g.hand_no < r->hands)
        fail_msg("%s: over after %d of %d hands", ru->what, g.hand_no,
                 r->hands);
    prop_mix(&tr.hash, g.hand_no);
    for (int s = 0; s < g.n; s++)
        prop_mix(&tr.hash, (uint64_t)(int64_t)g.totals[s]);
    st->moons += tr.moons;
    st->games++;
    return tr;
}

static int total_games(void)
{
    const char *e = getenv("HEARTS_PROPERTY_GAMES");
    if (e && *e) {
        int v = atoi(e);
        if (v > 0)
            return v;
    }
    return DEFAULT_GAMES;
}

/* The number of configurations: every preset for every player count,
 * and the mixes. */
static int config_count(void)
{
    int k = NMIXES;
    for (int p = 0; p < engine_preset_count(); p++) {
        int min, max;
        engine_preset_players(p, &min, &max);
        k += max - min + 1;
    }
    return k;
}

static void run_config(const char *text, int players, int games, uint64_t base,
                       struct stats *st)
{
    struct engine_rules r;
    sc_rules(&r, text, players);
    struct prop_run ru = {text, 0, 0, ""};
    for (int i = 0; i < games; i++) {
        ru.seed = base * 1000003u + (uint64_t)i;
        snprintf(ru.what, sizeof ru.what, "'%s' for %d, seed %llu", text,
                 players, (unsigned long long)ru.seed);
        struct prop_trace a = play_game(&r, ru.seed, &ru, st);
        if (i < 2) {
            /* the same seed gives the same game */
            struct stats dummy = {0, 0, 0, 0};
            struct prop_trace b = play_game(&r, ru.seed, &ru, &dummy);
            if (a.hash != b.hash || a.hands_scored != b.hands_scored)
                fail_msg("%s: the same seed gave another game", ru.what);
            /* and another seed another one */
            struct prop_trace c = play_game(&r, ru.seed + 7777, &ru, &dummy);
            if (c.hash == a.hash)
                fail_msg("%s: seeds %llu and +7777 gave the same game", ru.what,
                         (unsigned long long)ru.seed);
        }
    }
}

static void test_properties_every_preset_and_player_count(void **state)
{
    (void)state;
    int per = total_games() / config_count();
    if (per < 1)
        per = 1;
    struct stats st = {0, 0, 0, 0};
    for (int p = 0; p < engine_preset_count(); p++) {
        int min, max;
        engine_preset_players(p, &min, &max);
        for (int n = min; n <= max; n++)
            run_config(engine_preset_name(p), n, per, (uint64_t)(p * 16 + n),
                       &st);
    }
    print_message("presets: %ld games, %ld hands, %ld plays, %ld moons\n",
                  st.games, st.hands, st.plays, st.moons);
    assert_true(st.moons > 0);
}

static void test_properties_option_mixes(void **state)
{
    (void)state;
    int per = total_games() / config_count();
    if (per < 1)
        per = 1;
    struct stats st = {0, 0, 0, 0};
    for (int i = 0; i < NMIXES; i++)
        run_config(mixes[i].text, mixes[i].players, per, (uint64_t)(1000 + i),
                   &st);
    print_message("mixes: %ld games, %ld hands, %ld plays, %ld moons\n",
                  st.games, st.hands, st.plays, st.moons);
    assert_true(st.moons > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_properties_every_preset_and_player_count),
        cmocka_unit_test(test_properties_option_mixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
