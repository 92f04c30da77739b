/*
 * Room members and the names shown for them (adapters/matrix/members.c):
 * the Matrix spec's disambiguation, renames told for everyone whose shown
 * name changes, and the bound on memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/members.h"

#define R "!r:hs"

/* The renames told, "user=shown;" each. */
static char told[4096];

static void note(void *ctx, const char *room, const char *user,
                 const char *shown)
{
    (void)ctx;
    assert_string_equal(room, R);
    size_t n = strlen(told);
    snprintf(told + n, sizeof told - n, "%s=%s;", user, shown);
}

static void set(struct mx_members *m, const char *user, const char *membership,
                const char *name)
{
    mx_members_set(m, R, user, membership, name, note, NULL);
}

static const char *shown(struct mx_members *m, const char *user)
{
    static char out[600];
    if (!mx_members_shown(m, R, user, out, sizeof out))
        return NULL;
    return out;
}

static void test_spec_display_names(void **state)
{
    (void)state;
    struct mx_members *m = mx_members_new();
    told[0] = '\0';
    set(m, "@a:hs", "join", "Alice");
    set(m, "@n:hs", "join", NULL);
    set(m, "@e:hs", "invite", "");
    assert_string_equal(shown(m, "@a:hs"), "Alice");
    /* none, or empty: the user ID */
    assert_string_equal(shown(m, "@n:hs"), "@n:hs");
    assert_string_equal(shown(m, "@e:hs"), "@e:hs");
    assert_null(shown(m, "@x:hs"));
    assert_string_equal(told, "");
    /* a second Alice: both are told apart, the first told as a rename */
    set(m, "@b:hs", "join", "Alice");
    assert_string_equal(shown(m, "@a:hs"), "Alice (@a:hs)");
    assert_string_equal(shown(m, "@b:hs"), "Alice (@b:hs)");
    assert_string_equal(told, "@a:hs=Alice (@a:hs);");
    /* she renames: both are plain again */
    told[0] = '\0';
    set(m, "@b:hs", "join", "Bea");
    assert_string_equal(shown(m, "@a:hs"), "Alice");
    assert_string_equal(told, "@b:hs=Bea;@a:hs=Alice;");
    /* a name like another's user ID is told apart; one's own is not */
    told[0] = '\0';
    set(m, "@b:hs", "join", "@a:hs");
    assert_string_equal(shown(m, "@b:hs"), "@a:hs (@b:hs)");
    set(m, "@n:hs", "join", "@n:hs");
    assert_string_equal(shown(m, "@n:hs"), "@n:hs");
    /* who leaves is forgotten, and no longer makes a name shared */
    set(m, "@b:hs", "join", "Alice");
    told[0] = '\0';
    set(m, "@b:hs", "leave", NULL);
    assert_null(shown(m, "@b:hs"));
    assert_string_equal(shown(m, "@a:hs"), "Alice");
    assert_string_equal(told, "@a:hs=Alice;");
    assert_int_equal(mx_members_count(m, R), 3);
    mx_members_forget(m, R);
    assert_null(shown(m, "@a:hs"));
    mx_members_free(m);
}

static bool skip_dm(void *ctx, const char *room)
{
    (void)ctx;
    return strcmp(room, "!dm:hs") == 0;
}

static void test_private_names_come_from_shared_rooms(void **state)
{
    (void)state;
    struct mx_members *m = mx_members_new();
    mx_members_set(m, "!dm:hs", "@a:hs", "join", "Al", NULL, NULL);
    mx_members_set(m, R, "@a:hs", "join", "Alice", NULL, NULL);
    char out[64];
    assert_true(
        mx_members_shown_anywhere(m, "@a:hs", NULL, NULL, out, sizeof out));
    assert_string_equal(out, "Al");
    assert_true(
        mx_members_shown_anywhere(m, "@a:hs", skip_dm, NULL, out, sizeof out));
    assert_string_equal(out, "Alice");
    assert_false(
        mx_members_shown_anywhere(m, "@z:hs", NULL, NULL, out, sizeof out));
    mx_members_free(m);
}

/* Who is joined (the adapter's `present`): not one invited, nor one
 * who left, nor in another room. */
static void test_joined_members_only(void **state)
{
    (void)state;
    struct mx_members *m = mx_members_new();
    set(m, "@a:hs", "join", "Alice");
    set(m, "@b:hs", "invite", NULL);
    set(m, "@c:hs", "join", NULL);
    set(m, "@c:hs", "leave", NULL);
    mx_members_set(m, "!other:hs", "@d:hs", "join", NULL, NULL, NULL);
    assert_true(mx_members_joined(m, R, "@a:hs"));
    assert_false(mx_members_joined(m, R, "@b:hs"));
    assert_false(mx_members_joined(m, R, "@c:hs"));
    assert_false(mx_members_joined(m, R, "@d:hs"));
    assert_false(mx_members_joined(m, "!none:hs", "@a:hs"));
    /* the invited one joins */
    set(m, "@b:hs", "join", NULL);
    assert_true(mx_members_joined(m, R, "@b:hs"));
    mx_members_free(m);
}

static void test_memory_is_bounded_and_names_cut_whole(void **state)
{
    (void)state;
    struct mx_members *m = mx_members_new();
    told[0] = '\0';
    set(m, "@player:hs", "join", "Player");
    char user[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(user, sizeof user, "@u%d:hs", i);
        set(m, user, "join", "Same");
        if (i % 100 == 0) /* the player speaks now and then */
            assert_non_null(shown(m, "@player:hs"));
    }
    assert_int_equal(mx_members_count(m, R), MX_MEMBERS_MAX);
    assert_string_equal(shown(m, "@player:hs"), "Player");
    assert_null(shown(m, "@u0:hs"));
    /* a name cut short is cut between characters */
    set(m, "@c:hs", "join", "\xc3\xa9\xc3\xa9\xc3\xa9");
    char out[6];
    assert_true(mx_members_shown(m, R, "@c:hs", out, sizeof out));
    assert_string_equal(out, "\xc3\xa9\xc3\xa9");
    mx_members_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_display_names),
        cmocka_unit_test(test_private_names_come_from_shared_rooms),
        cmocka_unit_test(test_joined_members_only),
        cmocka_unit_test(test_memory_is_bounded_and_names_cut_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
