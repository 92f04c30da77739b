/*
 * What the items of a sync or a transaction do (items.h).
 */
#include "adapters/matrix/items.h"

#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/direct.h"
#include "adapters/matrix/joins.h"
#include "adapters/matrix/members.h"
#include "adapters/matrix/names.h"
#include "adapters/matrix/report.h"
#include "adapters/matrix/rooms.h"
#include "adapters/matrix/strset.h"
#include "adapters/matrix/sync.h"
#include "adapters/matrix/wire.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/xalloc.h"

/* Joins remembered for direct rooms being made, at most. */
#define JOINS_SEEN_MAX 64

/* People remembered as last seen leaving (verify), at most. */
#define LEFT_MAX 4096

/* The state of a room the bot joined, as a sync's would come with the
 * mx_join (a transaction holds only what happens after it): who made it and
 * who is in it, for a room a person made for the two of them. */
static void state_got(struct mx_adapter *a, struct mx_call *c, long status,
                      const char *body, size_t len)
{
    (void)status;
    mx_feed_state(a, c->key, body, len, false);
}

static void as_joined(struct mx_adapter *a, const char *room)
{
    char *r = mx_url_encode(room);
    mx_call_send(a, mx_call_new(a, "GET", mx_printf("/rooms/%s/state", r), NULL,
                                room, state_got, NULL));
    free(r);
}

/* A message: CHAT_MESSAGE, private in its sender's direct room (dm: the
 * person whose direct room it came in, or NULL). */
static void on_message(struct mx_adapter *a, const struct mx_item *it,
                       const char *dm)
{
    const char *self = a->cfg.user_id;
    if (strcmp(it->sender, self) == 0 || strcmp(it->msgtype, "m.text") != 0)
        return; /* our own echo, notices (other bots), media */
    /* a command is one line: a reply's quote or more lines after it
     * are not read */
    char line[MX_BODY_MAX + 1];
    size_t n = strcspn(it->body, "\r\n");
    memcpy(line, it->body, n);
    line[n] = '\0';
    bool private = dm && strcmp(dm, it->sender) == 0;
    mx_set_del(a->left, &a->nleft, it->sender);
    char name[MX_SHOWN_MAX];
    mx_emit_person(
        a, CHAT_MESSAGE, private ? NULL : mx_room_shown(a, it->room),
        it->sender,
        mx_shown(a, it->room, it->sender, private, name, sizeof name), line,
        NULL);
}

/* A member event: a direct room's, or a join, part or kick elsewhere. */
static void on_member(struct mx_adapter *a, const struct mx_item *it,
                      struct mx_dm *dmr)
{
    const char *self = a->cfg.user_id;
    mx_members_set(a->members, it->room, it->user, it->membership, it->name,
                   mx_renamed, a);
    if (dmr) {
        mx_dm_member(a, dmr, it);
        return;
    }
    if (strcmp(it->user, self) == 0)
        return;
    if (strcmp(it->membership, "join") == 0 && !mx_cfg_by_id(a, it->room)) {
        /* perhaps a direct room whose createRoom answer is still on
         * its way: its person need not be waited for then */
        char *key = mx_printf("%s %s", it->room, it->user);
        if (a->njoins_seen >= JOINS_SEEN_MAX)
            mx_set_del(a->joins_seen, &a->njoins_seen, a->joins_seen[0]);
        mx_set_add(&a->joins_seen, &a->njoins_seen, key);
        free(key);
    }
    char name[MX_SHOWN_MAX];
    if (strcmp(it->membership, "join") == 0)
        mx_set_del(a->left, &a->nleft, it->user);
    else if (strcmp(it->membership, "leave") == 0 ||
             strcmp(it->membership, "ban") == 0) {
        /* bounded: one forgotten is answered as present, as before */
        if (a->nleft >= LEFT_MAX)
            mx_set_del(a->left, &a->nleft, a->left[0]);
        mx_set_add(&a->left, &a->nleft, it->user);
    }
    if (strcmp(it->membership, "join") == 0)
        mx_emit_person(
            a, CHAT_JOIN, mx_room_shown(a, it->room), it->user,
            mx_shown(a, it->room, it->user, false, name, sizeof name), NULL,
            NULL);
    else if ((strcmp(it->membership, "leave") == 0 ||
              strcmp(it->membership, "ban") == 0) &&
             strcmp(it->sender, it->user) != 0)
        mx_emit_person(
            a, CHAT_KICK, mx_room_shown(a, it->room), it->sender,
            mx_shown(a, it->room, it->sender, false, name, sizeof name), NULL,
            it->user);
    else if (strcmp(it->membership, "leave") == 0)
        mx_emit(a, CHAT_PART, mx_room_shown(a, it->room), it->user, "", NULL);
}

/* An invite: joined if so configured; one marked direct and not
 * encrypted is its sender's direct room (checked once joined). */
static void on_invite(struct mx_adapter *a, const struct mx_item *it)
{
    /* a room of the config (known by its ID) is the operator's choice,
     * whoever invites the bot to it */
    bool configured = mx_cfg_by_id(a, it->room) != NULL;
    /* a flood of invites (many rooms, or many direct chats opened by
     * sock puppets) is not followed by as many joins or leaves: beyond
     * the bucket an invite stays unanswered, and can be sent again later */
    if (a->cfg.auto_join_invites && !configured &&
        !bucket_take(&a->invite_rate, loop_now(a->loop))) {
        log_info("%s: invite to %s from %s left unanswered: more than %d "
                 "invites in %d seconds",
                 a->base.network, it->room, it->sender, MX_INVITE_BURST,
                 MX_INVITE_BURST * MX_INVITE_INTERVAL_MS / 1000);
        return;
    }
    if (a->cfg.auto_join_invites && !configured &&
        !matrix_config_may_invite(&a->cfg, it->sender)) {
        /* declined: leaving a room one is invited to rejects the invite */
        log_info("%s: declining the invite to %s from %s (not in "
                 "invite_from)",
                 a->base.network, it->room, it->sender);
        mx_leave_room(a, it->room);
        return;
    }
    if (it->encrypted) {
        /* never a room for cards: say so once in it, if it is joined */
        if (it->is_direct && a->cfg.auto_join_invites)
            mx_set_add(&a->warn_joined, &a->nwarn_joined, it->room);
    } else if (it->is_direct && !mx_dm_find(a, it->sender) &&
               !mx_set_has(a->dead, a->ndead, it->room)) {
        /* checked once joined: the check asks for its state */
        mx_dm_set(a, it->sender, it->room, MX_DM_UNCHECKED);
        mx_direct_map_record(a, it->sender);
    }
    if (a->cfg.auto_join_invites)
        mx_join(a, it->room);
}

/* The bot left a room: kicked or banned from a configured one, or gone. */
static void on_left(struct mx_adapter *a, const struct mx_item *it,
                    struct mx_dm *dmr)
{
    const char *self = a->cfg.user_id;
    mx_members_forget(a->members, it->room);
    mx_rooms_forget(a->facts, it->room);
    mx_set_del(a->fetched, &a->nfetched, it->room);
    if (mx_cfg_by_id(a, it->room) && it->sender && it->membership &&
        strcmp(it->sender, self) != 0) {
        mx_kicked(a, mx_cfg_by_id(a, it->room), it);
        return;
    }
    mx_drop(a, it->room);
    if (dmr)
        mx_dm_remove(a, dmr);
}

/* A room is encrypted (state), or an encrypted message came. */
static void on_encrypted(struct mx_adapter *a, const struct mx_item *it,
                         struct mx_dm *dmr)
{
    const char *self = a->cfg.user_id;
    if (!it->event_id) {
        if (dmr)
            mx_dm_unusable(a, dmr, "encrypted");
        return;
    }
    if (strcmp(it->sender, self) == 0)
        return;
    mx_say_once(a, it->room,
                M("I cannot read encrypted messages, so I cannot see "
                  "commands in this room. To play, turn encryption off "
                  "in a new room (it cannot be turned off here) and "
                  "invite me there, or write to me in a direct chat "
                  "without encryption."));
}

void mx_on_item(struct mx_adapter *a, const struct mx_item *it)
{
    const char *self = a->cfg.user_id;
    struct mx_dm *dmr = mx_dm_of_room(a, it->room);
    const char *dm = dmr ? dmr->user : NULL;
    mx_rooms_feed(a->facts, it);
    switch (it->kind) {
    case MX_ITEM_MESSAGE:
        on_message(a, it, dm);
        return;
    case MX_ITEM_MEMBER:
        on_member(a, it, dmr);
        return;
    case MX_ITEM_INVITE:
        on_invite(a, it);
        return;
    case MX_ITEM_LEFT:
        on_left(a, it, dmr);
        return;
    case MX_ITEM_ENCRYPTED:
        on_encrypted(a, it, dmr);
        return;
    case MX_ITEM_CREATE:
        if (strcmp(it->sender, self) == 0 && !dmr &&
            !mx_cfg_by_id(a, it->room) &&
            !mx_set_has(a->dead, a->ndead, it->room))
            mx_set_add(&a->made, &a->nmade, it->room);
        return;
    case MX_ITEM_JOINED:
        if (a->cfg.appservice && !mx_cfg_by_id(a, it->room))
            as_joined(a, it->room);
        return;
    case MX_ITEM_NAME:
    case MX_ITEM_ALIAS:
        return;
    }
}

/* An item of a sync: held while its room's members are fetched (the
 * first message read in a room not a direct one starts that). */
void mx_sync_item(struct mx_adapter *a, const struct mx_item *it)
{
    struct mx_hold *h = mx_hold_of(a, it->room);
    if (!h && it->kind == MX_ITEM_MESSAGE && !mx_dm_of_room(a, it->room) &&
        !mx_set_has(a->fetched, a->nfetched, it->room)) {
        mx_fetch_room(a, it->room, true);
        h = mx_hold_of(a, it->room);
    }
    if (!h) {
        mx_on_item(a, it);
        return;
    }
    h->items = xrealloc(h->items, (h->n + 1) * sizeof *h->items);
    mx_item_copy(&h->items[h->n++], it);
}
