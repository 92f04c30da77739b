/*
 * Makes a data directory with this build, for the upgrade test to keep
 * as a fixture (tests/fixtures/datadir-VERSION/, its README.md):
 *
 *     build/tests/make-datadir-fixture tests/fixtures/datadir-X.Y.Z
 *
 * writes DIR/data/ (what the bot wrote, played through the game manager
 * on the fake network "test", room #h, with the real storage) and
 * DIR/expected/ (what a later build must read from it, as text that does
 * not depend on the formats, datadir.h):
 *
 * - two finished games, archived, with their leaderboards: four people
 *   at "standard hands=1", then alice and three computers at "omnibus
 *   hands=1" (a board of its own and the custom one);
 * - people.jsonl: bob chose German, carol ASCII cards;
 * - a third game in progress (four people, standard, some cards of the
 *   first hand down) when the bot was stopped as SIGTERM stops it: its
 *   journal kept for the next start, its stopped record archived, the
 *   leaderboard written;
 * - a Matrix session file (mx/matrix-session.json) as the Matrix adapter
 *   writes it.
 *
 * DIR must not exist yet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "adapters/matrix/session.h"
#include "storage/record/record.h"
#include "storage/stats.h"
#include "tests/unit/bot/manager/world.h"
#include "tests/upgrade/datadir.h"

static const char *out_dir;

static void write_text(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/expected/%s", out_dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void make_dir(const char *under)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s", out_dir, under);
    if (mkdir(path, 0755) != 0)
        fail_msg("cannot make %s: %s", path, strerror(errno));
}

static void play_all(const char *opener, const char *rules, bool computers)
{
    struct table *t;
    if (computers) {
        char cmd[200];
        snprintf(cmd, sizeof cmd, "!hearts %s", rules);
        said(opener, "#h", cmd);
        said(opener, "#h", "!start");
    } else {
        four_people(rules);
    }
    t = the_table();
    assert_non_null(t);
    assert_true(t->playing);
    play_everything(t);
    run_for(50);
    assert_null(the_table());
}

static void test_make_the_data_directory(void **state)
{
    (void)state;
    make_dir("");
    make_dir("/data");
    make_dir("/expected");
    char data[1024];
    snprintf(data, sizeof data, "%s/data", out_dir);
    free(w->cfg.data_dir);
    w->cfg.data_dir = strdup(data);

    play_all("alice", "standard hands=1", false);
    play_all("alice", "omnibus hands=1", true);
    said("bob", NULL, "lang de");
    said("carol", NULL, "cards ascii");
    write_text("people.txt", "test n:bob@host.test lang de\n"
                             "test n:carol@host.test cards ascii\n");

    /* the game in progress, as it stands when the bot stops */
    four_people("standard");
    struct table *t = the_table();
    play_to(t, 1, 6);
    char *text = datadir_table_text(t);
    write_text("table.txt", text);
    free(text);
    char *rec = record_writer_json(t->rec);
    write_text("record.json", rec);
    free(rec);
    /* as SIGTERM stops the bot: the table told, the journal kept, the
     * leaderboard written */
    manager_shutdown(w->m, "heartsbot is shutting down");
    run_for(50);
    manager_free(w->m);
    w->m = NULL;

    /* the boards as the files hold them */
    char room[1100], why[600];
    snprintf(room, sizeof room, "%s/%s", data, DATADIR_ROOM);
    struct stats *s = NULL;
    int64_t caught_up = -1;
    int skipped = -1;
    assert_int_equal(
        stats_open(room, &s, &caught_up, &skipped, why, sizeof why), 0);
    assert_int_equal(caught_up, 0);
    assert_int_equal(skipped, 0);
    text = datadir_boards_text(s);
    write_text("boards.txt", text);
    free(text);
    stats_free(s);

    /* a Matrix session, as the adapter keeps it */
    make_dir("/data/mx");
    struct mx_session ms = {0};
    mx_session_set(&ms.homeserver, "https://matrix.example.org");
    mx_session_set(&ms.user_id, "@hearts:example.org");
    mx_session_set(&ms.access_token, "syt_fixture_token");
    mx_session_set(&ms.device_id, "FIXTUREDEV");
    mx_session_set(&ms.since, "s72594_4483_1934");
    ms.txn_epoch = 1764000000000;
    char path[1100], err[600];
    snprintf(path, sizeof path, "%s/%s", data, DATADIR_MATRIX_SESSION);
    assert_int_equal(mx_session_save(path, &ms, err, sizeof err), 0);
    text = datadir_session_text(&ms);
    write_text("session.txt", text);
    free(text);
    mx_session_free(&ms);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make-datadir-fixture DIR\n");
        return 2;
    }
    out_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_make_the_data_directory, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
