/*
 * Tests of bot/manager/board_names.c (docs/playing.md, "Names on a
 * board"): a row shows its nick (never a host) or its account's last
 * name; later rows of a name already shown get (2), (3)... in row order,
 * names that differ only in case (as the network folds them) count as
 * one, numbers another row's name ends in are skipped, and the numbered
 * names are found again; the names follow the board when it changes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "bot/manager/board_names.h"

/* rfc1459: A-Z and []\~ fold to a-z and {}|^ */
static void fold(const struct chat_adapter *a, const char *name, char *out,
                 size_t outlen)
{
    (void)a;
    size_t i = 0;
    for (; name[i] && i + 1 < outlen; i++) {
        char c = name[i];
        const char *up = strchr("[]\\~", c);
        out[i] =
            up && c ? "{}|^"[up - "[]\\~"] : (char)tolower((unsigned char)c);
    }
    out[i] = '\0';
}

static const struct chat_adapter_ops folding_ops = {.fold = fold};
static const struct chat_adapter_ops plain_ops = {0};
static const struct chat_adapter irc = {.ops = &folding_ops,
                                        .network = "libera"};
static const struct chat_adapter matrix = {.ops = &plain_ops,
                                           .network = "matrix"};

/* A board of rows {key, name}, in order. */
struct board {
    struct stats s;
    struct stats_board b;
    struct stats_player p[16];
};

static void board(struct board *bd, const char *const rows[][2], int n)
{
    memset(bd, 0, sizeof *bd);
    snprintf(bd->b.preset, sizeof bd->b.preset, "standard");
    for (int i = 0; i < n; i++) {
        snprintf(bd->p[i].key, sizeof bd->p[i].key, "%s", rows[i][0]);
        snprintf(bd->p[i].name, sizeof bd->p[i].name, "%s", rows[i][1]);
    }
    bd->b.p = bd->p;
    bd->b.n = n;
    bd->b.cap = 16;
    bd->s.boards = &bd->b;
    bd->s.nboards = 1;
    bd->s.games = n;
}

static void shown(struct board_names **bn, const struct chat_adapter *a,
                  struct board *bd, int i, const char *want)
{
    char out[128];
    board_names_shown(bn, a, &bd->s, &bd->b, i, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_board_names_numbering(void **state)
{
    (void)state;
    static const char *const rows[][2] = {
        {"n:bob@host.one", "bob"},  {"n:alice@a.example", "alice"},
        {"n:bob@host.two", "bob"},  {"n:bob", "bob"}, /* before hosts */
        {"n:bob@host.four", "BOB"}, /* case aside, the same name */
        {"n:bo{b@h", "Bo[b"},       /* folded "[" is "{": its capitals */
    };
    struct board bd;
    board(&bd, rows, 6);
    struct board_names *bn = NULL;
    shown(&bn, &irc, &bd, 0, "bob");
    shown(&bn, &irc, &bd, 1, "alice");
    shown(&bn, &irc, &bd, 2, "bob(2)");
    shown(&bn, &irc, &bd, 3, "bob(3)");
    shown(&bn, &irc, &bd, 4, "BOB(4)");
    shown(&bn, &irc, &bd, 5, "Bo[b");
    /* asked again, and in another order: the same */
    shown(&bn, &irc, &bd, 4, "BOB(4)");
    shown(&bn, &irc, &bd, 0, "bob");
    board_names_free(bn);
}

/* A name that already ends in a number (a Matrix display name "bob(2)")
 * keeps it, and the numbering skips it. */
static void test_board_names_skip_taken(void **state)
{
    (void)state;
    static const char *const rows[][2] = {
        {"a:@bob:one.example", "bob"},      {"a:@bobby:two.example", "bob(2)"},
        {"a:@robert:three.example", "bob"}, {"a:@rob:four.example", "bob(4)"},
        {"a:@bert:five.example", "bob"},
    };
    struct board bd;
    board(&bd, rows, 5);
    struct board_names *bn = NULL;
    shown(&bn, &matrix, &bd, 0, "bob");
    shown(&bn, &matrix, &bd, 1, "bob(2)");
    shown(&bn, &matrix, &bd, 2, "bob(3)");
    shown(&bn, &matrix, &bd, 3, "bob(4)");
    shown(&bn, &matrix, &bd, 4, "bob(5)");
    board_names_free(bn);
}

/* An account's row shows the name it last played under; a nick's row
 * the nick of its key, with the capitals of its last game when that game
 * was played under it; no row shows a host. */
static void test_board_names_accounts_and_nicks(void **state)
{
    (void)state;
    static const char *const rows[][2] = {
        {"a:carol", "CarolW"},           /* the account's last name */
        {"n:dave@dave.example", "Dave"}, /* capitals of its last game */
        {"n:erin@erin.example", "zed"},  /* another name: the key's nick */
        {"a:frank", "dave"},             /* an account named like a nick */
    };
    struct board bd;
    board(&bd, rows, 4);
    struct board_names *bn = NULL;
    shown(&bn, &irc, &bd, 0, "CarolW");
    shown(&bn, &irc, &bd, 1, "Dave");
    shown(&bn, &irc, &bd, 2, "erin");
    shown(&bn, &irc, &bd, 3, "dave(2)");
    board_names_free(bn);

    /* without a fold, names differ by case: "Dave" is not the key's
     * nick "dave" */
    bn = NULL;
    shown(&bn, &matrix, &bd, 1, "dave");
    board_names_free(bn);
}

static void test_board_names_find(void **state)
{
    (void)state;
    static const char *const rows[][2] = {
        {"n:bob@h1", "bob"}, {"n:bob(2)@h2", "bob(2)"}, {"n:bob@h3", "bob"},
        {"n:bob@h4", "bob"}, {"n:amy@h5", "amy"},
    };
    struct board bd;
    board(&bd, rows, 5);
    struct board_names *bn = NULL;
    char also[128];
    assert_int_equal(
        board_names_find(&bn, &irc, &bd.s, &bd.b, "bob", also, sizeof also), 0);
    assert_string_equal(also, "bob(3), bob(4)");
    /* as the network compares nicks, case aside */
    assert_int_equal(
        board_names_find(&bn, &irc, &bd.s, &bd.b, "BOB", also, sizeof also), 0);
    assert_int_equal(
        board_names_find(&bn, &irc, &bd.s, &bd.b, "bob(2)", also, sizeof also),
        1);
    assert_string_equal(also, "");
    assert_int_equal(
        board_names_find(&bn, &irc, &bd.s, &bd.b, "Bob(3)", also, sizeof also),
        2);
    assert_int_equal(
        board_names_find(&bn, &irc, &bd.s, &bd.b, "bob(4)", also, sizeof also),
        3);
    assert_int_equal(
        board_names_find(&bn, &irc, &bd.s, &bd.b, "bob(5)", also, sizeof also),
        -1);
    assert_int_equal(
        board_names_find(&bn, &irc, &bd.s, &bd.b, "bob(1)", also, sizeof also),
        -1);
    assert_int_equal(
        board_names_find(&bn, &irc, &bd.s, &bd.b, "nobody", also, sizeof also),
        -1);
    assert_string_equal(also, "");
    assert_int_equal(
        board_names_find(&bn, &irc, &bd.s, &bd.b, "amy", also, sizeof also), 4);
    assert_string_equal(also, "");
    /* "also" holds only whole names */
    char small[10];
    assert_int_equal(
        board_names_find(&bn, &irc, &bd.s, &bd.b, "bob", small, sizeof small),
        0);
    assert_string_equal(small, "bob(3)");
    board_names_free(bn);
}

/* A game counted (a row more, the counts moved): the names are made
 * again. */
static void test_board_names_follow_the_board(void **state)
{
    (void)state;
    static const char *const rows[][2] = {
        {"n:bob@h1", "bob"},
        {"n:ann@h2", "ann"},
        {"n:bob@h3", "bob"},
    };
    struct board bd;
    board(&bd, rows, 3);
    bd.b.n = 2;
    struct board_names *bn = NULL;
    shown(&bn, &irc, &bd, 1, "ann");
    bd.b.n = 3;
    bd.s.games++;
    shown(&bn, &irc, &bd, 2, "bob(2)");
    /* a new name in place (the board was read again): seen */
    snprintf(bd.p[0].name, sizeof bd.p[0].name, "Bob");
    bd.s.results_bytes += 100;
    shown(&bn, &irc, &bd, 0, "Bob");
    board_names_free(bn);
    board_names_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_board_names_numbering),
        cmocka_unit_test(test_board_names_skip_taken),
        cmocka_unit_test(test_board_names_accounts_and_nicks),
        cmocka_unit_test(test_board_names_find),
        cmocka_unit_test(test_board_names_follow_the_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
