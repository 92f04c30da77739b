/*
 * Tests of storage failures told and archived later (bot/manager/store.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/storage.h"
#include "tests/unit/bot/manager/world.h"

/* Standard error (the log) goes to a file from here until log_end. */
static int log_begin(const char *path)
{
    fflush(stderr);
    int saved = dup(2);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    return saved;
}

/* Ends log_begin; the log's text into out. */
static void log_end(int saved, const char *path, char *out, size_t len)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    read_small(path, out, len);
}

static void test_record_past_file_size_limit_is_logged_not_torn(void **state)
{
    (void)state;
    char path[128], logpath[128], log[65536];
    snprintf(path, sizeof path, "%s/test", w->dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/test/%%23h", w->dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/test/%%23h/archive.jsonl", w->dir);
    snprintf(logpath, sizeof logpath, "%s/log", w->dir);
    /* a file near the limit: the record cannot fit */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 40; i++)
        fprintf(f, "{\"pad\": \"%090d\"}\n", i);
    fclose(f);
    struct stat before;
    assert_int_equal(stat(path, &before), 0);
    four_people("standard hands=1");
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = (rlim_t)before.st_size + 100;
    int saved = log_begin(logpath);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    play_everything(the_table());
    setrlimit(RLIMIT_FSIZE, &old);
    log_end(saved, logpath, log, sizeof log);
    signal(SIGXFSZ, SIG_DFL);
    assert_true(any_contains("#h", 0, "Game over!"));
    if (!strstr(log, "game record not written") ||
        !strstr(log, strerror(EFBIG)))
        fail_msg("log: %s", log);
    /* the record is kept in the log, the channel told why */
    assert_non_null(strstr(log, "the record not written: {"));
    assert_int_equal(count_starting("#h", 0, "Results can't be saved"), 1);
    assert_true(any_contains(
        "#h", 0, "Results can't be saved: a file reached the size limit."));
    /* no torn line left behind */
    struct stat after;
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(after.st_size, before.st_size);
}

/* A one-hand game played to its end while data_dir is a file (nothing
 * can be archived); the log of it into log. */
static void play_with_data_dir_a_file(char *log, size_t len)
{
    char logpath[128], file[128];
    snprintf(logpath, sizeof logpath, "%s.log", w->dir);
    snprintf(file, sizeof file, "%s/file", w->dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    free(w->cfg.data_dir);
    w->cfg.data_dir = strdup(file);
    four_people("standard hands=1");
    int saved = log_begin(logpath);
    play_everything(the_table());
    log_end(saved, logpath, log, len);
    unlink(logpath);
}

static void test_record_unwritable_data_dir_is_logged(void **state)
{
    (void)state;
    char log[4096];
    play_with_data_dir_a_file(log, sizeof log);
    if (!strstr(log, "game record not written"))
        fail_msg("log: %s", log);
    assert_int_equal(count_starting("#h", 0, "Results can't be saved"), 1);
}

/* A data directory that cannot be written at start: the bot runs on, each
 * channel hears it once when a table opens, and once it can be written a
 * new table finds it again and its game is archived. */
static void
test_storage_unwritable_at_start_told_once_and_recovers(void **state)
{
    (void)state;
    char file[128], logpath[128], log[8192], err[300];
    snprintf(file, sizeof file, "%s/data", w->dir);
    snprintf(logpath, sizeof logpath, "%s.log", w->dir);
    FILE *f = fopen(file, "w"); /* data_dir is a file */
    assert_non_null(f);
    fclose(f);
    free(w->cfg.data_dir);
    w->cfg.data_dir = strdup(file);
    int saved = log_begin(logpath);
    int rc = manager_storage_start(w->m, err, sizeof err);
    said("alice", "#a", "!hearts");
    said("alice", "#a", "!leave");
    said("bob", "#b", "!hearts");
    said("alice", "#A", "!hearts"); /* the same channel, folded */
    log_end(saved, logpath, log, sizeof log);
    unlink(logpath);
    assert_int_equal(rc, 0);
    assert_false(manager_storage_ok(w->m));
    if (!strstr(log, "results can't be saved"))
        fail_msg("log: %s", log);
    const char *told = "Results can't be saved: a file or link is in the "
                       "way. The game goes on.";
    assert_int_equal(count_starting("#a", 0, told), 1);
    assert_int_equal(count_starting("#b", 0, told), 1);
    /* it can be written again: nobody is told, the game is archived */
    assert_int_equal(unlink(file), 0);
    said("alice", "#A", "!leave");
    said("bob", "#b", "!leave");
    int from = w->fake.n;
    four_people("standard hands=1");
    play_everything(the_table());
    run_for(5);
    assert_int_equal(count_starting("#h", from, "Results can't"), 0);
    assert_true(manager_storage_ok(w->m));
    assert_true(storage_locked());
    storage_unlock();
    char path[300];
    snprintf(path, sizeof path, "%s/test/%%23h/archive.jsonl", file);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 100);
}

/* What manager_on_archived's function was given. */
struct handed {
    int calls;
    char room_dir[256], network[64], room[64], game[32], record_start[40];
    bool finished;
};

static void on_archived(void *ctx, const char *room_dir, const char *network,
                        const char *room, const struct archive_result *res,
                        const char *record)
{
    struct handed *h = ctx;
    h->calls++;
    snprintf(h->room_dir, sizeof h->room_dir, "%s", room_dir);
    snprintf(h->network, sizeof h->network, "%s", network);
    snprintf(h->room, sizeof h->room, "%s", room);
    snprintf(h->game, sizeof h->game, "%s", res->game);
    snprintf(h->record_start, sizeof h->record_start, "%s", record);
    h->finished = res->finished;
}

/* Each game newly archived is handed on once, with its channel's folder,
 * and one that could not be archived is not (until it is). */
static void test_each_archived_game_is_handed_on(void **state)
{
    (void)state;
    struct handed h = {0};
    manager_on_archived(w->m, on_archived, &h);
    four_people("standard hands=1");
    play_everything(the_table());
    assert_int_equal(h.calls, 1);
    char want[256];
    snprintf(want, sizeof want, "%s/test/%%23h", w->cfg.data_dir);
    assert_string_equal(h.room_dir, want);
    assert_string_equal(h.network, "test");
    assert_string_equal(h.room, "#h");
    assert_int_equal(strlen(h.game), 16);
    assert_true(h.finished);
    assert_memory_equal(h.record_start, "{\"format\":\"hearts-record/1\",", 28);
    /* a game that could not be archived is not handed on */
    char log[8192];
    play_with_data_dir_a_file(log, sizeof log);
    assert_int_equal(h.calls, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_record_past_file_size_limit_is_logged_not_torn, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_record_unwritable_data_dir_is_logged, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_storage_unwritable_at_start_told_once_and_recovers, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_each_archived_game_is_handed_on,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
