/*
 * Tests of !replay and "more" (bot/manager/cmd_replay.c) after real
 * games, through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/manager/cmd_replay.h"
#include "bot/manager/replay.h"
#include "storage/record/record.h"
#include "tests/unit/bot/manager/world.h"

/* A game of four people, one hand, played out; its ID. */
static void one_hand_game(char id[17])
{
    four_people("standard hands=1");
    struct table *t = the_table();
    snprintf(id, 17, "%s", t->game_id);
    play_everything(t);
    run_for(5);
    assert_null(the_table());
}

/* The lines told to nick since `from`, each cut of the chunk's end,
 * joined by '\n' into out; how many. */
static int told(const char *nick, int from, char *out, size_t len)
{
    size_t pos = 0;
    int n = 0;
    out[0] = '\0';
    for (int i = from; i < w->fake.n; i++) {
        const struct fake_chat_line *l = &w->fake.lines[i];
        if (strcmp(l->to, nick) != 0)
            continue;
        assert_true(l->private_);
        pos += (size_t)snprintf(out + pos, len - pos, "%s\n", l->text);
        assert_true(pos < len);
        n++;
    }
    return n;
}

/* Asks for more until the replay ends; all it told, from `from`. */
static int to_the_end(const char *nick, int from, char *out, size_t len)
{
    for (int guard = 0; guard < 200; guard++) {
        const struct fake_chat_line *l = last_to(nick, from);
        if (l && strstr(l->text, "[end of the replay]"))
            break;
        said(nick, NULL, "more");
    }
    return told(nick, from, out, len);
}

/* The tricks of a record as the replay shows them in ascii cards: "1:
 * alice 2C bob 9C carol KC dave 5C -> carol", each into tricks[]. */
struct tricks {
    const struct record *rec;
    char names[ENGINE_MAX_PLAYERS][64];
    char t[13 * 8][256];
    int n;
    size_t pos;
};

static void on_trick_event(void *ctx, const struct engine_game *g,
                           const struct engine_event *ev)
{
    (void)g;
    struct tricks *k = ctx;
    struct render_look look = {CHAT_STYLE_PLAIN, MSG_EN, RENDER_CARDS_ASCII};
    if (k->n == 13 * 8)
        return;
    if (ev->kind == ENGINE_EV_PLAYED) {
        /* numbered in its hand, as the replay does: a tie for the lowest
         * score plays another hand (13 tricks each, 4 players) */
        if (!k->pos)
            k->pos = (size_t)snprintf(k->t[k->n], sizeof k->t[0],
                                      "%d:", k->n % 13 + 1);
        char card[32];
        render_card(card, sizeof card, ev->card, look);
        k->pos += (size_t)snprintf(k->t[k->n] + k->pos, sizeof k->t[0] - k->pos,
                                   " %s %s", k->rec->names[ev->seat], card);
    } else if (ev->kind == ENGINE_EV_TRICK) {
        snprintf(k->t[k->n] + k->pos, sizeof k->t[0] - k->pos, " -> %s",
                 k->rec->names[ev->seat]);
        k->n++;
        k->pos = 0;
    }
}

static void record_tricks(const char *json, struct tricks *k)
{
    struct record *rec;
    char err[300];
    assert_int_equal(record_parse(json, strlen(json), &rec, err, sizeof err),
                     0);
    memset(k, 0, sizeof *k);
    k->rec = rec;
    struct engine_sink sink = {on_trick_event, k};
    assert_int_equal(
        record_replay(rec, &sink, NULL, NULL, NULL, err, sizeof err), 0);
    record_free(rec);
}

static void test_replay_of_the_last_game_tells_every_trick(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    char id[17];
    one_hand_game(id);
    said("bob", NULL, "cards ascii");
    int from = w->fake.n;
    said("bob", "#h", "!replay");
    /* privately, in bob's window (not a notice), a chunk */
    assert_int_equal(lines_to("#h", from), 0);
    assert_int_equal(private_lines_to("bob", from), REPLAY_CHUNK_LINES);
    for (int i = from; i < w->fake.n; i++)
        assert_false(w->fake.lines[i].notice);
    const struct fake_chat_line *first = &w->fake.lines[from];
    char head[64];
    snprintf(head, sizeof head, "Game %s (", id);
    assert_non_null(strstr(first->text, head));
    /* (a tie plays another hand) */
    if (!strstr(first->text, "standard with hands=1, "))
        fail_msg("summary: %s", first->text);
    assert_non_null(strstr(last_to("bob", from)->text, "lines left: say "
                                                       "\"more\"]"));
    assert_non_null(
        strstr(w->fake.lines[from + 1].text, "Hand 1: pass 3 left."));
    assert_non_null(strstr(w->fake.lines[from + 2].text, "alice: "));
    assert_non_null(strstr(w->fake.lines[from + 2].text, "; passes "));

    static char all[65536];
    int n = to_the_end("bob", from, all, sizeof all);
    assert_true(n > REPLAY_CHUNK_LINES);
    assert_non_null(strstr(all, "Hand 1: alice "));
    assert_non_null(strstr(all, "Totals: alice "));
    /* every trick of the archived record, in order */
    int count;
    char *json = archived(&count);
    assert_int_equal(count, 1);
    struct tricks k;
    record_tricks(json, &k);
    free(json);
    assert_true(k.n >= 13 && k.n % 13 == 0);
    const char *at = all;
    for (int i = 0; i < k.n; i++) {
        const char *found = strstr(at, k.t[i]);
        if (!found)
            fail_msg("trick '%s' not in:\n%s", k.t[i], all);
        at = found + strlen(k.t[i]);
    }
    /* the replay is over: more has nothing */
    from = w->fake.n;
    said("bob", NULL, "more");
    assert_true(any_contains("bob", from, "No replay is open for you"));
}

/* The first line of a replay told to nick since from (a summary). */
static const char *summary_to(const char *nick, int from)
{
    int i = first_starting(nick, from, "Game ");
    assert_true(i >= 0);
    return w->fake.lines[i].text;
}

static void test_replay_finds_games_by_number_and_id(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    refused("bob", "#h", "!replay", "No game has finished here yet.");
    char id1[17], id2[17], id3[17], cmd[64], want[64];
    one_hand_game(id1);
    one_hand_game(id2);
    /* the last by default, and counting back */
    int from = w->fake.n;
    said("bob", "#h", "!replay");
    snprintf(want, sizeof want, "Game %s (", id2);
    assert_non_null(strstr(summary_to("bob", from), want));
    from = w->fake.n;
    said("bob", "#h", "!replay 2");
    snprintf(want, sizeof want, "Game %s (", id1);
    assert_non_null(strstr(summary_to("bob", from), want));
    /* an ID's first digits, as !last shows them, in any case */
    from = w->fake.n;
    said("bob", "#h", "!last");
    snprintf(want, sizeof want, "Replay: !replay %.8s", id2);
    assert_true(any_contains("#h", from, want));
    snprintf(cmd, sizeof cmd, "!replay %.8s", id1);
    for (char *p = cmd; *p; p++)
        *p = (char)(*p >= 'a' && *p <= 'f' ? *p - 'a' + 'A' : *p);
    from = w->fake.n;
    said("bob", "#h", cmd);
    snprintf(want, sizeof want, "Game %s (", id1);
    assert_non_null(strstr(summary_to("bob", from), want));
    snprintf(cmd, sizeof cmd, "!replay %s", id1);
    from = w->fake.n;
    said("bob", "#h", cmd);
    assert_non_null(strstr(summary_to("bob", from), want));

    /* refusals, privately, and the replay open stays as it was */
    refused("bob", "#h", "!replay 3", "Only 2 games have finished here.");
    refused("bob", "#h", "!replay ffffffffffffffff",
            "No game ffffffffffffffff is archived here.");
    refused("bob", "#h", "!replay x", "Say which game: its ID as !last");
    refused("bob", "#h", "!replay 0", "Say which game");
    refused("bob", "#h", "!replay 12345", "Say which game");
    refused("bob", "#h", "!replay abcde", "Say which game");
    refused("bob", "#h", "!replay 1001", "Say which game");
    refused("bob", "#h", "!replay 1 2", "Say which game");
    refused("bob", "#h", "!replay 12345678901234567", "Say which game");

    /* a game still on is never told; the last finished one is */
    four_people("standard hands=1");
    snprintf(id3, sizeof id3, "%s", the_table()->game_id);
    snprintf(cmd, sizeof cmd, "!replay %.8s", id3);
    refused("bob", "#h", cmd, "That game is still on");
    from = w->fake.n;
    said("bob", "#h", "!replay");
    snprintf(want, sizeof want, "Game %s (", id2);
    assert_non_null(strstr(summary_to("bob", from), want));
    /* nor a game stopped before its end */
    said("alice", "#h", "!stop");
    run_for(5);
    assert_null(the_table());
    snprintf(want, sizeof want, "Game %s was stopped before its end", id3);
    refused("bob", "#h", cmd, want);
    /* counting back passes over it */
    from = w->fake.n;
    said("bob", "#h", "!replay 1");
    snprintf(want, sizeof want, "Game %s (", id2);
    assert_non_null(strstr(summary_to("bob", from), want));
}

static void test_more_goes_on_and_a_new_replay_replaces(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    char id[17];
    one_hand_game(id);
    refused("carol", NULL, "more",
            "No replay is open for you: !replay in a "
            "channel starts one.");
    int from = w->fake.n;
    said("carol", "#h", "!replay");
    assert_int_equal(private_lines_to("carol", from), REPLAY_CHUNK_LINES);
    /* "!replay more" in the channel: the next chunk, privately */
    from = w->fake.n;
    said("carol", "#h", "!replay more");
    assert_int_equal(lines_to("#h", from), 0);
    assert_int_equal(private_lines_to("carol", from), REPLAY_CHUNK_LINES);
    assert_int_equal(first_starting("carol", from, "Game "), -1);
    /* "more" again at once is answered: no repeat */
    from = w->fake.n;
    said("carol", NULL, "more");
    said("carol", NULL, "MORE");
    assert_true(private_lines_to("carol", from) >= 2);
    /* a new replay starts again from the top, in place of this one */
    from = w->fake.n;
    said("carol", "#h", "!replay");
    assert_true(first_starting("carol", from, "Game ") == from);
    assert_int_equal(mgr_replays_count(w->m->replays), 1);
    /* anyone in the channel may ask; each has their own */
    from = w->fake.n;
    said("zed", "#h", "!replay");
    assert_true(first_starting("zed", from, "Game ") == from);
    assert_int_equal(mgr_replays_count(w->m->replays), 2);
}

/* The lines of a replay told to nick since from (its chunks' lines, not
 * the bot's other answers). */
static int replay_lines(const char *nick, int from)
{
    int n = 0;
    for (int i = from; i < w->fake.n; i++)
        n += strcmp(w->fake.lines[i].to, nick) == 0 &&
             !strstr(w->fake.lines[i].text, "too much") &&
             !strstr(w->fake.lines[i].text, "Too many");
    return n;
}

static void test_a_replay_keeps_within_the_answer_limits(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    char id[17];
    one_hand_game(id);
    /* each line is an answer: 6 at once, then one a second */
    w->cfg.reply_burst = 6;
    w->cfg.reply_interval = 1;
    int from = w->fake.n;
    said("dave", "#h", "!replay");
    assert_int_equal(replay_lines("dave", from), REPLAY_CHUNK_LINES);
    for (int i = 0; i < 20; i++)
        said("dave", NULL, "more");
    /* the sixth answer, then one warning, then nothing */
    assert_int_equal(replay_lines("dave", from), 6);
    assert_int_equal(private_lines_to("dave", from), 7);
    assert_true(any_contains("dave", from, "You are sending me too much"));
    run_for(3050);
    from = w->fake.n;
    said("dave", NULL, "more");
    /* three seconds saved three answers (a slow machine: a few more) */
    assert_in_range(replay_lines("dave", from), 3, REPLAY_CHUNK_LINES);
    assert_non_null(strstr(last_to("dave", from)->text, "left: say \"more\"]"));

    /* while the games' lines wait to go out, the chunk's lines take from
     * everyone's chatter budget too */
    w->cfg.reply_interval = 0;
    w->cfg.chatter_burst = 2;
    w->cfg.chatter_interval = 60;
    w->fake.busy = true;
    from = w->fake.n;
    said("erin", "#h", "!replay");
    assert_int_equal(replay_lines("erin", from), 3);
    from = w->fake.n;
    said("erin", NULL, "more");
    said("erin", NULL, "more");
    assert_int_equal(replay_lines("erin", from), 0);
    assert_true(any_contains("erin", from, "Too many messages are waiting"));
}

static void test_replays_idle_and_in_number_are_bounded(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    char id[17];
    one_hand_game(id);
    mgr_replays_set_idle(w->m->replays, 60);
    said("bob", "#h", "!replay");
    assert_int_equal(mgr_replays_count(w->m->replays), 1);
    run_for(30);
    said("bob", NULL, "more"); /* in use: not idle */
    run_for(40);
    int from = w->fake.n;
    said("bob", NULL, "more");
    assert_false(any_contains("bob", from, "No replay is open"));
    run_for(80);
    refused("bob", NULL, "more", "No replay is open for you");
    assert_int_equal(mgr_replays_count(w->m->replays), 0);

    /* at most REPLAY_OPEN at once: the one used longest ago gives way */
    mgr_replays_set_idle(w->m->replays, 600000);
    char nick[REPLAY_OPEN + 1][16];
    for (int i = 0; i <= REPLAY_OPEN; i++) {
        snprintf(nick[i], sizeof nick[i], "p%d", i);
        said(nick[i], "#h", "!replay");
        run_for(2);
    }
    assert_int_equal(mgr_replays_count(w->m->replays), REPLAY_OPEN);
    refused("p0", NULL, "more", "No replay is open for you");
    from = w->fake.n;
    said("p1", NULL, "more");
    assert_false(any_contains("p1", from, "No replay is open"));
}

static void
test_replay_privately_is_of_the_table_the_asker_sits_at(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    char id[17], want[64];
    one_hand_game(id);
    refused("bob", NULL, "replay", "Ask in the channel (!replay there).");
    said("bob", "#h", "!hearts");
    int from = w->fake.n;
    said("bob", NULL, "replay");
    snprintf(want, sizeof want, "Game %s (", id);
    assert_non_null(strstr(summary_to("bob", from), want));
    /* another channel has none */
    refused("bob", "#other", "!replay", "No game has finished here yet.");
}

static void test_replay_in_the_askers_cards_and_language(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    char id[17];
    one_hand_game(id);
    /* symbols (the default) */
    int from = w->fake.n;
    said("bob", "#h", "!replay");
    said("bob", NULL, "more");
    const char *hand = w->fake.lines[from + 2].text;
    assert_true(strstr(hand, "♣") || strstr(hand, "♦") || strstr(hand, "♠"));
    assert_non_null(strstr(hand, "; passes "));
    assert_true(any_contains("bob", from, "1: "));
    assert_true(any_contains("bob", from, " → "));
    /* words, for a screen reader: no symbol, the suits named */
    said("bob", NULL, "cards words");
    from = w->fake.n;
    said("bob", "#h", "!replay");
    said("bob", NULL, "more");
    for (int i = from; i < w->fake.n; i++)
        assert_null(strstr(w->fake.lines[i].text, "♣"));
    assert_true(any_contains("bob", from, " of clubs, "));
    assert_true(strstr(w->fake.lines[from + 2].text, "clubs: ") ||
                strstr(w->fake.lines[from + 2].text, "spades: "));
    /* German: the deal's words as the channel says them, and its own */
    said("bob", NULL, "cards symbols");
    said("bob", NULL, "lang de");
    from = w->fake.n;
    said("bob", "#h", "!replay");
    assert_true(any_contains("bob", from, "Runde 1: 3 Karten nach links"));
    char want[64];
    snprintf(want, sizeof want, "Partie %s (", id);
    assert_true(any_contains("bob", from, want));
    assert_true(any_contains("bob", from, "Zeilen: sag „more“]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_replay_of_the_last_game_tells_every_trick, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_replay_finds_games_by_number_and_id, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_more_goes_on_and_a_new_replay_replaces, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_replay_keeps_within_the_answer_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_replays_idle_and_in_number_are_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_replay_privately_is_of_the_table_the_asker_sits_at, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_replay_in_the_askers_cards_and_language, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
