/*
 * Tests of people coming and going, identities and accounts
 * (bot/manager/presence.c), through the fake adapter of the manager's test
 * world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/bot/manager/world.h"

static void test_nick_change_keeps_the_seat(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    char old[64], id[128];
    snprintf(old, sizeof old, "%s", t->seats[turn].nick);
    snprintf(id, sizeof id, "%s@host.test", old);
    event(CHAT_NICK, old, id, NULL, "renamed");
    assert_string_equal(t->seats[turn].nick, "renamed");
    /* the new nick plays, with the same user@host */
    struct chat_event ev = {.kind = CHAT_MESSAGE,
                            .from = {.nick = "renamed", .id = id},
                            .text = "2C"};
    manager_on_event(w->m, &w->fake.base, &ev);
    assert_int_equal(t->game.nplays, 1);
}

static void test_takeover_of_a_nick_cannot_play(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    char nick[64];
    snprintf(nick, sizeof nick, "%s", t->seats[turn].nick);
    char id[128];
    snprintf(id, sizeof id, "%s@host.test", nick);
    event(CHAT_QUIT, nick, id, NULL, NULL);
    /* someone else takes the nick */
    struct chat_event ev = {.kind = CHAT_MESSAGE,
                            .from = {.nick = nick, .id = "mallory@evil.test"},
                            .text = "2C"};
    int from = w->fake.n;
    manager_on_event(w->m, &w->fake.base, &ev);
    assert_int_equal(t->game.nplays, 0);
    assert_true(any_contains(nick, from, "belongs to someone else"));
}

/* The room hears the grace period's end in its language. */
static void test_grace_end_in_the_rooms_language(void **state)
{
    (void)state;
    free(w->cfg.lang);
    w->cfg.lang = strdup("fr");
    char nick[64], id[128];
    int turn = first_turn(nick, id);
    struct table *t = the_table();
    int from = w->fake.n;
    event(CHAT_PART, nick, id, "#h", NULL);
    run_for(1100);
    assert_true(t->seats[turn].away);
    assert_true(any_contains("#h", from, "n'est pas de retour"));
    assert_false(any_contains("#h", from, "has not come back"));
}

static void test_part_grace_then_computer_takes_over(void **state)
{
    (void)state;
    char nick[64], id[128];
    int turn = first_turn(nick, id);
    struct table *t = the_table();
    event(CHAT_PART, nick, id, "#h", NULL);
    assert_true(t->seats[turn].gone);
    /* coming back within the grace period keeps the seat */
    event(CHAT_JOIN, nick, id, "#h", NULL);
    assert_false(t->seats[turn].gone);
    event(CHAT_PART, nick, id, "#h", NULL);
    run_for(1100);
    assert_true(t->seats[turn].away);
    assert_true(any_contains("#h", 0, "has not come back"));
    assert_true(t->game.nplays >= 1);
}

/* Everyone left (a server restart, say): the table pauses. One person
 * confirmed back, whoever's turn it is, and the game goes on. */
static void test_a_paused_table_goes_on_when_anyone_is_back(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_IRC);
    w->cfg.grace_period = 60;
    w->cfg.turn_timeout = 60;
    said("alice", "#h", "!hearts standard pass_count=0");
    said("bob", "#h", "!join");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    assert_true(t->playing);
    int turn = engine_turn(&t->game);
    assert_true(t->seats[turn].human);
    const char *idle = strcmp(t->seats[turn].nick, "alice") ? "alice" : "bob";
    event(CHAT_QUIT, "alice", "alice@host.test", NULL, NULL);
    event(CHAT_QUIT, "bob", "bob@host.test", NULL, NULL);
    /* the bot's link drops and comes back: nobody is at the table */
    event(CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
    int asked = w->fake.nverified;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(t->paused);
    /* they may be back before the bot (their JOIN unseen): asked about */
    assert_int_equal(w->fake.nverified, asked + 2);
    int from = w->fake.n;
    char id[128];
    snprintf(id, sizeof id, "%s@host.test", idle);
    identity(idle, id);
    assert_false(t->paused);
    assert_true(any_contains("#h", from, "The game goes on"));
}

/* After a reconnect nothing private goes to a seat until the adapter has
 * confirmed who holds its nick: the right person gets what they need
 * then; a nick held by someone else gets nothing, and the seat waits for
 * its person. */
static void test_reconnect_confirms_identity_before_secrets(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_IRC);
    w->cfg.grace_period = 60;
    w->cfg.turn_timeout = 60;
    four_people("standard");
    struct table *t = the_table();
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_PASS);
    all_sent(0);
    event(CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_int_equal(w->fake.nverified, 4);
    for (int s = 0; s < 4; s++)
        assert_int_equal(private_lines_to(t->seats[s].nick, from), 0);
    /* alice is alice: her deal again, as she must pass */
    identity("alice", "alice@host.test");
    assert_true(any_contains("alice", from, "Your cards"));
    /* someone else has bob's nick now; nobody has carol's */
    identity("bob", "mallory@evil.test");
    identity("carol", NULL);
    int seat_bob = -1;
    for (int s = 0; s < 4; s++)
        if (strcmp(t->seats[s].nick, "bob") == 0)
            seat_bob = s;
    assert_true(t->seats[seat_bob].gone);
    assert_int_equal(private_lines_to("bob", from), 0);
    assert_int_equal(private_lines_to("carol", from), 0);
    /* nothing goes to either meanwhile; who holds their nicks is asked
     * again a little later (they may be back before the bot saw them) */
    all_sent(from);
    int asked = w->fake.nverified;
    run_for(3100);
    assert_int_equal(private_lines_to("bob", from), 0);
    assert_int_equal(private_lines_to("carol", from), 0);
    assert_true(w->fake.nverified >= asked + 2);
    assert_string_equal(w->fake.verified[w->fake.nverified - 1], "carol");
    /* carol was back unseen (before the bot): confirmed, told again */
    identity("carol", "carol@host.test");
    assert_true(any_contains("carol", from, "Your cards"));
    /* dave chats in the channel (nick and user@host match): confirmed
     * and, before the network's answer, told his deal again */
    said("dave", "#h", "sorry, lag");
    assert_true(any_contains("dave", from, "Your cards"));
    /* the real bob comes back: his deal again */
    event(CHAT_JOIN, "bob", "bob@host.test", "#h", NULL);
    assert_true(any_contains("bob", from, "Your cards"));
}

/* An account logged out mid-game (same nick and user@host) keeps the seat
 * and plays on; the seat remembers the account it was taken with. */
static void test_account_logout_mid_game_keeps_the_seat(void **state)
{
    (void)state;
    struct table *t = four_accounts();
    int turn = engine_turn(&t->game);
    assert_string_equal(t->seats[seat_of_nick(t, "alice")].account, "Alice");
    assert_string_equal(t->seats[seat_of_nick(t, "alice")].key, "a:Alice");
    char cmd[32];
    lowest_play(t, cmd, sizeof cmd);
    said_account(t->seats[turn].nick, NULL, NULL, cmd);
    assert_int_equal(t->game.nplays, 1);
    assert_false(t->seats[turn].gone);
    /* the seat still knows the account: logging in to it again is fine */
    int next = engine_turn(&t->game);
    lowest_play(t, cmd, sizeof cmd);
    char acct[sizeof t->seats[0].account];
    snprintf(acct, sizeof acct, "%s", t->seats[next].account);
    acct[0] = (char)tolower((unsigned char)acct[0]); /* case aside */
    said_account(t->seats[next].nick, acct, NULL, cmd);
    assert_int_equal(t->game.nplays, 2);
}

/* The same nick and user@host logged in to another account is someone
 * else (a shared host, a bouncer): not the seat's person. */
static void test_account_other_account_is_refused(void **state)
{
    (void)state;
    struct table *t = four_accounts();
    int turn = engine_turn(&t->game);
    char nick[64];
    snprintf(nick, sizeof nick, "%s", t->seats[turn].nick);
    char cmd[32];
    lowest_play(t, cmd, sizeof cmd);
    int from = w->fake.n;
    said_account(nick, "Mallory", NULL, cmd);
    assert_int_equal(t->game.nplays, 0);
    assert_true(any_contains(nick, from, "belongs to someone else"));
    /* nor does the seat take the other account as its own */
    assert_string_not_equal(t->seats[turn].account, "Mallory");
}

/* A person who quit and comes back from another host logged in to the
 * seat's account has the seat back within the grace period; under another
 * nick too, and the room is told. */
static void test_account_back_from_another_host(void **state)
{
    (void)state;
    struct table *t = four_accounts();
    int sa = seat_of_nick(t, "alice");
    from_account(CHAT_QUIT, "alice", "alice@host.test", "Alice", NULL,
                 "ping timeout", NULL);
    assert_true(t->seats[sa].gone);
    from_account(CHAT_JOIN, "alice", "al@new.example", "ALICE", "#h", NULL,
                 NULL);
    assert_false(t->seats[sa].gone);
    assert_string_equal(t->seats[sa].id, "al@new.example");
    /* logged out again, the new user@host is hers */
    if (engine_turn(&t->game) == sa) {
        char cmd[32];
        lowest_play(t, cmd, sizeof cmd);
        from_account(CHAT_MESSAGE, "alice", "al@new.example", NULL, NULL, cmd,
                     NULL);
        assert_int_equal(t->game.nplays, 1);
    }
    /* without the account a new host is a stranger */
    int sb = seat_of_nick(t, "bob");
    from_account(CHAT_QUIT, "bob", "bob@host.test", "Bob", NULL, "", NULL);
    from_account(CHAT_JOIN, "bob", "b@elsewhere", NULL, "#h", NULL, NULL);
    assert_true(t->seats[sb].gone);
    /* under another nick with the account: the seat follows */
    int from = w->fake.n;
    from_account(CHAT_JOIN, "bob_", "b@elsewhere", "Bob", "#h", NULL, NULL);
    assert_false(t->seats[sb].gone);
    assert_string_equal(t->seats[sb].nick, "bob_");
    assert_true(any_contains("#h", from, "bob is back as bob_."));
    from = w->fake.n;
    from_account(CHAT_MESSAGE, "bob_", "b@elsewhere", "Bob", NULL, "hand",
                 NULL);
    assert_true(any_contains("bob_", from, "Your hand: "));
    /* a seat whose person is here is not taken by another nick */
    int sc = seat_of_nick(t, "carol");
    from_account(CHAT_JOIN, "carol2", "c@x", "Carol", "#h", NULL, NULL);
    assert_string_equal(t->seats[sc].nick, "carol");
}

/* After a reconnect the network's answer confirms a seat by its account
 * even from another host. */
static void test_account_confirms_identity_after_reconnect(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_IRC);
    struct table *t = four_accounts();
    event(CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    int sa = seat_of_nick(t, "alice"), sb = seat_of_nick(t, "bob");
    assert_true(t->seats[sa].unconfirmed);
    struct chat_event ev = {
        .kind = CHAT_IDENTITY,
        .from = {.nick = "alice", .id = "al@new.example", .account = "Alice"}};
    manager_on_event(w->m, &w->fake.base, &ev);
    assert_false(t->seats[sa].unconfirmed);
    assert_false(t->seats[sa].gone);
    assert_string_equal(t->seats[sa].id, "al@new.example");
    /* bob's nick held by the same user@host under another account */
    ev.from = (struct chat_user){
        .nick = "bob", .id = "bob@host.test", .account = "Mallory"};
    manager_on_event(w->m, &w->fake.base, &ev);
    assert_true(t->seats[sb].gone);
}

/* Two seated people swap nicks (alice -> tmp, bob -> alice, tmp -> bob):
 * each seat stays with its person, and their cards go to their new nick. */
static void test_account_nick_swap_keeps_each_seat(void **state)
{
    (void)state;
    struct table *t = four_accounts();
    int sa = seat_of_nick(t, "alice"), sb = seat_of_nick(t, "bob");
    int from = w->fake.n;
    said_account("alice", "Alice", NULL, "hand");
    said_account("bob", "Bob", NULL, "hand");
    char hand_a[2100], hand_b[2100];
    snprintf(hand_a, sizeof hand_a, "%s", last_to("alice", from)->text);
    snprintf(hand_b, sizeof hand_b, "%s", last_to("bob", from)->text);
    assert_string_not_equal(hand_a, hand_b);
    from_account(CHAT_NICK, "alice", "alice@host.test", "Alice", NULL, NULL,
                 "tmp");
    from_account(CHAT_NICK, "bob", "bob@host.test", "Bob", NULL, NULL, "alice");
    from_account(CHAT_NICK, "tmp", "alice@host.test", "Alice", NULL, NULL,
                 "bob");
    assert_string_equal(t->seats[sa].nick, "bob");
    assert_string_equal(t->seats[sb].nick, "alice");
    from = w->fake.n;
    from_account(CHAT_MESSAGE, "bob", "alice@host.test", "Alice", NULL, "hand",
                 NULL);
    from_account(CHAT_MESSAGE, "alice", "bob@host.test", "Bob", NULL, "hand",
                 NULL);
    assert_string_equal(last_to("bob", from)->text, hand_a);
    assert_string_equal(last_to("alice", from)->text, hand_b);
    /* the turn's person plays under the new nick */
    int turn = engine_turn(&t->game);
    char cmd[32];
    lowest_play(t, cmd, sizeof cmd);
    char id[sizeof t->seats[0].id];
    snprintf(id, sizeof id, "%s", t->seats[turn].id);
    from_account(CHAT_MESSAGE, t->seats[turn].nick, id, t->seats[turn].account,
                 NULL, cmd, NULL);
    assert_int_equal(t->game.nplays, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nick_change_keeps_the_seat, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_takeover_of_a_nick_cannot_play,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_part_grace_then_computer_takes_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grace_end_in_the_rooms_language,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_paused_table_goes_on_when_anyone_is_back, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_reconnect_confirms_identity_before_secrets, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_account_logout_mid_game_keeps_the_seat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_other_account_is_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_back_from_another_host,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_account_confirms_identity_after_reconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_nick_swap_keeps_each_seat,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
