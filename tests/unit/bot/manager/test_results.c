/*
 * The answers of bot/manager/results.c on boards built by hand (stats_add):
 * rows shown by the nick their key was made under, no two rows of a board shown
 * by one name (a number tells them apart, and !stats takes it back), and !stats
 * of yourself: the keys played under this session (bot/manager/played.c), your
 * key now, else the only nick row of your host.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ctype.h>
#include <string.h>

#include "bot/common/msg.h"
#include "bot/manager/board_names.h"
#include "bot/manager/played.h"
#include "bot/manager/results.h"
#include "tests/support/fake_chat.h"

/* A network that folds nicks as rfc1459. */
static struct fake_chat net;

/* ---- Boards ------------------------------------------------------------ */

/* One finished standard game of people with these keys and names (NULL
 * key: a computer); the first seat wins. */
static void game_of(struct stats *s, const char *preset,
                    const char *const *keys, const char *const *names, int n)
{
    struct archive_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.preset, sizeof r.preset, "%s", preset);
    r.finished = true;
    r.n = n;
    struct stats_game g;
    memset(&g, 0, sizeof g);
    g.n = n;
    g.nhands = 1;
    g.finished = true;
    g.preset = engine_preset_find(preset);
    g.winners = 1;
    for (int i = 0; i < n; i++) {
        snprintf(r.seats[i].key, sizeof r.seats[i].key, "%s",
                 keys[i] ? keys[i] : "");
        snprintf(r.seats[i].name, sizeof r.seats[i].name, "%s", names[i]);
        r.seats[i].computer = !keys[i];
        g.totals[i] = 10 * i;
        g.points[i] = 10 * i;
    }
    stats_add(s, &r, &g);
    stats_rank(s);
}

static void game(struct stats *s, const char *const *keys,
                 const char *const *names, int n)
{
    game_of(s, "standard", keys, names, n);
}

/* One person's game of a preset (against a computer). */
static void played_of(struct stats *s, const char *preset, const char *key,
                      const char *name)
{
    const char *keys[] = {key, NULL};
    const char *names[] = {name, "bot1"};
    game_of(s, preset, keys, names, 2);
}

/* One person's game (against a computer). */
static void played(struct stats *s, const char *key, const char *name)
{
    const char *keys[] = {key, NULL};
    const char *names[] = {name, "bot1"};
    game(s, keys, names, 2);
}

static struct results_room room(struct stats *s)
{
    struct results_room r;
    memset(&r, 0, sizeof r);
    r.a = &net.base;
    r.stats = s;
    snprintf(r.room, sizeof r.room, "#h");
    return r;
}

static const char *stats_of(struct results_room *r, const struct played *pl,
                            const char *nick, const char *id, const char *name)
{
    static char text[MGR_TEXT_SIZE];
    static struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    struct chat_user u = {.nick = nick, .id = id};
    assert_true(
        mgr_results_stats(r, MSG_EN, pl, &u, name, NULL, "standard", &sb));
    return sb.buf;
}

static const char *top_of(struct results_room *r)
{
    static char text[MGR_TEXT_SIZE];
    static struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    assert_true(mgr_results_top(r, MSG_EN, "10", NULL, "standard", &sb));
    return sb.buf;
}

/* ---- Names on a board --------------------------------------------------- */

/* A row shows the nick its key was made under: capitals as last played
 * under it, the folded nick when the person finished under another. */
static void test_row_shows_the_nick_of_its_key(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    played(s, "n:bob@h1", "Bob");
    played(s, "n:carol@h1", "zoe"); /* carol renamed to zoe mid-game */
    played(s, "a:Dave", "davey");   /* an account: the name played under */
    struct results_room r = room(s);
    const char *top = top_of(&r);
    assert_non_null(strstr(top, ". Bob "));
    assert_non_null(strstr(top, ". carol "));
    assert_non_null(strstr(top, ". davey "));
    assert_null(strstr(top, "zoe"));
    assert_non_null(strstr(stats_of(&r, NULL, "x", "x@h9", "carol"),
                           "carol (standard): 1 game"));
    /* zoe is no row's name; nobody called zoe played this session */
    struct played *pl = played_new();
    assert_non_null(strstr(stats_of(&r, pl, "x", "x@h9", "zoe"),
                           "zoe has not finished a game here."));
    /* ... but once the person who is zoe now played under carol's key */
    played_add(pl, &net.base, "zoe", "u@h1", "n:carol@h1");
    assert_non_null(strstr(stats_of(&r, pl, "x", "x@h9", "zoe"),
                           "carol (standard): 1 game"));
    played_free(pl);
    board_names_free(r.names);
    stats_free(s);
}

/* Rows that would show one name are numbered by first appearance; a
 * number another row's name already ends in is skipped; a key from
 * before hosts is a row of its own. */
static void test_no_two_rows_show_one_name(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    played(s, "n:bob", "bob");        /* from before hosts */
    played(s, "n:bob@h1", "Bob");     /* bob from h1 */
    played(s, "a:x", "bob(2)");       /* an account that plays as "bob(2)" */
    played(s, "n:bob@h2", "bobby");   /* bob from h2, renamed mid-game */
    played(s, "n:b{o}b@h1", "b[o]b"); /* rfc1459: not bob */
    struct results_room r = room(s);
    const char *top = top_of(&r);
    static const char *const shown[] = {". bob ", ". Bob(3) ", ". bob(2) ",
                                        ". bob(4) ", ". b[o]b "};
    for (size_t i = 0; i < 5; i++)
        if (!strstr(top, shown[i]))
            fail_msg("'%s' not in %s", shown[i], top);
    /* each name finds its row, and only that one */
    assert_non_null(
        strstr(stats_of(&r, NULL, "x", "x@h9", "bob"), "bob (standard)"));
    assert_non_null(strstr(stats_of(&r, NULL, "x", "x@h9", "bob"),
                           "Other people played here as bob too: "
                           "!stats Bob(3), bob(4)."));
    assert_non_null(
        strstr(stats_of(&r, NULL, "x", "x@h9", "BOB(3)"), "Bob(3) (standard)"));
    assert_non_null(
        strstr(stats_of(&r, NULL, "x", "x@h9", "bob(4)"), "bob(4) (standard)"));
    assert_non_null(
        strstr(stats_of(&r, NULL, "x", "x@h9", "bob(2)"), "bob(2) (standard)"));
    assert_non_null(strstr(stats_of(&r, NULL, "x", "x@h9", "bob(5)"),
                           "bob(5) has not finished"));
    assert_non_null(
        strstr(stats_of(&r, NULL, "x", "x@h9", "b{o}b"), "b[o]b (standard)"));
    /* a later game does not renumber anyone */
    played(s, "n:bob@h3", "bob");
    top = top_of(&r);
    for (size_t i = 0; i < 5; i++)
        assert_non_null(strstr(top, shown[i]));
    assert_non_null(strstr(top, ". bob(5) "));
    board_names_free(r.names);
    stats_free(s);
}

/* The shown names of a board (the rows of !top 10 and more): distinct
 * under the network's comparison, and each finds its own row. Boards of
 * random names, look-alikes and names that end in numbers. */
static void test_shown_names_are_unique_and_found(void **state)
{
    (void)state;
    static const char *const names[] = {
        "bob",   "Bob", "bob(2)", "bob(3)",    "BOB(2)", "b[o]b",
        "b{o}b", "ann", "ann(1)", "bob(2)(2)", "bob(02)"};
    uint32_t x = 7;
    for (int round = 0; round < 200; round++) {
        struct stats *s = stats_new();
        int rows = 2 + round % 12;
        for (int i = 0; i < rows; i++) {
            x = x * 1103515245u + 12345u;
            const char *name =
                names[(x >> 16) % (sizeof names / sizeof *names)];
            char key[100];
            if ((x >> 8) % 3 == 0)
                snprintf(key, sizeof key, "a:acct%d", i);
            else
                snprintf(key, sizeof key, "n:%s@h%d", name, i);
            for (char *p = key; *p; p++)
                *p = *p == '[' ? '{' : *p == ']' ? '}' : (char)tolower(*p);
            played(s, key, name);
        }
        struct results_room r = room(s);
        const struct stats_board *b = stats_board(s, "standard");
        char seen[16][64];
        for (int i = 0; i < b->n; i++) {
            /* the row's shown name, as !stats of its own key says it */
            struct played *pl = played_new();
            played_add(pl, &net.base, "me", "me@h99", b->p[i].key);
            const char *mine = stats_of(&r, pl, "me", "me@h99", NULL);
            played_free(pl);
            const char *paren = strstr(mine, " (standard)");
            assert_non_null(paren);
            snprintf(seen[i], sizeof seen[i], "%.*s", (int)(paren - mine),
                     mine);
            for (int k = 0; k < i; k++)
                if (net.base.ops->same_nick(&net.base, seen[k], seen[i]))
                    fail_msg("round %d: rows %d and %d both '%s'", round, k, i,
                             seen[i]);
        }
        for (int i = 0; i < b->n; i++) {
            char want[2048];
            snprintf(want, sizeof want, "%s (standard)", seen[i]);
            const char *got = stats_of(&r, NULL, "x", "x@h98", seen[i]);
            if (strncmp(got, want, strlen(want)) != 0)
                fail_msg("round %d: !stats %s: %s", round, seen[i], got);
        }
        board_names_free(r.names);
        stats_free(s);
    }
}

/* ---- !stats of yourself -------------------------------------------------- */

static void test_own_stats_finds_the_record_played_under(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    played(s, "n:bob@h1", "bobby"); /* bob from h1, bobby by the end */
    played(s, "n:bob@h2", "bob");   /* another bob */
    played(s, "n:ann@h3", "ann");
    played(s, "n:ann@h3", "ann");
    struct results_room r = room(s);
    struct played *pl = played_new();
    /* bobby from h1, this session: the key they played under */
    played_add(pl, &net.base, "bobby", "u@h1", "n:bob@h1");
    assert_non_null(strstr(stats_of(&r, pl, "bobby", "u@h1", NULL),
                           "bob (standard): 1 game"));
    /* the bob of h2 asks: their own key */
    assert_non_null(strstr(stats_of(&r, pl, "bob", "v@h2", NULL),
                           "bob(2) (standard): 1 game"));
    /* after a restart (nothing played this session), bobby from h1: the
     * only nick row of h1 */
    assert_non_null(strstr(stats_of(&r, NULL, "bobby", "u@h1", NULL),
                           "bob (standard): 1 game"));
    /* from a host with two rows, no guess */
    played(s, "n:carol@h1", "carol");
    assert_non_null(strstr(stats_of(&r, NULL, "bobby", "u@h1", NULL),
                           "You have not finished a game here."));
    /* from a host with none: nothing, though the nick is bob's */
    assert_non_null(strstr(stats_of(&r, NULL, "bob", "mal@h9", NULL),
                           "You have not finished a game here."));
    /* ann by her key, twice counted */
    assert_non_null(strstr(stats_of(&r, NULL, "ANN", "x@H3", NULL),
                           "ann (standard): 2 games"));
    played_free(pl);
    board_names_free(r.names);
    stats_free(s);
}

/* ---- What !stats, !top and !last answer ---------------------------------- */

static void test_stats_shows_every_board_of_the_person(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    played_of(s, "omnibus", "n:alice@h1", "alice");
    played_of(s, "party", "n:alice@h1", "alice");
    played_of(s, "party", "n:alice@h1", "alice");
    played_of(s, "party", "n:bob@h2", "bob");
    struct results_room r = room(s);
    /* not on the channel's default board: the one with most games in
     * full, the others after it */
    const char *text = stats_of(&r, NULL, "alice", "u@h1", NULL);
    if (strncmp(text, "alice (party): 2 games, 2 wins, rating ", 39) ||
        !strstr(text, ". Also: omnibus 1 game, 1 win, rating 1500?, rank 1 "
                      "of 1."))
        fail_msg("!stats: '%s'", text);
    assert_null(strstr(text, "not finished"));
    /* on the default board: that one in full */
    played_of(s, "standard", "n:alice@h1", "alice");
    text = stats_of(&r, NULL, "alice", "u@h1", NULL);
    if (strncmp(text, "alice (standard): 1 game, ", 26) ||
        !strstr(text, " Also: omnibus 1 game, 1 win, rating 1500?, rank 1 "
                      "of 1; party 2 games, "))
        fail_msg("!stats: '%s'", text);
    /* someone else by name, on their one board */
    text = stats_of(&r, NULL, "alice", "u@h1", "bob");
    if (strncmp(text, "bob (party): 1 game", 19) || strstr(text, "Also"))
        fail_msg("!stats bob: '%s'", text);
    board_names_free(r.names);
    stats_free(s);
}

/* The names on each line of a !top answer. */
static void top_lines(const char *text, int *per, int *nlines)
{
    *nlines = 0;
    for (const char *line = text; line; line = strchr(line, '\n')) {
        if (*line == '\n')
            line++;
        const char *end = strchr(line, '\n');
        int n = 0;
        for (const char *p = line; (p = strstr(p, " win")) && (!end || p < end);
             p++)
            n++;
        per[(*nlines)++] = n;
    }
}

static void test_top_balances_its_lines(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    const char *nine[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
    for (int i = 0; i < 9; i++) {
        char key[16];
        snprintf(key, sizeof key, "n:%s@h", nine[i]);
        played(s, key, nine[i]);
    }
    struct results_room r = room(s);
    static char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    int per[8], nlines;
    /* five: three and two, not four and one */
    strbuf_init(&sb, text, sizeof text);
    assert_true(mgr_results_top(&r, MSG_EN, "5", NULL, "standard", &sb));
    top_lines(sb.buf, per, &nlines);
    assert_int_equal(nlines, 2);
    assert_int_equal(per[0], 3);
    assert_int_equal(per[1], 2);
    /* a line's last entry has no comma after it */
    assert_null(strstr(sb.buf, "),\n"));
    /* nine: three lines of three */
    strbuf_init(&sb, text, sizeof text);
    assert_true(mgr_results_top(&r, MSG_EN, "9", NULL, "standard", &sb));
    top_lines(sb.buf, per, &nlines);
    assert_int_equal(nlines, 3);
    assert_true(per[0] == 3 && per[1] == 3 && per[2] == 3);
    /* four: one line */
    strbuf_init(&sb, text, sizeof text);
    assert_true(mgr_results_top(&r, MSG_EN, "4", NULL, "standard", &sb));
    top_lines(sb.buf, per, &nlines);
    assert_int_equal(nlines, 1);
    board_names_free(r.names);
    stats_free(s);
}

static void test_last_names_the_changed_options(void **state)
{
    (void)state;
    struct stats *s = stats_new();
    played(s, "n:alice@h1", "alice");
    s->last.custom = true;
    snprintf(s->last.changes, sizeof s->last.changes, "hands=2");
    struct results_room r = room(s);
    static char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    mgr_results_last(&r, MSG_EN, s->last.time + 10, &sb);
    assert_non_null(
        strstr(sb.buf, "(just now, standard with hands=2, 1 hand)"));
    /* from a file that did not keep them: "custom" */
    s->last.changes[0] = '\0';
    strbuf_init(&sb, text, sizeof text);
    mgr_results_last(&r, MSG_EN, s->last.time + 10, &sb);
    assert_non_null(strstr(sb.buf, "(just now, standard custom, 1 hand)"));
    board_names_free(r.names);
    stats_free(s);
}

int main(void)
{
    fake_chat_init(&net, FAKE_CHAT_RFC1459, "test", NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_shows_every_board_of_the_person),
        cmocka_unit_test(test_top_balances_its_lines),
        cmocka_unit_test(test_last_names_the_changed_options),
        cmocka_unit_test(test_row_shows_the_nick_of_its_key),
        cmocka_unit_test(test_no_two_rows_show_one_name),
        cmocka_unit_test(test_shown_names_are_unique_and_found),
        cmocka_unit_test(test_own_stats_finds_the_record_played_under),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
