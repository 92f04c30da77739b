/*
 * The bot's m.direct account data (adapters/matrix/direct_map.c): what
 * is taken from the homeserver's map, and what is written back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/direct.h"
#include "adapters/matrix/direct_map.h"
#include "adapters/matrix/strset.h"
#include "mx_fixture.h"

static void test_merge_takes_each_persons_first_live_room(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    mx_mark_dead(a, "!dead:hs");
    mx_dm_set(a, "@carol:hs", "!carol:hs", MX_DM_READY);
    char *alice[] = {"!dead:hs", "!a1:hs", "!a2:hs"};
    char *bob[] = {"!carol:hs"}; /* someone else's already */
    char *carol[] = {"!c2:hs"};  /* has one */
    char *self[] = {"!s:hs"};
    struct mx_direct d[] = {{"@alice:hs", alice, 3},
                            {"@bob:hs", bob, 1},
                            {"@carol:hs", carol, 1},
                            {"@bot:hs", self, 1}};
    mx_direct_map_merge(a, d, 4);
    struct mx_dm *al = mx_dm_find(a, "@alice:hs");
    assert_non_null(al);
    assert_string_equal(al->room, "!a1:hs");
    assert_int_equal(al->state, MX_DM_UNCHECKED); /* checked before use */
    assert_null(mx_dm_find(a, "@bob:hs"));
    assert_string_equal(mx_dm_find(a, "@carol:hs")->room, "!carol:hs");
    assert_null(mx_dm_find(a, "@bot:hs"));
    assert_int_equal(a->ndms, 2);
    fx_free(&f);
}

static void
test_rewrite_puts_the_room_in_use_first_and_drops_dead_ones(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    mx_dm_set(a, "@alice:hs", "!new:hs", MX_DM_READY);
    mx_mark_dead(a, "!dead:hs");
    const char *body = "{\"@alice:hs\":[\"!old:hs\",\"!dead:hs\",\"!new:hs\"],"
                       "\"@bob:hs\":[\"!dead:hs\",\"!b:hs\",7]}";
    char *out = mx_direct_map_rewrite(a, body, strlen(body));
    assert_string_equal(out, "{\"@alice:hs\":[\"!new:hs\",\"!old:hs\"],"
                             "\"@bob:hs\":[\"!b:hs\"]}");
    free(out);
    fx_free(&f);
}

static void test_rewrite_starts_a_map_when_there_is_none(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    char *out = mx_direct_map_rewrite(a, NULL, 0);
    assert_string_equal(out, "{}");
    free(out);
    mx_dm_set(a, "@alice:hs", "!a:hs", MX_DM_UNCHECKED);
    out = mx_direct_map_rewrite(a, "[1]", 3); /* not a map: a new one */
    assert_string_equal(out, "{\"@alice:hs\":[\"!a:hs\"]}");
    free(out);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_takes_each_persons_first_live_room),
        cmocka_unit_test(
            test_rewrite_puts_the_room_in_use_first_and_drops_dead_ones),
        cmocka_unit_test(test_rewrite_starts_a_map_when_there_is_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
