/*
 * heartsbot's command line: what it asks for, read without acting on it
 * (main.c acts), and the usage text.
 */
#ifndef HEARTS_BOT_OPTIONS_H
#define HEARTS_BOT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum options_action {
    OPTIONS_RUN,           /* the bot: the networks, or the console */
    OPTIONS_HELP,          /* --help, -h: the usage on stdout */
    OPTIONS_USAGE,         /* not understood: the usage on stderr */
    OPTIONS_PRESET_ALONE,  /* --preset without --console */
    OPTIONS_REBUILD_STATS, /* --rebuild-stats DATA_DIR */
    OPTIONS_REGISTRATION,  /* --appservice-registration CONFIG */
    OPTIONS_VERSION,       /* --version: the version on stdout */
    OPTIONS_CHECK,         /* --check CONFIG [--data DIR] */
    OPTIONS_WRITE_SITE,    /* --write-site CONFIG SITE_DIR [--data DIR] */
};

/* What the command line asks for; the strings point into argv. */
struct options {
    enum options_action action;
    const char *config_path; /* --config FILE, or NULL */
    const char *preset;      /* --preset RULES, or NULL */
    bool console;            /* --console */
    const char *data_dir;    /* --data DIR, or NULL */
    const char *arg;         /* DATA_DIR of --rebuild-stats, CONFIG of
                                --appservice-registration, --check and
                                --write-site */
    const char *site_dir;    /* SITE_DIR of --write-site */
};

/* Reads argv[1..argc-1] left to right into *o. --help, --version and
 * --rebuild-stats DIR end the reading wherever they stand;
 * --appservice-registration CONFIG is the whole command line or not
 * understood; --check CONFIG and --write-site CONFIG SITE_DIR go with
 * --data DIR or nothing. */
void options_parse(int argc, char *const *argv, struct options *o);

/*
 * Where the console keeps its data when neither --data nor the config's
 * data_dir says: $XDG_STATE_HOME/heartsbot/console, or, without an
 * absolute XDG_STATE_HOME, $HOME/.local/state/heartsbot/console (the XDG
 * base directory rule: a person's state that outlives a run but is no
 * document of theirs). state_home and home are the environment's values
 * or NULL. 0, or -1 with the reason (no absolute HOME either, or the path
 * does not fit in outlen) in err and out untouched.
 */
int options_console_dir(const char *state_home, const char *home, char *out,
                        size_t outlen, char *err, size_t errlen);

/* The usage text, to out. */
void options_usage(FILE *out);

#endif
