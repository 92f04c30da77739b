/*
 * Inside the game manager (manager.h): the manager, its tables and their
 * seats, and what every part of the manager does with them: finding a
 * table or a person's seat, the names seats show, sitting down and
 * standing up, cancelling a table's timers, the key results count under,
 * and where a room's files live (paths from storage/storage.h). Nothing
 * here says anything or moves a game on. Not for adapters.
 */
#ifndef HEARTS_BOT_MANAGER_TABLE_H
#define HEARTS_BOT_MANAGER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/common/chat.h"
#include "bot/common/loop.h"
#include "bot/config.h"
#include "bot/manager/limit.h"
#include "bot/manager/manager.h"
#include "bot/manager/render.h"
#include "engine/engine.h"

struct table;
struct think;        /* bot/think.h */
struct syncer;       /* bot/syncer.h */
struct journal_seat; /* storage/journal.h */
struct people;       /* storage/people.h */
struct notify_room;  /* notify.c */
struct replays;      /* bot/manager/replay.h */
struct teach;        /* bot/manager/cmd_teach.c */

/* Which plays the bot makes for a person without asking (`autoplay`). */
enum seat_autoplay {
    SEAT_AUTOPLAY_LAST,   /* the last card of a hand (the default) */
    SEAT_AUTOPLAY_FORCED, /* that, and every play with one legal card */
    SEAT_AUTOPLAY_OFF     /* none: always a prompt */
};

/* A seat: a person (human) or a computer player. */
struct seat {
    bool used;
    bool human;
    bool away;      /* a computer plays for the person until "back" */
    bool gone;      /* left the room or the network: grace period */
    bool stop_vote; /* voted to stop the game */
    /* when (loop_now) the person was asked to confirm leaving the game
     * with a second !leave; 0: not asked */
    int64_t leave_asked;
    /* after a reconnect, until the adapter confirms who has the nick:
     * nothing private goes to it */
    bool unconfirmed;
    uint64_t pending; /* cookie of the last tracked line to them in flight */
    int64_t verify_asked;  /* when the adapter was last asked who has it */
    uint64_t verify_timer; /* to ask again once VERIFY_EVERY_MS passed */
    bool lost_unseen;      /* gone as a reconnect found them: re-checked */
    bool restored;         /* rebuilt at start: told their hand once */
    int level;             /* a computer's level */
    int timeouts;          /* in a row */
    /* the person's time is up: a computer makes this one decision for
     * them, told "Time is up" (SEAT_OVERDUE_AWAY: "You timed out again")
     * when it is made */
    enum { SEAT_ON_TIME, SEAT_OVERDUE, SEAT_OVERDUE_AWAY } overdue;
    enum seat_autoplay autoplay;
    bool deal_unread; /* a hand without passing was dealt and not yet
                         prompted: its prompt must not overtake the deal */
    /* the cards received this hand are not told yet: the seat's first
     * prompt tells them (one line, not two), else a line of their own */
    bool received_untold;
    uint64_t received_cookie; /* that line while it waits to be written */
    /* the pass confirmation while it waits: once everyone has passed, the
     * received line says more, and the first lead must not wait for it */
    uint64_t passing_cookie;
    bool passing_untold; /* it was: the received line says it */
    bool queued;         /* a card to play at the person's turn ("play" */
    uint8_t queued_card; /* before it), if it is legal then */
    uint64_t grace_timer;
    char nick[64]; /* as the network knows them: for addressing */
    /* the name the network shows them by (chat_user.display) as last
     * seen at this table, uncleaned; "": none, the nick is shown */
    char display[256];
    char shown[RENDER_SHOWN_SIZE]; /* display or nick, cleaned
                                      (render_name), unique */
    char id[192];
    /* the services account (Matrix: the user ID) of the person, as they
     * had it when they sat down or when first seen logged in while
     * seated; "": not known. While known, it decides who the person is
     * (mgr_same_person); a restored seat takes it from an "a:" key */
    char account[192];
    /* whom results count for (docs/storage.md): "a:" and the services
     * account or Matrix user ID when the network tells, else "n:" and the
     * nick they sat down with, folded; "" for a computer */
    char key[200];
};

/* What a grace timer needs to find its seat. */
struct grace {
    struct table *t;
    int seat;
};

struct table {
    struct manager *m;
    struct chat_adapter *a;
    char room[64];
    char game_id[17]; /* 16 hex digits, random: names this game's files */
    bool playing;
    bool closing; /* freed before the next sleep */
    bool online;  /* the adapter is connected */
    /* the turn timer waits for the prompt to be written (CHAT_SENT) */
    bool turn_deferred;
    /* the next deal waits for the table's channel lines to go out (the
     * last trick, the scores): the cookie of the last one said */
    uint64_t said_pending;
    bool deal_deferred;
    /* the channel is never behind the game: the cookies of the last
     * trick's channel line ([1]) and the one before ([0]), 0 once
     * written; no play of trick N+1 (prompt or computer) while trick N's
     * line waits, or trick N-1's where the network is limited
     * (chat_adapter_ops.limited) */
    uint64_t trick_said[2];
    bool trick_deferred;
    bool paused; /* nobody is at the table: nothing happens */
    struct engine_rules rules;
    char rules_text[300];
    int capacity;
    int opener; /* seat, or -1 */
    struct seat seats[ENGINE_MAX_PLAYERS];
    struct grace graces[ENGINE_MAX_PLAYERS];
    struct engine_game game;
    struct engine_sink sink;
    struct record_writer *rec;
    struct engine_prng rng;
    uint64_t turn_timer, reminder_timer, lobby_timer, deal_timer;
    uint64_t unattended_timer; /* the pause, then the end, with nobody */
    /* the table's own turn length (turn_timeout=, slow.h), seconds; 0:
     * the config's */
    int turn_timeout;
    /* the table allows hints (hints=on, cmd_teach.h): its game counts on
     * the hints board alone */
    bool hints;
    /* a slow game's turn (slow.h): which turn (mgr_slow_turn_key), its
     * deadline on the wall clock (Unix seconds; 0: none yet), the
     * reminders sent (bits), when the channel last heard one, and the
     * timer of what comes next */
    uint32_t slow_key;
    int64_t slow_deadline;
    int slow_reminded;
    int64_t slow_channel;
    uint64_t slow_timer;
    int32_t (*hist)[ENGINE_MAX_PLAYERS]; /* points per hand */
    int nhist, caphist;
    /* the trick taken last this hand, told in the next leader's prompt,
     * which may reach them before the channel's trick line */
    int last_trick_no; /* 0: none yet this hand */
    int last_winner;   /* a seat, or -1: set aside */
    int last_card;     /* the card that took it */
    /* the last prompt sent, so that the same turn is not prompted twice
     * (another player leaving, a reconnect); -1: none */
    int prompted_seat;
    uint32_t prompted_key;
    /* the channel's last !status and !scores answers (cmd_table.c) */
    struct limit_echo echo;
    /* the game's journal (bot/manager/journaling.h): its path ("" if none is
     * kept), and the seats (capacity of them) and opener its last seats line
     * says, or NULL */
    char journal[1024];
    struct journal_seat *journal_seats;
    int journal_opener;
    /* rebuilt from its journal at start: told once the bot is back */
    bool restored;
    /* bumped by every engine event: a computer decision made off the
     * loop (think.h) applies only to the game it was asked about */
    uint64_t gen;
    /* the decision asked of the worker and not yet back: its job id (0:
     * none), the seat and the gen it was asked at */
    uint64_t think_id;
    int think_seat;
    uint64_t think_gen;
};

/* A line for a room once its adapter is connected. */
struct notice {
    struct chat_adapter *a;
    char room[64];
    char text[600];
};

/* How often one person's near misses of a command in a channel get a
 * hint: once in five minutes. */
#define MGR_HINT_INTERVAL_MS (5 * 60 * 1000)

struct manager {
    struct loop *loop;
    const struct config *cfg;
    struct table **tables;
    int ntables, captables;
    int closing; /* tables waiting to be freed */
    int ai_level;
    struct think *think; /* the thinking worker (think.h), made when needed */
    uint64_t think_ids;  /* the last job id */
    /* the data directory's fsyncs, off the loop (syncer.h), made when
     * first needed */
    struct syncer *syncer;
    uint64_t cookies;        /* the last tracked line's cookie */
    struct limit *limit;     /* answers per person (limit.h) */
    struct replays *replays; /* the replays open (replay.h) */
    struct teach *teach;     /* hints and reviews worked out (cmd_teach.h) */
    /* the keys people played under this session (played.h) */
    struct played *played;
    /* each channel's archive and leaderboards (results.h) */
    struct results_room **rooms;
    int nrooms, caprooms;
    /* tables are being rebuilt from journals: nothing is said, told or
     * journaled */
    bool restoring;
    /* shutting down: the tables' journals stay for the next start */
    bool keep_journals;
    struct notice *notices; /* journals refused at start, to be told */
    int nnotices;
    /* the data directory could be written at the last try (store.h) */
    bool storage_ok;
    bool storage_locking; /* keeps data_dir's lock (the bot, not tests) */
    /* the channels told "Results can't be saved" since it last worked:
     * "network\nfolded room" each */
    char **storage_told;
    int ntold;
    /* what people chose for themselves (lang.h) */
    struct people *people;
    bool people_writable; /* the file is ours to write */
    /* a person's channel near misses get a hint at most this often
     * (MGR_HINT_INTERVAL_MS; tests make it short) */
    int64_t hint_interval_ms;
    /* who asked to be called in each channel (notify.h), loaded when
     * first needed; a person is called in a channel at most this often
     * (MGR_NOTIFY_INTERVAL_MS; tests make it short) */
    struct notify_room **notify_rooms;
    int nnotify_rooms;
    int64_t notify_interval_ms;
    /* what an admin's !reload calls (manager_on_reload), or NULL */
    manager_reload_fn reload;
    void *reload_ctx;
    /* what each newly archived game is given to (manager_on_archived) */
    manager_archived_fn archived;
    void *archived_ctx;
    /* the secret the site's person pages are named with; "": no site */
    char site_secret[65];
    /* the wall clock, Unix seconds (NULL: time(); tests set their own),
     * and how often a slow game looks at it (SLOW_CHECK_MS; tests make it
     * short) */
    int64_t (*wall)(void);
    int64_t slow_check_ms;
};

/* The seat's name for display. */
const char *mgr_seat_name(const struct table *t, int seat);
/* Whether the seat is the one person at a terminal (chat_adapter.solo):
 * lines about them say "You ..." with the verb to match. */
bool mgr_seat_is_you(const struct table *t, int seat);
/* Sets a seat's nick and its display form (from the nick). */
void mgr_seat_set_nick(struct seat *st, const char *nick);
/* The same with the name the network shows them by (chat_user.display;
 * NULL or "": none, the nick is shown); a name too long for the seat is
 * cut on a character boundary. Call mgr_table_names_unique after. */
void mgr_seat_set_name(struct seat *st, const char *nick, const char *display);
/* A person's display name seen in `room` (NULL: anywhere on the
 * network): their seat at a table in that room, if any, shows it from
 * now on (names made unique again). NULL display means "none" only if
 * `clear`, else nothing is known and nothing changes. With `if_unknown`
 * only a seat that shows no display name yet takes it (a private
 * message: the name comes from another room than the table's). */
void mgr_display(struct manager *m, struct chat_adapter *a, const char *room,
                 const struct chat_user *u, bool clear, bool if_unknown);
/* Makes the seats' display names unique: a person whose name (display
 * name, else nick) shows as it is keeps it; a look-alike (the same once
 * invisible and bidirectional characters are stripped, or case aside) gets
 * "(2)"; before the game a computer player named like a person takes another
 * "botN". Call after a person sits or changes nick. */
void mgr_table_names_unique(struct table *t);
/* A computer's seat, or an absent person's (away). */
bool mgr_seat_computer(const struct table *t, int seat);
/* Whether `account` names the seat's account; false if either is not
 * known. Accounts compare case aside (services fold them). */
bool mgr_seat_account_is(const struct seat *s, const char *account);
/* Whether (id, account) is the seat's person, the nick aside: with both
 * accounts known the account decides, else the user@host. */
bool mgr_seat_holder(const struct seat *s, const char *id, const char *account);
/* Whether u is the seat's person: the nick matches, and the account when
 * both the seat's and u's are known (another account is someone else,
 * whatever the user@host), else the user@host. */
bool mgr_same_person(const struct table *t, int seat,
                     const struct chat_user *u);
/* A person's results key, as struct seat.key says: "a:ACCOUNT" when the
 * network tells an account, else "n:" the nick folded as the network
 * folds nicks, '@', and the host of u->id (after its last '@', ASCII
 * lower case; "~" and 16 hex digits of its hash when the key would not
 * fit). At the console (one person at a terminal) "n:" and the nick
 * alone, as before hosts. */
void mgr_seat_key(struct chat_adapter *a, const struct chat_user *u, char *out,
                  size_t outlen);

/* The open table in a room, or NULL. */
struct table *mgr_table_find(struct manager *m, struct chat_adapter *a,
                             const char *room);
/* The table where a nick sits on this network, and the seat. */
struct table *mgr_table_of_person(struct manager *m, struct chat_adapter *a,
                                  const char *nick, int *seat);
int mgr_table_seated(const struct table *t);
int mgr_table_humans(const struct table *t);
/* The seat taken, or -1 if full. */
int mgr_table_sit(struct table *t, const struct chat_user *u);
/* A computer player of `level` takes the first free seat: the seat, or
 * -1 if full. */
int mgr_table_add_computer(struct table *t, int level);
/* The seat is empty again (its timers cancelled); the opener passes on. */
void mgr_table_stand(struct table *t, int seat);
/* Cancels the turn's timers (and a turn timer waiting for its prompt). */
void mgr_table_cancel_turn(struct table *t);
/* Cancels every timer of the table and its seats. */
void mgr_table_cancel_all(struct table *t);
/* Frees a table (closed, its timers cancelled). */
void mgr_table_free(struct table *t);

/* docs/storage.md: the directory of any room of an adapter under
 * data_dir, data_dir/<enc(network)>/<enc(fold(room))>, made if missing
 * and `make`; 0, or -1 with errno and a message. */
int mgr_room_dir(const struct manager *m, struct chat_adapter *a,
                 const char *room, bool make, char *out, size_t outlen,
                 char *err, size_t errlen);
/* The same for the table's room, made if missing. */
int mgr_table_dir(const struct table *t, char *out, size_t outlen, char *err,
                  size_t errlen);

#endif
