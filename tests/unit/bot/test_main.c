/*
 * The program (bot/main.c), run as itself: build/heartsbot ($HEARTSBOT)
 * in a temporary directory with its output in files. What each command
 * line does (the usage, the refusals and their exit codes, the
 * registration command, --version), the console until the end of its input (its
 * data and log in the person's state directory, nothing in the working
 * directory, nothing on stderr), and the signals: SIGTERM stops cleanly,
 * SIGHUP reloads the config or says why not. Each run has its directory
 * for HOME. Skipped (77) without $HEARTSBOT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/bot_binary.h"

static char binary[1024]; /* absolute: it runs in its own directory */

/* Where the console keeps its data under HOME (the runs' directory). */
#define CONSOLE_DATA ".local/state/heartsbot/console"
#define CONSOLE_LOG CONSOLE_DATA "/heartsbot.log"

/* A run of heartsbot: its directory, its output, how it ended. */
struct run {
    char dir[64];
    const char *home;       /* HOME: NULL for dir, "" for none */
    const char *state_home; /* XDG_STATE_HOME, or NULL for none */
    pid_t pid;
    int stdin_w; /* the write end of its input, or -1 */
    int status;  /* its exit code; -1: killed by a signal */
    char *out, *err;
};

static void nap_10ms(void)
{
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return calloc(1, 1);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc(1, (size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return s;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void path_in(const struct run *r, const char *name, char *out,
                    size_t outlen)
{
    snprintf(out, outlen, "%s/%s", r->dir, name);
}

static void run_dir(struct run *r)
{
    memset(r, 0, sizeof *r);
    r->stdin_w = -1;
    snprintf(r->dir, sizeof r->dir, "/tmp/test_main_XXXXXX");
    assert_non_null(mkdtemp(r->dir));
}

/* Starts heartsbot with args (NULL-ended) in r's directory; its input a
 * pipe kept open (piped) or /dev/null. */
static void run_start(struct run *r, bool piped, const char *const *args)
{
    char out[128], err[128];
    path_in(r, "stdout", out, sizeof out);
    path_in(r, "stderr", err, sizeof err);
    int p[2] = {-1, -1};
    if (piped)
        assert_int_equal(pipe(p), 0);
    const char *argv[16] = {binary};
    for (int i = 0; args[i]; i++) {
        assert_true(i < 14);
        argv[i + 1] = args[i];
    }
    r->pid = fork();
    assert_true(r->pid >= 0);
    if (r->pid == 0) {
        int in = piped ? p[0] : open("/dev/null", O_RDONLY);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || o < 0 || e < 0 || chdir(r->dir) != 0)
            _exit(126);
        if (r->home && !*r->home)
            unsetenv("HOME");
        else
            setenv("HOME", r->home ? r->home : r->dir, 1);
        if (r->state_home)
            setenv("XDG_STATE_HOME", r->state_home, 1);
        else
            unsetenv("XDG_STATE_HOME");
        dup2(in, 0);
        dup2(o, 1);
        dup2(e, 2);
        if (piped)
            close(p[1]);
        execv(binary, (char *const *)argv);
        _exit(127);
    }
    if (piped) {
        close(p[0]);
        r->stdin_w = p[1];
    }
}

/* Waits for r's end (at most 20 s) and reads its output. */
static void run_wait(struct run *r)
{
    int st = 0;
    for (int i = 0; i < 2000; i++) {
        pid_t w = waitpid(r->pid, &st, WNOHANG);
        assert_true(w >= 0);
        if (w == r->pid)
            break;
        if (i == 1999) {
            kill(r->pid, SIGKILL);
            waitpid(r->pid, &st, 0);
            fail_msg("heartsbot did not end within 20 s");
        }
        nap_10ms();
    }
    if (r->stdin_w >= 0)
        close(r->stdin_w);
    r->stdin_w = -1;
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    char path[128];
    path_in(r, "stdout", path, sizeof path);
    r->out = slurp(path);
    path_in(r, "stderr", path, sizeof path);
    r->err = slurp(path);
}

/* Runs heartsbot with args to its end, input /dev/null. */
static void run(struct run *r, const char *const *args)
{
    run_start(r, false, args);
    run_wait(r);
}

/* Waits until r's output `name` ("stdout", "stderr") holds `text` (at
 * most 10 s). */
static void wait_for(const struct run *r, const char *name, const char *text)
{
    char path[128];
    path_in(r, name, path, sizeof path);
    for (int i = 0; i < 1000; i++) {
        char *s = slurp(path);
        bool there = strstr(s, text) != NULL;
        free(s);
        if (there)
            return;
        nap_10ms();
    }
    fail_msg("no \"%s\" from heartsbot within 10 s", text);
}

/* Waits until the console's log file holds text. */
static void wait_log(const struct run *r, const char *text)
{
    wait_for(r, CONSOLE_LOG, text);
}

/* The console's log file (to free). */
static char *console_log(const struct run *r)
{
    char path[192];
    path_in(r, CONSOLE_LOG, path, sizeof path);
    return slurp(path);
}

/* The mode bits of path under r's directory, or -1 if it is not there. */
static int mode_of(const struct run *r, const char *name)
{
    char path[192];
    struct stat st;
    path_in(r, name, path, sizeof path);
    return lstat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

/* Waits until r's console table has begun: its signals are set up. */
static void wait_started(const struct run *r)
{
    wait_for(r, "stdout", "[#console] The game begins: ");
}

/* Removes r's directory and everything under it; frees the output. */
static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            for (struct dirent *e; (e = readdir(d));) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                    continue;
                char sub[1024];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                remove_tree(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void run_free(struct run *r)
{
    remove_tree(r->dir);
    free(r->out);
    free(r->err);
}

/* What --help prints (test_options checks its words). */
static char *usage(void)
{
    struct run r;
    run_dir(&r);
    run(&r, (const char *[]){"--help", NULL});
    assert_int_equal(r.status, 0);
    assert_int_equal(strncmp(r.out, "usage: heartsbot ", 17), 0);
    char *u = r.out;
    r.out = NULL;
    run_free(&r);
    return u;
}

static int setup(void **state)
{
    (void)state;
    bot_binary("test_main", binary, sizeof binary);
    return 0;
}

static void test_help_prints_the_usage_on_stdout(void **state)
{
    (void)state;
    char *u = usage();
    static const char *const forms[][3] = {
        {"--help", NULL}, {"-h", NULL}, {"--console", "--help", NULL}};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        struct run r;
        run_dir(&r);
        run(&r, forms[i]);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.out, u);
        assert_string_equal(r.err, "");
        run_free(&r);
    }
    free(u);
}

/* Whether s is "PROGRAM RELEASE\n" or "PROGRAM RELEASE (commit C)\n",
 * RELEASE CMakeLists.txt's (HEARTS_RELEASE, compiled in) and C 12 hex
 * digits, maybe "-dirty". */
static void assert_version_line(const char *s, const char *program)
{
    const char *release = HEARTS_RELEASE;
    char want[128];
    snprintf(want, sizeof want, "%s %s", program, release);
    size_t n = strlen(want);
    assert_memory_equal(s, want, n);
    if (!strcmp(s + n, "\n"))
        return;
    assert_memory_equal(s + n, " (commit ", 9);
    const char *c = s + n + 9;
    assert_int_equal(strspn(c, "0123456789abcdef"), 12);
    assert_true(!strcmp(c + 12, ")\n") || !strcmp(c + 12, "-dirty)\n"));
}

static void test_version_prints_the_release_and_touches_nothing(void **state)
{
    (void)state;
    static const char *const forms[][4] = {
        {"--version", NULL},
        {"--config", "missing.toml", "--version", NULL},
        {"--console", "--version", NULL}};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        struct run r;
        run_dir(&r);
        run(&r, forms[i]);
        assert_int_equal(r.status, 0);
        assert_version_line(r.out, "heartsbot");
        assert_string_equal(r.err, "");
        /* no data directory, no log: only the run's own output files */
        assert_int_equal(mode_of(&r, ".local"), -1);
        assert_int_equal(mode_of(&r, "data"), -1);
        DIR *d = opendir(r.dir);
        assert_non_null(d);
        int files = 0;
        for (struct dirent *e; (e = readdir(d));)
            files += e->d_name[0] != '.';
        closedir(d);
        assert_int_equal(files, 2); /* stdout, stderr */
        run_free(&r);
    }
}

static void test_a_command_line_not_understood_prints_the_usage(void **state)
{
    (void)state;
    char *u = usage();
    static const char *const forms[][4] = {
        {"--bogus", NULL},
        {"--config", NULL},
        {"--appservice-registration", "a", "b", NULL},
        {"--console", "extra", NULL}};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        struct run r;
        run_dir(&r);
        run(&r, forms[i]);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        assert_string_equal(r.err, u);
        run_free(&r);
    }
    free(u);
}

static void test_a_preset_without_the_console_is_refused(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    run(&r, (const char *[]){"--preset", "standard", NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "heartsbot: --preset goes with --console\n");
    run_free(&r);
}

static void test_an_unknown_preset_is_refused(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    run(&r, (const char *[]){"--console", "--preset", "bogus", NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_non_null(
        strstr(r.err, "heartsbot: --preset: unknown preset 'bogus'"));
    assert_int_equal(strncmp(r.err, "heartsbot: --preset: ", 21), 0);
    /* nothing started: no data directory */
    char data[128];
    path_in(&r, "data", data, sizeof data);
    assert_int_not_equal(access(data, F_OK), 0);
    run_free(&r);
}

static void test_without_a_network_the_bot_does_not_start(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    run(&r, (const char *[]){NULL});
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "heartsbot: no [[irc]] or [[matrix]] network "
                               "in the defaults (or use --console)\n");
    run_free(&r);

    run_dir(&r);
    char conf[128], want[256];
    path_in(&r, "bot.toml", conf, sizeof conf);
    write_file(conf, "[bot]\ncommand_prefix = \"!\"\n");
    run(&r, (const char *[]){"--config", conf, NULL});
    assert_int_equal(r.status, 1);
    snprintf(want, sizeof want,
             "heartsbot: no [[irc]] or [[matrix]] network in %s (or use "
             "--console)\n",
             conf);
    assert_string_equal(r.err, want);
    run_free(&r);
}

static void test_a_config_that_cannot_be_read_is_refused(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    char conf[128];
    path_in(&r, "missing.toml", conf, sizeof conf);
    run(&r, (const char *[]){"--console", "--config", conf, NULL});
    assert_int_equal(r.status, 1);
    assert_int_equal(strncmp(r.err, "heartsbot: ", 11), 0);
    assert_non_null(strstr(r.err, conf));
    assert_string_equal(r.out, "");
    run_free(&r);
}

static void test_the_console_plays_until_the_end_of_its_input(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    run(&r,
        (const char *[]){"--console", "--preset", "standard hands=1", NULL});
    assert_int_equal(r.status, 0);
    /* the table opened with the preset and started */
    assert_non_null(strstr(r.out, "[#console] You open a Hearts table: "
                                  "standard for 4 with hands=1."));
    assert_non_null(strstr(r.out, "[#console] The game begins: you, "));
    /* one line at the end says where the game went */
    char want[256];
    snprintf(want, sizeof want,
             "\n[#console] The console closes: this game ends unscored, and "
             "its record is saved in %s/" CONSOLE_DATA ".\n",
             r.dir);
    assert_non_null(strstr(r.out, want));
    assert_string_equal(strstr(r.out, want) + strlen(want), "");
    /* no log line at the terminal: they are in the log file */
    assert_string_equal(r.err, "");
    char *log = console_log(&r);
    assert_non_null(strstr(log, " info stopping: end of input\n"));
    free(log);
    /* its record kept in the person's state directory, made private;
     * nothing in the working directory */
    assert_int_equal(
        mode_of(&r, CONSOLE_DATA "/console/%23console/archive.jsonl") & 0777,
        0600);
    assert_int_equal(mode_of(&r, ".local"), 0700);
    assert_int_equal(mode_of(&r, ".local/state"), 0700);
    assert_int_equal(mode_of(&r, ".local/state/heartsbot"), 0700);
    assert_int_equal(mode_of(&r, CONSOLE_DATA), 0700);
    assert_int_equal(mode_of(&r, CONSOLE_LOG), 0600);
    assert_int_equal(mode_of(&r, "data"), -1);
    run_free(&r);
}

/* XDG_STATE_HOME, --data and the config's data_dir choose the console's
 * directory in that order of strength; the log goes with the data. */
static void test_the_console_keeps_its_data_where_it_is_told(void **state)
{
    (void)state;
    struct run r;
    char dir[128];

    run_dir(&r);
    path_in(&r, "state", dir, sizeof dir);
    r.state_home = dir;
    run(&r, (const char *[]){"--console", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_int_equal(mode_of(&r, "state/heartsbot/console/heartsbot.log"),
                     0600);
    assert_int_equal(mode_of(&r, "state/heartsbot/console/console"), 0700);
    assert_int_equal(mode_of(&r, ".local"), -1);
    run_free(&r);

    /* a relative XDG_STATE_HOME is no value (the XDG rule): HOME's */
    run_dir(&r);
    r.state_home = "state";
    run(&r, (const char *[]){"--console", NULL});
    assert_int_equal(r.status, 0);
    assert_int_equal(mode_of(&r, "state"), -1);
    assert_int_equal(mode_of(&r, CONSOLE_LOG), 0600);
    run_free(&r);

    /* --data wins over XDG_STATE_HOME and the config */
    run_dir(&r);
    char conf[128];
    path_in(&r, "bot.toml", conf, sizeof conf);
    write_file(conf, "[bot]\ndata_dir = \"fromconf\"\n");
    path_in(&r, "state", dir, sizeof dir);
    r.state_home = dir;
    run(&r, (const char *[]){"--console", "--config", conf, "--data", "mine",
                             NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "its record is saved in mine.\n"));
    assert_int_equal(mode_of(&r, "mine/heartsbot.log"), 0600);
    assert_int_equal(mode_of(&r, "mine/console/%23console"), 0700);
    assert_int_equal(mode_of(&r, "fromconf"), -1);
    assert_int_equal(mode_of(&r, "state"), -1);
    free(r.out);
    free(r.err);
    /* the config's data_dir wins over XDG_STATE_HOME */
    run(&r, (const char *[]){"--console", "--config", conf, NULL});
    assert_int_equal(r.status, 0);
    assert_int_equal(mode_of(&r, "fromconf/heartsbot.log"), 0600);
    assert_int_equal(mode_of(&r, "state"), -1);
    run_free(&r);
}

static void test_the_console_without_a_home_is_refused(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    r.home = "";
    run(&r, (const char *[]){"--console", NULL});
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "heartsbot: no directory for the console's "
                               "data: neither XDG_STATE_HOME nor HOME is an "
                               "absolute path (give --data DIR)\n");
    assert_string_equal(r.out, "");
    run_free(&r);

    /* with --data it needs none */
    run_dir(&r);
    r.home = "";
    run(&r, (const char *[]){"--console", "--data", "d", NULL});
    assert_int_equal(r.status, 0);
    assert_int_equal(mode_of(&r, "d/heartsbot.log"), 0600);
    run_free(&r);
}

/* A second console on the same directory does not start: the error that
 * stops it reaches stderr, though the log goes to the file. */
static void test_a_second_console_on_the_same_data_is_refused(void **state)
{
    (void)state;
    struct run first, second;
    run_dir(&first);
    run_start(&first, true, (const char *[]){"--console", NULL});
    wait_started(&first);
    run_dir(&second);
    second.home = first.dir;
    run(&second, (const char *[]){"--console", NULL});
    assert_int_equal(second.status, 1);
    char want[256];
    snprintf(want, sizeof want,
             "heartsbot: another heartsbot (pid %d) is already using data "
             "directory %s/" CONSOLE_DATA "\n",
             (int)first.pid, first.dir);
    assert_string_equal(second.err, want);
    assert_string_equal(second.out, "");
    char *log = console_log(&first);
    assert_non_null(strstr(log, " error another heartsbot (pid "));
    free(log);
    kill(first.pid, SIGTERM);
    run_wait(&first);
    assert_int_equal(first.status, 0);
    run_free(&second);
    run_free(&first);
}

static void test_sigterm_and_sigint_stop_cleanly(void **state)
{
    (void)state;
    static const struct {
        int sig;
        const char *said;
    } sigs[] = {{SIGTERM, " info stopping: SIGTERM\n"},
                {SIGINT, " info stopping: SIGINT\n"}};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct run r;
        run_dir(&r);
        run_start(&r, true, (const char *[]){"--console", NULL});
        wait_started(&r);
        /* started: now stopped by the signal, its input still open */
        kill(r.pid, sigs[i].sig);
        run_wait(&r);
        assert_int_equal(r.status, 0);
        char *log = console_log(&r);
        assert_non_null(strstr(log, sigs[i].said));
        assert_null(strstr(log, "end of input"));
        free(log);
        assert_non_null(strstr(r.out, "[#console] The console closes: this "
                                      "game ends unscored, and its record is "
                                      "saved in "));
        run_free(&r);
    }
}

static void test_sighup_reloads_the_config_or_says_why_not(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    char conf[128], want[256];
    path_in(&r, "bot.toml", conf, sizeof conf);
    write_file(conf, "[bot]\ncommand_prefix = \"!\"\n");
    run_start(&r, true, (const char *[]){"--console", "--config", conf, NULL});
    wait_started(&r);
    kill(r.pid, SIGHUP);
    snprintf(want, sizeof want,
             " info configuration reloaded from %s (network settings but "
             "IRC channels apply at the next start)\n",
             conf);
    wait_log(&r, want);
    /* a config that no longer reads: the running one stays */
    write_file(conf, "[bot\n");
    kill(r.pid, SIGHUP);
    wait_log(&r, " error reload refused, keeping the running config: ");
    kill(r.pid, SIGTERM);
    run_wait(&r);
    assert_int_equal(r.status, 0);
    wait_log(&r, " info stopping: SIGTERM\n");
    assert_string_equal(r.err, "");
    run_free(&r);

    /* the defaults: nothing to reload */
    run_dir(&r);
    run_start(&r, true, (const char *[]){"--console", NULL});
    wait_started(&r);
    kill(r.pid, SIGHUP);
    wait_log(&r, " info SIGHUP: no config file to reload\n");
    close(r.stdin_w); /* the end of its input stops it */
    r.stdin_w = -1;
    run_wait(&r);
    assert_int_equal(r.status, 0);
    wait_log(&r, " info stopping: end of input\n");
    run_free(&r);
}

/* Sends a line to r's input. */
static void type_line(const struct run *r, const char *line)
{
    size_t n = strlen(line);
    assert_int_equal(write(r->stdin_w, line, n), (ssize_t)n);
}

/* An admin's !reload does what SIGHUP does, and says how it went (the
 * console's person is the admin "console", its user ID). */
static void test_an_admins_reload_rereads_the_config(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    char conf[128], want[256];
    path_in(&r, "bot.toml", conf, sizeof conf);
    write_file(conf, "[bot]\nadmins = [\"console\"]\n");
    run_start(&r, true, (const char *[]){"--console", "--config", conf, NULL});
    wait_started(&r);
    type_line(&r, "!reload\n");
    wait_for(&r, "stdout",
             "The configuration is reloaded (network settings apply at the "
             "next start).");
    snprintf(want, sizeof want, " info configuration reloaded from %s", conf);
    wait_log(&r, want);
    wait_log(&r, " info admin you (console) reloads the configuration\n");
    /* a file that no longer reads: the error is told, the config stays */
    write_file(conf, "[bot]\nadmins = [\"console\"]\nlog_level = 7\n");
    type_line(&r, "!reload\n");
    snprintf(want, sizeof want,
             "The configuration was not reloaded (the running one stays): "
             "%s:3:13: ",
             conf);
    wait_for(&r, "stdout", want);
    /* the running one stays: still an admin after the failed reload */
    write_file(conf, "[bot]\n");
    type_line(&r, "!reload\n");
    wait_for(&r, "stdout", "The configuration is reloaded");
    /* no longer an admin */
    type_line(&r, "!reload\n");
    wait_for(&r, "stdout", "Only an admin can do that.");
    close(r.stdin_w);
    r.stdin_w = -1;
    run_wait(&r);
    assert_int_equal(r.status, 0);
    run_free(&r);
}

static void test_rebuild_stats_says_what_it_rebuilt(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    /* a game at the console, archived */
    run(&r, (const char *[]){"--console", NULL});
    assert_int_equal(r.status, 0);
    free(r.out);
    free(r.err);
    char data[128];
    path_in(&r, CONSOLE_DATA, data, sizeof data);
    run(&r, (const char *[]){"--rebuild-stats", data, "--bogus", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "1 channel, 0 failed\n"));
    run_free(&r);

    run_dir(&r);
    path_in(&r, "nothing", data, sizeof data);
    run(&r, (const char *[]){"--rebuild-stats", data, NULL});
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "cannot open the lock "));
    run_free(&r);
}

static void test_write_site_writes_the_site_and_names_what_fails(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    /* a game at the console, archived: the data directory */
    run(&r, (const char *[]){"--console", NULL});
    assert_int_equal(r.status, 0);
    free(r.out);
    free(r.err);
    char data[128], conf[128], site[128], page[200], cmd[400];
    path_in(&r, CONSOLE_DATA, data, sizeof data);
    path_in(&r, "bot.toml", conf, sizeof conf);
    path_in(&r, "site", site, sizeof site);
    char text[300];
    snprintf(text, sizeof text, "[bot]\ndata_dir = \"%s\"\n", data);
    write_file(conf, text);
    /* the first run makes the key person pages are named with, as the
     * bot would; after it, a run changes nothing in the data directory */
    run(&r, (const char *[]){"--write-site", conf, site, NULL});
    assert_int_equal(r.status, 0);
    free(r.out);
    free(r.err);
    char secret[200];
    snprintf(secret, sizeof secret, "%s/site-secret", data);
    struct stat sst;
    assert_int_equal(stat(secret, &sst), 0);
    assert_int_equal(sst.st_mode & 0777, 0600);
    snprintf(cmd, sizeof cmd, "ls -lR --time-style=full-iso '%s' > '%s.before'",
             data, data);
    assert_int_equal(system(cmd), 0);
    run(&r, (const char *[]){"--write-site", conf, site, NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "site of 1 channel written to "));
    snprintf(page, sizeof page, "%s/console/%%23console/index.html", site);
    struct stat st;
    assert_int_equal(stat(page, &st), 0);
    /* nothing in the data directory changed */
    snprintf(cmd, sizeof cmd,
             "ls -lR --time-style=full-iso '%s' | cmp -s - '%s.before'", data,
             data);
    assert_int_equal(system(cmd), 0);
    free(r.out);
    free(r.err);
    /* a config that cannot be read, a data directory that is not there */
    run(&r, (const char *[]){"--write-site", "nothere.toml", site, NULL});
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "nothere.toml"));
    free(r.out);
    free(r.err);
    write_file(conf, "[bot]\ndata_dir = \"/nonexistent/data\"\n");
    run(&r, (const char *[]){"--write-site", conf, site, NULL});
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "/nonexistent/data"));
    run_free(&r);
}

static const char AS_CONFIG[] = "[bot]\n"
                                "data_dir = \"data\"\n"
                                "\n"
                                "[[matrix]]\n"
                                "name = \"mx\"\n"
                                "homeserver = \"http://127.0.0.1:8008\"\n"
                                "user_id = \"@hearts:example.org\"\n"
                                "rooms = [\"#hearts:example.org\"]\n"
                                "mode = \"appservice\"\n"
                                "registration = \"reg.yaml\"\n";

static void test_the_registration_is_written_then_kept(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    char conf[128], reg[128], want[512];
    path_in(&r, "bot.toml", conf, sizeof conf);
    path_in(&r, "reg.yaml", reg, sizeof reg);
    write_file(conf, AS_CONFIG);
    run(&r, (const char *[]){"--appservice-registration", conf, NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    snprintf(want, sizeof want,
             "wrote %s: the registration of [[matrix]] \"mx\", with new "
             "tokens (mode 0640: keep it private)\n"
             "next: give it to the homeserver, then start heartsbot\n",
             reg);
    assert_int_equal(strncmp(r.out, want, strlen(want)), 0);
    assert_non_null(
        strstr(r.out, "  the homeserver will reach the bot at http://"));
    struct stat st;
    assert_int_equal(stat(reg, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    char *first = slurp(reg);
    assert_non_null(strstr(first, "as_token: \""));
    free(r.out);
    free(r.err);

    /* again: kept as it is */
    run(&r, (const char *[]){"--appservice-registration", conf, NULL});
    assert_int_equal(r.status, 0);
    snprintf(want, sizeof want,
             "%s exists: kept (the registration of [[matrix]] \"mx\"; "
             "remove it to have new tokens written)\n",
             reg);
    assert_string_equal(r.out, want);
    char *second = slurp(reg);
    assert_string_equal(first, second);
    free(first);
    free(second);
    run_free(&r);
}

static void test_a_registration_needs_an_appservice(void **state)
{
    (void)state;
    struct run r;
    run_dir(&r);
    char conf[128], want[256];
    path_in(&r, "bot.toml", conf, sizeof conf);
    write_file(conf, "[bot]\ndata_dir = \"data\"\n");
    run(&r, (const char *[]){"--appservice-registration", conf, NULL});
    assert_int_equal(r.status, 1);
    snprintf(want, sizeof want,
             "heartsbot: no [[matrix]] in %s has mode = \"appservice\": no "
             "registration to write\n",
             conf);
    assert_string_equal(r.err, want);
    assert_string_equal(r.out, "");
    run_free(&r);

    /* a kept file that does not match: said, and an error */
    run_dir(&r);
    path_in(&r, "bot.toml", conf, sizeof conf);
    write_file(conf, AS_CONFIG);
    char reg[128];
    path_in(&r, "reg.yaml", reg, sizeof reg);
    write_file(reg, "id: \"other\"\n");
    run(&r, (const char *[]){"--appservice-registration", conf, NULL});
    assert_int_equal(r.status, 1);
    assert_int_equal(strncmp(r.err, "heartsbot: [[matrix]] \"mx\": ", 28), 0);
    assert_string_equal(r.out, "");
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_prints_the_usage_on_stdout),
        cmocka_unit_test(test_version_prints_the_release_and_touches_nothing),
        cmocka_unit_test(test_a_command_line_not_understood_prints_the_usage),
        cmocka_unit_test(test_a_preset_without_the_console_is_refused),
        cmocka_unit_test(test_an_unknown_preset_is_refused),
        cmocka_unit_test(test_without_a_network_the_bot_does_not_start),
        cmocka_unit_test(test_a_config_that_cannot_be_read_is_refused),
        cmocka_unit_test(test_the_console_plays_until_the_end_of_its_input),
        cmocka_unit_test(test_the_console_keeps_its_data_where_it_is_told),
        cmocka_unit_test(test_the_console_without_a_home_is_refused),
        cmocka_unit_test(test_a_second_console_on_the_same_data_is_refused),
        cmocka_unit_test(test_sigterm_and_sigint_stop_cleanly),
        cmocka_unit_test(test_sighup_reloads_the_config_or_says_why_not),
        cmocka_unit_test(test_an_admins_reload_rereads_the_config),
        cmocka_unit_test(test_rebuild_stats_says_what_it_rebuilt),
        cmocka_unit_test(test_write_site_writes_the_site_and_names_what_fails),
        cmocka_unit_test(test_the_registration_is_written_then_kept),
        cmocka_unit_test(test_a_registration_needs_an_appservice),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
