/*
 * Tests of engine/game.c: dealing, the first lead, legal plays and their
 * refusals, trick resolution and the flow of a hand, table by table.
 */
#include "scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static void test_deal_given_hands_reach_their_seats(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "black-lady", 4);
    const char *hands[4] = {
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", NULL, NULL, NULL};
    sc_start(&g, &r, 3, hands, NULL);
    assert_int_equal(engine_hand(&g, 0).one,
                     sc_set("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"));
    assert_int_equal(engine_hand(&g, 1).one,
                     sc_set("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"));
    /* black-lady: no passing, the player left of the dealer leads */
    assert_int_equal(engine_phase(&g), ENGINE_PHASE_PLAY);
    assert_int_equal(engine_turn(&g), 0);
}

static void test_legal_two_clubs_leads_then_follow_suit(void **state)
{
    (void)state;
    struct engine_rules r;
    struct engine_game g;
    sc_rules(&r, "standard pass_count=0", 4);
    const char *hands[4] = {
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D",
        "2C 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        NULL, NULL};
    sc_start(&g, &r, 0, hands, NULL);
    assert_int_equal(engine_turn(&g), 1);
    sc_legal(&g, "2C");
    sc_refuse(&g, "AD", ENGINE_REFUSE_MUST_LEAD_CARD);
    sc_play(&g, "2C");
    /* seats 2 and 3 hold no club (all hearts, all spades): any card */
    sc_plays(&g, "2H");
    sc_legal(&g, "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS");
    sc_play(&g, "2S");
    /* seat 0 must follow clubs */
    sc_refuse(&g, "2D", ENGINE_REFUSE_MUST_FOLLOW);
    sc_legal(&g, "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC");
    sc_play(&g, "AC");
    assert_int_equal(engine_turn(&g), 0);
    assert_int_equal(g.hand_points[0], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deal_given_hands_reach_their_seats),
        cmocka_unit_test(test_legal_two_clubs_leads_then_follow_suit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
