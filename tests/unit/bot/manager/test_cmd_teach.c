/*
 * Tests of hint and review (bot/manager/cmd_teach.c) through the fake
 * adapter of the manager's test world (world.h): a hint at one's turn at
 * a table with hints on names a legal card; hints off, not one's turn,
 * not seated are refused; a game with hints counts on the hints board
 * alone, and keeps hints over a restart; review of the hand just played,
 * of an archived game by ID, only the costs told that the search can tell
 * from its noise, and refusals of bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/manager/cmd_teach.h"
#include "bot/manager/render.h"
#include "tests/unit/bot/manager/world.h"

/* Runs the loop until nick is told a line with needle since `from` (or
 * 20 s pass): that line, or NULL. */
static const struct fake_chat_line *wait_for(const char *nick, int from,
                                             const char *needle)
{
    for (int i = 0; i < 4000; i++) {
        for (int k = from; k < w->fake.n; k++) {
            const struct fake_chat_line *l = &w->fake.lines[k];
            if (strcmp(l->to, nick) == 0 && strstr(l->text, needle))
                return l;
        }
        run_for(5);
    }
    return NULL;
}

/* The card whose ascii text starts `text`, among `legal`, or -1. */
static int legal_card_at(const char *text, uint64_t legal)
{
    struct render_look look = {CHAT_STYLE_PLAIN, MSG_EN, RENDER_CARDS_ASCII};
    int found = -1;
    size_t best = 0;
    for (int c = 0; c < 64; c++) {
        if (!(legal >> c & 1))
            continue;
        char name[32];
        render_card(name, sizeof name, c, look);
        size_t n = strlen(name);
        if (n > best && strncmp(text, name, n) == 0 &&
            (text[n] == ',' || text[n] == ' ')) {
            found = c;
            best = n;
        }
    }
    return found;
}

/* Four people at `rules`, no passing; each sees cards in ascii. The seat
 * whose turn it is. */
static int people_at(const char *rules)
{
    four_people(rules);
    struct table *t = the_table();
    for (int s = 0; s < 4; s++)
        seat_said(t, s, "cards ascii");
    return engine_turn(&t->game);
}

static void test_hint_names_a_legal_card(void **state)
{
    (void)state;
    int turn = people_at("standard pass_count=0 hints=on");
    struct table *t = the_table();
    assert_true(t->hints);
    uint64_t legal = engine_legal_plays(&t->game);
    const char *nick = t->seats[turn].nick;
    int from = w->fake.n;
    seat_said(t, turn, "hint");
    const struct fake_chat_line *l = wait_for(nick, from, "Hint: ");
    assert_non_null(l);
    assert_true(l->private_);
    assert_non_null(strstr(l->text, "points for you this hand"));
    const char *card = strstr(l->text, "Hint: ") + 6;
    if (legal_card_at(card, legal) < 0)
        fail_msg("no legal card in '%s'", l->text);
    /* nobody else heard of it */
    for (int k = from; k < w->fake.n; k++)
        if (strstr(w->fake.lines[k].text, "Hint"))
            assert_string_equal(w->fake.lines[k].to, nick);
}

static void test_hint_in_the_channel_and_while_passing(void **state)
{
    (void)state;
    four_people("standard hints=on");
    struct table *t = the_table();
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_PASS);
    int from = w->fake.n;
    said("bob", "#h", "!hint");
    const struct fake_chat_line *l = wait_for("bob", from, "Hint: ");
    assert_non_null(l);
    assert_true(l->private_);
    /* three cards to pass */
    assert_non_null(strstr(l->text, "points for you this hand"));
}

static void test_hint_refused_when_off(void **state)
{
    (void)state;
    int turn = people_at("standard pass_count=0");
    struct table *t = the_table();
    int from = w->fake.n;
    seat_said(t, turn, "hint");
    const struct fake_chat_line *l = last_to(t->seats[turn].nick, from);
    assert_non_null(l);
    assert_non_null(strstr(l->text, "Hints are off at this table"));
    assert_non_null(strstr(l->text, "hints=on"));
    assert_int_equal(manager_thinking(w->m), 0);
}

static void test_hint_refused_not_your_turn_or_not_seated(void **state)
{
    (void)state;
    int turn = people_at("standard pass_count=0 hints=on");
    struct table *t = the_table();
    int other = (turn + 1) % 4;
    int from = w->fake.n;
    seat_said(t, other, "hint");
    const struct fake_chat_line *l = last_to(t->seats[other].nick, from);
    assert_non_null(l);
    assert_non_null(strstr(l->text, "No hint now"));
    refused("erin", "#h", "!hint", "You are not playing at this table");
    refused("frank", NULL, "hint", "You are not at a table");
    assert_int_equal(manager_thinking(w->m), 0);
}

static void test_hints_option_refused_when_bad(void **state)
{
    (void)state;
    refused("alice", "#h", "!hearts standard hints=maybe",
            "hints is on or off");
    assert_null(the_table());
}

/* A game with hints on counts on the hints board, not the preset's; its
 * record and journal say so, and a restart keeps it. */
static void test_hinted_game_counts_on_its_own_board(void **state)
{
    (void)state;
    four_people("standard hands=1 hints=on");
    struct table *t = the_table();
    play_to(t, 1, 20);
    char journal[4096];
    read_small(t->journal, journal, sizeof journal);
    assert_non_null(strstr(journal, "\"hints\":true"));
    t = restart();
    assert_non_null(t);
    assert_true(t->hints);
    play_everything(t);
    run_for(5);
    int count;
    char *rec = archived(&count);
    assert_non_null(rec);
    assert_non_null(strstr(rec, "\"hints\":true"));
    free(rec);
    assert_true(answered("erin", "!top standard", "Nobody has finished"));
    assert_true(answered("frank", "!top hints", "Top"));
}

static void test_unhinted_game_counts_as_before(void **state)
{
    (void)state;
    four_people("standard hands=1");
    play_everything(the_table());
    run_for(5);
    int count;
    char *rec = archived(&count);
    assert_non_null(rec);
    assert_null(strstr(rec, "hints"));
    free(rec);
    assert_true(answered("erin", "!top standard", "Top"));
    assert_true(answered("frank", "!top hints", "Nobody has finished"));
}

/* Review during a game: the hand just finished, the asker's own plays. */
static void test_review_of_the_hand_just_played(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int from = w->fake.n;
    said("bob", NULL, "review");
    /* no hand finished yet, nothing archived */
    assert_non_null(last_to("bob", from));
    play_to(t, 2, 0);
    from = w->fake.n;
    said("dave", NULL, "review");
    const struct fake_chat_line *l =
        wait_for("dave", from, "Review of hand 1 of the game on now");
    assert_non_null(l);
    assert_true(l->private_);
    run_for(50);
    /* at most the summary and three positions */
    int lines = 0;
    for (int k = from; k < w->fake.n; k++)
        if (strcmp(w->fake.lines[k].to, "dave") == 0) {
            lines++;
            assert_true(strstr(w->fake.lines[k].text, "Review of") ||
                        strstr(w->fake.lines[k].text, "Hand 1, "));
        }
    assert_true(lines >= 1 && lines <= 1 + TEACH_SHOWN);
    /* asked in the channel: still privately */
    from = w->fake.n;
    said("carol", "#h", "!review");
    l = wait_for("carol", from, "Review of hand 1");
    assert_non_null(l);
    assert_true(l->private_);
}

/* An archived game, by its ID's first digits and by default (the last
 * game the asker played); not to someone who did not play in it. */
static void test_review_of_an_archived_game(void **state)
{
    (void)state;
    four_people("standard hands=1");
    char id[17];
    snprintf(id, sizeof id, "%s", the_table()->game_id);
    play_everything(the_table());
    run_for(5);
    assert_null(the_table());
    char cmd[64];
    w->fake.echo = getenv("TEACH_ECHO") ? stderr : NULL;
    snprintf(cmd, sizeof cmd, "!review %.8s", id);
    int from = w->fake.n;
    said("alice", "#h", cmd);
    char want[64];
    snprintf(want, sizeof want, "Review of game %s", id);
    assert_non_null(wait_for("alice", from, want));
    from = w->fake.n;
    said("dave", "#h", "!review");
    assert_non_null(wait_for("dave", from, want));
    refused("erin", "#h", cmd, "You did not play in game");
    refused("erin", "#h", "!review", "You have not finished a game here");
}

/* What a review tells: a cost of 0.5 points or more that is also two
 * standard errors or more of the second look's difference. */
static void test_review_tells_only_sure_costs(void **state)
{
    (void)state;
    assert_true(mgr_teach_told(0.8, 0.3));
    assert_true(mgr_teach_told(0.5, 0.25));
    assert_true(mgr_teach_told(11.5, 0));
    assert_false(mgr_teach_told(0.8, 0.5)); /* 1.6 standard errors */
    assert_false(mgr_teach_told(0.49, 0));  /* under the noise floor */
    assert_false(mgr_teach_told(-1.0, 0.1));
}

static void test_review_bad_input(void **state)
{
    (void)state;
    refused("alice", "#h", "!review nonsense", "Say which game");
    refused("alice", "#h", "!review 1 2", "Say which game");
    refused("alice", "#h", "!review", "No game has finished here yet");
    /* (the same text again would be taken for a repeat) */
    refused("bob", NULL, "review", "Ask in the channel");
    refused("alice", "#h", "!review abcdef12", "No game has finished");
}

/* The world with hard (and so hints and reviews) at 300 playouts a
 * decision: a hint still comes from the search, and in a fraction of the
 * time under valgrind. */
static int setup_teach(void **state)
{
    int rc = setup(state);
    w->cfg.playouts[AI_HARD] = 300;
    return rc;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hint_names_a_legal_card,
                                        setup_teach, teardown),
        cmocka_unit_test_setup_teardown(
            test_hint_in_the_channel_and_while_passing, setup_teach, teardown),
        cmocka_unit_test_setup_teardown(test_hint_refused_when_off, setup_teach,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_hint_refused_not_your_turn_or_not_seated, setup_teach,
            teardown),
        cmocka_unit_test_setup_teardown(test_hints_option_refused_when_bad,
                                        setup_teach, teardown),
        cmocka_unit_test_setup_teardown(
            test_hinted_game_counts_on_its_own_board, setup_teach, teardown),
        cmocka_unit_test_setup_teardown(test_unhinted_game_counts_as_before,
                                        setup_teach, teardown),
        cmocka_unit_test_setup_teardown(test_review_of_the_hand_just_played,
                                        setup_teach, teardown),
        cmocka_unit_test_setup_teardown(test_review_of_an_archived_game,
                                        setup_teach, teardown),
        cmocka_unit_test(test_review_tells_only_sure_costs),
        cmocka_unit_test_setup_teardown(test_review_bad_input, setup_teach,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
