/*
 * A finished game's lines for a reader and the replays open
 * (bot/manager/replay.c), from records made by the record tests' helpers
 * (tests/support/record_cases.h). The command is tested through the
 * manager in test_cmd_replay.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/msg.h"
#include "bot/manager/replay.h"
#include "storage/record/record.h"
#include "tests/support/record_cases.h"

static const struct replay_about about = {"0123456789abcdef", 1764547200};

/* The lines of rec for look, joined by '\n' (to free); *n how many. */
static char *lines_of(const struct record *rec, struct render_look look, int *n)
{
    char *json = record_to_json(rec), err[300];
    struct replay_text t = {0};
    int rc = mgr_replay_render(json, strlen(json), &about, look, &t, err,
                               sizeof err);
    if (rc)
        fail_msg("render: %d %s", rc, err);
    free(json);
    size_t len = 1;
    for (int i = 0; i < t.n; i++)
        len += strlen(t.lines[i]) + 1;
    char *all = malloc(len), *p = all;
    for (int i = 0; i < t.n; i++)
        p += sprintf(p, "%s\n", t.lines[i]);
    *p = '\0';
    *n = t.n;
    assert_true(t.bytes <= REPLAY_MAX_TEXT);
    mgr_replay_text_free(&t);
    return all;
}

static const struct render_look plain = {CHAT_STYLE_PLAIN, MSG_EN,
                                         RENDER_CARDS_SYMBOLS};

static void test_every_hand_and_trick_of_a_game(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    int n;
    char *all = lines_of(rec, plain, &n);
    const char *head =
        "Game 0123456789abcdef (2025-12-01 00:00 UTC, standard, ";
    if (strncmp(all, head, strlen(head)) != 0)
        fail_msg("summary: %.200s", all);
    char want[64];
    for (int h = 1; h <= rec->nhands; h++) {
        snprintf(want, sizeof want, "\nHand %d: pass ", h);
        if (!strstr(all, want)) {
            snprintf(want, sizeof want, "\nHand %d: no passing.", h);
            assert_non_null(strstr(all, want));
        }
        snprintf(want, sizeof want, "\nHand %d: ann ", h);
        assert_non_null(strstr(all, want));
    }
    /* 13 tricks a hand, four to a line, one line a player's hand */
    assert_int_equal(n, 1 + rec->nhands * (1 + 4 + 4 + 1));
    for (const char *p = all; (p = strstr(p, "\n13: ")); p++)
        assert_non_null(strstr(p, " → "));
    /* no line is longer than an adapter sends whole */
    for (const char *p = all; *p;) {
        size_t len = strcspn(p, "\n");
        assert_true(len <= REPLAY_LINE_MAX + 40);
        p += len + 1;
    }
    free(all);
    record_free(rec);
}

static void test_blind_passes_and_set_aside_tricks(void **state)
{
    (void)state;
    struct record *rec =
        rc_game_record("standard pass_blind=on hands=2", 4, true, 3);
    int n;
    char *all = lines_of(rec, plain, &n);
    assert_non_null(strstr(all, "; passes blind: "));
    assert_non_null(strstr(all, "; passes "));
    free(all);
    record_free(rec);
    /* cancellation: a trick two copies of a card tie is set aside */
    bool aside = false;
    for (uint64_t seed = 1; seed < 30 && !aside; seed++) {
        rec = rc_game_record("cancellation", 6, false, seed);
        all = lines_of(rec, plain, &n);
        aside = strstr(all, "→ set aside for the next winner") != NULL;
        free(all);
        record_free(rec);
    }
    assert_true(aside);
}

static void test_cards_in_ascii_and_words_and_names_cleaned(void **state)
{
    (void)state;
    struct record *rec = rc_standard_record();
    free(rec->names[1]);
    rec->names[1] = strdup("\xe2\x80\xae"
                           "evil\x03"
                           "04bob");
    int n;
    struct render_look ascii = {CHAT_STYLE_PLAIN, MSG_EN, RENDER_CARDS_ASCII};
    char *all = lines_of(rec, ascii, &n);
    for (const unsigned char *p = (const unsigned char *)all; *p; p++)
        assert_true(*p == '\n' || (*p >= 0x20 && *p < 0x7f));
    assert_non_null(strstr(all, " -> "));
    assert_non_null(strstr(all, "evilbob"));
    free(all);
    struct render_look words = {CHAT_STYLE_PLAIN, MSG_EN, RENDER_CARDS_WORDS};
    all = lines_of(rec, words, &n);
    assert_null(strstr(all, "♣"));
    assert_non_null(strstr(all, " of clubs, "));
    free(all);
    record_free(rec);
}

static void test_unfinished_bad_and_too_long_games_are_refused(void **state)
{
    (void)state;
    struct replay_text t = {0};
    char err[300];
    /* a stopped game's record: no totals */
    struct record *rec = rc_standard_record();
    rec->has_totals = rec->has_winners = false;
    rec->nwinners = 0;
    char *json = record_to_json(rec);
    assert_int_equal(mgr_replay_render(json, strlen(json), &about, plain, &t,
                                       err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "not finished"));
    free(json);
    record_free(rec);
    const char *bad = "{\"format\":\"hearts-record/9\"}";
    assert_int_equal(
        mgr_replay_render(bad, strlen(bad), &about, plain, &t, err, sizeof err),
        -1);
    assert_int_equal(t.n, 0);
    /* a hundred hands and more of six, in words and colours: more than a
     * replay keeps */
    rec = rc_game_record("standard target=1000 hands=1000", 6, false, 1);
    assert_true(rec->nhands > 100);
    json = record_to_json(rec);
    struct render_look words = {CHAT_STYLE_IRC, MSG_EN, RENDER_CARDS_WORDS};
    int rc = mgr_replay_render(json, strlen(json), &about, words, &t, err,
                               sizeof err);
    if (rc != 1)
        fail_msg("%d hands: %d, %zu bytes", rec->nhands, rc, t.bytes);
    assert_int_equal(t.n, 0);
    free(json);
    record_free(rec);
}

/* Lines for a replay: n of them. */
static struct replay_text text_of(int n)
{
    struct replay_text t = {0};
    t.lines = calloc((size_t)n, sizeof *t.lines);
    for (int i = 0; i < n; i++)
        t.lines[i] = strdup("line");
    t.n = t.cap = n;
    return t;
}

static void test_replays_one_a_person_few_in_all_not_for_long(void **state)
{
    (void)state;
    struct replays *rs = mgr_replays_new();
    struct replay_text t = text_of(3);
    struct replay *r = mgr_replay_open(rs, "net", "a@h", &t, MSG_EN, 0);
    assert_int_equal(t.n, 0); /* taken */
    assert_int_equal(r->text.n, 3);
    assert_ptr_equal(mgr_replay_find(rs, "net", "a@h", 10), r);
    assert_null(mgr_replay_find(rs, "other", "a@h", 10));
    /* a new one in its place */
    t = text_of(5);
    assert_ptr_equal(mgr_replay_open(rs, "net", "a@h", &t, MSG_EN, 20), r);
    assert_int_equal(r->text.n, 5);
    assert_int_equal(mgr_replays_count(rs), 1);
    /* idle too long: gone */
    assert_null(mgr_replay_find(rs, "net", "a@h", 20 + REPLAY_IDLE_MS));
    assert_int_equal(mgr_replays_count(rs), 0);
    /* full: the one used longest ago gives way */
    char id[32];
    for (int i = 0; i <= REPLAY_OPEN; i++) {
        snprintf(id, sizeof id, "p%d@h", i);
        t = text_of(1);
        mgr_replay_open(rs, "net", id, &t, MSG_EN, 100 + i);
    }
    assert_int_equal(mgr_replays_count(rs), REPLAY_OPEN);
    assert_null(mgr_replay_find(rs, "net", "p0@h", 200));
    assert_non_null(mgr_replay_find(rs, "net", "p1@h", 200));
    mgr_replay_close(mgr_replay_find(rs, "net", "p1@h", 200));
    assert_int_equal(mgr_replays_count(rs), REPLAY_OPEN - 1);
    mgr_replays_free(rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_hand_and_trick_of_a_game),
        cmocka_unit_test(test_blind_passes_and_set_aside_tricks),
        cmocka_unit_test(test_cards_in_ascii_and_words_and_names_cleaned),
        cmocka_unit_test(test_unfinished_bad_and_too_long_games_are_refused),
        cmocka_unit_test(test_replays_one_a_person_few_in_all_not_for_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
