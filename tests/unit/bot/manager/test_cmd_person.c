/*
 * The cards command (bot/manager/cmd_person.c) and the card mode of a
 * person's look (lang.c): shown, set, refused, remembered across a
 * restart, answered privately from a channel; a person's private lines
 * get their mode, the channel's stay in symbols.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/common/msg.h"
#include "bot/manager/lang.h"
#include "bot/manager/render.h"
#include "tests/unit/bot/manager/world.h"

static enum render_cards cards_of(const char *nick)
{
    struct chat_user u = user(nick);
    return mgr_cards_person(w->m, &w->fake.base, &u);
}

static bool ascii_only(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if (*p < 0x20 || *p > 0x7E)
            return false;
    return true;
}

static void test_cards_alone_says_the_mode_and_choices(void **state)
{
    (void)state;
    int from = w->fake.n;
    said("alice", NULL, "cards");
    const struct fake_chat_line *l = last_to("alice", from);
    assert_non_null(l);
    assert_string_equal(
        l->text,
        "I show you cards with the suits' symbols: Q\xe2\x99\xa0 "
        "10\xe2\x99\xa5. Choose with \"cards symbols\" (Q\xe2\x99\xa0 "
        "10\xe2\x99\xa5), \"cards ascii\" (QS 10H, for clients without "
        "Unicode) or \"cards words\" (Q of spades, 10 of hearts, for screen "
        "readers).");
    assert_int_equal(cards_of("alice"), RENDER_CARDS_SYMBOLS);
}

static void test_cards_set_in_a_channel_answered_privately(void **state)
{
    (void)state;
    int from = w->fake.n;
    said("alice", "#h", "!cards ascii");
    const struct fake_chat_line *l = last_to("alice", from);
    assert_non_null(l);
    assert_string_equal(l->text,
                        "From now on I show you cards in ASCII letters: QS "
                        "10H.");
    assert_null(last_to("#h", from));
    assert_int_equal(cards_of("alice"), RENDER_CARDS_ASCII);
    assert_int_equal(cards_of("bob"), RENDER_CARDS_SYMBOLS);
    /* any case; and shown as it is now */
    said("alice", NULL, "CARDS Words");
    assert_int_equal(cards_of("alice"), RENDER_CARDS_WORDS);
    from = w->fake.n;
    said("alice", NULL, "cards");
    assert_non_null(strstr(last_to("alice", from)->text,
                           "I show you cards with the suits' names: Q of "
                           "spades, 10 of hearts."));
}

static void test_cards_remembered_across_restarts(void **state)
{
    (void)state;
    said("alice", NULL, "cards words");
    said("bob", NULL, "cards ascii");
    restart();
    assert_int_equal(cards_of("alice"), RENDER_CARDS_WORDS);
    assert_int_equal(cards_of("bob"), RENDER_CARDS_ASCII);
    char path[1024], text[4096];
    snprintf(path, sizeof path, "%s/people.jsonl", w->dir);
    read_small(path, text, sizeof text);
    assert_non_null(strstr(text, "\"cards\":\"words\""));
    /* symbols, the default, forgets the setting; so does "default" */
    said("alice", NULL, "cards symbols");
    said("bob", NULL, "cards default");
    restart();
    assert_int_equal(cards_of("alice"), RENDER_CARDS_SYMBOLS);
    assert_int_equal(cards_of("bob"), RENDER_CARDS_SYMBOLS);
}

static void test_cards_in_the_persons_language(void **state)
{
    (void)state;
    said("alice", NULL, "lang de");
    int from = w->fake.n;
    said("alice", NULL, "cards words");
    assert_string_equal(last_to("alice", from)->text,
                        "Ab jetzt zeige ich dir Karten mit den Namen der "
                        "Farben: Pik D, Herz 10.");
    /* the language stays with the cards */
    struct chat_user u = user("alice");
    struct render_look look = mgr_look_person(w->m, &w->fake.base, &u, "#h");
    assert_int_equal(look.lang, msg_lang_find("de"));
    assert_int_equal(look.cards, RENDER_CARDS_WORDS);
}

static void test_cards_refused_value_changes_nothing(void **state)
{
    (void)state;
    said("alice", NULL, "cards ascii");
    char path[1024], before[4096], after[4096];
    snprintf(path, sizeof path, "%s/people.jsonl", w->dir);
    read_small(path, before, sizeof before);
    const char *bad[] = {"cards emoji", "cards \"ascii\"", "cards asciii",
                         "cards <b>"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int from = w->fake.n;
        said("alice", NULL, bad[i]);
        const struct fake_chat_line *l = last_to("alice", from);
        assert_non_null(l);
        assert_non_null(strstr(l->text, "I do not know the card mode"));
        assert_non_null(strstr(l->text, "ascii (QS 10H)"));
    }
    read_small(path, after, sizeof after);
    assert_string_equal(before, after);
    assert_int_equal(cards_of("alice"), RENDER_CARDS_ASCII);
}

/* After "cards ascii" a person's private lines show their hand in ASCII
 * (mgr_look_seat), the channel's stay in symbols, and a computer's seat
 * looks like the room. */
static void test_cards_ascii_private_hand(void **state)
{
    (void)state;
    int me = alice_with_computers();
    struct table *t = the_table();
    said("alice", NULL, "cards ascii");
    struct engine_cards hand = engine_hand(&t->game, me);
    char text[512];
    render_hand(text, sizeof text, &hand, 0, mgr_look_seat(t, me));
    assert_true(strlen(text) > 20);
    assert_true(ascii_only(text));
    assert_non_null(strstr(text, ": "));
    render_hand(text, sizeof text, &hand, 0, mgr_look_room(t));
    assert_false(ascii_only(text));
    int computer = (me + 1) % 4;
    assert_int_equal(mgr_look_seat(t, computer).cards, RENDER_CARDS_SYMBOLS);
    /* and the look goes on after a restart */
    t = restart();
    assert_non_null(t);
    assert_int_equal(mgr_look_seat(t, me).cards, RENDER_CARDS_ASCII);
    assert_int_equal(mgr_look_room(t).cards, RENDER_CARDS_SYMBOLS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_cards_alone_says_the_mode_and_choices, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_cards_set_in_a_channel_answered_privately, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cards_remembered_across_restarts,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_cards_in_the_persons_language,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_cards_refused_value_changes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cards_ascii_private_hand, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
