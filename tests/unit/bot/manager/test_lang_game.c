/*
 * A game's lines in their readers' languages (turn.c, deal.c,
 * announce.c): a person who chose a language gets their deal, pass and
 * prompts in it, with the tally; the channel's lines (the deal's, the
 * tricks', the scores') stay in the channel's language, and so do the
 * others' private lines.
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
#include "tests/unit/bot/manager/world.h"

/* Whether any line to `to` since `from` has one of the words. */
static bool any_of(const char *to, int from, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (any_contains(to, from, words[i]))
            return true;
    return false;
}

static void
test_lang_seat_prompt_in_its_language_channel_in_the_rooms(void **state)
{
    (void)state;
    said("bob", NULL, "lang de");
    said("carol", NULL, "lang fr");
    int de = msg_lang_find("de");
    int from = w->fake.n;
    four_people("standard");
    struct table *t = the_table();
    int bob = seat_of_nick(t, "bob");
    /* the deal: the channel's line in English, each hand in its own */
    assert_true(any_contains("#h", from, "Hand 1: pass 3 left."));
    assert_true(any_contains("bob", from, "Runde 1 in #h. Deine Karten: "));
    assert_true(any_contains("bob", from, "Gib 3 Karten an "));
    assert_true(any_contains("carol", from, "Manche 1 sur #h. Tes cartes : "));
    assert_true(any_contains("alice", from, "Hand 1 at #h. Your cards: "));
    /* the passes: bob's confirmed in German (he is not the last) */
    int passing = w->fake.n;
    while (engine_phase(&t->game) == ENGINE_PHASE_PASS &&
           engine_may_act(&t->game, bob))
        person_acts(t);
    if (engine_phase(&t->game) == ENGINE_PHASE_PASS)
        assert_true(any_contains("bob", from, "Du gibst "));
    /* the first trick: bob's prompt and what he received in German,
     * alice's in English (the leader's prompt comes with the
     * last pass, which may be bob's: looked for since the passes; the
     * leader's says "À toi sur #h d'entamer", the others' "À toi de
     * jouer sur #h") */
    int trick = w->fake.n;
    while (t->game.trick_no == 0 && person_acts(t))
        ;
    assert_true(any_contains("bob", passing, "Du bist dran in #h"));
    assert_true(any_contains("bob", passing, "Du hast "));
    assert_true(any_contains("carol", passing, "À toi "));
    assert_false(any_contains("bob", passing, "Your turn"));
    assert_true(any_contains("alice", passing, "Your turn at #h"));
    /* the trick's line in the channel's language; nothing of German or
     * French in the channel */
    assert_true(any_contains("#h", trick, "Trick 1: "));
    static const char *const foreign[] = {"Runde",  "Stich", "Karten",
                                          "Manche", "pli",   "cartes"};
    assert_false(any_of("#h", 0, foreign, 6));
    /* the hand's scores too; on the way, bob's prompts have the tally
     * in German (from the second trick: "Herz ..." or nothing yet) */
    int scores = w->fake.n;
    while (t->game.hand_no == 1 && person_acts(t))
        ;
    assert_true(any_contains("#h", scores, "Hand 1 scores: "));
    assert_true(
        any_contains("bob", scores, msg_template(de, "Hearts broken")) ||
        any_contains("bob", scores, msg_template(de, "Hearts unbroken")) ||
        any_contains("bob", scores, msg_template(de, "No point cards yet.")));
    assert_false(any_of("#h", 0, foreign, 6));
}

/* A channel in German: its lines in German, a person who chose English
 * gets theirs in English. */
static void test_lang_room_in_german_person_in_english(void **state)
{
    (void)state;
    free(w->cfg.lang);
    w->cfg.lang = strdup("de");
    said("alice", NULL, "lang en");
    int from = w->fake.n;
    four_people("standard");
    struct table *t = the_table();
    assert_true(
        any_contains("#h", from, "Runde 1: 3 Karten nach links weitergeben."));
    assert_true(any_contains("alice", from, "Hand 1 at #h. Your cards: "));
    assert_true(any_contains("bob", from, "Runde 1 in #h. Deine Karten: "));
    while (t->game.hand_no == 1 && person_acts(t))
        ;
    assert_true(any_contains("#h", from, "Punkte der Runde 1: "));
    assert_true(any_contains("alice", from, "Your turn at #h"));
    assert_false(any_contains("alice", from, "Du bist dran"));
}

/* The language of lines to nick about no room (a private command). */
static int private_lang(const char *nick)
{
    struct chat_user u = user(nick);
    return mgr_lang_person(w->m, &w->fake.base, &u, NULL);
}

/* A channel German by its entry (lang=de), the bot English: a seated
 * person who chose no language reads their prompts in German, and their
 * private commands are answered in German too, the cards they type read
 * in German; someone not seated is answered in English. */
static void test_lang_private_command_in_the_tables_language(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    room_entry("#h", NULL, "de");
    assert_int_equal(private_lang("alice"), MSG_EN);
    four_people("standard pass_count=0");
    struct table *t = the_table();
    const struct engine_game *g = &t->game;
    int lead = engine_turn(g);
    const char *me = t->seats[lead].nick;
    assert_true(any_contains("#h", 0, "Runde 1: kein Weitergeben."));
    assert_true(any_contains(me, 0, "Du bist dran in #h"));
    assert_int_equal(private_lang(me), msg_lang_find("de"));
    assert_int_equal(private_lang("erin"), MSG_EN);
    /* hand: in German */
    int from = w->fake.n;
    said(me, NULL, "hand");
    assert_true(any_contains(me, from, "Deine Karten: "));
    assert_false(any_contains(me, from, "Your hand"));
    /* a spade the leader lacks, in German letters (Dame, Bube, König,
     * Ass; Pik): read as that card, refused in German, shown in the same
     * letters */
    static const struct {
        const char *german, *shown;
    } spades[] = {{"DP", "D\xe2\x99\xa0"},
                  {"BP", "B\xe2\x99\xa0"},
                  {"KP", "K\xe2\x99\xa0"},
                  {"AP", "A\xe2\x99\xa0"}};
    int i = lacking_face_spade(t, lead);
    char cmd[32], want[64];
    snprintf(want, sizeof want, "Du hast %s nicht.", spades[i].shown);
    snprintf(cmd, sizeof cmd, "play %s", spades[i].german);
    refused(me, NULL, cmd, want);
    /* lang says so */
    from = w->fake.n;
    said(me, NULL, "lang");
    assert_true(any_contains(me, from, "Ich spreche Deutsch mit dir."));
    from = w->fake.n;
    said("erin", NULL, "lang");
    assert_true(any_contains("erin", from, "I speak English with you."));
    /* a person who chooses English reads English; "default" is the
     * table's German again */
    said(me, NULL, "lang en");
    assert_int_equal(private_lang(me), MSG_EN);
    from = w->fake.n;
    said(me, NULL, "lang default");
    assert_true(any_contains(me, from,
                             "Ich spreche wieder die Sprache des Kanals mit "
                             "dir: Deutsch."));
    assert_int_equal(private_lang(me), msg_lang_find("de"));
    /* in a channel of no entry, the bot's English */
    from = w->fake.n;
    said(me, "#other", "!lang");
    assert_true(any_contains(me, from, "I speak English with you."));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_lang_seat_prompt_in_its_language_channel_in_the_rooms, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_lang_room_in_german_person_in_english, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_lang_private_command_in_the_tables_language, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
