/*
 * Tests of storage/record/record_write.c through whole games: every preset
 * at several player counts and many overridden options is played by a
 * small deterministic random player with the record writer attached; the
 * record is read back, serialised again, replayed with a second writer
 * attached, and must give the same line and the same final game. Journals
 * cut after every action must replay to the very state the game was in.
 * And the writer's arguments.
 */
#include "storage/record/record.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static const char *const names[ENGINE_MAX_PLAYERS] = {
    "ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy", "jo"};

/* What the records of a test held, to prove the feature under test was
 * exercised. */
struct seen {
    int games;
    int hands;
    int blind_hands;
    int discards;
    int moons;
    int scatter_hands;
};

/* ---- A random player -------------------------------------------------- */

/* k cards of h (both copies count) in random order. */
static void random_cards(struct engine_prng *rng, struct engine_cards h, int k,
                         uint8_t *out)
{
    uint8_t all[ENGINE_MAX_CARDS];
    int n = 0;
    for (int c = 0; c < 64; c++) {
        if (h.one >> c & 1)
            all[n++] = (uint8_t)c;
        if (h.two >> c & 1)
            all[n++] = (uint8_t)c;
    }
    assert_true(k <= n);
    for (int i = 0; i < k; i++) {
        int j = i + (int)engine_prng_below(rng, (uint32_t)(n - i));
        uint8_t t = all[i];
        all[i] = all[j];
        all[j] = t;
        out[i] = all[i];
    }
}

static int random_of(struct engine_prng *rng, uint64_t set)
{
    uint32_t k = engine_prng_below(rng, (uint32_t)__builtin_popcountll(set));
    while (k--)
        set &= set - 1;
    return __builtin_ctzll(set);
}

/* One random action; a seat may pass blind one time in blind_odds. */
static void random_action(const struct engine_game *g, struct engine_prng *rng,
                          int blind_odds, struct engine_action *a)
{
    memset(a, 0, sizeof *a);
    switch (engine_phase(g)) {
    case ENGINE_PHASE_PASS: {
        int s = 0;
        while (!engine_may_act(g, s))
            s++;
        bool blind;
        int k = engine_pass_count(g, s, &blind);
        a->seat = (uint8_t)s;
        if (blind && blind_odds && engine_prng_below(rng, blind_odds) == 0) {
            a->kind = ENGINE_ACT_PASS_BLIND;
        } else {
            a->kind = ENGINE_ACT_PASS;
            a->ncards = (uint8_t)k;
            random_cards(rng, engine_hand(g, s), k, a->cards);
        }
        break;
    }
    case ENGINE_PHASE_PLAY:
        a->kind = ENGINE_ACT_PLAY;
        a->seat = (uint8_t)engine_turn(g);
        a->ncards = 1;
        a->cards[0] = (uint8_t)random_of(rng, engine_legal_plays(g));
        break;
    case ENGINE_PHASE_DISCARD:
        a->kind = ENGINE_ACT_DISCARD;
        a->seat = (uint8_t)engine_turn(g);
        a->ncards = (uint8_t)engine_discard_count(g);
        random_cards(rng, engine_hand(g, a->seat), a->ncards, a->cards);
        break;
    case ENGINE_PHASE_MOON:
        a->kind = ENGINE_ACT_MOON;
        a->seat = (uint8_t)engine_turn(g);
        a->moon = engine_prng_below(rng, 2) ? ENGINE_MOON_SUBTRACT
                                            : ENGINE_MOON_ADD_OTHERS;
        break;
    default:
        fail_msg("no action in phase %d", engine_phase(g));
    }
}

/* One step: a deal or a random action. */
static void step(struct engine_game *g, const struct engine_sink *sink,
                 struct engine_prng *rng, int blind_odds)
{
    if (engine_phase(g) == ENGINE_PHASE_DEAL) {
        assert_int_equal(engine_deal(g, sink), 0);
        return;
    }
    struct engine_action a;
    random_action(g, rng, blind_odds, &a);
    assert_int_equal(engine_act(g, &a, sink, NULL), ENGINE_OK);
}

/* ---- Checking a record against a game --------------------------------- */

static void same_game(const struct engine_game *a, const struct engine_game *b)
{
    assert_int_equal(engine_phase(a), engine_phase(b));
    assert_int_equal(a->hand_no, b->hand_no);
    assert_int_equal(a->dealer, b->dealer);
    assert_int_equal(engine_turn(a), engine_turn(b));
    assert_int_equal(a->passed_mask, b->passed_mask);
    assert_int_equal(a->blind_mask, b->blind_mask);
    assert_int_equal(a->nplays, b->nplays);
    assert_memory_equal(a->plays, b->plays, a->nplays);
    assert_int_equal(a->trick_len, b->trick_len);
    assert_int_equal(a->hearts_broken, b->hearts_broken);
    assert_int_equal(a->rest_pos, b->rest_pos);
    assert_int_equal(a->in_mask, b->in_mask);
    for (int s = 0; s < a->n; s++) {
        assert_int_equal(a->hand[s].one, b->hand[s].one);
        assert_int_equal(a->hand[s].two, b->hand[s].two);
        assert_int_equal(a->taken[s].one, b->taken[s].one);
        assert_int_equal(a->taken[s].two, b->taken[s].two);
        assert_int_equal(a->totals[s], b->totals[s]);
        assert_int_equal(a->points[s], b->points[s]);
    }
    if (engine_phase(a) == ENGINE_PHASE_GAME_OVER) {
        assert_int_equal(a->nwinners, b->nwinners);
        assert_memory_equal(a->winners, b->winners, a->nwinners);
    }
}

/*
 * Reads json back, checks the serialiser gives the same line, replays it
 * with a second writer attached and checks that writer writes the same
 * line too, and that the replayed game is in g's state.
 */
static void check_record(const char *json, const struct engine_game *g,
                         struct seen *seen)
{
    char err[512] = "";
    struct record *rec = NULL;
    if (record_parse(json, strlen(json), &rec, err, sizeof err))
        fail_msg("parse: %s\n%s", err, json);
    char *again = record_to_json(rec);
    assert_string_equal(again, json);
    free(again);
    struct record_writer *w =
        record_writer_new(&rec->rules, (const char *const *)rec->names, rec->n);
    assert_non_null(w);
    struct engine_game g2;
    if (record_replay(rec, record_writer_sink(w), NULL, NULL, &g2, err,
                      sizeof err))
        fail_msg("replay: %s\n%s", err, json);
    char *json2 = record_writer_json(w);
    assert_non_null(json2);
    assert_string_equal(json2, json);
    same_game(g, &g2);
    if (seen) {
        seen->games++;
        for (int i = 0; i < rec->nhands; i++) {
            const struct record_hand *h = &rec->hands[i];
            seen->hands++;
            seen->blind_hands += h->blind != 0;
            seen->discards += h->ndiscard > 0;
            seen->moons += h->moon != RECORD_NONE;
            seen->scatter_hands += h->pass == ENGINE_PASS_SCATTER;
        }
        assert_true(rec->has_totals);
        assert_true(rec->has_winners);
        assert_memory_equal(rec->totals, g->totals,
                            sizeof(int32_t) * (size_t)g->n);
    }
    free(json2);
    record_writer_free(w);
    record_free(rec);
}

/* Plays one whole game under `text` and checks its record. */
static void round_trip(const char *text, int players, uint64_t seed,
                       int blind_odds, struct seen *seen)
{
    struct engine_rules r;
    sc_rules(&r, text, players);
    struct record_writer *w = record_writer_new(&r, names, r.players);
    assert_non_null(w);
    struct engine_game g;
    engine_game_init(&g, &r, seed, (int)(seed % (uint64_t)r.players));
    struct engine_prng rng;
    engine_prng_seed(&rng, seed * 7919 + 1);
    for (long i = 0; i < 2000000 && engine_phase(&g) != ENGINE_PHASE_GAME_OVER;
         i++)
        step(&g, record_writer_sink(w), &rng, blind_odds);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_GAME_OVER);
    char *json = record_writer_json(w);
    assert_non_null(json);
    check_record(json, &g, seen);
    free(json);
    record_writer_free(w);
}

/* ---- Round trips ------------------------------------------------------ */

static void test_record_replay_every_preset_round_trips(void **state)
{
    (void)state;
    struct seen seen = {0};
    for (int p = 0; p < engine_preset_count(); p++) {
        int min, max;
        engine_preset_players(p, &min, &max);
        int counts[3] = {min, (min + max) / 2, max};
        for (int i = 0; i < 3; i++) {
            if (i > 0 && counts[i] == counts[i - 1])
                continue;
            round_trip(engine_preset_name(p), counts[i], (uint64_t)(p * 31 + i),
                       0, &seen);
        }
    }
    assert_true(seen.games >= engine_preset_count());
}

static void test_record_replay_overridden_options_round_trip(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int players;
    } cases[] = {
        {"standard pass_cycle=scatter pass_count=2", 3},
        {"standard pass_cycle=scatter,left pass_count=4", 3},
        {"standard pass_cycle=scatter,hold", 4},
        {"standard pass_cycle=left2,right2,hold pass_count=4", 5},
        {"standard odd_cards=kitty_first_point", 5},
        {"standard odd_cards=kitty", 3},
        {"standard remove_table=bigd", 5},
        {"standard match_pairs=on exact_target_reset=half", 4},
        {"standard tie=share hands=3", 4},
        {"standard dump_queen=on first_trick_points=forbidden", 4},
        {"standard partners=individual_score", 4},
        {"partners moon=choice", 4},
        {"omnibus moon=add_unless_loses sun=on", 4},
        {"omnibus bonus_card=JD moon_keeps_bonus=off", 4},
        {"black-maria card_points=AS:5", 4},
        {"modern queen_breaks_hearts=off lead_hearts_over_queen=off", 5},
        {"tens", 3},
        {"greek target=300", 4},
        {"joker pass_count=2", 4},
        {"spot ace_spot_value=1", 4},
        {"cancellation odd_cards=kitty_exchange", 6},
        {"cancellation", 10},
        {"heartsette", 6},
        {"domino target=20", 7},
        {"two-handed target=30", 2},
        {"standard qs_points=5 card_points=QS:5", 4},
        /* none clears the preset's QH:50: the record must say so */
        {"greek card_points=none", 4},
        {"omnibus card_points=none moon_keeps_bonus=off", 4},
        /* none, then a list: the record must not read the list on top of
         * the preset's entries again */
        {"greek card_points=none,AC:2", 4},
        {"black-maria card_points=none,KS:3,2C:-4", 4},
        {"standard card_points=2C:-101,3C:-102,4C:-103,5C:-104,6C:-105,"
         "7C:-106,8C:-107,9C:-108,TC:-109,JC:-110,QC:-111,KC:-112,AC:-113,"
         "2D:-114,3D:-115,4D:-116,5D:-117,6D:-118,7D:-119,8D:-120,9D:-121,"
         "TD:-122,JD:-123,QD:-124,KD:-125,AD:-126,2S:-127,3S:-128,4S:-129 "
         "target=1000 hands=2",
         4},
    };
    struct seen seen = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        round_trip(cases[i].text, cases[i].players, 1000 + i, 0, &seen);
    assert_true(seen.scatter_hands > 0);
}

/* A game under which nobody's total grows ends after 1,000 hands, and its
 * record holds every hand and replays (ten players: the largest hands). */
static void test_record_longest_game_round_trips(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "basic card_points=2H:0,3H:0,4H:0,5H:0,6H:0,7H:0,8H:0,9H:0,TH:0,JH:0,"
        "QH:0,KH:0,AH:0",
        "cancellation qs_points=0 card_points=2H:0,3H:0,4H:0,5H:0,6H:0,7H:0,"
        "8H:0,9H:0,TH:0,JH:0,QH:0,KH:0,AH:0",
    };
    static const int players[] = {4, 10};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct seen seen = {0};
        round_trip(texts[i], players[i], 77 + i, 0, &seen);
        assert_int_equal(seen.hands, ENGINE_MAX_HANDS);
    }
}

static void test_record_replay_blind_passes_round_trip(void **state)
{
    (void)state;
    struct seen seen = {0};
    for (uint64_t seed = 0; seed < 6; seed++)
        round_trip("standard pass_blind=on", 3 + (int)(seed % 3), seed, 2,
                   &seen);
    /* seats passing blind, some hands where a whole chain did */
    assert_true(seen.blind_hands > 0);
}

static void test_record_replay_kitty_exchange_round_trips(void **state)
{
    (void)state;
    struct seen seen = {0};
    round_trip("standard odd_cards=kitty_exchange", 3, 5, 0, &seen);
    round_trip("standard odd_cards=kitty_exchange", 5, 6, 0, &seen);
    assert_true(seen.discards > 0);
}

/* ---- A moon by choice ------------------------------------------------- */

/* Deals one deck as each seat's set of cards (ascending). */
static void deal_sets(struct engine_game *g, int dealer, const uint64_t *sets,
                      const struct engine_sink *sink)
{
    const struct engine_rules *r = g->rules;
    int n = g->n;
    uint8_t hands[ENGINE_MAX_PLAYERS][ENGINE_MAX_CARDS];
    for (int s = 0; s < n; s++) {
        int k = 0;
        for (int c = 0; c < 64; c++)
            if (sets[s] >> c & 1)
                hands[s][k++] = (uint8_t)c;
        assert_int_equal(k, r->hand_size);
    }
    uint8_t pack[ENGINE_MAX_CARDS];
    for (int k = 0; k < n * r->hand_size; k++)
        pack[k] = hands[(dealer + 1 + k) % n][k / n];
    assert_int_equal(
        engine_deal_given(g, dealer, pack, r->deck_len, sink, NULL), 0);
}

/* Party rules with the moon by choice: seat 0 holds every heart and leads
 * (left of dealer 3), so it takes every trick and shoots the moon. */
static void moon_game(struct engine_rules *r, struct engine_game *g,
                      struct record_writer **w)
{
    sc_rules(r, "party moon=choice pass_count=0", 4);
    *w = record_writer_new(r, names, 4);
    assert_non_null(*w);
    engine_game_init(g, r, 9, 3);
    uint64_t sets[4] = {ENGINE_SUIT_MASK(ENGINE_HEARTS) & r->in_play,
                        ENGINE_SUIT_MASK(ENGINE_CLUBS) & r->in_play,
                        ENGINE_SUIT_MASK(ENGINE_DIAMONDS) & r->in_play,
                        ENGINE_SUIT_MASK(ENGINE_SPADES) & r->in_play};
    deal_sets(g, 3, sets, record_writer_sink(*w));
    struct engine_prng rng;
    engine_prng_seed(&rng, 3);
    while (engine_phase(g) == ENGINE_PHASE_PLAY)
        step(g, record_writer_sink(*w), &rng, 0);
}

static void test_record_replay_moon_choice_round_trips(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    struct record_writer *w;
    moon_game(&r, &g, &w);
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_MOON);
    assert_int_equal(engine_turn(&g), 0);
    /* a journal may stop while the shooter chooses */
    char *json = record_writer_json(w);
    assert_non_null(strstr(json, "\"moon\":null"));
    check_record(json, &g, NULL);
    free(json);
    struct engine_action a = {
        .kind = ENGINE_ACT_MOON, .seat = 0, .moon = ENGINE_MOON_ADD_OTHERS};
    assert_int_equal(engine_act(&g, &a, record_writer_sink(w), NULL),
                     ENGINE_OK);
    assert_int_equal(g.points[1], 26);
    struct engine_prng rng;
    engine_prng_seed(&rng, 4);
    while (engine_phase(&g) != ENGINE_PHASE_GAME_OVER)
        step(&g, record_writer_sink(w), &rng, 0);
    json = record_writer_json(w);
    assert_non_null(strstr(json, "\"moon\":\"add_others\",\"points\":[0,26,"
                                 "26,26]"));
    struct seen seen = {0};
    check_record(json, &g, &seen);
    assert_true(seen.moons >= 1);
    free(json);
    record_writer_free(w);
}

/* ---- Journals --------------------------------------------------------- */

/* Plays a game, checking after each action (every one in the first two
 * hands, then every 23rd) that the journal so far replays to the game.
 * Before the first deal a record has no hand to name the first dealer,
 * so journals start with the first deal (docs/records.md). */
static void journal_game(const char *text, int players, uint64_t seed,
                         int blind_odds)
{
    struct engine_rules r;
    sc_rules(&r, text, players);
    struct record_writer *w = record_writer_new(&r, names, r.players);
    assert_non_null(w);
    struct engine_game g;
    engine_game_init(&g, &r, seed, 1);
    struct engine_prng rng;
    engine_prng_seed(&rng, seed);
    for (long i = 0; engine_phase(&g) != ENGINE_PHASE_GAME_OVER; i++) {
        assert_true(i < 2000000);
        if (g.hand_no > 0 && (g.hand_no <= 2 || i % 23 == 0)) {
            char *json = record_writer_json(w);
            check_record(json, &g, NULL);
            free(json);
        }
        step(&g, record_writer_sink(w), &rng, blind_odds);
    }
    record_writer_free(w);
}

static void test_record_writer_json_journal_replays_to_the_game(void **state)
{
    (void)state;
    journal_game("standard", 4, 1, 0);
    journal_game("standard pass_blind=on", 4, 2, 2);
    journal_game("standard odd_cards=kitty_exchange", 3, 3, 0);
    journal_game("standard pass_cycle=scatter pass_count=2", 3, 4, 0);
    journal_game("domino", 5, 5, 0);
    journal_game("two-handed", 2, 6, 0);
    journal_game("cancellation odd_cards=kitty_exchange", 6, 7, 0);
}

static void test_record_writer_json_before_the_first_deal(void **state)
{
    (void)state;
    struct engine_rules r;
    sc_rules(&r, "standard moon=subtract target=50", 3);
    struct record_writer *w = record_writer_new(&r, names, 3);
    char *json = record_writer_json(w);
    assert_string_equal(json, "{\"format\":\"hearts-record/1\",\"preset\":"
                              "\"standard\",\"options\":{\"moon\":"
                              "\"subtract\",\"target\":50},\"players\":["
                              "\"ann\",\"bob\",\"cy\"],\"hands\":[]}");
    struct engine_game g;
    engine_game_init(&g, &r, 1, 0);
    check_record(json, &g, NULL);
    free(json);
    record_writer_free(w);
}

/* ---- The writer's arguments ------------------------------------------- */

static void test_record_writer_new_refuses_bad_arguments(void **state)
{
    (void)state;
    struct engine_rules r;
    sc_rules(&r, "standard", 4);
    assert_null(record_writer_new(&r, names, 3));
    const char *with_null[4] = {"a", "b", NULL, "d"};
    assert_null(record_writer_new(&r, with_null, 4));
    char long_name[RECORD_MAX_NAME + 2];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    const char *with_long[4] = {"a", "b", long_name, "d"};
    assert_null(record_writer_new(&r, with_long, 4));
    struct engine_rules unfinished;
    assert_int_equal(engine_rules_init(&unfinished, "standard", NULL), 0);
    assert_null(record_writer_new(&unfinished, names, 4));
    record_writer_free(NULL);
    record_free(NULL);
}

static void test_record_writer_new_names_become_utf8(void **state)
{
    (void)state;
    struct engine_rules r;
    sc_rules(&r, "standard", 3);
    const char *odd[3] = {"caf\xe9", "\xc3\xa9t\xc3\xa9", "a/b\"c\\"};
    struct record_writer *w = record_writer_new(&r, odd, 3);
    char *json = record_writer_json(w);
    assert_non_null(strstr(json, "[\"caf?\",\"\xc3\xa9t\xc3\xa9\","
                                 "\"a/b\\\"c\\\\\"]"));
    char err[256];
    assert_int_equal(record_check(json, strlen(json), err, sizeof err), 0);
    free(json);
    record_writer_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_replay_every_preset_round_trips),
        cmocka_unit_test(test_record_replay_overridden_options_round_trip),
        cmocka_unit_test(test_record_longest_game_round_trips),
        cmocka_unit_test(test_record_replay_blind_passes_round_trip),
        cmocka_unit_test(test_record_replay_kitty_exchange_round_trips),
        cmocka_unit_test(test_record_replay_moon_choice_round_trips),
        cmocka_unit_test(test_record_writer_json_journal_replays_to_the_game),
        cmocka_unit_test(test_record_writer_json_before_the_first_deal),
        cmocka_unit_test(test_record_writer_new_refuses_bad_arguments),
        cmocka_unit_test(test_record_writer_new_names_become_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
