/*
 * Who is who (adapters/matrix/names.c): renames told where a table
 * shows them, names asked for when not known, rooms asked about once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/direct.h"
#include "adapters/matrix/members.h"
#include "adapters/matrix/names.h"
#include "adapters/matrix/strset.h"
#include "mx_fixture.h"

static const char *const ROOMS[] = {"!id:hs", NULL};

static void test_a_rename_is_told_in_rooms_but_not_direct_ones(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    mx_dm_set(f.a, "@alice:hs", "!dm:hs", MX_DM_READY);
    mx_renamed(f.a, "!id:hs", "@alice:hs", "Alice");
    mx_renamed(f.a, "!dm:hs", "@alice:hs", "Ally");
    mx_renamed(f.a, "!id:hs", "@bot:hs", "Hearts");
    assert_int_equal(f.nev, 1);
    assert_int_equal(f.ev[0].kind, CHAT_RENAME);
    assert_string_equal(f.ev[0].room, "!id:hs");
    assert_string_equal(f.ev[0].nick, "@alice:hs");
    assert_string_equal(f.ev[0].display, "Alice");
    fx_free(&f);
}

static void test_a_name_not_known_is_asked_for_once(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_adapter *a = f.a;
    char out[MX_SHOWN_MAX];
    assert_null(mx_shown(a, "!id:hs", "@alice:hs", false, out, sizeof out));
    assert_null(mx_shown(a, "!id:hs", "@alice:hs", false, out, sizeof out));
    assert_int_equal(a->nfetching, 1);
    assert_string_equal(a->fetching[0], "!id:hs @alice:hs");
    mx_members_set(a->members, "!id:hs", "@alice:hs", "join", "Alice", NULL,
                   NULL);
    assert_ptr_equal(mx_shown(a, "!id:hs", "@alice:hs", false, out, sizeof out),
                     out);
    assert_non_null(strstr(out, "Alice"));
    /* privately: their name in a room that is not a direct one */
    mx_dm_set(a, "@alice:hs", "!dm:hs", MX_DM_READY);
    assert_ptr_equal(mx_shown(a, "!dm:hs", "@alice:hs", true, out, sizeof out),
                     out);
    assert_non_null(strstr(out, "Alice"));
    fx_free(&f);
}

static void test_a_room_is_asked_about_once_and_may_hold(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_adapter *a = f.a;
    mx_fetch_room(a, "!id:hs", false);
    assert_true(mx_set_has(a->fetched, a->nfetched, "!id:hs"));
    assert_null(mx_hold_of(a, "!id:hs"));
    mx_fetch_room(a, "!id:hs", true); /* asked already: no hold */
    assert_null(mx_hold_of(a, "!id:hs"));
    mx_fetch_room(a, "!other:hs", true);
    struct mx_hold *h = mx_hold_of(a, "!other:hs");
    assert_non_null(h);
    assert_int_equal(h->n, 0);
    assert_true(h->until > 0);
    assert_int_not_equal(a->hold_timer, 0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_rename_is_told_in_rooms_but_not_direct_ones),
        cmocka_unit_test(test_a_name_not_known_is_asked_for_once),
        cmocka_unit_test(test_a_room_is_asked_about_once_and_may_hold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
