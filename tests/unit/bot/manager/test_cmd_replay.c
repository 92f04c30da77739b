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
    char t[64][256];
    int n;
    size_t pos;
};

static void on_trick_event(void *ctx, const struct engine_game *g,
                           const struct engine_event *ev)
{
    (void)g;
    struct tricks *k = ctx;
    struct render_look look = {CHAT_STYLE_PLAIN, MSG_EN, RENDER_CARDS_ASCII};
    if (ev->kind == ENGINE_EV_PLAYED) {
        if (!k->pos)
            k->pos = (size_t)snprintf(k->t[k->n], sizeof k->t[0], "%d:",
                                      k->n + 1);
        char card[32];
        render_card(card, sizeof card, ev->card, look);
        k->pos += (size_t)snprintf(k->t[k->n] + k->pos,
                                   sizeof k->t[0] - k->pos, " %s %s",
                                   k->rec->names[ev->seat], card);
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
    assert_int_equal(record_replay(rec, &sink, NULL, NULL, NULL, err,
                                   sizeof err),
                     0);
    record_free(rec);
}

static void test_replay_of_the_last_game_tells_every_trick(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    char id[17];
    one_hand_game(id);
    said("bob", NULL, "cards ascii");
    if (getenv("ECHO")) w->fake.echo = stderr;
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
    assert_non_null(strstr(first->text, "standard with hands=1, 1 hand): "));
    assert_non_null(strstr(last_to("bob", from)->text, "lines left: say "
                                                       "\"more\"]"));
    assert_non_null(strstr(w->fake.lines[from + 1].text,
                           "Hand 1: pass 3 left."));
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
    assert_int_equal(k.n, 13);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_replay_of_the_last_game_tells_every_trick, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
