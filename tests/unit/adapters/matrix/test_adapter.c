/*
 * The Matrix adapter's lifecycle (adapters/matrix/adapter.c), without a
 * server: what it is before it starts, how it names rooms, and stop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/joins.h"
#include "adapters/matrix/rooms.h"
#include "mx_fixture.h"

static const char *const ROOMS[] = {"#cards:hs", "!id:hs", NULL};

static void test_a_new_adapter_copies_its_config(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_adapter *a = f.a;
    assert_string_equal(a->base.network, "mx");
    assert_int_equal(a->base.style, CHAT_STYLE_MARKUP);
    assert_string_equal(a->cfg.listen_host, "127.0.0.1");
    assert_int_equal(a->cfg.request_timeout_ms, 30000);
    assert_int_equal(a->cfg.nrooms, 2);
    assert_null(a->session_path); /* no data directory: nothing kept */
    /* a room given by ID is named so from the start */
    assert_null(a->rooms[0].id);
    assert_string_equal(a->rooms[1].id, "!id:hs");
    fx_free(&f);
}

static void test_idle_until_something_waits(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    const struct chat_adapter_ops *ops = f.a->base.ops;
    assert_true(ops->idle(&f.a->base));
    ops->say(&f.a->base, "!id:hs", "hello", CHAT_NORMAL);
    assert_false(ops->idle(&f.a->base));
    /* stopped without a token: what waits can never go */
    ops->stop(&f.a->base, "bye");
    assert_true(ops->idle(&f.a->base));
    assert_int_equal(ops->start(&f.a->base), -1);
    fx_free(&f);
}

static void test_nicks_are_user_ids_compared_exactly(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    const struct chat_adapter_ops *ops = f.a->base.ops;
    assert_true(ops->same_nick(&f.a->base, "@a:hs", "@a:hs"));
    assert_false(ops->same_nick(&f.a->base, "@a:hs", "@A:hs"));
    assert_false(ops->same_nick(&f.a->base, "@a:hs", NULL));
    fx_free(&f);
}

static void
test_a_room_label_is_its_name_else_what_the_config_says(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    const struct chat_adapter_ops *ops = f.a->base.ops;
    char out[64];
    ops->room_label(&f.a->base, "#cards:hs", out, sizeof out);
    assert_string_equal(out, "#cards:hs");
    mx_cfg_by_name(f.a, "#cards:hs")->id = xstrdup("!c:hs");
    ops->room_label(&f.a->base, "#cards:hs", out, sizeof out);
    assert_string_equal(out, "#cards:hs");
    mx_rooms_set_name(f.a->facts, "!c:hs", "Card Club");
    ops->room_label(&f.a->base, "#cards:hs", out, sizeof out);
    assert_string_equal(out, "Card Club");
    ops->room_label(&f.a->base, "!id:hs", out, sizeof out);
    assert_string_equal(out, "!id:hs");
    fx_free(&f);
}

static void test_retry_timings_can_be_shortened(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    mx_adapter_set_retry(&f.a->base, 10, 100);
    assert_int_equal(f.a->retry_base_ms, 10);
    assert_int_equal(f.a->retry_cap_ms, 100);
    assert_int_equal(f.a->sync_retry.base_ms, 10);
    assert_int_equal(f.a->sync_retry.cap_ms, 100);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_new_adapter_copies_its_config),
        cmocka_unit_test(test_idle_until_something_waits),
        cmocka_unit_test(test_nicks_are_user_ids_compared_exactly),
        cmocka_unit_test(
            test_a_room_label_is_its_name_else_what_the_config_says),
        cmocka_unit_test(test_retry_timings_can_be_shortened),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
