/*
 * heartsbot --check (bot/check.c), run as the program itself
 * ($HEARTSBOT) on configs and data directories made here: a good one
 * passes, and is left byte for byte as it was; every problem is named
 * (the config's with file:line:column, several in one run), and the exit
 * code says it; a check connects to nothing, which loopback listeners at
 * the config's addresses would see. Skipped (77) without $HEARTSBOT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/bot_binary.h"
#include "tests/support/scratch.h"

static char binary[1024];

static void nap_ms(long ms)
{
    struct timespec ts = {0, ms * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* A test's directory: the config, the data directory, the output. */
struct dir {
    char path[64];
    char data[128];
    char config[128];
    int status;
    char *out; /* stdout and stderr, in one */
};

static void put_in(const struct dir *d, const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", d->data, rel);
    scratch_write(path, text);
}

static void mkdir_in(const struct dir *d, const char *rel)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", d->data, rel);
    assert_int_equal(mkdir(path, 0700), 0);
}

/* The config: one IRC network on 127.0.0.1:irc_port ("x" names no
 * network), data_dir the test's. */
static void dir_new(struct dir *d, int irc_port)
{
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "/tmp/test_check_XXXXXX");
    assert_non_null(mkdtemp(d->path));
    snprintf(d->data, sizeof d->data, "%s/data", d->path);
    snprintf(d->config, sizeof d->config, "%s/bot.toml", d->path);
    char text[512];
    snprintf(text, sizeof text,
             "[bot]\ndata_dir = \"%s\"\n\n[[irc]]\nname = \"local\"\n"
             "host = \"127.0.0.1\"\nport = %d\nnick = \"heartsbot\"\n"
             "channels = [\"#hearts\"]\n",
             d->data, irc_port);
    scratch_write(d->config, text);
}

/* heartsbot --check CONFIG, to its end (at most 20 s). */
static void check(struct dir *d)
{
    char out[128];
    snprintf(out, sizeof out, "%s/out", d->path);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0)
            _exit(126);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(binary, binary, "--check", d->config, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    for (int i = 0; i < 2000; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            break;
        if (i == 1999) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            fail_msg("heartsbot --check did not end within 20 s");
        }
        nap_ms(10);
    }
    d->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    free(d->out);
    d->out = scratch_read(out);
}

static void has(const struct dir *d, const char *text)
{
    if (!strstr(d->out, text))
        fail_msg("no \"%s\" in:\n%s", text, d->out);
}

static void dir_free(struct dir *d)
{
    scratch_remove_tree(d->path);
    free(d->out);
}

/* Every name, size, mode, mtime and content under path, as one text: a
 * check must leave it the same. */
static void snapshot(const char *path, FILE *to)
{
    struct stat st;
    if (lstat(path, &st))
        return;
    fprintf(to, "%s %o %lld %lld.%09ld\n", path, (unsigned)st.st_mode,
            (long long)st.st_size, (long long)st.st_mtim.tv_sec,
            st.st_mtim.tv_nsec);
    if (S_ISREG(st.st_mode)) {
        char *s = scratch_read(path);
        fprintf(to, "%s\n", s);
        free(s);
    } else if (S_ISDIR(st.st_mode)) {
        struct dirent **names;
        int n = scandir(path, &names, NULL, alphasort);
        for (int i = 0; i < n; i++) {
            if (strcmp(names[i]->d_name, ".") &&
                strcmp(names[i]->d_name, "..")) {
                char sub[1024];
                snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
                snapshot(sub, to);
            }
            free(names[i]);
        }
        free(names);
    }
}

static char *tree_text(const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    snapshot(path, f);
    fclose(f);
    return buf;
}

#define HEADER                                                                 \
    "{\"format\":\"heartsbot-journal/1\",\"game\":\"0123456789abcdef\","       \
    "\"network\":\"local\",\"room\":\"#hearts\",\"rules\":\"standard\","       \
    "\"opened\":1732419000}\n"
#define SEATS                                                                  \
    "{\"seats\":[{\"nick\":\"alice\",\"id\":\"alice@h\",\"key\":\"n:alice@"    \
    "h\"},"                                                                    \
    "null,null,null],\"opener\":0}\n"

/* A data directory as a bot leaves it: people's settings (the last line
 * torn by a crash), a lobby's journal, a channel with an archive. */
static void good_data(const struct dir *d)
{
    assert_int_equal(mkdir(d->data, 0700), 0);
    put_in(d, "lock", "4242\n");
    put_in(d, "people.jsonl",
           "{\"format\":\"heartsbot-people/1\",\"net\":\"local\",\"key\":"
           "\"n:bob@h\",\"lang\":\"de\"}\n{\"format\":\"heartsb");
    mkdir_in(d, "local");
    mkdir_in(d, "local/%23hearts");
    put_in(d, "local/%23hearts/journal-0123456789abcdef.jsonl", HEADER SEATS);
    put_in(d, "local/%23hearts/archive.jsonl", "");
    put_in(d, "local/%23hearts/results.jsonl", "");
}

/* ---- Tests ------------------------------------------------------------- */

static void test_a_good_config_and_data_pass_and_nothing_changes(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    good_data(&d);
    char *before = tree_text(d.data);
    check(&d);
    assert_int_equal(d.status, 0);
    has(&d, "OK: ");
    /* the torn line is the bot's to cut at start: a note, not cut here */
    has(&d, "note: ");
    has(&d, "torn last line");
    char *after = tree_text(d.data);
    assert_string_equal(before, after);
    free(before);
    free(after);
    dir_free(&d);
}

static void test_a_missing_data_dir_is_made_at_start_not_now(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    check(&d);
    assert_int_equal(d.status, 0);
    has(&d, "does not exist yet");
    struct stat st;
    assert_int_equal(lstat(d.data, &st), -1);
    dir_free(&d);
}

/* A listener at the config's IRC port and one at its homeserver: the
 * check must leave both without a connection. */
static int listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 8), 0);
    socklen_t n = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &n), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void test_a_check_connects_to_nothing(void **state)
{
    (void)state;
    int irc_port, hs_port;
    int irc = listener(&irc_port), hs = listener(&hs_port);
    struct dir d;
    dir_new(&d, irc_port);
    char text[1024];
    snprintf(text, sizeof text,
             "[bot]\ndata_dir = \"%s\"\n\n[[irc]]\nname = \"local\"\n"
             "host = \"127.0.0.1\"\nport = %d\nnick = \"heartsbot\"\n"
             "channels = [\"#hearts\"]\n\n[[matrix]]\nname = \"mx\"\n"
             "homeserver = \"http://127.0.0.1:%d\"\n"
             "user_id = \"@bot:localhost\"\npassword = \"pw\"\n",
             d.data, irc_port, hs_port);
    scratch_write(d.config, text);
    check(&d);
    assert_int_equal(d.status, 0);
    has(&d, "OK: ");
    has(&d, "2 networks");
    /* the control: a connection is seen */
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)hs_port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(connect(probe, (struct sockaddr *)&a, sizeof a), 0);
    nap_ms(20);
    int got = accept(hs, NULL, NULL);
    assert_true(got >= 0);
    close(got);
    close(probe);
    /* and none was left by the check */
    assert_int_equal(accept(irc, NULL, NULL), -1);
    assert_int_equal(errno, EAGAIN);
    assert_int_equal(accept(hs, NULL, NULL), -1);
    assert_int_equal(errno, EAGAIN);
    close(irc);
    close(hs);
    dir_free(&d);
}

static void test_every_config_problem_is_named_where_it_is(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    scratch_write(d.config, "[bot]\nlog_level = \"loud\"\ncolours = true\n\n"
                            "[[irc]]\nname = \"local\"\nhost = \"127.0.0.1\"\n"
                            "port = 70000\nnick = \"heartsbot\"\n\n"
                            "[gmae]\nturn_timeout = 1\n\n"
                            "[game]\nturn_timeout = 1\n");
    check(&d);
    assert_int_equal(d.status, 1);
    char where[256];
    snprintf(where, sizeof where, "%s:2:13: 'log_level' must be", d.config);
    has(&d, where);
    snprintf(where, sizeof where, "%s:3:1: unknown key 'colours'", d.config);
    has(&d, where);
    snprintf(where, sizeof where, "%s:8:8: 'port' must be between", d.config);
    has(&d, where);
    snprintf(where, sizeof where, "%s:11:2: unknown table 'gmae'", d.config);
    has(&d, where);
    /* the key under the refused header is not judged; the real one is */
    snprintf(where, sizeof where, "%s:15:16: 'turn_timeout' must be", d.config);
    has(&d, where);
    has(&d, "5 problems");
    dir_free(&d);
}

static void test_a_syntax_error_ends_the_read_and_says_so(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    scratch_write(d.config,
                  "[bot]\nlog_level = \"loud\"\ncommand_prefix = \"!\n");
    check(&d);
    assert_int_equal(d.status, 1);
    char where[256];
    snprintf(where, sizeof where, "%s:2:13: ", d.config);
    has(&d, where);
    snprintf(where, sizeof where, "%s:3:18: string not closed", d.config);
    has(&d, where);
    has(&d, "the data directory is not checked");
    dir_free(&d);
}

static void test_no_network_is_a_problem(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    scratch_write(d.config, "[bot]\ncommand_prefix = \"!\"\n");
    check(&d);
    assert_int_equal(d.status, 1);
    has(&d, "no [[irc]] or [[matrix]] network");
    dir_free(&d);
}

static void test_a_data_dir_that_is_a_file_is_refused(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    scratch_write(d.data, "not a directory\n");
    check(&d);
    assert_int_equal(d.status, 1);
    has(&d, "is not a directory");
    dir_free(&d);
}

static void test_a_garbage_journal_is_named_and_left_alone(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    good_data(&d);
    put_in(&d, "local/%23hearts/journal-00000000000000aa.jsonl",
           "this is no journal\n" SEATS);
    /* a game line before any start */
    put_in(&d, "local/%23hearts/journal-00000000000000bb.jsonl",
           HEADER "{\"play\":\"2C\"}\n");
    char *before = tree_text(d.data);
    check(&d);
    assert_int_equal(d.status, 1);
    has(&d, "journal-00000000000000aa.jsonl cannot be replayed (line 1:");
    has(&d, "journal-00000000000000bb.jsonl cannot be replayed (line 2: a "
            "game line before the start)");
    has(&d, "2 problems");
    char *after = tree_text(d.data);
    assert_string_equal(before, after); /* not moved aside */
    free(before);
    free(after);
    dir_free(&d);
}

static void test_newer_formats_are_named(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    good_data(&d);
    put_in(&d, "people.jsonl",
           "{\"format\":\"heartsbot-people/9\",\"net\":\"local\"}\n");
    put_in(&d, "local/%23hearts/notify.jsonl",
           "{\"format\":\"heartsbot-notify/9\",\"key\":\"a:x\"}\n");
    put_in(&d, "local/%23hearts/journal-0123456789abcdef.jsonl",
           "{\"format\":\"heartsbot-journal/9\",\"game\":\"0123456789abcdef\","
           "\"network\":\"local\",\"room\":\"#hearts\",\"rules\":"
           "\"standard\",\"opened\":1}\n");
    check(&d);
    assert_int_equal(d.status, 1);
    has(&d, "heartsbot-people/9");
    has(&d, "heartsbot-journal/9");
    has(&d, "heartsbot-notify/9");
    has(&d, "3 problems");
    dir_free(&d);
}

static void test_an_unreadable_file_is_named(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    good_data(&d);
    /* what root reads too: no regular file where one should be */
    char path[256];
    snprintf(path, sizeof path, "%s/people.jsonl", d.data);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    check(&d);
    assert_int_equal(d.status, 1);
    has(&d, "people's settings: ");
    has(&d, "people.jsonl");
    dir_free(&d);
    if (geteuid() == 0)
        return; /* permissions do not stop root */
    dir_new(&d, 6667);
    good_data(&d);
    snprintf(path, sizeof path, "%s/people.jsonl", d.data);
    assert_int_equal(chmod(path, 0), 0);
    check(&d);
    assert_int_equal(d.status, 1);
    has(&d, "people's settings: ");
    dir_free(&d);
}

/* The config of dir_new with `more` appended (an [[irc]]'s TLS keys, a
 * [[matrix]]). */
static void config_more(const struct dir *d, const char *irc_more,
                        const char *more)
{
    char text[2048];
    snprintf(text, sizeof text,
             "[bot]\ndata_dir = \"%s\"\n\n[[irc]]\nname = \"local\"\n"
             "host = \"127.0.0.1\"\nport = 6667\nnick = \"heartsbot\"\n"
             "channels = [\"#hearts\"]\n%s\n%s",
             d->data, irc_more, more);
    scratch_write(d->config, text);
}

#define PEM(label) "-----BEGIN " label "-----\nAAAA\n-----END " label "-----\n"

static void test_tls_files_are_read_and_named(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    good_data(&d);
    char ca[128], cert[128], key[128], more[1024];
    snprintf(ca, sizeof ca, "%s/ca.pem", d.path);
    snprintf(cert, sizeof cert, "%s/bot.pem", d.path);
    snprintf(key, sizeof key, "%s/bot.key", d.path);
    scratch_write(ca, PEM("CERTIFICATE") PEM("CERTIFICATE"));
    /* the certificate with its key, readable by all: a note */
    scratch_write(cert, PEM("CERTIFICATE") PEM("PRIVATE KEY"));
    assert_int_equal(chmod(cert, 0644), 0);
    snprintf(more, sizeof more,
             "tls = true\ntls_ca_file = \"%s\"\ntls_cert_file = \"%s\"\n", ca,
             cert);
    config_more(&d, more, "");
    check(&d);
    assert_int_equal(d.status, 0);
    has(&d, "note: [[irc]] \"local\": tls_cert_file ");
    has(&d, "(mode 644) can be read by others than its owner");
    assert_int_equal(chmod(cert, 0600), 0);
    check(&d);
    assert_int_equal(d.status, 0);
    assert_null(strstr(d.out, "note: [[irc]]"));
    /* a key file without a key, a certificate without a certificate, a
     * CA store that is not there */
    scratch_write(key, PEM("CERTIFICATE"));
    assert_int_equal(chmod(key, 0600), 0);
    scratch_write(cert, "not a certificate\n");
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none.pem", d.path);
    snprintf(more, sizeof more,
             "tls = true\ntls_ca_file = \"%s\"\ntls_cert_file = \"%s\"\n"
             "tls_key_file = \"%s\"\n",
             missing, cert, key);
    config_more(&d, more, "");
    check(&d);
    assert_int_equal(d.status, 1);
    has(&d, "tls_ca_file ");
    has(&d, "none.pem cannot be read by this user: No such file or directory");
    has(&d, "bot.pem has no PEM \"CERTIFICATE\" block");
    has(&d, "bot.key has no PEM \"PRIVATE KEY\" block");
    has(&d, "3 problems");
    dir_free(&d);
}

#define MATRIX                                                                 \
    "[[matrix]]\nname = \"mx\"\nhomeserver = \"http://127.0.0.1:8008\"\n"      \
    "user_id = \"@heartsbot:hearts.test\"\npassword = \"pw\"\n"                \
    "rooms = [\"#hearts:hearts.test\"]\ninvite_from = [\":hearts.test\"]\n"

static void test_a_matrix_session_is_read_as_the_start_reads_it(void **state)
{
    (void)state;
    struct dir d;
    dir_new(&d, 6667);
    good_data(&d);
    config_more(&d, "", MATRIX);
    mkdir_in(&d, "mx");
    /* none yet: nothing to say */
    check(&d);
    assert_int_equal(d.status, 0);
    assert_null(strstr(d.out, "[[matrix]]"));
    /* another account's: a note */
    put_in(&d, "mx/matrix-session.json",
           "{\"version\":1,\"homeserver\":\"http://127.0.0.1:8008\","
           "\"user_id\":\"@other:hearts.test\",\"access_token\":\"t\"}");
    check(&d);
    assert_int_equal(d.status, 0);
    has(&d, "is the session of @other:hearts.test on http://127.0.0.1:8008");
    /* garbage: a note, the bot logs in anew */
    put_in(&d, "mx/matrix-session.json", "{\"version\":1,");
    check(&d);
    assert_int_equal(d.status, 0);
    has(&d, "note: [[matrix]] \"mx\": ");
    has(&d, "is unusable (");
    has(&d, "a new login");
    /* a later heartsbot's: a problem */
    put_in(&d, "mx/matrix-session.json", "{\"version\":9}");
    check(&d);
    assert_int_equal(d.status, 1);
    has(&d, "run the heartsbot that wrote it");
    has(&d, "1 problem");
    dir_free(&d);
}

static int setup(void **state)
{
    (void)state;
    bot_binary("test_check", binary, sizeof binary);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_good_config_and_data_pass_and_nothing_changes),
        cmocka_unit_test(test_a_missing_data_dir_is_made_at_start_not_now),
        cmocka_unit_test(test_a_check_connects_to_nothing),
        cmocka_unit_test(test_every_config_problem_is_named_where_it_is),
        cmocka_unit_test(test_a_syntax_error_ends_the_read_and_says_so),
        cmocka_unit_test(test_no_network_is_a_problem),
        cmocka_unit_test(test_a_data_dir_that_is_a_file_is_refused),
        cmocka_unit_test(test_a_garbage_journal_is_named_and_left_alone),
        cmocka_unit_test(test_newer_formats_are_named),
        cmocka_unit_test(test_an_unreadable_file_is_named),
        cmocka_unit_test(test_tls_files_are_read_and_named),
        cmocka_unit_test(test_a_matrix_session_is_read_as_the_start_reads_it),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
