/*
 * heartsbot's command line (bot/options.c): what each form asks for, what
 * is not understood, the usage text main.c prints, and where the console
 * keeps its data by default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/options.h"

/* Parses the NULL-ended arguments after the program's name. */
static struct options parse(const char *const *args)
{
    char *argv[16] = {(char *)"heartsbot"};
    int argc = 1;
    while (args[argc - 1]) {
        assert_true(argc < 16);
        argv[argc] = (char *)args[argc - 1];
        argc++;
    }
    struct options o;
    memset(&o, 0x5a, sizeof o); /* every field is set by the parse */
    options_parse(argc, argv, &o);
    return o;
}

static void test_no_arguments_run_the_bot_on_the_defaults(void **state)
{
    (void)state;
    struct options o = parse((const char *[]){NULL});
    assert_int_equal(o.action, OPTIONS_RUN);
    assert_null(o.config_path);
    assert_null(o.preset);
    assert_false(o.console);
    assert_null(o.data_dir);
    assert_null(o.arg);
}

static void test_data_names_the_data_directory_in_either_mode(void **state)
{
    (void)state;
    struct options o = parse((const char *[]){"--data", "/srv/hb", NULL});
    assert_int_equal(o.action, OPTIONS_RUN);
    assert_string_equal(o.data_dir, "/srv/hb");
    assert_false(o.console);
    o = parse((const char *[]){"--console", "--data", "d1", "--preset",
                               "omnibus", "--data", "d2", NULL});
    assert_int_equal(o.action, OPTIONS_RUN);
    assert_true(o.console);
    assert_string_equal(o.data_dir, "d2"); /* the last one counts */
    /* an empty directory is none */
    o = parse((const char *[]){"--console", "--data", "", NULL});
    assert_int_equal(o.action, OPTIONS_USAGE);
}

static void test_config_and_console_in_any_order(void **state)
{
    (void)state;
    struct options o =
        parse((const char *[]){"--config", "bot.toml", "--console", NULL});
    assert_int_equal(o.action, OPTIONS_RUN);
    assert_string_equal(o.config_path, "bot.toml");
    assert_true(o.console);
    o = parse((const char *[]){"--console", "--preset", "standard hands=1",
                               "--config", "b.toml", NULL});
    assert_int_equal(o.action, OPTIONS_RUN);
    assert_true(o.console);
    assert_string_equal(o.preset, "standard hands=1");
    assert_string_equal(o.config_path, "b.toml");
}

static void test_the_last_config_given_counts(void **state)
{
    (void)state;
    struct options o = parse(
        (const char *[]){"--config", "a.toml", "--config", "b.toml", NULL});
    assert_int_equal(o.action, OPTIONS_RUN);
    assert_string_equal(o.config_path, "b.toml");
}

static void test_a_preset_goes_with_the_console(void **state)
{
    (void)state;
    struct options o = parse((const char *[]){"--preset", "omnibus", NULL});
    assert_int_equal(o.action, OPTIONS_PRESET_ALONE);
    o = parse((const char *[]){"--preset", "omnibus", "--config", "x", NULL});
    assert_int_equal(o.action, OPTIONS_PRESET_ALONE);
    o = parse((const char *[]){"--preset", "omnibus", "--console", NULL});
    assert_int_equal(o.action, OPTIONS_RUN);
}

static void test_an_option_without_its_value_is_not_understood(void **state)
{
    (void)state;
    static const char *const lone[] = {"--config", "--preset", "--data",
                                       "--rebuild-stats",
                                       "--appservice-registration"};
    for (size_t i = 0; i < sizeof lone / sizeof *lone; i++) {
        struct options o = parse((const char *[]){lone[i], NULL});
        assert_int_equal(o.action, OPTIONS_USAGE);
    }
    /* the value is taken whatever it looks like */
    struct options o = parse((const char *[]){"--config", "--console", NULL});
    assert_int_equal(o.action, OPTIONS_RUN);
    assert_string_equal(o.config_path, "--console");
    assert_false(o.console);
}

static void test_an_unknown_argument_is_not_understood(void **state)
{
    (void)state;
    static const char *const bad[] = {"--verbose", "-c",        "config.toml",
                                      "",          "--CONSOLE", "--config=x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct options o = parse((const char *[]){bad[i], NULL});
        assert_int_equal(o.action, OPTIONS_USAGE);
    }
    /* wherever it stands */
    struct options o =
        parse((const char *[]){"--console", "--config", "x", "extra", NULL});
    assert_int_equal(o.action, OPTIONS_USAGE);
}

static void test_help_ends_the_reading(void **state)
{
    (void)state;
    struct options o = parse((const char *[]){"--help", NULL});
    assert_int_equal(o.action, OPTIONS_HELP);
    o = parse((const char *[]){"-h", "--bogus", NULL});
    assert_int_equal(o.action, OPTIONS_HELP);
    o = parse((const char *[]){"--console", "-h", NULL});
    assert_int_equal(o.action, OPTIONS_HELP);
    /* what comes before it is read first */
    o = parse((const char *[]){"--bogus", "--help", NULL});
    assert_int_equal(o.action, OPTIONS_USAGE);
}

static void test_version_ends_the_reading(void **state)
{
    (void)state;
    struct options o = parse((const char *[]){"--version", NULL});
    assert_int_equal(o.action, OPTIONS_VERSION);
    o = parse((const char *[]){"--config", "x", "--version", "--bogus", NULL});
    assert_int_equal(o.action, OPTIONS_VERSION);
    /* what comes before it is read first */
    o = parse((const char *[]){"--bogus", "--version", NULL});
    assert_int_equal(o.action, OPTIONS_USAGE);
    o = parse((const char *[]){"-V", NULL});
    assert_int_equal(o.action, OPTIONS_USAGE);
}

static void test_rebuild_stats_ends_the_reading_where_it_stands(void **state)
{
    (void)state;
    struct options o = parse((const char *[]){"--rebuild-stats", "data", NULL});
    assert_int_equal(o.action, OPTIONS_REBUILD_STATS);
    assert_string_equal(o.arg, "data");
    /* what follows it is not read */
    o = parse((const char *[]){"--rebuild-stats", "d", "--bogus", NULL});
    assert_int_equal(o.action, OPTIONS_REBUILD_STATS);
    assert_string_equal(o.arg, "d");
    o = parse((const char *[]){"--config", "x", "--rebuild-stats", "d2", NULL});
    assert_int_equal(o.action, OPTIONS_REBUILD_STATS);
    assert_string_equal(o.arg, "d2");
    /* what precedes it is */
    o = parse((const char *[]){"--bogus", "--rebuild-stats", "d", NULL});
    assert_int_equal(o.action, OPTIONS_USAGE);
}

static void test_registration_is_the_whole_command_line(void **state)
{
    (void)state;
    struct options o =
        parse((const char *[]){"--appservice-registration", "as.toml", NULL});
    assert_int_equal(o.action, OPTIONS_REGISTRATION);
    assert_string_equal(o.arg, "as.toml");
    o = parse((const char *[]){"--appservice-registration", "a", "b", NULL});
    assert_int_equal(o.action, OPTIONS_USAGE);
    o = parse(
        (const char *[]){"--appservice-registration", "--config", "x", NULL});
    assert_int_equal(o.action, OPTIONS_USAGE);
    o = parse(
        (const char *[]){"--console", "--appservice-registration", "a", NULL});
    assert_int_equal(o.action, OPTIONS_USAGE);
}

static void test_check_takes_a_config_and_a_data_dir_only(void **state)
{
    (void)state;
    struct options o = parse((const char *[]){"--check", "bot.toml", NULL});
    assert_int_equal(o.action, OPTIONS_CHECK);
    assert_string_equal(o.arg, "bot.toml");
    assert_null(o.data_dir);
    o = parse((const char *[]){"--check", "b.toml", "--data", "d", NULL});
    assert_int_equal(o.action, OPTIONS_CHECK);
    assert_string_equal(o.arg, "b.toml");
    assert_string_equal(o.data_dir, "d");
    o = parse((const char *[]){"--data", "d", "--check", "b.toml", NULL});
    assert_int_equal(o.action, OPTIONS_CHECK);
    assert_string_equal(o.data_dir, "d");
    /* the config is its argument, not --config's; nothing else goes */
    static const char *const refused[][6] = {
        {"--check", NULL},
        {"--check", "a", "--check", "b", NULL},
        {"--check", "a", "--config", "b", NULL},
        {"--console", "--check", "a", NULL},
        {"--check", "a", "--console", "--preset", "omnibus", NULL},
        {"--check", "a", "--bogus", NULL},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        assert_int_equal(parse(refused[i]).action, OPTIONS_USAGE);
}

static void test_write_site_takes_a_config_a_site_and_a_data_dir(void **state)
{
    (void)state;
    struct options o =
        parse((const char *[]){"--write-site", "bot.toml", "site", NULL});
    assert_int_equal(o.action, OPTIONS_WRITE_SITE);
    assert_string_equal(o.arg, "bot.toml");
    assert_string_equal(o.site_dir, "site");
    assert_null(o.data_dir);
    o = parse(
        (const char *[]){"--data", "d", "--write-site", "b.toml", "s", NULL});
    assert_int_equal(o.action, OPTIONS_WRITE_SITE);
    assert_string_equal(o.data_dir, "d");
    static const char *const refused[][6] = {
        {"--write-site", NULL},
        {"--write-site", "a", NULL},
        {"--write-site", "a", "", NULL},
        {"--write-site", "a", "s", "--config", "b", NULL},
        {"--check", "a", "--write-site", "b", "s", NULL},
        {"--console", "--write-site", "a", "s", NULL},
        {"--write-site", "a", "s", "extra", NULL},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        assert_int_equal(parse(refused[i]).action, OPTIONS_USAGE);
}

/* What options_usage writes, read back from a temporary file. */
static char *usage_text(void)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    options_usage(f);
    long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    char *s = calloc(1, (size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return s;
}

static void test_the_usage_names_every_form(void **state)
{
    (void)state;
    char *s = usage_text();
    assert_string_equal(
        s, "usage: heartsbot [--config FILE] [--data DIR]\n"
           "       heartsbot --console [--preset RULES] [--config FILE] "
           "[--data DIR]\n"
           "       heartsbot --rebuild-stats DATA_DIR\n"
           "       heartsbot --appservice-registration CONFIG\n"
           "       heartsbot --version\n"
           "       heartsbot --check CONFIG [--data DIR]\n"
           "       heartsbot --write-site CONFIG SITE_DIR [--data DIR]\n");
    free(s);
}

/* ---- The console's directory ------------------------------------------ */

static void test_the_console_dir_follows_the_xdg_state_home(void **state)
{
    (void)state;
    char dir[64], err[200];
    assert_int_equal(options_console_dir("/st", "/home/ann", dir, sizeof dir,
                                         err, sizeof err),
                     0);
    assert_string_equal(dir, "/st/heartsbot/console");
    /* trailing slashes do not double */
    assert_int_equal(
        options_console_dir("/st//", NULL, dir, sizeof dir, err, sizeof err),
        0);
    assert_string_equal(dir, "/st/heartsbot/console");
    assert_int_equal(
        options_console_dir("/", NULL, dir, sizeof dir, err, sizeof err), 0);
    assert_string_equal(dir, "/heartsbot/console");
}

static void test_the_console_dir_is_under_home_without_it(void **state)
{
    (void)state;
    char dir[64], err[200];
    /* unset, empty or relative: HOME's */
    static const char *const none[] = {NULL, "", "state", "./st"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        memset(dir, 0, sizeof dir);
        assert_int_equal(options_console_dir(none[i], "/home/ann/", dir,
                                             sizeof dir, err, sizeof err),
                         0);
        assert_string_equal(dir, "/home/ann/.local/state/heartsbot/console");
    }
}

static void test_the_console_dir_needs_an_absolute_home(void **state)
{
    (void)state;
    static const char *const bad[] = {NULL, "", "ann"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char dir[64] = "untouched", err[200] = "";
        assert_int_equal(
            options_console_dir(NULL, bad[i], dir, sizeof dir, err, sizeof err),
            -1);
        assert_string_equal(dir, "untouched");
        assert_string_equal(err, "no directory for the console's data: "
                                 "neither XDG_STATE_HOME nor HOME is an "
                                 "absolute path (give --data DIR)");
    }
}

static void test_a_console_dir_too_long_is_refused_whole(void **state)
{
    (void)state;
    char dir[24] = "untouched", err[200] = "";
    /* "/st/heartsbot/console" is 21 bytes: it fits in 22, not in 21 */
    assert_int_equal(options_console_dir("/st", NULL, dir, 22, err, sizeof err),
                     0);
    assert_string_equal(dir, "/st/heartsbot/console");
    strcpy(dir, "untouched");
    assert_int_equal(options_console_dir("/st", NULL, dir, 21, err, sizeof err),
                     -1);
    assert_string_equal(dir, "untouched");
    assert_string_equal(err, "the console's data directory under /st: path "
                             "too long (give --data DIR)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_arguments_run_the_bot_on_the_defaults),
        cmocka_unit_test(test_data_names_the_data_directory_in_either_mode),
        cmocka_unit_test(test_config_and_console_in_any_order),
        cmocka_unit_test(test_the_last_config_given_counts),
        cmocka_unit_test(test_a_preset_goes_with_the_console),
        cmocka_unit_test(test_an_option_without_its_value_is_not_understood),
        cmocka_unit_test(test_an_unknown_argument_is_not_understood),
        cmocka_unit_test(test_help_ends_the_reading),
        cmocka_unit_test(test_version_ends_the_reading),
        cmocka_unit_test(test_rebuild_stats_ends_the_reading_where_it_stands),
        cmocka_unit_test(test_registration_is_the_whole_command_line),
        cmocka_unit_test(test_check_takes_a_config_and_a_data_dir_only),
        cmocka_unit_test(test_write_site_takes_a_config_a_site_and_a_data_dir),
        cmocka_unit_test(test_the_usage_names_every_form),
        cmocka_unit_test(test_the_console_dir_follows_the_xdg_state_home),
        cmocka_unit_test(test_the_console_dir_is_under_home_without_it),
        cmocka_unit_test(test_the_console_dir_needs_an_absolute_home),
        cmocka_unit_test(test_a_console_dir_too_long_is_refused_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
