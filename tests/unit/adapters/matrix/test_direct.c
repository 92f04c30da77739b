/*
 * People's direct rooms (adapters/matrix/direct.c): which room is whose,
 * when private lines may go into it, and when it is given up; what is
 * taken from the homeserver's m.direct map, and what is written back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/direct.h"
#include "adapters/matrix/outbox.h"
#include "adapters/matrix/rooms.h"
#include "adapters/matrix/strset.h"
#include "mx_fixture.h"

static void test_a_direct_room_takes_private_lines_once_ready(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    struct mx_dm *d = mx_dm_set(a, "@alice:hs", "!dm:hs", MX_DM_UNCHECKED);
    assert_ptr_equal(mx_dm_find(a, "@alice:hs"), d);
    assert_ptr_equal(mx_dm_of_room(a, "!dm:hs"), d);
    assert_string_equal(mx_dm_user(a, "!dm:hs"), "@alice:hs");
    assert_null(mx_dm_room(a, "@alice:hs"));
    mx_dm_ready(a, d, false);
    assert_string_equal(mx_dm_room(a, "@alice:hs"), "!dm:hs");
    assert_null(mx_dm_find(a, NULL));
    assert_null(mx_dm_user(a, "!other:hs"));
    fx_free(&f);
}

static void test_another_room_replaces_a_persons_direct_room(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    mx_set_add(&a->made, &a->nmade, "!two:hs");
    mx_dm_set(a, "@alice:hs", "!one:hs", MX_DM_READY);
    mx_dm_set(a, "@alice:hs", "!two:hs", MX_DM_UNCHECKED);
    assert_int_equal(a->ndms, 1);
    assert_null(mx_dm_of_room(a, "!one:hs"));
    assert_string_equal(mx_dm_find(a, "@alice:hs")->room, "!two:hs");
    /* a room the bot made is someone's now */
    assert_int_equal(a->nmade, 0);
    fx_free(&f);
}

static void test_lines_sent_before_the_join_count_once_they_join(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    struct mx_dm *d = mx_dm_set(a, "@alice:hs", "!dm:hs", MX_DM_READY);
    mx_dm_ready(a, d, true);
    assert_true(d->awaiting);
    d->held = xcalloc(2, sizeof *d->held);
    d->held[0] = 7;
    d->held[1] = 8;
    d->nheld = 2;
    mx_dm_ready(a, d, false); /* they joined */
    assert_false(d->awaiting);
    assert_int_equal(d->nheld, 0);
    assert_int_equal(a->nreports, 2);
    assert_int_equal(a->reports[0], 7);
    assert_int_equal(a->reports[1], 8);
    fx_free(&f);
}

static void test_dead_rooms_are_remembered_up_to_a_bound(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    char room[32];
    for (int i = 0; i <= 4096; i++) {
        snprintf(room, sizeof room, "!r%d:hs", i);
        mx_mark_dead(a, room);
    }
    mx_mark_dead(a, "!r4096:hs");
    assert_int_equal(a->ndead, 4096);
    assert_false(mx_set_has(a->dead, a->ndead, "!r0:hs"));
    assert_true(mx_set_has(a->dead, a->ndead, "!r1:hs"));
    assert_true(mx_set_has(a->dead, a->ndead, "!r4096:hs"));
    fx_free(&f);
}

static void
test_an_unusable_room_sends_its_lines_back_and_says_why(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    struct mx_dm *d = mx_dm_set(a, "@alice:hs", "!dm:hs", MX_DM_READY);
    mx_outbox_add(a->out, "!dm:hs", "your cards");
    mx_dm_unusable(a, d, "encrypted");
    assert_null(mx_dm_find(a, "@alice:hs"));
    assert_true(mx_set_has(a->dead, a->ndead, "!dm:hs"));
    char *back = mx_outbox_take(a->out, "@alice:hs");
    assert_non_null(strstr(back, "\"body\":\"your cards\""));
    free(back);
    char *why = mx_outbox_take(a->out, "!dm:hs");
    assert_non_null(strstr(why, "This chat is encrypted"));
    free(why);
    fx_free(&f);
}

static void test_a_member_leaving_their_direct_room_ends_it(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    struct mx_dm *d = mx_dm_set(a, "@alice:hs", "!dm:hs", MX_DM_READY);
    struct mx_item it = fx_item(MX_ITEM_MEMBER, "!dm:hs", "@eve:hs");
    it.user = (char *)"@bot:hs";
    it.membership = (char *)"join";
    mx_dm_member(a, d, &it); /* the bot itself: nothing */
    assert_non_null(mx_dm_find(a, "@alice:hs"));
    it.user = (char *)"@alice:hs";
    it.membership = (char *)"leave";
    mx_outbox_add(a->out, "!dm:hs", "lost");
    mx_dm_member(a, d, &it);
    assert_null(mx_dm_find(a, "@alice:hs"));
    assert_true(mx_set_has(a->dead, a->ndead, "!dm:hs"));
    assert_false(mx_outbox_waiting(a->out, NULL));
    fx_free(&f);
}

static void test_a_room_a_person_made_for_two_is_adopted(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    mx_rooms_set_creator(a->facts, "!two:hs", "@alice:hs");
    mx_rooms_set_member(a->facts, "!two:hs", "@alice:hs", "join");
    mx_rooms_set_member(a->facts, "!two:hs", "@bot:hs", "join");
    assert_false(mx_dm_adopt(a, "@bob:hs"));
    assert_true(mx_dm_adopt(a, "@alice:hs"));
    struct mx_dm *d = mx_dm_find(a, "@alice:hs");
    assert_non_null(d);
    assert_string_equal(d->room, "!two:hs");
    assert_int_equal(d->state, MX_DM_CHECKING); /* its state asked for */
    fx_free(&f);
}

static void test_a_room_the_bot_made_goes_to_its_one_other(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    a->direct_known = true;
    mx_rooms_set_member(a->facts, "!made:hs", "@bot:hs", "join");
    mx_rooms_set_member(a->facts, "!made:hs", "@alice:hs", "invite");
    mx_set_add(&a->made, &a->nmade, "!made:hs");
    mx_made_settle(a);
    struct mx_dm *d = mx_dm_find(a, "@alice:hs");
    assert_non_null(d);
    assert_int_equal(d->state, MX_DM_READY);
    assert_true(d->awaiting);
    assert_int_equal(a->nmade, 0);
    fx_free(&f);
}

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
        cmocka_unit_test(test_a_direct_room_takes_private_lines_once_ready),
        cmocka_unit_test(test_another_room_replaces_a_persons_direct_room),
        cmocka_unit_test(test_lines_sent_before_the_join_count_once_they_join),
        cmocka_unit_test(test_dead_rooms_are_remembered_up_to_a_bound),
        cmocka_unit_test(
            test_an_unusable_room_sends_its_lines_back_and_says_why),
        cmocka_unit_test(test_a_member_leaving_their_direct_room_ends_it),
        cmocka_unit_test(test_a_room_a_person_made_for_two_is_adopted),
        cmocka_unit_test(test_a_room_the_bot_made_goes_to_its_one_other),
        cmocka_unit_test(test_merge_takes_each_persons_first_live_room),
        cmocka_unit_test(
            test_rewrite_puts_the_room_in_use_first_and_drops_dead_ones),
        cmocka_unit_test(test_rewrite_starts_a_map_when_there_is_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
