/*
 * What the items of a sync do (adapters/matrix/items.c): the events the
 * bot is told, and what the adapter learns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/direct.h"
#include "adapters/matrix/items.h"
#include "adapters/matrix/joins.h"
#include "adapters/matrix/names.h"
#include "adapters/matrix/outbox.h"
#include "adapters/matrix/rooms.h"
#include "adapters/matrix/strset.h"
#include "mx_fixture.h"

static const char *const ROOMS[] = {"#cards:hs", "!id:hs", NULL};

static struct mx_item message(const char *room, const char *sender,
                              const char *msgtype, const char *body)
{
    struct mx_item it = fx_item(MX_ITEM_MESSAGE, room, sender);
    it.event_id = (char *)"$e";
    it.msgtype = (char *)msgtype;
    it.body = (char *)body;
    return it;
}

static struct mx_item member(const char *room, const char *sender,
                             const char *user, const char *membership)
{
    struct mx_item it = fx_item(MX_ITEM_MEMBER, room, sender);
    it.user = (char *)user;
    it.membership = (char *)membership;
    return it;
}

static void test_a_message_is_its_first_line(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_item it =
        message("!id:hs", "@alice:hs", "m.text", "!play\r\n> quoted");
    mx_on_item(f.a, &it);
    assert_int_equal(f.nev, 1);
    assert_int_equal(f.ev[0].kind, CHAT_MESSAGE);
    assert_string_equal(f.ev[0].room, "!id:hs");
    assert_string_equal(f.ev[0].nick, "@alice:hs");
    assert_string_equal(f.ev[0].id, "@alice:hs");
    assert_null(f.ev[0].display); /* not known yet: asked for */
    assert_string_equal(f.ev[0].text, "!play");
    fx_free(&f);
}

static void test_echoes_notices_and_media_are_not_read(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_item own = message("!id:hs", "@bot:hs", "m.text", "hi");
    struct mx_item notice = message("!id:hs", "@other:hs", "m.notice", "hi");
    struct mx_item image = message("!id:hs", "@alice:hs", "m.image", "x.png");
    mx_on_item(f.a, &own);
    mx_on_item(f.a, &notice);
    mx_on_item(f.a, &image);
    assert_int_equal(f.nev, 0);
    fx_free(&f);
}

static void test_a_room_configured_by_alias_is_named_by_it(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    mx_cfg_by_name(f.a, "#cards:hs")->id = xstrdup("!c:hs");
    struct mx_item it = message("!c:hs", "@alice:hs", "m.text", "!status");
    mx_on_item(f.a, &it);
    assert_int_equal(f.nev, 1);
    assert_string_equal(f.ev[0].room, "#cards:hs");
    fx_free(&f);
}

static void test_a_message_in_a_direct_room_is_private(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    mx_dm_set(f.a, "@alice:hs", "!dm:hs", MX_DM_READY);
    struct mx_item it = message("!dm:hs", "@alice:hs", "m.text", "pass 2C");
    mx_on_item(f.a, &it);
    /* someone else writing there is not private */
    struct mx_item other = message("!dm:hs", "@eve:hs", "m.text", "hi");
    mx_on_item(f.a, &other);
    assert_int_equal(f.nev, 2);
    assert_null(f.ev[0].room);
    assert_string_equal(f.ev[0].text, "pass 2C");
    assert_string_equal(f.ev[1].room, "!dm:hs");
    fx_free(&f);
}

static void test_memberships_are_joins_parts_and_kicks(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_item join = member("!id:hs", "@alice:hs", "@alice:hs", "join");
    struct mx_item part = member("!id:hs", "@alice:hs", "@alice:hs", "leave");
    struct mx_item kick = member("!id:hs", "@mod:hs", "@bob:hs", "ban");
    struct mx_item self = member("!id:hs", "@bot:hs", "@bot:hs", "join");
    mx_on_item(f.a, &join);
    mx_on_item(f.a, &part);
    mx_on_item(f.a, &kick);
    mx_on_item(f.a, &self);
    assert_int_equal(f.nev, 3);
    assert_int_equal(f.ev[0].kind, CHAT_JOIN);
    assert_string_equal(f.ev[0].nick, "@alice:hs");
    assert_int_equal(f.ev[1].kind, CHAT_PART);
    assert_string_equal(f.ev[1].text, "");
    assert_int_equal(f.ev[2].kind, CHAT_KICK);
    assert_string_equal(f.ev[2].nick, "@mod:hs");
    assert_string_equal(f.ev[2].target, "@bob:hs");
    /* both who left are remembered as gone (verify) */
    assert_true(mx_set_has(f.a->left, f.a->nleft, "@alice:hs"));
    assert_true(mx_set_has(f.a->left, f.a->nleft, "@bob:hs"));
    fx_free(&f);
}

static void test_first_message_in_a_room_waits_for_its_members(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_item it = message("!id:hs", "@alice:hs", "m.text", "!play");
    mx_sync_item(f.a, &it);
    assert_int_equal(f.nev, 0);
    struct mx_hold *h = mx_hold_of(f.a, "!id:hs");
    assert_non_null(h);
    assert_int_equal(h->n, 1);
    /* a direct room's messages never wait */
    mx_dm_set(f.a, "@bob:hs", "!dm:hs", MX_DM_READY);
    struct mx_item dm = message("!dm:hs", "@bob:hs", "m.text", "hi");
    mx_sync_item(f.a, &dm);
    assert_int_equal(f.nev, 1);
    assert_null(f.ev[0].room);
    fx_free(&f);
}

static void test_a_direct_invite_is_its_senders_room_and_joined(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_item it = fx_item(MX_ITEM_INVITE, "!new:hs", "@alice:hs");
    it.is_direct = true;
    mx_on_item(f.a, &it);
    struct mx_dm *d = mx_dm_find(f.a, "@alice:hs");
    assert_non_null(d);
    assert_string_equal(d->room, "!new:hs");
    assert_int_equal(d->state, MX_DM_UNCHECKED);
    /* an encrypted one is no room for cards: warned in once joined */
    struct mx_item enc = fx_item(MX_ITEM_INVITE, "!enc:hs", "@bob:hs");
    enc.is_direct = enc.encrypted = true;
    mx_on_item(f.a, &enc);
    assert_null(mx_dm_find(f.a, "@bob:hs"));
    assert_true(mx_set_has(f.a->warn_joined, f.a->nwarn_joined, "!enc:hs"));
    fx_free(&f);
}

/* The call of f's adapter to a path holding `what` about room, or NULL. */
static struct mx_call *call_to(struct fx *f, const char *what, const char *room)
{
    for (struct mx_call *c = f->a->calls; c; c = c->next)
        if (strstr(c->path, what) && c->key && strcmp(c->key, room) == 0)
            return c;
    return NULL;
}

static void test_invites_from_others_than_invite_from_are_declined(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    f.a->cfg.invite_from = xcalloc(2, sizeof *f.a->cfg.invite_from);
    f.a->cfg.invite_from[0] = xstrdup("@alice:hs");
    f.a->cfg.invite_from[1] = xstrdup(":friends.example");
    f.a->cfg.ninvite_from = 2; /* freed with the adapter */
    struct mx_item it = fx_item(MX_ITEM_INVITE, "!a:hs", "@alice:hs");
    mx_on_item(f.a, &it);
    assert_non_null(call_to(&f, "/join/", "!a:hs"));
    it = fx_item(MX_ITEM_INVITE, "!b:hs", "@bob:Friends.Example");
    mx_on_item(f.a, &it);
    assert_non_null(call_to(&f, "/join/", "!b:hs"));
    /* another user of alice's server, marked direct or not: declined,
     * and no direct room is noted */
    it = fx_item(MX_ITEM_INVITE, "!c:hs", "@mallory:hs");
    it.is_direct = true;
    mx_on_item(f.a, &it);
    assert_null(call_to(&f, "/join/", "!c:hs"));
    assert_non_null(call_to(&f, "/leave", "!c:hs"));
    assert_null(mx_dm_find(f.a, "@mallory:hs"));
    /* a room of the config is joined whoever invites the bot to it */
    it = fx_item(MX_ITEM_INVITE, "!id:hs", "@mallory:hs");
    mx_on_item(f.a, &it);
    assert_non_null(call_to(&f, "/join/", "!id:hs"));
    assert_null(call_to(&f, "/leave", "!id:hs"));
    /* with auto_join_invites off nothing is joined or declined */
    f.a->cfg.auto_join_invites = false;
    it = fx_item(MX_ITEM_INVITE, "!d:hs", "@mallory:hs");
    mx_on_item(f.a, &it);
    assert_null(call_to(&f, "/join/", "!d:hs"));
    assert_null(call_to(&f, "/leave", "!d:hs"));
    fx_free(&f);
}

static void test_an_encrypted_message_is_answered_once(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, ROOMS);
    struct mx_item it = fx_item(MX_ITEM_ENCRYPTED, "!id:hs", "@alice:hs");
    it.event_id = (char *)"$e1";
    mx_on_item(f.a, &it);
    assert_true(mx_outbox_waiting(f.a->out, "!id:hs"));
    char *text = mx_outbox_take(f.a->out, "!id:hs");
    assert_non_null(strstr(text, "I cannot read encrypted messages"));
    free(text);
    it.event_id = (char *)"$e2";
    mx_on_item(f.a, &it);
    assert_false(mx_outbox_waiting(f.a->out, "!id:hs"));
    fx_free(&f);
}

static void test_a_direct_room_turned_encrypted_is_given_up(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    mx_dm_set(f.a, "@alice:hs", "!dm:hs", MX_DM_READY);
    struct mx_item it = fx_item(MX_ITEM_ENCRYPTED, "!dm:hs", "@alice:hs");
    mx_on_item(f.a, &it); /* a state event: no event ID */
    assert_null(mx_dm_find(f.a, "@alice:hs"));
    assert_true(mx_set_has(f.a->dead, f.a->ndead, "!dm:hs"));
    assert_true(mx_rooms_encrypted(f.a->facts, "!dm:hs"));
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_message_is_its_first_line),
        cmocka_unit_test(test_echoes_notices_and_media_are_not_read),
        cmocka_unit_test(test_a_room_configured_by_alias_is_named_by_it),
        cmocka_unit_test(test_a_message_in_a_direct_room_is_private),
        cmocka_unit_test(test_memberships_are_joins_parts_and_kicks),
        cmocka_unit_test(test_first_message_in_a_room_waits_for_its_members),
        cmocka_unit_test(test_a_direct_invite_is_its_senders_room_and_joined),
        cmocka_unit_test(
            test_invites_from_others_than_invite_from_are_declined),
        cmocka_unit_test(test_an_encrypted_message_is_answered_once),
        cmocka_unit_test(test_a_direct_room_turned_encrypted_is_given_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
