/*
 * heartsbot's command line (options.h).
 */
#include "bot/options.h"

#include <string.h>

void options_usage(FILE *out)
{
    fprintf(out, "usage: heartsbot [--config FILE]\n"
                 "       heartsbot --console [--preset RULES] [--config "
                 "FILE]\n"
                 "       heartsbot --rebuild-stats DATA_DIR\n"
                 "       heartsbot --appservice-registration CONFIG\n");
}

void options_parse(int argc, char *const *argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->action = OPTIONS_RUN;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config") && i + 1 < argc) {
            o->config_path = argv[++i];
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
        } else if (!strcmp(argv[i], "--preset") && i + 1 < argc) {
            o->preset = argv[++i];
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            o->action = OPTIONS_HELP;
            return;
        } else {
            o->action = OPTIONS_USAGE;
            return;
        }
    }
    if (o->preset && !o->console)
        o->action = OPTIONS_PRESET_ALONE;
}
