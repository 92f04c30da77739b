/*
 * The /sync response body (client-server API) turned into neutral items
 * for the adapter: messages in rooms, membership changes, invites, rooms
 * the bot left, events it cannot read (encrypted), its m.direct account
 * data and the next `since` token. Pure: bytes in, items out.
 *
 * Every byte is hostile. The body must be a JSON object with a string
 * next_batch, or the whole response is refused; below that, anything of
 * the wrong type, missing, too long, not valid UTF-8 or holding control
 * characters (a NUL anywhere; others outside a message body) is refused
 * field by field: the event, room or m.direct entry it belongs to is
 * skipped and counted, the rest is kept.
 */
#ifndef HEARTS_MX_SYNC_H
#define HEARTS_MX_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest identifier (user, room, event ID, alias): the spec's 255. */
#define MX_ID_MAX 255
/* Longest message body the bot reads, and display name. */
#define MX_BODY_MAX 4096
#define MX_NAME_MAX 255
/* Longest `since` token kept. */
#define MX_TOKEN_MAX 1024

enum mx_item_kind {
    MX_ITEM_JOINED,    /* the bot is in room (rooms.join) */
    MX_ITEM_MESSAGE,   /* m.room.message: sender, event_id, msgtype,
                          body, ts */
    MX_ITEM_MEMBER,    /* m.room.member: user's membership now (join,
                          leave, ban, invite, knock), name if given */
    MX_ITEM_INVITE,    /* the bot is invited to room by sender;
                          is_direct */
    MX_ITEM_LEFT,      /* the bot is no longer in room (rooms.leave);
                          membership (leave, ban) and sender of its last
                          member event there if the timeline shows it */
    MX_ITEM_ENCRYPTED, /* sender wrote something the bot cannot read
                          (m.room.encrypted) or room turned encryption on
                          (sender then its author, event_id NULL) */
    MX_ITEM_NAME,      /* the room's m.room.name is now name (NULL:
                          none) */
    MX_ITEM_ALIAS,     /* its m.room.canonical_alias is now name (NULL:
                          none) */
    MX_ITEM_CREATE     /* sender created the room (m.room.create) */
};

/* One item; the strings belong to the mx_sync. NULL when absent. */
struct mx_item {
    enum mx_item_kind kind;
    char *room;
    char *sender;
    char *event_id;
    char *msgtype;
    char *body;
    int64_t ts;
    char *user;       /* MEMBER: whose membership */
    char *membership; /* MEMBER */
    char *name;       /* MEMBER: display name, if any */
    bool is_direct;   /* INVITE, MEMBER */
    bool encrypted;   /* INVITE: the room's state says encryption is on */
};

/* One m.direct entry: the DM rooms with user. */
struct mx_direct {
    char *user;
    char **rooms;
    size_t nrooms;
};

struct mx_sync {
    char *next_batch;
    struct mx_item *items; /* per room: state, then timeline, in order */
    size_t nitems;
    bool has_direct; /* m.direct came (then direct is its whole map) */
    struct mx_direct *direct;
    size_t ndirect;
    int refused; /* events and entries skipped as malformed */
};

/*
 * Parses a /sync body (len bytes, need not be NUL-terminated) for the bot
 * `self` (its user ID: finds its own invite). 0 and *out filled (free it
 * with mx_sync_free), or -1 with the reason in err and *out untouched.
 */
int mx_sync_parse(const char *body, size_t len, const char *self,
                  struct mx_sync *out, char *err, size_t errlen);

void mx_sync_free(struct mx_sync *s);

/*
 * Parses the body of an application-service transaction ({"events": [...]},
 * client events each with its room_id) into the items a sync would give:
 * the bot's (`self`) own invite, join and leave become INVITE, JOINED (and
 * its MEMBER) and LEFT; every other event as in a joined room's timeline.
 * An event given twice in the transaction is taken once. 0 and *out filled
 * (no next_batch), or -1 with the reason in err if the body is not such an
 * object.
 */
int mx_txn_parse(const char *body, size_t len, const char *self,
                 struct mx_sync *out, char *err, size_t errlen);

/* A deep copy of an item (to keep it past its sync), and its freeing. */
void mx_item_copy(struct mx_item *to, const struct mx_item *from);
void mx_item_free(struct mx_item *it);

/*
 * Parses a room's whole state (what GET /rooms/{room}/state returns: an
 * array of state events) into items of `room`, as a sync's state would
 * give them (MEMBER, ENCRYPTED, NAME, ALIAS, CREATE; others skipped). 0
 * and *out filled (no next_batch), or -1 with the reason in err.
 */
int mx_state_parse(const char *body, size_t len, const char *room,
                   struct mx_sync *out, char *err, size_t errlen);

/*
 * Parses the answer of GET /rooms/{room}/joined_members
 * ({"joined": {user: {"display_name": ...}}}): fn(ctx, user, name) for
 * each valid entry, name NULL when missing or refused as a sync's would
 * be, at most `max` of them. 0, or -1 if it is not such an object.
 */
int mx_joined_parse(const char *body, size_t len,
                    void (*fn)(void *ctx, const char *user, const char *name),
                    void *ctx, size_t max);

/*
 * Parses an m.direct content object (what GET account_data returns) into
 * entries (each user ID to its valid room IDs; bad entries are skipped).
 * 0, or -1 if it is not a JSON object.
 */
int mx_direct_parse(const char *body, size_t len, struct mx_direct **out,
                    size_t *n);
void mx_direct_free(struct mx_direct *d, size_t n);

/*
 * Parses an m.room.member content object (what GET
 * /rooms/{room}/state/m.room.member/{user} returns): 0 with *membership
 * (a known one) and *name (the display name, NULL if missing, empty or
 * refused like a sync's) newly allocated, or -1 (nothing allocated) if it
 * is not an object with a valid membership.
 */
int mx_member_parse(const char *body, size_t len, char **membership,
                    char **name);

/* Cuts a string that snprintf may have cut inside a character back to
 * whole UTF-8 characters. */
void mx_utf8_trim(char *s);

/* Whether s (n bytes) is valid UTF-8 without NUL, overlong forms,
 * surrogates or code points past U+10FFFF. */
bool mx_utf8_valid(const char *s, size_t n);

/* Whether s looks like a user ID ("@local:server"), a room ID ("!x" or
 * "!x:server") or a room alias ("#x:server"): within MX_ID_MAX, printable
 * ASCII without spaces. */
bool mx_is_user_id(const char *s);
bool mx_is_room_id(const char *s);
bool mx_is_alias(const char *s);

/* The /sync filter: only what the bot reads (messages, members, the
 * encryption markers, rooms' names, aliases and creators, m.direct); with
 * `history` false, no timeline at all (the first sync of a new session: old
 * commands are not replayed). Members are lazy-loaded (a big room's whole list
 * is never sent) with redundant ones: every sync that holds someone's message
 * holds their member event too, so their display name is known even when the
 * server thinks it sent it before (a restart). A static JSON string. */
const char *mx_sync_filter(bool history);

#endif
