/*
 * Tests of dealing and passing as people hear it (bot/manager/deal.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "tests/unit/bot/manager/world.h"

/* On the IRC-like fake, four people pass: the first trick's lead is due. */
static struct table *four_passed_irc(void)
{
    fake_chat_set_kind(&w->fake, FAKE_CHAT_IRC);
    four_people("standard");
    struct table *t = the_table();
    char cmd[100];
    for (int s = 0; s < 4; s++) {
        first_three(t, s, cmd, sizeof cmd);
        said(t->seats[s].nick, NULL, cmd);
    }
    return t;
}

/* The leader plays its lowest legal card. */
static void lead_lowest(struct table *t)
{
    char cmd[100];
    snprintf(cmd, sizeof cmd, "play %s",
             engine_card_name(__builtin_ctzll(engine_legal_plays(&t->game))));
    said(t->seats[engine_turn(&t->game)].nick, NULL, cmd);
}

static void test_pass_counts_and_privacy(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    assert_int_equal(engine_phase(g), ENGINE_PHASE_PASS);
    struct engine_cards h = engine_hand(g, 0);
    char words[200], cmd[220];
    card_words(&h, ~UINT64_C(0), words, sizeof words);
    /* two cards is not three */
    char two[20];
    snprintf(two, sizeof two, "%.5s", words);
    snprintf(cmd, sizeof cmd, "pass %s", two);
    refused(t->seats[0].nick, NULL, cmd, "exactly 3");
    /* pass three: nobody sees anything received until all have passed */
    for (int s = 0; s < 4; s++) {
        h = engine_hand(g, s);
        card_words(&h, ~UINT64_C(0), words, sizeof words);
        words[8] = '\0'; /* the first three cards: "XX XX XX" */
        snprintf(cmd, sizeof cmd, "pass %s", words);
        int from = w->fake.n;
        said(t->seats[s].nick, NULL, cmd);
        if (s < 3)
            for (int i = from; i < w->fake.n; i++)
                assert_null(strstr(w->fake.lines[i].text, "You received"));
    }
    for (int s = 0; s < 4; s++)
        assert_true(any_contains(t->seats[s].nick, 0, "You received"));
    assert_int_equal(engine_phase(g), ENGINE_PHASE_PLAY);
}

static void test_pass_is_confirmed_and_hand_shows_what_is_left(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    char cmd[100];
    /* commas, with and without spaces, separate cards too */
    uint64_t gave = first_three(t, 0, cmd, sizeof cmd);
    int from = w->fake.n;
    said(t->seats[0].nick, NULL, cmd);
    assert_false(engine_may_act(g, 0));
    const struct fake_chat_line *l = last_to(t->seats[0].nick, from);
    assert_non_null(l);
    char want[400];
    int to = engine_pass_target(g, 0, g->pass_dir);
    snprintf(want, sizeof want, "to %s; waiting for %s, %s, %s.",
             t->seats[to].nick, t->seats[1].nick, t->seats[2].nick,
             t->seats[3].nick);
    if (strncmp(l->text, "Passing ", 8) || !strstr(l->text, want))
        fail_msg("confirmation: '%s'", l->text);
    /* "hand" while waiting: without the cards passed */
    said(t->seats[0].nick, NULL, "hand");
    l = last_to(t->seats[0].nick, from);
    assert_non_null(strstr(l->text, "Your hand: "));
    assert_non_null(strstr(l->text, "(Passing "));
    /* ten cards shown: a word that is no suit symbol is a rank */
    const char *p = strstr(l->text, "Your hand: ") + strlen("Your hand: ");
    const char *cut = strstr(p, " (Passing ");
    int shown = 0;
    for (; p < cut; p++)
        if (*p != ' ' && p[-1] == ' ' && (unsigned char)*p != 0xe2)
            shown++;
    assert_int_equal(shown, 10);
    (void)gave;
    /* the others pass; each hears from whom the cards came */
    for (int s = 1; s < 4; s++) {
        first_three(t, s, cmd, sizeof cmd);
        said(t->seats[s].nick, NULL, cmd);
    }
    assert_int_equal(engine_phase(g), ENGINE_PHASE_PLAY);
    /* the last to pass hears what came at once, not "waiting for" */
    assert_int_equal(count_starting(t->seats[2].nick, from, "Passing "), 1);
    assert_int_equal(count_starting(t->seats[3].nick, from, "Passing "), 0);
    int giver = 0;
    while (engine_pass_target(g, giver, g->pass_dir) != 0)
        giver++;
    /* in a line of its own with the hand, or in the first prompt */
    snprintf(want, sizeof want, " from %s. ", t->seats[giver].nick);
    assert_true(any_contains(t->seats[0].nick, from, want));
}

/* After the passing, the leader hears what came in the prompt (one line,
 * at high priority), the others in a line at normal priority: the first
 * lead is asked for before anything else goes out. */
static void test_first_lead_prompt_outranks_the_received_lines(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    char cmd[100];
    int from = w->fake.n;
    for (int s = 0; s < 4; s++) {
        first_three(t, s, cmd, sizeof cmd);
        said(t->seats[s].nick, NULL, cmd);
    }
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_PLAY);
    const char *leader = t->seats[engine_turn(&t->game)].nick;
    int received = 0, prompts = 0, to_leader = 0;
    int after = from; /* lines after the last pass's confirmation */
    for (int i = from; i < w->fake.n; i++)
        if (strncmp(w->fake.lines[i].text, "Passing ", 8) == 0)
            after = i + 1;
    for (int i = after; i < w->fake.n; i++) {
        const struct fake_chat_line *l = &w->fake.lines[i];
        bool turn = strstr(l->text, "Your turn at ") != NULL;
        if (l->private_ && strcmp(l->to, leader) == 0)
            to_leader++;
        if (strncmp(l->text, "You received ", 13) == 0) {
            assert_int_equal(l->prio, turn ? CHAT_HIGH : CHAT_NORMAL);
            received++;
        }
        if (turn) {
            assert_string_equal(l->to, leader);
            prompts++;
        }
    }
    assert_int_equal(received, 4);
    assert_int_equal(prompts, 1);
    assert_int_equal(to_leader, 1);
}

/* On IRC a person's "You received" line still waiting behind the pacing
 * when their first prompt comes is taken back: the prompt says it, so the
 * prompt does not wait behind it. One already written is not repeated. */
static void test_received_line_waiting_goes_into_the_prompt(void **state)
{
    (void)state;
    struct table *t = four_passed_irc();
    struct engine_game *g = &t->game;
    all_sent(0); /* everything so far written, also the tracked lines */
    int lead = engine_turn(g);
    int second = (lead + 1) % 4;
    int from = w->fake.n;
    lead_lowest(t);
    const struct fake_chat_line *p = last_to(t->seats[second].nick, from);
    assert_non_null(p);
    if (strncmp(p->text, "Your turn at ", 13) != 0)
        fail_msg("written already, not said again: '%s'", p->text);
}

/* The same with nothing written yet: the second player's received line
 * is taken back and their prompt starts with it. */
static void test_received_line_not_written_is_taken_back(void **state)
{
    (void)state;
    struct table *t = four_passed_irc();
    struct engine_game *g = &t->game;
    int lead = engine_turn(g);
    int second = (lead + 1) % 4;
    const char *nick = t->seats[second].nick;
    int recv = -1;
    int passing = -1;
    for (int i = 0; i < w->fake.n; i++) {
        const struct fake_chat_line *l = &w->fake.lines[i];
        if (strcmp(l->to, nick) != 0)
            continue;
        if (strstr(l->text, "You received "))
            recv = i;
        if (strncmp(l->text, "Passing ", 8) == 0)
            passing = i;
    }
    assert_true(recv >= 0);
    assert_false(w->fake.lines[recv].retracted);
    /* the pass confirmation was not written before everyone passed: the
     * received line says it instead */
    if (passing >= 0) {
        assert_true(w->fake.lines[passing].retracted);
        assert_int_equal(strncmp(w->fake.lines[recv].text, "You passed ", 11),
                         0);
    }
    int from = w->fake.n;
    lead_lowest(t);
    assert_true(w->fake.lines[recv].retracted);
    const struct fake_chat_line *p = last_to(nick, from);
    assert_non_null(p);
    if (!strstr(p->text, "You received ") || !strstr(p->text, "Your turn at "))
        fail_msg("the prompt should say what came: '%s'", p->text);
    assert_int_equal(p->prio, CHAT_HIGH);
}

static void test_deal_goes_before_the_prompt(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    const char *leader = t->seats[engine_turn(&t->game)].nick;
    int deal = first_starting(leader, 0, "Hand 1 at #h. Your cards: ");
    int turn = first_starting(leader, 0, "Your turn at #h to lead trick 1.");
    assert_true(deal >= 0 && turn > deal);
    /* the out-queue sends a higher priority first: the deal must not be
     * below the prompt, or the prompt overtakes it */
    assert_true(w->fake.lines[deal].prio <= w->fake.lines[turn].prio);
    /* the 2C leads: the one legal card is named in words, the rest of
     * the hand after it, each card once */
    assert_non_null(strstr(w->fake.lines[turn].text,
                           "lead trick 1. Only legal: 2♣. Others: "));
    assert_null(strstr(w->fake.lines[turn].text, "Your hand"));
}

static void test_a_pass_chosen_on_timeout_is_told(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts standard");
    said("alice", "#h", "!start");
    run_for(1100);
    struct table *t = the_table();
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_PLAY);
    int i = first_starting("alice", 0, "Time is up: a computer player passes ");
    assert_true(i >= 0);
    /* the three cards by name: three suit symbols (3-byte UTF-8) */
    int cards = 0;
    for (const char *p = w->fake.lines[i].text; *p; p++)
        cards += (unsigned char)*p == 0xe2;
    assert_int_equal(cards, 3);
    assert_true(any_contains("alice", i, " for you."));
    assert_true(any_contains("alice", i, "You received "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pass_counts_and_privacy, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_pass_is_confirmed_and_hand_shows_what_is_left, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_first_lead_prompt_outranks_the_received_lines, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_received_line_waiting_goes_into_the_prompt, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_received_line_not_written_is_taken_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deal_goes_before_the_prompt, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_pass_chosen_on_timeout_is_told,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
