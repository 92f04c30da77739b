/*
 * Tests of storage/record/record_replay.c on records that read well but
 * must be refused: a deal that is not the pack, an action the rules
 * refuse, wrong points, totals or winners, actions after the end, a
 * missing or needless discard or moon choice; each with a message naming
 * the hand and action. And the step callback, called before every action.
 */
#include "storage/record/record.h"
#include "tests/support/record_cases.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* ---- Deals ------------------------------------------------------------ */

static void test_record_replay_duplicate_card_in_deal(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    char needle[64];
    snprintf(needle, sizeof needle,
             "hand 2: deal: %s is dealt twice and %s "
             "is missing",
             engine_card_name(rec->hands[1].deal[0][0]),
             engine_card_name(rec->hands[1].deal[1][0]));
    rec->hands[1].deal[1][0] = rec->hands[1].deal[0][0];
    rc_refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_card_not_in_pack(void **state)
{
    (void)state;
    /* three players: the 2D is out of the pack */
    struct record *rec = rc_game_record("standard", 3, false, 1);
    char needle[64];
    snprintf(needle, sizeof needle,
             "hand 1: deal: 2D is not in this game's pack and %s is missing",
             engine_card_name(rec->hands[0].deal[2][5]));
    rec->hands[0].deal[2][5] = ENGINE_CARD(ENGINE_DIAMONDS, 0);
    rc_refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_wrong_deal_sizes(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rec->hands[0].ndeal[3] = 12;
    rc_refused(rec, "hand 1: deal: seat 3 is dealt 12 cards, not 13");
    rec->hands[0].ndeal[3] = 13;
    rec->hands[0].nrest = 1;
    rec->hands[0].rest[0] = ENGINE_QS;
    rc_refused(rec, "hand 1: rest: 1 cards, not 0");
    record_free(rec);
}

static void test_record_replay_dealer_must_rotate(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rec->hands[2].dealer = (rec->hands[2].dealer + 1) % 4;
    rc_refused(rec, "hand 3: dealer: seat 3, but the deal passes clockwise "
                    "from seat 0 (hand 1) to seat 2");
    record_free(rec);
}

static void test_record_replay_pass_direction_must_match(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rec->hands[0].pass = ENGINE_PASS_RIGHT;
    rc_refused(rec, "hand 1: pass: \"right\", but the rules make it \"left\"");
    record_free(rec);
}

/* ---- Passes ----------------------------------------------------------- */

static void test_record_replay_pass_of_wrong_count(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rec->hands[0].npassed[1] = 2;
    rc_refused(rec, "hand 1, action 2: seat 1 passes 2 cards");
    rec->hands[0].npassed[1] = 0;
    rc_refused(rec, "hand 1, action 2: seat 1 passes 0 cards (nothing), not 3");
    record_free(rec);
}

static void test_record_replay_pass_of_card_not_held(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    int card = rec->hands[0].deal[0][0];
    rec->hands[0].passed[2][1] = (uint8_t)card;
    char needle[80];
    snprintf(needle, sizeof needle,
             "hand 1, action 3: seat 2 passes %s, which it does not hold",
             engine_card_name(card));
    rc_refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_blind_pass_checks(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rec->hands[0].blind = 1u << 2;
    rc_refused(rec, "hand 1, action 3: seat 2 may not pass blind");
    record_free(rec);

    rec = rc_game_record("standard pass_blind=on", 4, true, 3);
    struct record_hand *h = &rec->hands[0];
    assert_int_equal(h->blind, 0xA); /* seats 1 and 3 */
    assert_int_equal(h->npassed[1], 3);
    /* seat 1 passed on what seat 0 chose */
    assert_memory_equal(h->passed[1], h->passed[0], 3);
    h->passed[1][0] = h->passed[0][1];
    h->passed[1][1] = h->passed[0][0];
    char needle[128], a[16], b[16];
    snprintf(a, sizeof a, "%s %s %s", engine_card_name(h->passed[0][0]),
             engine_card_name(h->passed[0][1]),
             engine_card_name(h->passed[0][2]));
    snprintf(b, sizeof b, "%s %s %s", engine_card_name(h->passed[1][0]),
             engine_card_name(h->passed[1][1]),
             engine_card_name(h->passed[1][2]));
    snprintf(needle, sizeof needle,
             "hand 1, action 2: seat 1 passed blind, so it passed on %s, "
             "not %s",
             a, b);
    rc_refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_passes_in_hold_hand(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    assert_int_equal(rec->hands[3].pass, ENGINE_PASS_HOLD);
    rec->hands[3].npassed[0] = 1;
    rec->hands[3].passed[0][0] = rec->hands[3].deal[0][0];
    rc_refused(rec, "hand 4: passed: seat 0 passes in a hand without passing");
    record_free(rec);
}

/* ---- Plays ------------------------------------------------------------ */

/* Finds, with the step callback, the first play where the seat could
 * break a rule: hold a card of the suit led and one of another suit
 * (kind 0), or simply follow a lead (kind 1: then a card it does not hold
 * is taken from the next seat). */
struct find {
    int kind;
    bool found;
    int hand, action, index, seat, card;
    int suit;
};

static void find_step(void *ctx, const struct engine_game *g, int hand,
                      int action, const struct engine_action *a)
{
    struct find *f = ctx;
    if (f->found || a->kind != ENGINE_ACT_PLAY || g->trick_len == 0)
        return;
    int led = engine_card_suit(g->trick[0]);
    uint64_t h = engine_hand(g, a->seat).one;
    uint64_t off = h & ~ENGINE_SUIT_MASK(led);
    if (f->kind == 0 && (h & ENGINE_SUIT_MASK(led)) && off) {
        f->card = rc_lowest(off);
    } else if (f->kind == 1) {
        f->card = rc_lowest(engine_hand(g, (a->seat + 1) % g->n).one);
    } else {
        return;
    }
    f->found = true;
    f->hand = hand;
    f->action = action;
    f->index = g->nplays;
    f->seat = a->seat;
    f->suit = led;
}

static void test_record_replay_illegal_play_not_following(void **state)
{
    (void)state;
    static const char *const suits[] = {"clubs", "diamonds", "hearts",
                                        "spades"};
    struct record *rec = rc_standard_record();
    struct find f = {.kind = 0};
    assert_int_equal(record_replay(rec, NULL, find_step, &f, NULL, NULL, 0), 0);
    assert_true(f.found);
    rec->hands[f.hand - 1].plays[f.index] = (uint8_t)f.card;
    char needle[128];
    snprintf(needle, sizeof needle,
             "hand %d, action %d: seat %d plays %s but must follow %s", f.hand,
             f.action, f.seat, engine_card_name(f.card), suits[f.suit]);
    rc_refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_play_of_card_not_held(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    struct find f = {.kind = 1};
    assert_int_equal(record_replay(rec, NULL, find_step, &f, NULL, NULL, 0), 0);
    assert_true(f.found);
    rec->hands[f.hand - 1].plays[f.index] = (uint8_t)f.card;
    char needle[128];
    snprintf(needle, sizeof needle,
             "hand %d, action %d: seat %d plays %s, which it does not hold",
             f.hand, f.action, f.seat, engine_card_name(f.card));
    rc_refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_first_lead_must_be_two_clubs(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    /* hand 4 holds (no passing): its first play is action 1 */
    struct record_hand *h = &rec->hands[3];
    assert_int_equal(h->plays[0], ENGINE_2C);
    int seat = 0;
    uint64_t held = 0;
    for (int s = 0; s < 4; s++) {
        uint64_t set = 0;
        for (int i = 0; i < h->ndeal[s]; i++)
            set |= ENGINE_BIT(h->deal[s][i]);
        if (set & ENGINE_BIT(ENGINE_2C)) {
            seat = s;
            held = set;
        }
    }
    assert_true(held & ENGINE_BIT(ENGINE_2C));
    int other = rc_lowest(held & ~ENGINE_BIT(ENGINE_2C));
    h->plays[0] = (uint8_t)other;
    char needle[128];
    snprintf(needle, sizeof needle,
             "hand 4, action 1: seat %d leads %s but must lead 2C", seat,
             engine_card_name(other));
    rc_refused(rec, needle);
    record_free(rec);
}

/* ---- Points, totals, winners ------------------------------------------ */

static void test_record_replay_wrong_points(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    int right = rec->hands[1].points[2];
    rec->hands[1].points[2] = right + 1;
    char needle[96];
    snprintf(needle, sizeof needle,
             "hand 2: points: seat 2 scores %d, the record says %d", right,
             right + 1);
    rc_refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_wrong_totals(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    int right = rec->totals[3];
    rec->totals[3] = right - 5;
    char needle[96];
    snprintf(needle, sizeof needle, "totals: seat 3 has %d, the record says %d",
             right, right - 5);
    rc_refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_wrong_winners(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    assert_int_equal(rec->nwinners, 1);
    int right = rec->winners[0];
    rec->winners[0] = (uint8_t)((right + 1) % 4);
    char needle[96];
    snprintf(needle, sizeof needle, "winners: seats %d win, the record says %d",
             right, (right + 1) % 4);
    rc_refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_totals_before_game_over(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rec->nhands--;
    rc_refused(rec, "totals: given, but the game is not over");
    rec->has_totals = false;
    rc_refused(rec, "winners: given, but the game is not over");
    rec->has_winners = false;
    char *json = record_to_json(rec);
    rc_accepted_line(json); /* a journal between two hands */
    free(json);
    record_free(rec);
}

/* ---- The end of hands and games --------------------------------------- */

static void test_record_replay_actions_after_game_over(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    int n = rec->nhands;
    rec->hands = realloc(rec->hands, sizeof *rec->hands * (size_t)(n + 1));
    assert_non_null(rec->hands);
    rec->hands[n] = rec->hands[n - 1];
    rec->hands[n].dealer = (rec->hands[n].dealer + 1) % 4;
    rec->nhands = n + 1;
    char needle[96];
    snprintf(needle, sizeof needle,
             "hand %d: the game was over after hand %d, but the record goes "
             "on",
             n + 1, n);
    rc_refused(rec, needle);
    record_free(rec);
}

static void test_record_replay_plays_after_hand_over(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    struct record_hand *h = &rec->hands[0];
    assert_int_equal(h->nplays, 52);
    h->plays[52] = h->plays[0];
    h->nplays = 53;
    /* 4 passes and 52 plays: the 53rd play is action 57 */
    rc_refused(rec, "hand 1, action 57: the hand is over, but the record "
                    "plays on (2C)");
    record_free(rec);
}

static void test_record_replay_unfinished_hand_then_more(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rec->hands[0].nplays = 10;
    rc_refused(rec, "hand 1, action 15: the hand is not finished, but the "
                    "record goes on");
    rec->nhands = 1;
    rec->has_totals = rec->has_winners = false;
    rc_refused(rec, "hand 1: points: given, but the hand is not finished");
    rec->hands[0].has_points = false;
    char *json = record_to_json(rec);
    rc_accepted_line(json); /* the same as a journal */
    free(json);
    record_free(rec);
}

static void test_record_replay_discard_checks(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    rec->hands[0].ndiscard = 1;
    rec->hands[0].discard[0] = rec->hands[0].plays[51];
    rc_refused(rec, "hand 1: discard: given, but nobody took a kitty");
    record_free(rec);

    rec = rc_game_record("standard odd_cards=kitty_exchange", 3, false, 8);
    assert_int_equal(rec->hands[0].ndiscard, 1);
    /* 3 passes, the first trick: the discard is action 7 */
    rec->hands[0].ndiscard = 0;
    rc_refused(rec, "hand 1, action 7: seat");
    rc_refused(rec, "must discard 1 cards, but the record plays on (discard is "
                    "missing)");
    record_free(rec);
}

static void test_record_replay_moon_missing(void **state)
{
    (void)state;
    struct record *rec = rc_moon_record();
    assert_int_equal(rec->hands[0].moon, ENGINE_MOON_SUBTRACT);
    assert_int_equal(rec->hands[0].points[0], -26);
    rec->hands[0].moon = RECORD_NONE;
    /* no passing: 52 plays, then the choice */
    rc_refused(rec, "hand 1, action 53: seat 0 shot the moon and chooses, but "
                    "moon is missing");
    rec->hands[0].has_points = false;
    char *json = record_to_json(rec);
    rc_accepted_line(json); /* a journal may stop while the shooter chooses */
    free(json);
    rec->hands[0].moon = ENGINE_MOON_ADD_OTHERS;
    rec->hands[0].has_points = true;
    rc_refused(rec, "hand 1: points: seat 0 scores 0, the record says -26");
    record_free(rec);
}

static void test_record_replay_moon_where_none(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    assert_int_equal(rec->hands[0].moon, RECORD_NONE);
    rec->hands[0].moon = ENGINE_MOON_SUBTRACT;
    rc_refused(rec, "hand 1: moon: given, but nobody shot the moon");
    record_free(rec);
    rec = rc_game_record("modern", 4, false, 5);
    rec->hands[0].moon = ENGINE_MOON_SUBTRACT;
    rc_refused(rec, "hand 1: moon: given, but the rules are not moon=choice");
    record_free(rec);
}

/* ---- The step callback ------------------------------------------------ */

struct steps {
    int calls;
    int passes, plays, moons;
    int last_hand, last_action;
    bool numbered;
};

static void count_step(void *ctx, const struct engine_game *g, int hand,
                       int action, const struct engine_action *a)
{
    struct steps *st = ctx;
    st->calls++;
    /* numbers restart at 1 in each hand and go up by one */
    if (hand != st->last_hand)
        st->numbered = st->numbered && action == 1 && hand == st->last_hand + 1;
    else
        st->numbered = st->numbered && action == st->last_action + 1;
    st->last_hand = hand;
    st->last_action = action;
    assert_true(engine_may_act(g, a->seat));
    if (a->kind == ENGINE_ACT_PLAY) {
        st->plays++;
        assert_true(engine_legal_plays(g) >> a->cards[0] & 1);
    } else if (a->kind == ENGINE_ACT_MOON) {
        st->moons++;
    } else {
        st->passes++;
    }
}

static void test_record_replay_calls_step_before_every_action(void **state)
{
    (void)state;
    struct record *rec = rc_moon_record();
    struct steps st = {.numbered = true};
    assert_int_equal(record_replay(rec, NULL, count_step, &st, NULL, NULL, 0),
                     0);
    assert_int_equal(st.plays, 52);
    assert_int_equal(st.moons, 1);
    assert_int_equal(st.passes, 0);
    assert_int_equal(st.last_action, 53);
    assert_true(st.numbered);
    record_free(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_replay_duplicate_card_in_deal),
        cmocka_unit_test(test_record_replay_card_not_in_pack),
        cmocka_unit_test(test_record_replay_wrong_deal_sizes),
        cmocka_unit_test(test_record_replay_dealer_must_rotate),
        cmocka_unit_test(test_record_replay_pass_direction_must_match),
        cmocka_unit_test(test_record_replay_pass_of_wrong_count),
        cmocka_unit_test(test_record_replay_pass_of_card_not_held),
        cmocka_unit_test(test_record_replay_blind_pass_checks),
        cmocka_unit_test(test_record_replay_passes_in_hold_hand),
        cmocka_unit_test(test_record_replay_illegal_play_not_following),
        cmocka_unit_test(test_record_replay_play_of_card_not_held),
        cmocka_unit_test(test_record_replay_first_lead_must_be_two_clubs),
        cmocka_unit_test(test_record_replay_wrong_points),
        cmocka_unit_test(test_record_replay_wrong_totals),
        cmocka_unit_test(test_record_replay_wrong_winners),
        cmocka_unit_test(test_record_replay_totals_before_game_over),
        cmocka_unit_test(test_record_replay_actions_after_game_over),
        cmocka_unit_test(test_record_replay_plays_after_hand_over),
        cmocka_unit_test(test_record_replay_unfinished_hand_then_more),
        cmocka_unit_test(test_record_replay_discard_checks),
        cmocka_unit_test(test_record_replay_moon_missing),
        cmocka_unit_test(test_record_replay_moon_where_none),
        cmocka_unit_test(test_record_replay_calls_step_before_every_action),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
