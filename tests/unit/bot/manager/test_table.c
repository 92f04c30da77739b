/*
 * Tests of tables and seats (bot/manager/table.c): names shown, sitting down,
 * results keys, room directories, through the fake adapter of the manager's
 * test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "bot/common/file.h"
#include "tests/unit/bot/manager/world.h"

/* Every used seat's display name differs from every other (case aside). */
static void assert_names_unique(const struct table *t)
{
    for (int a = 0; a < t->capacity; a++)
        for (int b = a + 1; b < t->capacity; b++)
            if (t->seats[a].used && t->seats[b].used &&
                strcasecmp(mgr_seat_name(t, a), mgr_seat_name(t, b)) == 0)
                fail_msg("seats %d and %d both show '%s'", a, b,
                         mgr_seat_name(t, a));
}

/* nick says text showing `display` (NULL: none), as a Matrix person: the
 * account is their ID. */
static void said_shown(const char *nick, const char *display, const char *room,
                       const char *text)
{
    struct chat_user u = user(nick);
    u.account = nick;
    u.display = display;
    struct chat_event ev = {
        .kind = CHAT_MESSAGE, .room = room, .from = u, .text = text};
    manager_on_event(w->m, &w->fake.base, &ev);
}

/* alice, bob, carol and dave shown as Alice, Bob, Bob and Dave. */
static struct table *four_shown(const char *rules)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "!hearts %s", rules);
    said_shown("alice", "Alice", "#h", cmd);
    said_shown("bob", "Bob", "#h", "!join");
    said_shown("carol", "Bob", "#h", "!join");
    said_shown("dave", "Dave", "#h", "!join");
    said_shown("alice", "Alice", "#h", "!start");
    struct table *t = the_table();
    assert_true(t->playing);
    return t;
}

/* Whether a line said in #h since `from` holds needle (case counts). */
static bool room_says(int from, const char *needle)
{
    for (int i = from; i < w->fake.n; i++)
        if (!w->fake.lines[i].private_ && strstr(w->fake.lines[i].text, needle))
            return true;
    return false;
}

static void test_sitting_down_prepares_private_lines(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_MATRIX);
    four_people("standard");
    /* each person, once, as they sat down: before the deal */
    assert_int_equal(w->fake.nprepared, 4);
    static const char *const who[] = {"alice", "bob", "carol", "dave"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(w->fake.prepared[i], who[i]);
        for (int k = 0; k < w->fake.lines_at_prepare[i]; k++)
            assert_null(strstr(w->fake.lines[k].text, "Your cards"));
    }
    /* a direct message names the table as people know the room */
    const struct fake_chat_line *deal = last_to("bob", 0);
    assert_non_null(deal);
    assert_non_null(strstr(deal->text, "Hand 1 at Card Club. Your cards"));
    assert_null(strstr(deal->text, "#h"));
    /* computers are not prepared */
    said("alice", "#h", "!stop");
    said("bob", "#h", "!stop");
    said("carol", "#h", "!stop");
    said("erin", "#i", "!hearts");
    said("erin", "#i", "!bot 3");
    assert_int_equal(w->fake.nprepared, 5);
    assert_string_equal(w->fake.prepared[4], "erin");
}

/* A room's files: the network and the room folded, then encoded. */
static void test_table_room_dir_folds_and_encodes(void **state)
{
    (void)state;
    said("alice", "#Hearts/..", "!hearts");
    struct table *t = mgr_table_find(w->m, &w->fake.base, "#Hearts/..");
    assert_non_null(t);
    char dir[FILE_PATH_MAX], err[300], want[300];
    assert_int_equal(mgr_table_dir(t, dir, sizeof dir, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/test/%%23hearts%%2F..", w->dir);
    assert_string_equal(dir, want);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    /* too small a buffer: refused, not cut */
    char small[16];
    assert_int_equal(mgr_table_dir(t, small, sizeof small, err, sizeof err),
                     -1);
}

static void test_person_named_like_a_computer(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts");
    said("alice", "#h", "!bot 1");
    struct table *t = the_table();
    assert_string_equal(mgr_seat_name(t, 1), "bot1");
    /* a person called bot1 sits: the computer takes another name */
    said("bot1", "#h", "!join");
    assert_string_equal(mgr_seat_name(t, 2), "bot1");
    assert_string_equal(mgr_seat_name(t, 1), "bot2");
    assert_names_unique(t);
    /* and a computer added later never takes a person's name */
    said("alice", "#h", "!start");
    assert_names_unique(t);
    assert_true(any_contains(
        "#h", 0, "The game begins: alice, bot2 (easy), bot1, bot3 (easy)."));
}

static void test_lookalike_nicks_show_apart(void **state)
{
    (void)state;
    /* bob with a zero-width space and a right-to-left override sits first */
    said("bo\xe2\x80\x8b"
         "b\xe2\x80\xae",
         "#h", "!hearts");
    said("bob", "#h", "!join");
    said("BOB\xc2\xa0", "#h", "!join");
    struct table *t = the_table();
    assert_string_equal(mgr_seat_name(t, 1), "bob");
    assert_string_equal(mgr_seat_name(t, 0), "bob(2)");
    assert_string_equal(mgr_seat_name(t, 2), "BOB(3)");
    assert_names_unique(t);
    assert_true(any_contains("#h", 0, "bob sits down (2/4)"));
    assert_true(any_contains("#h", 0, "BOB(3) sits down (3/4)"));
    /* the plain bob leaves: the others keep unique names */
    said("bob", "#h", "!leave");
    assert_names_unique(t);
}

static void test_nick_change_to_a_seat_name_mid_game(void **state)
{
    (void)state;
    int me = alice_with_computers();
    struct table *t = the_table();
    event(CHAT_NICK, "alice", "alice@host.test", NULL, "bot2");
    assert_string_equal(t->seats[me].nick, "bot2");
    assert_string_equal(mgr_seat_name(t, me), "bot2(2)");
    assert_names_unique(t);
    /* the computers keep their names during the game */
    int bots = 0;
    for (int s = 0; s < 4; s++)
        bots +=
            !t->seats[s].human && strncmp(mgr_seat_name(t, s), "bot", 3) == 0;
    assert_int_equal(bots, 3);
}

static void test_display_names_are_shown_not_ids(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    struct table *t = four_shown("standard hands=1");
    /* two people showing the same name are told apart */
    assert_true(any_contains("#h", 0, "Alice opens"));
    assert_true(any_contains("#h", 0,
                             "The game begins: Alice, Bob, Bob(2), "
                             "Dave."));
    assert_names_unique(t);
    /* addressed and counted by their IDs all the same */
    assert_string_equal(t->seats[2].nick, "carol");
    assert_string_equal(t->seats[2].key, "a:carol");
    int from = w->fake.n;
    said_shown("bob", "Bob", "#h", "!status");
    assert_true(room_says(from, "Bob(2)"));
    play_everything(t);
    assert_true(room_says(0, "Trick 1: "));
    assert_true(room_says(0, "Bob(2)"));
    /* the sheet's columns and every line in the room: never the IDs */
    from = first_starting("#h", 0, "Game over!");
    assert_true(from >= 0);
    assert_true(room_says(from, "Alice"));
    assert_true(room_says(from, "Dave"));
    assert_false(room_says(0, "alice"));
    assert_false(room_says(0, "carol"));
    assert_false(room_says(0, "dave"));
    char text[8192];
    read_results(text, sizeof text);
    assert_non_null(strstr(text, "{\"name\":\"Alice\",\"key\":\"a:alice\""));
    assert_non_null(strstr(text, "{\"name\":\"Bob(2)\",\"key\":\"a:carol\""));
    from = w->fake.n;
    said_shown("alice", "Alice", "#h", "!stats");
    assert_true(any_contains("#h", from, "Alice (standard): 1 game, "));
    from = w->fake.n;
    said_shown("bob", "Bob", "#h", "!stats Dave");
    assert_true(any_contains("#h", from, "Dave (standard): 1 game, "));
}

static void test_rename_changes_only_the_name_shown(void **state)
{
    (void)state;
    struct table *t = four_shown("standard");
    struct engine_game before = t->game;
    renamed("bob", "Robert", "#h");
    assert_string_equal(mgr_seat_name(t, 1), "Robert");
    assert_string_equal(t->seats[1].nick, "bob");
    assert_string_equal(t->seats[1].key, "a:bob");
    /* carol is the only Bob now */
    assert_string_equal(mgr_seat_name(t, 2), "Bob");
    assert_memory_equal(&before, &t->game, sizeof before);
    /* a name in another room is not this table's */
    renamed("bob", "Elsewhere", "#other");
    assert_string_equal(mgr_seat_name(t, 1), "Robert");
    /* a name like another seat's is told apart */
    renamed("dave", "Alice", "#h");
    assert_string_equal(mgr_seat_name(t, 0), "Alice");
    assert_string_equal(mgr_seat_name(t, 3), "Alice(2)");
    assert_names_unique(t);
    /* hostile: invisible and bidirectional characters are cleaned */
    renamed("dave",
            "Al\xe2\x80\x8bi\xe2\x80\xae"
            "ce",
            "#h");
    assert_string_equal(mgr_seat_name(t, 3), "Alice(2)");
    /* no name any more: the nick, network-wide */
    renamed("carol", NULL, NULL);
    assert_string_equal(mgr_seat_name(t, 2), "carol");
    /* a private message's name (from another room) does not override */
    said_shown("bob", "Bobby", NULL, "hand");
    assert_string_equal(mgr_seat_name(t, 1), "Robert");
    /* the names survive a restart (the journal keeps them) */
    run_for(5);
    t = restart();
    assert_non_null(t);
    assert_string_equal(mgr_seat_name(t, 1), "Robert");
    assert_string_equal(mgr_seat_name(t, 3), "Alice(2)");
    assert_string_equal(mgr_seat_name(t, 2), "carol");
    /* a seat without a name (an older journal) takes the next one seen,
     * a private message's too */
    said_shown("carol", "Caroline", NULL, "hand");
    assert_string_equal(mgr_seat_name(t, 2), "Caroline");
}

/* Results count for the account: taken at sitting; a person who logs in
 * before the first hand is scored counts for the account, after it for
 * the nick they sat down with. */
static void test_account_is_the_results_key(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    said_account("alice", "Alice", "#h", "!hearts standard hands=2");
    said("bob", "#h", "!join");
    said("carol", "#h", "!join");
    said("dave", "#h", "!join");
    struct table *t = the_table();
    assert_string_equal(t->seats[1].key, "n:bob@host.test");
    said_account("bob", "Bob", "#h", "ready");
    assert_string_equal(t->seats[1].key, "a:Bob");
    assert_string_equal(t->seats[1].account, "Bob");
    said_account("alice", "Alice", "#h", "!start");
    play_to(t, 2, 0);
    assert_int_equal(t->nhist, 1);
    said_account("carol", "Carol", "#h", "good game");
    assert_string_equal(t->seats[2].account, "Carol");
    assert_string_equal(t->seats[2].key, "n:carol@host.test");
    play_everything(t);
    char text[8192];
    read_results(text, sizeof text);
    assert_non_null(strstr(text, "\"key\":\"a:Alice\""));
    assert_non_null(strstr(text, "\"key\":\"a:Bob\""));
    assert_non_null(strstr(text, "\"key\":\"n:carol@host.test\""));
}

/* A person's results key: bound to the nick (folded as the network
 * folds it) and the host, or to the account. */
static void test_seat_key_binds_nick_and_host(void **state)
{
    (void)state;
    struct fake_chat netf;
    fake_chat_init(&netf, FAKE_CHAT_RFC1459, "test", NULL, NULL);
    struct chat_adapter *net = &netf.base;
    char key[200];
    struct chat_user u = {.nick = "Bob[1]", .id = "~whatever@Host.Example"};
    mgr_seat_key(net, &u, key, sizeof key);
    assert_string_equal(key, "n:bob{1}@host.example");
    /* the ident is the client's choice: not part of the key */
    u.id = "other@host.example";
    char again[200];
    mgr_seat_key(net, &u, again, sizeof again);
    assert_string_equal(again, key);
    /* another host, another key */
    u.id = "whatever@cloak/bob";
    mgr_seat_key(net, &u, key, sizeof key);
    assert_string_equal(key, "n:bob{1}@cloak/bob");
    /* an account decides alone */
    u.account = "Robert";
    mgr_seat_key(net, &u, key, sizeof key);
    assert_string_equal(key, "a:Robert");
    /* at the console, the nick alone: one person, as it always was */
    struct fake_chat console;
    fake_chat_init(&console, FAKE_CHAT_RFC1459, "console", NULL, NULL);
    console.base.solo = true;
    struct chat_user you = {.nick = "you", .id = "console"};
    mgr_seat_key(&console.base, &you, key, sizeof key);
    assert_string_equal(key, "n:you");
    /* a nick holding '@' (a server's, hostile): the last '@' ends it */
    struct chat_user odd = {.nick = "a@b", .id = "u@c"};
    mgr_seat_key(net, &odd, key, sizeof key);
    assert_string_equal(key, "n:a@b@c");
    struct chat_user odd2 = {.nick = "a", .id = "u@b@c"};
    mgr_seat_key(net, &odd2, key, sizeof key);
    assert_string_equal(key, "n:a@c");
    /* a host too long for the key: its hash, never a cut host */
    char host[300];
    memset(host, 'h', sizeof host - 1);
    host[sizeof host - 1] = '\0';
    char id[320];
    snprintf(id, sizeof id, "u@%s", host);
    struct chat_user longhost = {.nick = "bob", .id = id};
    mgr_seat_key(net, &longhost, key, sizeof key);
    assert_int_equal(strlen(key), strlen("n:bob@~") + 16);
    assert_memory_equal(key, "n:bob@~", 7);
    host[0] = 'H'; /* ASCII case aside, yet another host hashed */
    snprintf(id, sizeof id, "u@%s", host);
    mgr_seat_key(net, &longhost, again, sizeof again);
    assert_string_not_equal(again, key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seat_key_binds_nick_and_host),
        cmocka_unit_test_setup_teardown(
            test_sitting_down_prepares_private_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_room_dir_folds_and_encodes,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_person_named_like_a_computer,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookalike_nicks_show_apart, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_nick_change_to_a_seat_name_mid_game, setup, teardown),
        cmocka_unit_test_setup_teardown(test_display_names_are_shown_not_ids,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_rename_changes_only_the_name_shown,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_is_the_results_key, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
