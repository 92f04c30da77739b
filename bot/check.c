/*
 * heartsbot --check (check.h): the config through config_check, then the
 * data directory through the readers the start uses (people_load,
 * notify_load, stats_open and stats_rebuild, manager_journal_check), with
 * storage only reading.
 */
#include "bot/check.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/common/file.h"
#include "bot/manager/manager.h"
#include "storage/archive.h"
#include "storage/notify.h"
#include "storage/people.h"
#include "storage/stats.h"
#include "storage/storage.h"

/* Room for one finding: a path and a message about it. */
#define SAY_MAX (2 * FILE_PATH_MAX + 400)

struct finding_sink {
    check_say_fn say;
    void *ctx;
};

/* storage's log has no context: the check running now (one at a time). */
static struct finding_sink storage_sink;

static void say(check_say_fn fn, void *ctx, bool problem, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void say(check_say_fn fn, void *ctx, bool problem, const char *fmt, ...)
{
    char msg[SAY_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fn(ctx, problem, msg);
}

/* What storage reports while reading (a torn last line, a damaged line
 * skipped): the bot mends or passes over it at start, so a note. */
static void storage_said(bool error, const char *msg)
{
    (void)error;
    storage_sink.say(storage_sink.ctx, false, msg);
}

/* ---- The data directory ------------------------------------------------ */

/* Whether path is a directory, not a link to one. */
static bool real_dir(const char *path)
{
    struct stat sb;
    return !lstat(path, &sb) && S_ISDIR(sb.st_mode);
}

static bool exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

/* A directory that is not there: the bot makes it at start if its
 * nearest existing parent lets this user. */
static void check_missing(const char *data_dir, check_say_fn fn, void *ctx)
{
    char parent[FILE_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", data_dir);
    for (;;) {
        char *slash = strrchr(parent, '/');
        while (slash && slash > parent && slash[1] == '\0') {
            *slash = '\0'; /* "a/b/" is "a/b" */
            slash = strrchr(parent, '/');
        }
        if (!slash)
            snprintf(parent, sizeof parent, ".");
        else if (slash == parent)
            parent[1] = '\0';
        else
            *slash = '\0';
        struct stat sb;
        if (stat(parent, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode))
                say(fn, ctx, true,
                    "data directory %s cannot be made: %s is not a directory",
                    data_dir, parent);
            else if (access(parent, W_OK | X_OK))
                say(fn, ctx, true,
                    "data directory %s cannot be made: %s is not writable by "
                    "this user (uid %ld)",
                    data_dir, parent, (long)geteuid());
            else
                say(fn, ctx, false,
                    "data directory %s does not exist yet: the bot makes it "
                    "at start",
                    data_dir);
            return;
        }
        if (errno != ENOENT || !strcmp(parent, ".") || !strcmp(parent, "/")) {
            say(fn, ctx, true, "data directory %s cannot be made: %s: %s",
                data_dir, parent, strerror(errno));
            return;
        }
    }
}

static void check_people(const char *data_dir, check_say_fn fn, void *ctx)
{
    char path[FILE_PATH_MAX], err[FILE_PATH_MAX + 300];
    if (file_path(path, sizeof path, err, sizeof err, data_dir, PEOPLE_FILE,
                  (char *)NULL)) {
        say(fn, ctx, true, "%s", err);
        return;
    }
    struct people *p = people_new();
    int skipped = 0;
    if (people_load(p, path, &skipped, err, sizeof err))
        say(fn, ctx, true, "people's settings: %s", err);
    else if (skipped)
        say(fn, ctx, false,
            "people's settings: %d line(s) of %s are skipped at start", skipped,
            path);
    people_free(p);
}

/* A channel's boards, as the start reads them (stats_load, without the
 * saving of a rebuild). */
static void check_boards(const char *data_dir, const char *dir, check_say_fn fn,
                         void *ctx)
{
    char file[FILE_PATH_MAX], err[700], why[700] = "";
    bool missing;
    if (file_path(file, sizeof file, NULL, 0, dir, ARCHIVE_FILE,
                  (char *)NULL) ||
        !exists(file))
        return; /* the start reads the boards of a room with an archive */
    if (file_dir_check(data_dir, dir, &missing, err, sizeof err)) {
        say(fn, ctx, true, "leaderboards of %s cannot be read: %s", dir, err);
        return;
    }
    struct stats *s = NULL;
    int64_t caught = 0;
    int skipped = 0;
    if (stats_open(dir, &s, &caught, &skipped, why, sizeof why) == 0) {
        if (skipped)
            say(fn, ctx, false, "%s: %d line(s) skipped when read (%s)", dir,
                skipped, why);
        stats_free(s);
        return;
    }
    if (stats_rebuild(dir, &s, &skipped, err, sizeof err)) {
        say(fn, ctx, true, "leaderboards of %s cannot be read: %s", dir, err);
        return;
    }
    say(fn, ctx, false, "%s: %s is rebuilt at start (%s)", dir, STATS_FILE,
        why);
    if (skipped)
        say(fn, ctx, false, "%s: %d line(s) skipped in the rebuild (%s)", dir,
            skipped, err);
    stats_free(s);
}

/* A channel's calls (!notify), as the first !hearts or !notify there
 * reads them. */
static void check_notify(const char *dir, check_say_fn fn, void *ctx)
{
    char file[FILE_PATH_MAX], err[FILE_PATH_MAX + 300];
    if (file_path(file, sizeof file, NULL, 0, dir, NOTIFY_FILE, (char *)NULL) ||
        !exists(file))
        return;
    struct notify *n = notify_new();
    int skipped = 0;
    if (notify_load(n, file, &skipped, err, sizeof err))
        say(fn, ctx, true, "calls when a table opens: %s", err);
    else if (skipped)
        say(fn, ctx, false,
            "calls when a table opens: %d line(s) of %s are skipped when read",
            skipped, file);
    notify_free(n);
}

static bool journal_name(const char *name)
{
    size_t n = strlen(name);
    return n > 14 && strncmp(name, "journal-", 8) == 0 &&
           strcmp(name + n - 6, ".jsonl") == 0;
}

/* The journals of one room of a network the config has. */
static void check_journals(const char *dir, check_say_fn fn, void *ctx)
{
    DIR *d = opendir(dir);
    if (!d) {
        say(fn, ctx, true, "%s cannot be read: %s", dir, strerror(errno));
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        char path[FILE_PATH_MAX], err[600], room[64];
        if (!journal_name(e->d_name) ||
            file_path(path, sizeof path, NULL, 0, dir, e->d_name, (char *)NULL))
            continue;
        if (manager_journal_check(path, room, sizeof room, err, sizeof err))
            say(fn, ctx, true,
                "journal %s cannot be replayed (%s): at start the bot moves "
                "it aside and the game%s%s is lost",
                path, err, room[0] ? " in " : "", room);
    }
    closedir(d);
}

/* Whether a network of cfg is named so that its folder is `encoded`. */
static bool network_folder(const struct config *cfg, const char *encoded)
{
    for (int i = 0; i < cfg->nnetworks; i++) {
        char name[FILE_NAME_MAX + 1];
        if (!cfg->networks[i].name)
            continue;
        file_name_encode(cfg->networks[i].name, name, sizeof name);
        if (!strcmp(name, encoded))
            return true;
    }
    return false;
}

/* Every network's folder: its rooms' boards, and the journals of the
 * networks the config has. */
static void check_rooms(const struct config *cfg, const char *data_dir,
                        check_say_fn fn, void *ctx)
{
    DIR *nets = opendir(data_dir);
    if (!nets) {
        say(fn, ctx, true, "data directory %s cannot be read: %s", data_dir,
            strerror(errno));
        return;
    }
    for (struct dirent *n; (n = readdir(nets));) {
        char net[FILE_PATH_MAX];
        if (n->d_name[0] == '.' ||
            file_path(net, sizeof net, NULL, 0, data_dir, n->d_name,
                      (char *)NULL) ||
            !real_dir(net))
            continue;
        bool ours = network_folder(cfg, n->d_name);
        DIR *rooms = opendir(net);
        if (!rooms) {
            say(fn, ctx, true, "%s cannot be read: %s", net, strerror(errno));
            continue;
        }
        for (struct dirent *e; (e = readdir(rooms));) {
            char dir[FILE_PATH_MAX];
            if (e->d_name[0] == '.' ||
                file_path(dir, sizeof dir, NULL, 0, net, e->d_name,
                          (char *)NULL) ||
                !real_dir(dir))
                continue;
            check_boards(data_dir, dir, fn, ctx);
            check_notify(dir, fn, ctx);
            if (ours)
                check_journals(dir, fn, ctx);
        }
        closedir(rooms);
    }
    closedir(nets);
}

void check_data(const struct config *cfg, const char *data_dir, check_say_fn fn,
                void *ctx)
{
    struct stat sb;
    if (stat(data_dir, &sb)) {
        if (errno == ENOENT)
            check_missing(data_dir, fn, ctx);
        else
            say(fn, ctx, true, "data directory %s: %s", data_dir,
                strerror(errno));
        return;
    }
    if (!S_ISDIR(sb.st_mode)) {
        say(fn, ctx, true, "data directory %s is not a directory", data_dir);
        return;
    }
    if (access(data_dir, R_OK | W_OK | X_OK)) {
        say(fn, ctx, true,
            "data directory %s is not readable and writable by this user "
            "(uid %ld)",
            data_dir, (long)geteuid());
        return;
    }
    char lock[FILE_PATH_MAX];
    if (file_path(lock, sizeof lock, NULL, 0, data_dir, "lock", (char *)NULL) ==
            0 &&
        lstat(lock, &sb) == 0 &&
        (!S_ISREG(sb.st_mode) || access(lock, R_OK | W_OK)))
        say(fn, ctx, true,
            "the lock %s is not a regular file this user can write", lock);
    bool was = storage_read_only();
    struct finding_sink saved = storage_sink;
    storage_sink = (struct finding_sink){fn, ctx};
    storage_set_log(storage_said);
    storage_set_read_only(true);
    check_people(data_dir, fn, ctx);
    check_rooms(cfg, data_dir, fn, ctx);
    storage_set_read_only(was);
    storage_set_log(NULL);
    storage_sink = saved;
}

/* ---- The whole check --------------------------------------------------- */

struct run {
    FILE *out, *err_out;
    int problems, notes;
};

static void run_say(void *ctx, bool problem, const char *msg)
{
    struct run *r = ctx;
    if (problem) {
        r->problems++;
        fprintf(r->err_out, "%s\n", msg);
    } else {
        r->notes++;
        fprintf(r->out, "note: %s\n", msg);
    }
}

/* The config's problems, as config_check passes them. */
static void config_problem(void *ctx, const char *msg)
{
    run_say(ctx, true, msg);
}

int check_run(const char *config_path, const char *data_dir,
              const struct protocol *const *protocols, check_more_fn more,
              FILE *out, FILE *err_out)
{
    struct run r = {out, err_out, 0, 0};
    struct config cfg;
    int rc = config_check(config_path, protocols, &cfg, config_problem, &r);
    if (rc < 0) {
        fprintf(err_out,
                "%s: not read to its end: the data directory is not "
                "checked\n",
                config_path);
    } else {
        if (cfg.nnetworks == 0) {
            char tables[256];
            config_network_tables(protocols, tables, sizeof tables);
            say(run_say, &r, true, "%s: no %s network: the bot would not start",
                config_path, tables);
        }
        const char *dir = data_dir ? data_dir : cfg.data_dir;
        if (rc == 0 && more)
            more(&cfg, dir, run_say, &r);
        check_data(&cfg, dir, run_say, &r);
        if (r.problems == 0) {
            fprintf(out, "OK: %s: %d network%s, data directory %s\n",
                    config_path, cfg.nnetworks, cfg.nnetworks == 1 ? "" : "s",
                    dir);
        }
        config_free(&cfg);
    }
    if (r.problems)
        fprintf(err_out, "%s: %d problem%s\n", config_path, r.problems,
                r.problems == 1 ? "" : "s");
    fflush(out);
    fflush(err_out);
    return r.problems;
}
