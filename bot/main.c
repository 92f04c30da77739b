/*
 * heartsbot: reads the configuration, starts the adapters (every IRC
 * network of the config, or the console with --console) on one event
 * loop with the game manager, and runs until a signal. Five commands do
 * one thing and exit instead: --version, --rebuild-stats,
 * --appservice-registration, which writes the registration file of each
 * [[matrix]] in mode = "appservice" (docs/hosting.md), --check
 * (check.h), which reads the config and looks at the data directory as a
 * start would, connecting to nothing, and --write-site (bot/site/site.h),
 * which writes the web site of every channel of the data directory.
 *
 * The console keeps its data in a directory of the person's own
 * (options_console_dir) unless --data or the config's data_dir names one,
 * and its log in a file there (heartsbot.log), so that no log line comes
 * between the lines of the game: only an error that stops the bot is said
 * on standard error too.
 *
 * Signals arrive through a self-pipe so that their work happens in the
 * loop, not in a handler: SIGINT and SIGTERM stop cleanly (the tables are
 * told, every adapter says goodbye and flushes, within a few seconds),
 * SIGHUP reloads the configuration where that is safe (timeouts, prefix,
 * colours, admins, rules; network settings need a restart). SIGPIPE and
 * SIGXFSZ are ignored: a closed socket, or a file past the size limit
 * (RLIMIT_FSIZE), is seen as an error where it is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/common/chat.h"
#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/common/version.h"
#include "bot/common/xalloc.h"
#include "bot/check.h"
#include "bot/check_protocols.h"
#include "bot/config.h"
#include "adapters/console/console.h"
#include "engine/engine.h"
#include "bot/common/log.h"
#include "bot/common/loop.h"
#include "bot/manager/manager.h"
#include "bot/options.h"
#include "bot/site/site.h"
#include "bot/site_writer.h"
#include "adapters/matrix/matrix_config.h"
#include "adapters/matrix/matrix_protocol.h"
#include "adapters/matrix/registration.h"
#include "adapters/registry.h"

#define MAX_ADAPTERS 64

static int signal_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    if (write(signal_pipe[1], &b, 1) < 0) {
        /* the pipe is full: a signal is pending already */
    }
    errno = saved;
}

struct bot {
    struct loop *loop;
    struct manager *manager;
    struct config cfg;
    const char *config_path;
    struct chat_adapter *adapters[MAX_ADAPTERS];
    const struct protocol *protocols[MAX_ADAPTERS]; /* NULL: the console */
    int nadapters;
    bool console;             /* --console: one person at the terminal */
    struct site_writer *site; /* [site] dir given, else NULL */
    bool stopping;
    int64_t stop_deadline;
};

/* One appservice [[matrix]]'s registration file: written if absent, read
 * and checked against the config if present. 0, or -1 (said on stderr). */
static int registration_one(const struct matrix_config *mx)
{
    char err[1024], url[300];
    mx_registration_url(mx, url, sizeof url);
    int rc = mx_registration_write(mx, err, sizeof err);
    if (rc == 0) {
        printf("wrote %s: the registration of [[matrix]] \"%s\", with "
               "new tokens (mode 0640: keep it private)\n"
               "next: give it to the homeserver, then start heartsbot\n"
               "  Synapse: list it in app_service_config_files in "
               "homeserver.yaml, let Synapse's user read it, restart "
               "Synapse\n"
               "  Dendrite, Conduit: docs/hosting.md, \"Matrix as an "
               "application service\"\n"
               "  the homeserver will reach the bot at %s\n",
               mx->registration, mx->name, url);
        if (strcmp(mx->listen_host, "0.0.0.0") == 0 ||
            strcmp(mx->listen_host, "::") == 0)
            printf("  (listen is every address: if the homeserver runs on "
                   "another machine, put the bot's address in its url)\n");
        return 0;
    }
    struct mx_registration r = {0};
    if (rc < 0 || mx_registration_load(mx->registration, &r, err, sizeof err) ||
        mx_registration_check(&r, mx, err, sizeof err)) {
        fprintf(stderr, "heartsbot: [[matrix]] \"%s\": %s\n", mx->name, err);
        mx_registration_free(&r);
        return -1;
    }
    printf("%s exists: kept (the registration of [[matrix]] \"%s\"; "
           "remove it to have new tokens written)\n",
           mx->registration, mx->name);
    if (strcmp(r.url, url) != 0)
        printf("note: its url is \"%s\", and the bot listens at %s: the "
               "homeserver must reach the bot at its url\n",
               r.url, url);
    mx_registration_free(&r);
    return 0;
}

/* heartsbot --appservice-registration CONFIG: connects to nothing. */
static int registration_command(const char *config_path)
{
    struct config cfg;
    char err[512];
    if (config_load(config_path, registry_protocols, &cfg, err, sizeof err)) {
        fprintf(stderr, "heartsbot: %s\n", err);
        return 1;
    }
    int n = 0, failed = 0;
    for (int i = 0; i < config_count(&cfg, &matrix_protocol); i++) {
        const struct matrix_config *mx =
            config_section(&cfg, &matrix_protocol, i);
        if (!mx->appservice)
            continue;
        n++;
        if (registration_one(mx))
            failed++;
    }
    if (n == 0)
        fprintf(stderr,
                "heartsbot: no [[matrix]] in %s has mode = \"appservice\": "
                "no registration to write\n",
                config_path);
    config_free(&cfg);
    return n == 0 || failed ? 1 : 0;
}

/*
 * heartsbot --write-site CONFIG SITE_DIR [--data DIR]: the whole site of
 * the config's data directory (or DIR) into SITE_DIR; connects to
 * nothing, takes no lock and changes nothing in the data directory.
 */
static int write_site_command(const char *config_path, const char *site_dir,
                              const char *data_dir)
{
    struct config cfg;
    char err[1024], warn[512];
    if (config_load(config_path, registry_protocols, &cfg, err, sizeof err)) {
        fprintf(stderr, "heartsbot: %s\n", err);
        return 1;
    }
    const char *data = data_dir ? data_dir : cfg.data_dir;
    /* the person pages named as the bot names them */
    char secret[65];
    if (site_secret(data, secret, sizeof secret, err, sizeof err)) {
        fprintf(stderr, "heartsbot: %s\n", err);
        config_free(&cfg);
        return 1;
    }
    const char **hide = xcalloc((size_t)cfg.nsite_hide_hands + 1, sizeof *hide);
    for (int i = 0; i < cfg.nsite_hide_hands; i++)
        hide[i] = cfg.site_hide_hands[i];
    struct site_options so = {
        .data_dir = data,
        .out_dir = site_dir,
        .hide_hands = hide,
        .secret = secret,
    };
    struct site *s = site_new(&so);
    int channels = 0;
    int rc = site_write_all(s, &channels, warn, sizeof warn, err, sizeof err);
    if (rc)
        fprintf(stderr, "heartsbot: the site: %s\n", err);
    else {
        if (warn[0])
            fprintf(stderr, "heartsbot: a channel left out of the site: %s\n",
                    warn);
        printf("site of %d channel%s written to %s\n", channels,
               channels == 1 ? "" : "s", site_dir);
    }
    site_free(s);
    free(hide);
    config_free(&cfg);
    return rc ? 1 : 0;
}

/* Waits for the adapters to flush their goodbyes, then ends the loop. */
static void stop_check(struct loop *l, void *ctx)
{
    struct bot *b = ctx;
    bool idle = true;
    for (int i = 0; i < b->nadapters; i++)
        if (!b->adapters[i]->ops->idle(b->adapters[i]))
            idle = false;
    if (idle || loop_now(l) >= b->stop_deadline) {
        loop_stop(l);
        return;
    }
    loop_timer(l, 50, stop_check, b);
}

/* The console's goodbye: one line, which says where the game went. */
static void stop_console(struct bot *b)
{
    int ended = manager_shutdown(
        b->manager, manager_storage_ok(b->manager)
                        /* TRANSLATORS: {dir}: the directory where the
                         * bot keeps its data */
                        ? M("The console closes: this game ends unscored, "
                            "and its record is saved in {dir}.")
                        : M("The console closes: this game ends unscored."));
    const struct chat_user you = {.nick = CONSOLE_NICK, .id = "console"};
    char bye[200];
    manager_text(b->manager, b->adapters[0], &you, M("Goodbye."), bye,
                 sizeof bye);
    b->adapters[0]->ops->stop(b->adapters[0], ended ? NULL : bye);
}

static void begin_stop(struct bot *b, const char *why)
{
    if (b->stopping)
        return;
    b->stopping = true;
    log_info("stopping: %s", why);
    if (b->console) {
        stop_console(b);
    } else {
        manager_shutdown(b->manager, M("heartsbot is shutting down: this "
                                       "game ends unscored."));
        char bye[200];
        manager_text(b->manager, NULL, NULL,
                     /* TRANSLATORS: the bot's goodbye as it leaves the
                      * network (an IRC QUIT message) */
                     M("heartsbot is shutting down"), bye, sizeof bye);
        for (int i = 0; i < b->nadapters; i++)
            b->adapters[i]->ops->stop(b->adapters[i], bye);
    }
    b->stop_deadline = loop_now(b->loop) + 3000;
    loop_timer(b->loop, 0, stop_check, b);
}

/* The site's writer for b->cfg's [site] (none if its dir is ""): the
 * manager hands it each archived game and names its pages in chat. A
 * writer that cannot start is logged; the bot plays on without pages. */
static void site_start(struct bot *b)
{
    if (b->console || !*b->cfg.site_dir)
        return;
    char err[512];
    b->site = site_writer_start(&b->cfg, b->cfg.data_dir, err, sizeof err);
    if (!b->site) {
        log_error("site: no pages written: %s", err);
        return;
    }
    manager_on_archived(b->manager, site_writer_archived, b->site);
    manager_set_site(b->manager, site_writer_secret(b->site));
}

static void site_stop(struct bot *b)
{
    manager_on_archived(b->manager, NULL, NULL);
    manager_set_site(b->manager, NULL);
    site_writer_stop(b->site);
    b->site = NULL;
}

/* Rereads the config file (`why`: SIGHUP, an admin's !reload): 0, or -1
 * with the reason in err (logged too). */
static int reload(struct bot *b, const char *why, char *err, size_t errlen)
{
    if (!b->config_path) {
        log_info("%s: no config file to reload", why);
        return err_set(err, errlen, "no config file to reload");
    }
    struct config fresh;
    if (config_load(b->config_path, registry_protocols, &fresh, err, errlen)) {
        log_error("reload refused, keeping the running config: %s", err);
        return -1;
    }
    /* what of a running network can change without reconnecting (IRC:
     * its channels) changes now */
    for (int i = 0; i < fresh.nnetworks; i++) {
        const struct config_network *net = &fresh.networks[i];
        for (int k = 0; k < b->nadapters; k++)
            if (b->protocols[k] == net->protocol && net->protocol->reload &&
                strcmp(b->adapters[k]->network, net->name) == 0)
                net->protocol->reload(b->adapters[k], net->cfg,
                                      manager_room_busy, b->manager);
    }
    /* networks are fixed at start: keep them, take the rest (the
     * networks the file names now are freed with the old config) */
    struct config old = b->cfg;
    config_keep_networks(&fresh, &old);
    /* the lock is on the data directory of the start: keep it */
    char *data_dir = fresh.data_dir;
    fresh.data_dir = old.data_dir;
    old.data_dir = data_dir;
    b->cfg = fresh;
    manager_reload(b->manager, &b->cfg);
    /* another site directory or other hidden hands: another writer (the
     * url alone is read at each answer) */
    if (b->site ? !site_writer_same(b->site, &b->cfg) : *b->cfg.site_dir) {
        site_stop(b);
        site_start(b);
    }
    for (int i = 0; i < b->nadapters; i++)
        b->adapters[i]->lang = manager_lang(b->manager);
    log_set_level(b->cfg.log_level);
    config_free(&old);
    log_info("configuration reloaded from %s (network settings but IRC "
             "channels apply at the next start)",
             b->config_path);
    return 0;
}

static int reload_asked(void *ctx, char *err, size_t errlen)
{
    return reload(ctx, "!reload", err, errlen);
}

static void signal_readable(struct loop *l, int fd, int events, void *ctx)
{
    (void)l;
    (void)events;
    struct bot *b = ctx;
    unsigned char sig;
    while (read(fd, &sig, 1) == 1) {
        if (sig == SIGHUP) {
            char err[512];
            reload(b, "SIGHUP", err, sizeof err);
        } else
            begin_stop(b, sig == SIGINT ? "SIGINT" : "SIGTERM");
    }
}

static int setup_signals(struct bot *b)
{
    if (pipe(signal_pipe))
        return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(signal_pipe[i], F_SETFL, O_NONBLOCK);
        fcntl(signal_pipe[i], F_SETFD, FD_CLOEXEC);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* past a file size limit a write fails with EFBIG, logged there */
    signal(SIGXFSZ, SIG_IGN);
    loop_watch(b->loop, signal_pipe[0], LOOP_READ, signal_readable, b);
    return 0;
}

/* An adapter for every network of the config, protocol by protocol in
 * the registry's order, each started after the games it had in progress
 * at the last stop are rebuilt. */
static void start_networks(struct bot *b)
{
    const struct protocol_env env = {.data_dir = b->cfg.data_dir,
                                     .on_event = manager_on_event,
                                     .ctx = b->manager};
    for (int p = 0; registry_protocols[p]; p++) {
        const struct protocol *proto = registry_protocols[p];
        for (int i = 0; i < b->cfg.nnetworks && b->nadapters < MAX_ADAPTERS;
             i++) {
            const struct config_network *net = &b->cfg.networks[i];
            if (net->protocol != proto)
                continue;
            struct chat_adapter *a = proto->create(b->loop, net->cfg, &env);
            a->lang = manager_lang(b->manager);
            a->is_admin = manager_is_admin;
            b->protocols[b->nadapters] = proto;
            b->adapters[b->nadapters++] = a;
            /* the games in progress at the last stop, before connecting */
            manager_restore(b->manager, a);
            if (a->ops->start(a))
                log_error("%s: %s", net->name, proto->start_failed);
        }
    }
}

static void on_console_end(void *ctx, const char *why)
{
    begin_stop(ctx, why);
}

/* The console's data directory (made, mode 0700 for what is missing) and
 * its log file there. 0, or -1 said on stderr. */
static int setup_console_data(struct config *cfg)
{
    char err[FILE_PATH_MAX + 200];
    if (!cfg->data_dir_given) {
        char dir[FILE_PATH_MAX];
        if (options_console_dir(getenv("XDG_STATE_HOME"), getenv("HOME"), dir,
                                sizeof dir, err, sizeof err)) {
            fprintf(stderr, "heartsbot: %s\n", err);
            return -1;
        }
        free(cfg->data_dir);
        cfg->data_dir = xstrdup(dir);
    }
    char log_path[FILE_PATH_MAX];
    if (file_mkdirs(cfg->data_dir, cfg->data_dir, err, sizeof err) ||
        file_path(log_path, sizeof log_path, err, sizeof err, cfg->data_dir,
                  "heartsbot.log", (const char *)NULL)) {
        fprintf(stderr, "heartsbot: the console's data directory: %s\n", err);
        return -1;
    }
    if (log_to_file(log_path, err, sizeof err)) {
        /* the game still must not drown in lines: only what is wrong */
        fprintf(stderr,
                "heartsbot: cannot write the log file (%s): warnings and "
                "errors are shown here instead\n",
                err);
        if (strcmp(cfg->log_level, "info") == 0 ||
            strcmp(cfg->log_level, "debug") == 0)
            log_level_set(LOG_WARN);
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct options opt;
    options_parse(argc, argv, &opt);
    switch (opt.action) {
    case OPTIONS_RUN:
        break;
    case OPTIONS_HELP:
        options_usage(stdout);
        return 0;
    case OPTIONS_VERSION:
        version_print(stdout, "heartsbot");
        return 0;
    case OPTIONS_USAGE:
        options_usage(stderr);
        return 2;
    case OPTIONS_PRESET_ALONE:
        fprintf(stderr, "heartsbot: --preset goes with --console\n");
        return 2;
    case OPTIONS_REBUILD_STATS:
        /* every channel's leaderboards from its archive, and exit */
        return manager_rebuild_stats(opt.arg);
    case OPTIONS_REGISTRATION:
        return registration_command(opt.arg);
    case OPTIONS_WRITE_SITE:
        return write_site_command(opt.arg, opt.site_dir, opt.data_dir);
    case OPTIONS_CHECK:
        /* connects to nothing, changes nothing */
        return check_run(opt.arg, opt.data_dir, registry_protocols,
                         check_protocol_files, stdout, stderr)
                   ? 1
                   : 0;
    }
    const char *config_path = opt.config_path, *preset = opt.preset;
    bool console = opt.console;
    struct bot b;
    memset(&b, 0, sizeof b);
    b.config_path = config_path;
    char err[512];
    int rc = config_path ? config_load(config_path, registry_protocols, &b.cfg,
                                       err, sizeof err)
                         : config_parse("", 0, "(defaults)", registry_protocols,
                                        &b.cfg, err, sizeof err);
    if (rc) {
        fprintf(stderr, "heartsbot: %s\n", err);
        return 1;
    }
    if (opt.data_dir) {
        free(b.cfg.data_dir);
        b.cfg.data_dir = xstrdup(opt.data_dir);
        b.cfg.data_dir_given = true;
    }
    if (!console && b.cfg.nnetworks == 0) {
        char tables[256];
        config_network_tables(registry_protocols, tables, sizeof tables);
        fprintf(stderr, "heartsbot: no %s network in %s (or use --console)\n",
                tables, config_path ? config_path : "the defaults");
        config_free(&b.cfg);
        return 1;
    }
    if (preset) {
        struct engine_rules r;
        struct engine_error e;
        if (engine_rules_parse(&r, preset, 0, &e)) {
            fprintf(stderr, "heartsbot: --preset: %s\n",
                    rule_words_error_text(err, sizeof err, MSG_EN, &e));
            config_free(&b.cfg);
            return 2;
        }
    }
    log_set_level(b.cfg.log_level);
    if (console && setup_console_data(&b.cfg)) {
        config_free(&b.cfg);
        return 1;
    }
    b.console = console;
    b.loop = loop_new();
    if (setup_signals(&b)) {
        fprintf(stderr, "heartsbot: signals: %s\n", strerror(errno));
        return 1;
    }
    b.manager = manager_new(b.loop, &b.cfg);
    manager_on_reload(b.manager, reload_asked, &b);
    if (manager_storage_start(b.manager, err, sizeof err)) {
        log_fatal("%s", err);
        log_to_stderr();
        manager_free(b.manager);
        loop_free(b.loop);
        config_free(&b.cfg);
        return 1;
    }
    if (console) {
        unsigned features =
            console_features(isatty(STDIN_FILENO), isatty(STDOUT_FILENO),
                             getenv("TERM"), getenv("NO_COLOR"));
        struct chat_adapter *a = console_new(
            b.loop, STDIN_FILENO, STDOUT_FILENO, features, b.cfg.command_prefix,
            manager_on_event, b.manager, on_console_end, &b);
        a->lang = manager_lang(b.manager);
        b.adapters[b.nadapters++] = a;
        a->ops->start(a);
        char line[600];
        snprintf(line, sizeof line, "%shearts %s", b.cfg.command_prefix,
                 preset ? preset : "");
        console_inject(a, line);
        snprintf(line, sizeof line, "%sstart", b.cfg.command_prefix);
        console_inject(a, line);
    } else {
        site_start(&b);
        start_networks(&b);
        log_info("heartsbot running on %d network%s", b.nadapters,
                 b.nadapters == 1 ? "" : "s");
    }
    rc = loop_run(b.loop) ? 1 : 0;
    site_stop(&b);
    manager_free(b.manager);
    for (int i = 0; i < b.nadapters; i++)
        b.adapters[i]->ops->free(b.adapters[i]);
    loop_free(b.loop);
    config_free(&b.cfg);
    log_to_stderr();
    close(signal_pipe[0]);
    close(signal_pipe[1]);
    return rc;
}
