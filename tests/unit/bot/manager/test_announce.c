/*
 * Tests of what the engine tells, said and told (bot/manager/announce.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "storage/record/record.h"
#include "tests/unit/bot/manager/world.h"

/* Whether a line to `to` from `from` contains the markup pill for nick
 * (render.h): notifying or quiet, shown as the nick itself. */
static bool has_pill(const char *to, int from, const char *nick, bool notify,
                     const char *before, const char *after)
{
    char want[400];
    snprintf(want, sizeof want, "%s\x01%s%s\x01%s\x01%s", before,
             notify ? "!" : "", nick, nick, after);
    return any_contains(to, from, want);
}

/* Four people, no passing, until the reminder at half the first turn:
 * the first to play's nick; *from is where the waiting began. */
static const char *until_reminder(int *from)
{
    w->cfg.next_hand_delay = 60;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    *from = w->fake.n;
    run_for(700);
    return t->seats[engine_turn(&t->game)].nick;
}

static void test_announcements_are_one_line(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts standard target=50");
    const struct fake_chat_line *l = last_to("#h", 0);
    assert_non_null(l);
    assert_string_equal(l->text,
                        "alice opens a Hearts table: standard for 4 with "
                        "target=50. !join to sit down, !start to deal "
                        "(computers fill empty seats).");
    /* shown again: the rules in a few words, and who sits */
    said("bob", "#h", "!join");
    int from = w->fake.n;
    said("carol", "#h", "!hearts");
    l = last_to("carol", from);
    assert_non_null(l);
    assert_string_equal(l->text, "A table is open here: standard for 4 with "
                                 "target=50; alice, bob (2/4). !join to sit "
                                 "down.");
    /* the full rules: the preset, then what differs, in two IRC lines */
    said("carol", "#h", "!rules");
    l = last_to("carol", from);
    assert_non_null(strstr(l->text, "standard for 4 players: pass left"));
    assert_non_null(strstr(l->text, "Changed here: target=50."));
    assert_true(strlen(l->text) <= 800);
    for (int p = 0; p < engine_preset_count(); p++) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "!rules %s", engine_preset_name(p));
        said("carol", "#h", cmd);
        assert_true(strlen(last_to("carol", from)->text) <= 800);
    }
}

static void test_hands_reach_only_their_owner(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    const char *nicks[4];
    for (int s = 0; s < 4; s++)
        nicks[s] = t->seats[s].nick;
    for (int s = 0; s < 4; s++) {
        const struct fake_chat_line *l = last_to(nicks[s], 0);
        assert_non_null(l);
        assert_true(l->private_);
        assert_non_null(strstr(l->text, "Your cards"));
    }
    /* no channel line shows a card: none has been played yet */
    for (int i = 0; i < w->fake.n; i++) {
        if (w->fake.lines[i].private_)
            continue;
        assert_null(strstr(w->fake.lines[i].text, "Your cards:"));
        for (const char *sym = "♣♦♥♠"; *sym; sym += 3) {
            char s3[4] = {sym[0], sym[1], sym[2], 0};
            assert_null(strstr(w->fake.lines[i].text, s3));
        }
    }
    /* and every private line went to its own seat's nick */
    for (int i = 0; i < w->fake.n; i++) {
        if (!w->fake.lines[i].private_)
            continue;
        bool seated = false;
        for (int s = 0; s < 4; s++)
            seated |= strcasecmp(w->fake.lines[i].to, nicks[s]) == 0;
        assert_true(seated);
    }
}

static void test_markup_pills_for_whose_turn(void **state)
{
    (void)state;
    w->fake.base.style = CHAT_STYLE_MARKUP;
    int from;
    const char *first = until_reminder(&from);
    struct table *t = the_table();
    /* the reminder in the channel notifies whoever the table waits for */
    assert_true(
        has_pill("#h", from, first, true, "The table waits for ", " ("));
    /* !status names whose turn it is, quietly */
    from = w->fake.n;
    said("bob", "#h", "!status");
    assert_true(has_pill("#h", from, first, false, ". ", " to play"));
    /* the trick's taker, a person, leads next: a quiet pill in bold */
    from = w->fake.n;
    play_lowest(t, 4);
    assert_int_equal(t->game.trick_no, 1);
    const char *taker = t->seats[t->last_winner].nick;
    assert_true(has_pill("#h", from, taker, false, "\x02", "\x02 takes it"));
    assert_false(has_pill("#h", from, taker, true, "", ""));
}

static void test_plain_style_has_no_pills(void **state)
{
    (void)state;
    int from;
    const char *first = until_reminder(&from);
    struct table *t = the_table();
    char want[200];
    snprintf(want, sizeof want, "The table waits for %s (", first);
    assert_int_equal(count_starting("#h", from, want), 1);
    play_lowest(t, 4);
    for (int i = from; i < w->fake.n; i++)
        assert_null(strchr(w->fake.lines[i].text, '\x01'));
}

static void test_whole_game_record_replays(void **state)
{
    (void)state;
    four_people("standard target=30");
    struct table *t = the_table();
    play_everything(t);
    assert_true(any_contains("#h", 0, "Game over!"));
    /* the final sheet, and how to play again */
    int over = first_starting("#h", 0, "Game over!");
    assert_true(strstr(w->fake.lines[over + 1].text, "hand") != NULL);
    assert_true(any_contains("#h", over, "total"));
    const struct fake_chat_line *last = last_to("#h", over);
    assert_string_equal(last->text, "Another game? !hearts opens a table.");
    run_for(5);
    char path[128];
    room_file(path, sizeof path, "archive.jsonl");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len = getline(&line, &cap, f);
    fclose(f);
    assert_true(len > 0);
    char err[300];
    if (record_check(line, (size_t)len, err, sizeof err))
        fail_msg("record refused: %s", err);
    struct record *rec = NULL;
    assert_int_equal(record_parse(line, (size_t)len, &rec, err, sizeof err), 0);
    assert_true(rec->has_totals);
    /* the totals the channel was told are the record's */
    char want[300];
    size_t pos = 0;
    for (int s = 0; s < rec->n; s++)
        pos +=
            (size_t)snprintf(want + pos, sizeof want - pos, "%s%s %d",
                             s ? ", " : "", rec->names[s], (int)rec->totals[s]);
    assert_true(any_contains("#h", 0, want));
    record_free(rec);
    free(line);
}

static void test_a_seat_left_is_marked_in_trick_lines(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    said("bob", "#h", "!leave");
    said("bob", "#h", "!leave");
    assert_false(t->seats[seat_of_nick(t, "bob")].human);
    int from = w->fake.n;
    for (int guard = 0; guard < 40 && !any_contains("#h", from, "Trick 2: ");
         guard++) {
        if (t->trick_deferred) { /* the channel's lines are out */
            all_sent(0);
            continue;
        }
        if (!person_acts(t))
            run_for(1);
    }
    const struct fake_chat_line *l = NULL;
    for (int i = from; i < w->fake.n; i++)
        if (strncmp(w->fake.lines[i].text, "Trick 1: ", 9) == 0)
            l = &w->fake.lines[i];
    assert_non_null(l);
    if (!strstr(l->text, "bob (left) "))
        fail_msg("trick line: '%s'", l->text);
    /* the others are not marked */
    assert_null(strstr(l->text, "alice ("));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_announcements_are_one_line, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_hands_reach_only_their_owner,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_markup_pills_for_whose_turn, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_plain_style_has_no_pills, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_a_seat_left_is_marked_in_trick_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_whole_game_record_replays, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
