/*
 * heartsbot's command line (options.h).
 */
#include "bot/options.h"

#include <string.h>

#include "bot/common/err.h"

void options_usage(FILE *out)
{
    fprintf(out, "usage: heartsbot [--config FILE] [--data DIR]\n"
                 "       heartsbot --console [--preset RULES] [--config "
                 "FILE] [--data DIR]\n"
                 "       heartsbot --rebuild-stats DATA_DIR\n"
                 "       heartsbot --appservice-registration CONFIG\n"
                 "       heartsbot --version\n"
                 "       heartsbot --check CONFIG [--data DIR]\n"
                 "       heartsbot --write-site CONFIG SITE_DIR [--data "
                 "DIR]\n");
}

void options_parse(int argc, char *const *argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->action = OPTIONS_RUN;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config") && i + 1 < argc) {
            o->config_path = argv[++i];
        } else if (!strcmp(argv[i], "--data") && i + 1 < argc &&
                   argv[i + 1][0]) {
            o->data_dir = argv[++i];
        } else if (!strcmp(argv[i], "--console")) {
            o->console = true;
        } else if (!strcmp(argv[i], "--rebuild-stats") && i + 1 < argc) {
            o->action = OPTIONS_REBUILD_STATS;
            o->arg = argv[i + 1];
            return;
        } else if (!strcmp(argv[i], "--appservice-registration") &&
                   i + 1 < argc && argc == 3) {
            o->action = OPTIONS_REGISTRATION;
            o->arg = argv[i + 1];
            return;
        } else if (!strcmp(argv[i], "--check") && i + 1 < argc && !o->arg) {
            o->arg = argv[++i];
        } else if (!strcmp(argv[i], "--write-site") && i + 2 < argc &&
                   !o->arg && argv[i + 2][0]) {
            o->arg = argv[++i];
            o->site_dir = argv[++i];
        } else if (!strcmp(argv[i], "--preset") && i + 1 < argc) {
            o->preset = argv[++i];
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            o->action = OPTIONS_HELP;
            return;
        } else if (!strcmp(argv[i], "--version")) {
            o->action = OPTIONS_VERSION;
            return;
        } else {
            o->action = OPTIONS_USAGE;
            return;
        }
    }
    if (o->arg) { /* --check, --write-site: with --data only */
        o->action = o->config_path || o->console || o->preset ? OPTIONS_USAGE
                    : o->site_dir ? OPTIONS_WRITE_SITE
                                  : OPTIONS_CHECK;
        return;
    }
    if (o->preset && !o->console)
        o->action = OPTIONS_PRESET_ALONE;
}

/* The console's directory under the base's first n bytes and `under`. */
#define CONSOLE_DIR "%.*s%s/heartsbot/console"

int options_console_dir(const char *state_home, const char *home, char *out,
                        size_t outlen, char *err, size_t errlen)
{
    /* the XDG rule: a relative XDG_STATE_HOME is no value */
    const char *base = state_home && state_home[0] == '/' ? state_home : NULL;
    const char *under = base ? "" : "/.local/state";
    if (!base && home && home[0] == '/')
        base = home;
    if (!base)
        return err_set(err, errlen,
                       "no directory for the console's data: neither "
                       "XDG_STATE_HOME nor HOME is an absolute path (give "
                       "--data DIR)");
    size_t n = strlen(base);
    while (n > 0 && base[n - 1] == '/')
        n--;
    int w = snprintf(NULL, 0, CONSOLE_DIR, (int)n, base, under);
    if (w < 0 || (size_t)w >= outlen)
        return err_set(err, errlen,
                       "the console's data directory under %s: path too long "
                       "(give --data DIR)",
                       base);
    snprintf(out, outlen, CONSOLE_DIR, (int)n, base, under);
    return 0;
}
