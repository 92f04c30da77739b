/*
 * The configured rooms (adapters/matrix/joins.c): how they are found
 * and named, and what a kick or a ban does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/joins.h"
#include "adapters/matrix/outbox.h"
#include "mx_fixture.h"

static const char *const ROOMS[] = {"#cards:hs", "!id:hs", NULL};

static void test_rooms_are_found_by_name_and_by_id(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_adapter *a = f.a;
    /* a room given by ID is named so from the start; an alias once
     * joined */
    assert_non_null(mx_cfg_by_id(a, "!id:hs"));
    assert_null(mx_cfg_by_id(a, "#cards:hs"));
    struct mx_cfg_room *r = mx_cfg_by_name(a, "#cards:hs");
    assert_non_null(r);
    assert_null(mx_cfg_by_name(a, "!c:hs"));
    assert_string_equal(mx_room_id_of(a, "#cards:hs"), "#cards:hs");
    r->id = xstrdup("!c:hs");
    assert_ptr_equal(mx_cfg_by_id(a, "!c:hs"), r);
    assert_string_equal(mx_room_id_of(a, "#cards:hs"), "!c:hs");
    assert_string_equal(mx_room_shown(a, "!c:hs"), "#cards:hs");
    assert_string_equal(mx_room_shown(a, "!id:hs"), "!id:hs");
    assert_string_equal(mx_room_shown(a, "!x:hs"), "!x:hs");
    fx_free(&f);
}

static void test_a_kick_rejoins_later_each_time_later(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_cfg_room *r = mx_cfg_by_id(f.a, "!id:hs");
    struct mx_item it = fx_item(MX_ITEM_LEFT, "!id:hs", "@mod:hs");
    it.membership = (char *)"leave";
    mx_kicked(f.a, r, &it);
    assert_true(r->out);
    assert_false(r->lost);
    assert_int_equal(r->delay, 1000); /* rejoin_delay_ms */
    assert_int_not_equal(r->rejoin_timer, 0);
    mx_kicked(f.a, r, &it);
    assert_int_equal(r->delay, 2000);
    mx_kicked(f.a, r, &it);
    assert_int_equal(r->delay, 4000);
    fx_free(&f);
}

static void test_a_ban_gives_the_room_up(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_cfg_room *r = mx_cfg_by_id(f.a, "!id:hs");
    mx_outbox_add(f.a->out, "!id:hs", "waiting");
    struct mx_item it = fx_item(MX_ITEM_LEFT, "!id:hs", "@mod:hs");
    it.membership = (char *)"ban";
    mx_kicked(f.a, r, &it);
    assert_false(r->out);
    assert_true(r->lost);
    assert_int_equal(r->rejoin_timer, 0);
    assert_false(mx_outbox_waiting(f.a->out, "!id:hs"));
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rooms_are_found_by_name_and_by_id),
        cmocka_unit_test(test_a_kick_rejoins_later_each_time_later),
        cmocka_unit_test(test_a_ban_gives_the_room_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
