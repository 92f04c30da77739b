/*
 * What the bot core and the protocol adapters say to each other. An adapter
 * (IRC, Matrix, the console) turns protocol traffic into neutral events
 * for the game manager and offers a small table of operations to send text
 * back. No game logic lives in adapters and no protocol detail in the core.
 */
#ifndef HEARTS_BOT_CHAT_H
#define HEARTS_BOT_CHAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum chat_event_kind {
    CHAT_MESSAGE,      /* text in a room, or private (room NULL) */
    CHAT_JOIN,         /* from joined room */
    CHAT_PART,         /* from left room (text: reason) */
    CHAT_KICK,         /* target was kicked from room by from */
    CHAT_QUIT,         /* from left the network */
    CHAT_NICK,         /* from is now called target */
    CHAT_CONNECTED,    /* the adapter is (again) connected and in its rooms */
    CHAT_DISCONNECTED, /* the connection was lost; it reconnects itself */
    CHAT_IDENTITY,     /* the answer to verify: from.nick is the nick asked,
                          from.id who holds it now, NULL if nobody does */
    CHAT_SENT,         /* the text given to tell_tracked with `cookie` has
                          been written to the network (or was dropped) */
    CHAT_RENAME,       /* from (nick and id) is now shown as from.display
                          (NULL: as their nick) in room, or everywhere on
                          the network if room is NULL; how to address them
                          does not change (that is CHAT_NICK) */
    CHAT_OPERATOR      /* the answer to ask_operator: from (as asked) is an
                          operator of room (text "yes") or not (text
                          NULL) */
};

/*
 * A person as the network shows them. `nick` is how to address them;
 * `id` is what a seat is bound to: on IRC "user@host" (a takeover of the
 * nick from elsewhere does not match), on Matrix the user ID; `account`
 * is a services account when the network tells (IRC: the line's account
 * tag, else what extended-join, account-notify and WHOX said), else NULL:
 * none known, or logged out (on Matrix the user ID). `display` is the name to
 * show people, where the network has one apart from the nick: on Matrix the
 * display name in the event's room (for a private message, in a shared room),
 * already told apart from other members' as the Matrix spec says; NULL: show
 * the nick (IRC, the console, or nothing known). Not cleaned: the core cleans
 * it for display (render_name) and makes it unique at a table; never a key.
 */
struct chat_user {
    const char *nick;
    const char *id;
    const char *account;
    const char *display;
};

/* One event. Strings live only during the callback: copy what you keep. */
struct chat_event {
    enum chat_event_kind kind;
    const char *room;
    struct chat_user from;
    const char *text;
    const char *target;
    uint64_t cookie; /* CHAT_SENT */
};

/* Order in an adapter's out-queue: HIGH goes first (the prompt of the
 * player whose turn it is), LOW last (long help). */
enum chat_priority { CHAT_HIGH, CHAT_NORMAL, CHAT_LOW };

/* How text is dressed for the protocol (see render.h): PLAIN has no
 * control codes, IRC has mIRC formatting, MARKUP is render.h's private
 * markup for adapters that build rich text themselves (Matrix's HTML). */
enum chat_style { CHAT_STYLE_PLAIN, CHAT_STYLE_IRC, CHAT_STYLE_MARKUP };

/* The bytes of CHAT_STYLE_MARKUP (render.h says what each means): one
 * list for render.c, which writes them, and the adapters that read them. */
#define CHAT_MARKUP_PILL '\x01'
#define CHAT_MARKUP_BOLD '\x02'
#define CHAT_MARKUP_COLOUR '\x03'
#define CHAT_MARKUP_CARD '\x05'
#define CHAT_MARKUP_RESET '\x0F'
#define CHAT_MARKUP_CELL '\x1F'

/* How a solo adapter's person (the console's) is named in the game's
 * lines, a catalogue message (msg.h): "you", "du"... Trick lines say
 * "you take it" of them. */
#define CHAT_SOLO_NAME                                                         \
    MC("the person at the console, as the game's lines name them", "you")

struct chat_adapter;

typedef void (*chat_event_fn)(void *ctx, struct chat_adapter *a,
                              const struct chat_event *ev);

struct chat_adapter_ops {
    /* Starts connecting (asynchronously); 0, or -1 with a log line. */
    int (*start)(struct chat_adapter *a);
    /* Says goodbye (QUIT with the text) and closes; queued output is
     * flushed as far as the network allows without blocking. */
    void (*stop)(struct chat_adapter *a, const char *goodbye);
    /* Queues text for a room / a person. The adapter splits long text,
     * strips CR, LF and NUL, and paces output against flooding. */
    void (*say)(struct chat_adapter *a, const char *room, const char *text,
                enum chat_priority prio);
    void (*tell)(struct chat_adapter *a, const char *nick, const char *text,
                 enum chat_priority prio);
    /* Whether two nicks are the same under the network's casemapping. */
    bool (*same_nick)(const struct chat_adapter *a, const char *x,
                      const char *y);
    /* Whether the adapter's output queue is empty (for a clean stop). */
    bool (*idle)(const struct chat_adapter *a);
    /* Frees the adapter. */
    void (*free)(struct chat_adapter *a);
    /* Optional (NULL: identities cannot change unseen, e.g. the console).
     * Asks the network who holds `nick` now; the answer comes later as a
     * CHAT_IDENTITY event. For checking seated people after a reconnect,
     * when nick changes and quits may have been missed. */
    void (*verify)(struct chat_adapter *a, const char *nick);
    /* Optional (NULL: use tell; the text counts as sent at once). Like
     * tell, and a CHAT_SENT event with `cookie` (not 0) follows once the
     * text's last line has been written to the network, or dropped:
     * what waits for a person to read a line (a turn timer) starts then,
     * not while the line waits behind the pacing. */
    void (*tell_tracked)(struct chat_adapter *a, const char *nick,
                         const char *text, enum chat_priority prio,
                         uint64_t cookie);
    /* Optional (NULL: names are compared exactly, e.g. Matrix IDs). Writes
     * into out (outlen bytes, truncating safely) the form of a nick or a
     * room name under the network's case mapping, so that two names the
     * network treats as one give the same key (files, leaderboards). */
    void (*fold)(const struct chat_adapter *a, const char *name, char *out,
                 size_t outlen);
    /* Optional (NULL: never). Takes back a text given to tell_tracked with
     * `cookie` if none of it has been written yet: no CHAT_SENT follows.
     * Returns whether it did (then the caller may say it otherwise). */
    bool (*retract)(struct chat_adapter *a, uint64_t cookie);
    /* Optional (NULL: any room may be the bot's, e.g. Matrix rooms it was
     * invited to). Whether the bot will be in `room` on this network: a
     * game journaled in a room it will not be in is not rebuilt at start
     * (its journal stays on disk until the room is back in the config). */
    bool (*serves)(const struct chat_adapter *a, const char *room);
    /* Optional (NULL: nothing to make ready, e.g. IRC). `nick` sat down
     * at a table (or is seated in a game rebuilt at start): what private
     * lines to them will need is made ready now (Matrix: their direct
     * room is found, checked or created), so that the deal does not wait
     * for it. */
    void (*prepare)(struct chat_adapter *a, const char *nick);
    /* Optional (NULL: the room's name is how people know it, e.g. an IRC
     * channel). Writes into out (outlen bytes, cut safely) how people
     * know `room` (Matrix: its name, else its canonical alias, else its
     * ID), for lines that name the room elsewhere (a direct message). */
    void (*room_label)(const struct chat_adapter *a, const char *room,
                       char *out, size_t outlen);
    /* Optional (NULL: never). Whether every message costs the bot a
     * scarce slot now (a homeserver that rate-limits it): a table's
     * channel may then fall one trick behind the game, so that its trick
     * lines leave together instead of each costing the players a slot. */
    bool (*limited)(const struct chat_adapter *a);
    /* Optional (NULL: tell). Queues text for one person as the answer to
     * a command they said in a room, where they will see it while they
     * look at that room: on IRC a NOTICE to their nick, which clients show
     * in the window in front rather than in a query window of its own (as
     * IRC game bots answer), unless the network's config asks for
     * PRIVMSG. What the person must answer (a hand, a prompt) goes by
     * tell, into the window where they answer it. Paced and ordered with
     * the person's private lines. */
    void (*notice)(struct chat_adapter *a, const char *nick, const char *text,
                   enum chat_priority prio);
    /* Optional (NULL: nobody is, only admins may send the bot away).
     * Asks the network whether `u` is an operator of `room` (or higher);
     * the answer comes later as a CHAT_OPERATOR event, or never if the
     * adapter has too many questions in flight (logged). */
    void (*ask_operator)(struct chat_adapter *a, const char *room,
                         const struct chat_user *u);
    /* Optional (NULL: rooms are left only by the config). Leaves `room`
     * with `goodbye` as the reason, after what was queued for it, and
     * forgets it: not served, not rejoined (a configured one comes back
     * at the next start). */
    void (*part)(struct chat_adapter *a, const char *room, const char *goodbye);
    /* Optional (NULL: nobody is known to be, e.g. the console). Whether
     * `nick` is in `room` now, as far as the adapter knows: on IRC seen
     * joining or in the channel's WHO or NAMES replies, and not seen
     * leaving; on Matrix a joined member it keeps (members.h). For calls
     * to people who asked for them (!notify), never to refuse anything. */
    bool (*present)(struct chat_adapter *a, const char *room, const char *nick);
};

/* The common head of every adapter. */
struct chat_adapter {
    const struct chat_adapter_ops *ops;
    const char *network; /* its name in the config: leaderboards, logs */
    enum chat_style style;
    /* one person at a terminal (the console): no channel, no private
     * messages, no other people, no answer limits; the bot words its
     * lines for them */
    bool solo;
    /* the language (msg.h) of what the adapter says to people on its own
     * (why a room cannot take private lines): it cannot know a person's
     * choice, so the bot's own ([bot] lang), set by the bot; 0: English */
    int lang;
    chat_event_fn on_event;
    void *ctx;
    /* set by the bot (NULL: nobody is): whether a person is one of the
     * bot's admins ([bot] admins), asked with `ctx`, for what the adapter
     * allows on its own (an IRC invite into a channel) */
    bool (*is_admin)(void *ctx, const struct chat_user *u);
};

#endif
