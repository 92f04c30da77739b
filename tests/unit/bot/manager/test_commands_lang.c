/*
 * The commands' texts in the reader's language (commands.c,
 * cmd_results.c, results.c): a person who chose a language gets help,
 * hints and answers in it; what the channel hears is in the channel's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/bot/manager/world.h"

/* The last line to nick since `from`, which must contain needle. */
static void told(const char *nick, int from, const char *needle)
{
    const struct fake_chat_line *l = last_to(nick, from);
    if (!l)
        fail_msg("nothing told to %s (wanted \"%s\")", nick, needle);
    if (!strstr(l->text, needle))
        fail_msg("told %s \"%s\", wanted \"%s\"", nick, l->text, needle);
}

static void test_help_in_the_askers_language(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    said("alice", NULL, "lang de");
    int from = w->fake.n;
    said("alice", "#h", "!help join");
    told("alice", from, "!join: vor dem Start Platz nehmen (auch !j)");
    /* bob chose nothing: English, as before */
    from = w->fake.n;
    said("bob", "#h", "!help join");
    told("bob", from, "!join: take a seat before the start (also !j)");
    from = w->fake.n;
    said("alice", "#h", "!help bot");
    told("alice", from,
         "!bot [N] [STUFE]: Computerspieler dazunehmen. "
         "Stufen, mit ihrer Wertung (höher ist stärker: 200 mehr gewinnt "
         "gegeneinander etwa 3 von 4 Spielen): random (");
    from = w->fake.n;
    said("alice", NULL, "help pass");
    told("alice", from,
         "pass K1 K2 K3 (privat): die Karten, die du "
         "weitergibst");
    from = w->fake.n;
    said("alice", "#h", "!help");
    told("alice", from,
         "Hearts: !hearts er\xc3\xb6"
         "ffnet einen Tisch, !join setzt dich dazu");
    told("alice", from,
         "Im Kanal au\xc3\x9f"
         "erdem: !leave !bot");
    told("alice", from,
         "Privat: hand, pass K1 K2 K3, play KARTE (oder "
         "einfach KARTE), moon, discard");
    /* a near miss and a word unknown */
    from = w->fake.n;
    said("alice", NULL, "hlep");
    told("alice", from,
         "\xe2\x80\x9ehlep\xe2\x80\x9c kenne ich nicht \xe2\x80\x93 meintest "
         "du \xe2\x80\x9ehelp\xe2\x80\x9c?");
    from = w->fake.n;
    said("alice", NULL, "help zzz");
    told("alice", from, "Es gibt keinen Befehl \xe2\x80\x9ezzz\xe2\x80\x9c.");
    from = w->fake.n;
    said("alice", NULL, "join");
    told("alice", from, "!join geht im Kanal des Tisches");
}

/* After a game: !stats and !top said in the channel are in its language
 * (English here); the same answer again goes to the asker alone, in
 * theirs; a refusal is theirs; privately, at a table, theirs. */
static void test_results_in_the_askers_language(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 30;
    said("alice", NULL, "lang de");
    four_people("standard hands=1");
    play_everything(the_table());
    run_for(5);
    int from = w->fake.n;
    said("alice", "#h", "!stats");
    assert_true(any_contains("#h", from, "alice (standard): 1 game, "));
    from = w->fake.n;
    said("alice", "#h", "!stats");
    assert_int_equal(lines_to("#h", from), 0);
    told("alice", from, "alice (standard): 1 Partie, ");
    told("alice", from, " Punkte pro Runde, ");
    from = w->fake.n;
    said("alice", "#h", "!top");
    assert_true(any_contains("#h", from, "Top 4 (standard): 1. "));
    from = w->fake.n;
    said("alice", "#h", "!top");
    assert_int_equal(lines_to("#h", from), 0);
    assert_true(any_contains("alice", from, "Top 4 (standard): 1. "));
    assert_true(any_contains("alice", from, "(1 Partie, "));
    assert_true(any_contains("alice", from, "?: vorl\xc3\xa4ufig"));
    from = w->fake.n;
    said("alice", "#h", "!top 11");
    told("alice", from, "Wie viele? 1 bis 10.");
    from = w->fake.n;
    said("alice", "#h", "!stats zed");
    assert_true(any_contains("#h", from, "zed has not finished a game here."));
    from = w->fake.n;
    said("alice", "#h", "!stats zed");
    told("alice", from, "zed hat hier noch keine Partie beendet.");
    said("alice", "#h", "!last");
    from = w->fake.n;
    said("alice", "#h", "!last");
    /* hands=1 plays on past a tie: one hand or more */
    told("alice", from, "Letzte Partie (gerade eben, standard mit hands=1, ");
    told("alice", from, " Runde");
    told("alice", from, "): alice ");
    /* privately, seated at the next game's table */
    four_people("standard");
    from = w->fake.n;
    said("alice", NULL, "stats");
    told("alice", from, "alice (standard): 1 Partie, ");
    assert_int_equal(lines_to("#h", from), 0);
    /* bob's are English */
    from = w->fake.n;
    said("bob", NULL, "stats");
    told("bob", from, "bob (standard): 1 game, ");
}

/* A channel whose language is German hears its answers in German. */
static void test_results_in_the_channels_language(void **state)
{
    (void)state;
    free(w->cfg.lang);
    w->cfg.lang = strdup("de");
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    int from = w->fake.n;
    said("bob", "#h", "!last");
    assert_true(
        any_contains("#h", from, "Hier wurde noch keine Partie beendet."));
    four_people("standard hands=1");
    play_everything(the_table());
    run_for(5);
    from = w->fake.n;
    said("bob", "#h", "!stats");
    assert_true(any_contains("#h", from, "bob (standard): 1 Partie, "));
    from = w->fake.n;
    said("bob", "#h", "!scores");
    assert_true(any_contains("#h", from,
                             "Hier l\xc3\xa4uft gerade keine "
                             "Partie; die Punktetabelle der "
                             "letzten:"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_help_in_the_askers_language, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_results_in_the_askers_language,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_results_in_the_channels_language,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
