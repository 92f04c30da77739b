/*
 * Languages in the manager (bot/manager/lang.c) and the lang command
 * (cmd_person.c): a person's choice answers them in their language, is
 * kept across a restart, and a bad choice changes nothing.
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

static int lang_of(const char *nick)
{
    struct chat_user u = user(nick);
    return mgr_lang_person(w->m, &w->fake.base, &u, NULL);
}

static void test_lang_default_is_the_configs(void **state)
{
    (void)state;
    assert_int_equal(lang_of("alice"), MSG_EN);
    free(w->cfg.lang);
    w->cfg.lang = strdup("fr");
    assert_int_equal(lang_of("alice"), msg_lang_find("fr"));
    assert_int_equal(mgr_lang_room(w->m, &w->fake.base, "#h"),
                     msg_lang_find("fr"));
}

static void test_lang_alone_says_the_language_and_choices(void **state)
{
    (void)state;
    int from = w->fake.n;
    said("alice", NULL, "lang");
    const struct fake_chat_line *l = last_to("alice", from);
    assert_non_null(l);
    assert_non_null(strstr(l->text, "I speak English with you."));
    assert_non_null(strstr(l->text, "de (Deutsch)"));
    assert_non_null(strstr(l->text, "es (Espa\xc3\xb1ol)"));
}

static void test_lang_chosen_answers_in_it_and_survives_restart(void **state)
{
    (void)state;
    int from = w->fake.n;
    said("alice", "#h", "!lang de");
    const struct fake_chat_line *l = last_to("alice", from);
    assert_non_null(l);
    assert_string_equal(l->text, "Ab jetzt spreche ich Deutsch mit dir.");
    /* nothing in the channel */
    assert_null(last_to("#h", from));
    assert_int_equal(lang_of("alice"), msg_lang_find("de"));
    assert_int_equal(lang_of("bob"), MSG_EN);
    restart();
    assert_int_equal(lang_of("alice"), msg_lang_find("de"));
    from = w->fake.n;
    said("alice", NULL, "lang");
    assert_non_null(
        strstr(last_to("alice", from)->text, "Ich spreche Deutsch mit dir."));
    /* by its own name too, any case, and back to the default */
    said("alice", NULL,
         "lang FRAN\xc3\xa7"
         "ais");
    assert_int_equal(lang_of("alice"), msg_lang_find("fr"));
    said("alice", NULL, "lang Espa\xc3\xb1ol");
    assert_int_equal(lang_of("alice"), msg_lang_find("es"));
    from = w->fake.n;
    said("alice", NULL, "lang default");
    assert_int_equal(lang_of("alice"), MSG_EN);
    assert_non_null(strstr(last_to("alice", from)->text,
                           "channel's language with you again: English"));
    restart();
    assert_int_equal(lang_of("alice"), MSG_EN);
}

static void test_lang_unknown_changes_nothing(void **state)
{
    (void)state;
    said("alice", NULL, "lang fr");
    char path[1024], before[4096], after[4096];
    snprintf(path, sizeof path, "%s/people.jsonl", w->dir);
    read_small(path, before, sizeof before);
    const char *bad[] = {"lang xx", "lang \"de\"", "lang de-AT",
                         "lang <script>", "lang "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int from = w->fake.n;
        said("alice", NULL, bad[i]);
        const struct fake_chat_line *l = last_to("alice", from);
        assert_non_null(l);
        if (strcmp(bad[i], "lang ") != 0)
            assert_non_null(strstr(l->text, "Je ne connais pas la langue"));
    }
    read_small(path, after, sizeof after);
    assert_string_equal(before, after);
    assert_int_equal(lang_of("alice"), msg_lang_find("fr"));
}

/* The file is not the bot's (a newer bot's format): the choice holds for
 * this run, the person is told, the file is left as it was. */
static void test_lang_kept_for_the_run_when_the_file_is_not_ours(void **state)
{
    (void)state;
    char path[1024], before[4096], after[4096];
    snprintf(path, sizeof path, "%s/people.jsonl", w->dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"format\":\"heartsbot-people/9\"}\n", f);
    fclose(f);
    read_small(path, before, sizeof before);
    restart();
    int from = w->fake.n;
    said("alice", NULL, "lang es");
    const struct fake_chat_line *l = last_to("alice", from);
    assert_non_null(strstr(l->text, "A partir de ahora"));
    assert_non_null(strstr(l->text, "no se pudo guardar"));
    assert_int_equal(lang_of("alice"), msg_lang_find("es"));
    read_small(path, after, sizeof after);
    assert_string_equal(before, after);
}

/* A channel's lines are in its language (here the config's). */
static void test_lang_channel_lines_in_the_channels_language(void **state)
{
    (void)state;
    free(w->cfg.lang);
    w->cfg.lang = strdup("de");
    w->cfg.lobby_timeout = 1;
    said("alice", "#h", "!hearts");
    run_for(1200);
    assert_null(the_table());
    assert_true(any_contains("#h", 0,
                             "Der Tisch schlie\xc3\x9f"
                             "t: Niemand hat die Partie gestartet."));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lang_default_is_the_configs, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_lang_alone_says_the_language_and_choices, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_lang_chosen_answers_in_it_and_survives_restart, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_lang_unknown_changes_nothing,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_lang_kept_for_the_run_when_the_file_is_not_ours, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_lang_channel_lines_in_the_channels_language, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
