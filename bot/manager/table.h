/*
 * Inside the game manager: the structs of the manager, its tables and
 * seats, and the functions manager.c (the game flow) offers commands.c
 * (what people type). Not for adapters.
 */
#ifndef HEARTS_BOT_TABLE_H
#define HEARTS_BOT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/common/chat.h"
#include "bot/config.h"
#include "engine/engine.h"
#include "bot/common/loop.h"
#include "bot/manager/render.h"

struct table;
struct think;        /* think.h */
struct journal_seat; /* storage/journal.h */

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
     * (same_person); a restored seat takes it from an "a:" key */
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
    int32_t (*hist)[ENGINE_MAX_PLAYERS]; /* points per hand */
    int nhist, caphist;
    /* the trick taken last this hand, told in the next prompts so that a
     * prompt never runs ahead of the channel's trick line */
    int last_trick_no; /* 0: none yet this hand */
    int last_winner;   /* a seat, or -1: set aside */
    int last_card;     /* the card that took it */
    /* the last prompt sent, so that the same turn is not prompted twice
     * (another player leaving, a reconnect); -1: none */
    int prompted_seat;
    uint32_t prompted_key;
    /* the last channel !status and !scores (commands.c), not repeated */
    int64_t echo_at[2];
    char echo_by[2][192];
    /* the game's journal (bot/manager/journal.h): its path ("" if none is
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
    char text[400];
};

struct manager {
    struct loop *loop;
    const struct config *cfg;
    struct table **tables;
    int ntables, captables;
    int closing; /* tables waiting to be freed */
    int ai_level;
    struct think *think; /* the thinking worker (think.h), made when needed */
    uint64_t think_ids;  /* the last job id */
    uint64_t cookies;    /* the last tracked line's cookie */
    struct limit *limit; /* answers per person (limit.h) */
    /* the keys people played under this session (played.h) */
    struct played *played;
    /* each channel's archive and leaderboards (records.h) */
    struct records_room **rooms;
    int nrooms, caprooms;
    /* tables are being rebuilt from journals: nothing is said, told or
     * journaled */
    bool restoring;
    /* shutting down: the tables' journals stay for the next start */
    bool keep_journals;
    struct notice *notices; /* journals refused at start, to be told */
    int nnotices;
    /* the data directory could be written at the last try (store.c) */
    bool storage_ok;
    bool storage_locking; /* keeps data_dir's lock (the bot, not tests) */
    /* the channels told "Results can't be saved" since it last worked:
     * "network\nfolded room" each */
    char **storage_told;
    int ntold;
};

/* A text being built for one message; truncated safely when full. */
struct sbuf {
    char buf[2048];
    size_t len;
};

void sb_printf(struct sbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_card(struct sbuf *sb, const struct table *t, int card);
/* A seat's name; in the markup style (render.h) a person's is a pill for
 * their user ID, notifying them if `notify` (it is their turn). */
void sb_seat(struct sbuf *sb, const struct table *t, int seat, bool notify);
void sb_cards(struct sbuf *sb, const struct table *t, const uint8_t *cards,
              int n);
void sb_hand(struct sbuf *sb, const struct table *t,
             const struct engine_cards *hand, uint64_t mark);

void *mgr_xcalloc(size_t n, size_t size);

/* A private reply to a person (not necessarily seated). */
void mgr_reply(struct chat_adapter *a, const char *nick, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

enum chat_style table_style(const struct table *t);
void table_say(struct table *t, const char *text);
void table_tell(struct table *t, int seat, const char *text,
                enum chat_priority prio);
/* The seat's name for display. */
const char *seat_name(const struct table *t, int seat);

/* How people know `room` on a's network (the adapter's room_label, else
 * the room's name as it is), written into out; returns out. */
const char *room_label(const struct chat_adapter *a, const char *room,
                       char *out, size_t outlen);
/* Whether the seat is the one person at a terminal (chat_adapter.solo):
 * lines about them say "You ..." with the verb to match. */
bool seat_is_you(const struct table *t, int seat);
/* Sets a seat's nick and its display form (from the nick). */
void seat_set_nick(struct seat *st, const char *nick);
/* The same with the name the network shows them by (chat_user.display;
 * NULL or "": none, the nick is shown); a name too long for the seat is
 * cut on a character boundary. Call table_names_unique after. */
void seat_set_name(struct seat *st, const char *nick, const char *display);
/* A person's display name seen in `room` (NULL: anywhere on the
 * network): their seat at a table in that room, if any, shows it from
 * now on (names made unique again). NULL display means "none" only if
 * `clear`, else nothing is known and nothing changes. With `if_unknown`
 * only a seat that shows no display name yet takes it (a private
 * message: the name comes from another room than the table's). */
void manager_display(struct manager *m, struct chat_adapter *a,
                     const char *room, const struct chat_user *u, bool clear,
                     bool if_unknown);
/* Makes the seats' display names unique: a person whose name (display
 * name, else nick) shows as it is keeps it; a look-alike (the same once
 * invisible and bidirectional characters are stripped, or case aside) gets
 * "(2)"; before the game a computer player named like a person takes another
 * "botN". Call after a person sits or changes nick. */
void table_names_unique(struct table *t);
bool seat_computer(const struct table *t, int seat);
/* Whether u is the seat's person: the nick matches, and the account when
 * both the seat's and u's are known (another account is someone else,
 * whatever the user@host), else the user@host. */
bool same_person(const struct table *t, int seat, const struct chat_user *u);
/* A person event (a message, a JOIN, a nick change) from u: a seat of
 * theirs learns their account if it had none (and its results key turns
 * "a:" while no hand was scored), follows their new user@host when the
 * account matched, and a seat left within its grace period goes back to
 * its account's holder under a new nick (the room is told). Call before
 * the event is handled. */
void manager_seen(struct manager *m, struct chat_adapter *a,
                  const struct chat_user *u);

/* The open table in a room, or NULL. */
struct table *table_find(struct manager *m, struct chat_adapter *a,
                         const char *room);
/* The table where a nick sits on this network, and the seat. */
struct table *table_of_person(struct manager *m, struct chat_adapter *a,
                              const char *nick, int *seat);

struct table *table_open(struct manager *m, struct chat_adapter *a,
                         const char *room, const struct engine_rules *r,
                         const char *rules_text);
void table_close(struct table *t);
/* store.c (docs/storage.md): the room's directory under data_dir,
 * data_dir/<enc(network)>/<enc(fold(room))>, made if missing; 0, or -1
 * with errno and a message. */
int table_room_dir(const struct table *t, char *out, size_t outlen, char *err,
                   size_t errlen);
/* The same for any room of an adapter, made only if `make`. */
int manager_room_dir(const struct manager *m, struct chat_adapter *a,
                     const char *room, bool make, char *out, size_t outlen,
                     char *err, size_t errlen);
/* Whether results can be saved now (tried again if they could not); if
 * not, the channel is told once why ("The game goes on." unless
 * game_over). Call where a table needs storage: it opens, a game ends. */
bool table_storage_ok(struct table *t, bool game_over);
/* Archives the game that ended, finished or stopped (then it counts for
 * nobody), in its room's archive.jsonl and results.jsonl, and counts it
 * on the room's leaderboards (records.h); a failure is logged (with the
 * record) and told to the channel once, and the game is tried again at
 * the room's next archiving, and from its journal (kept: t->journal is
 * emptied so that closing the table leaves it) at the next start. */
void table_archive(struct table *t, bool finished);
/* Tells the channel once, until a journal is written there again
 * (table_storage_works), that this game will not survive a restart (its
 * journal could not be written). */
void table_journal_lost(struct table *t, int cause);
/* A journal was written in t's channel: a later journal failure there is
 * told again. */
void table_storage_works(struct table *t);
void manager_storage_init(struct manager *m);
void manager_storage_free(struct manager *m);
int table_seated(const struct table *t);
int table_humans(const struct table *t);
/* The seat taken, or -1 if full. */
int table_sit(struct table *t, const struct chat_user *u);
int table_add_computer(struct table *t, int level);
void table_stand(struct table *t, int seat);
void table_start(struct table *t);
/* The first half of table_start: computers fill empty seats, the game is
 * set up (not dealt) and recorded from now on. */
void table_begin(struct table *t);
/* The game is over: its record is archived, then its journal removed and
 * the table closed. */
void table_game_over(struct table *t);
/* The seat's action (a->seat is set here); on success the game moves on. */
enum engine_refusal table_act(struct table *t, int seat,
                              struct engine_action *a,
                              struct engine_refusal_detail *d);
void table_back(struct table *t, int seat);
void table_person_left(struct table *t, int seat);
void table_stop(struct table *t, const char *why);
void table_set_online(struct table *t, bool online);
void table_resume(struct table *t);
/* The seat's person is confirmed here (came back, verified): what they
 * need to act now is sent again (the deal while passing, the prompt). */
void table_seat_ready(struct table *t, int seat);
/* A CHAT_IDENTITY: who holds `nick` now (id NULL: nobody; account NULL:
 * none known). A seat waiting for confirmation is confirmed (the same
 * user@host, or the seat's account), or, held by someone else, marked
 * gone. */
void manager_identity(struct manager *m, struct chat_adapter *a,
                      const char *nick, const char *id, const char *account);
/* A CHAT_SENT: a tracked line left; a turn timer waiting for it starts. */
void manager_sent(struct manager *m, struct chat_adapter *a, uint64_t cookie);
void table_scoreline(struct table *t, struct sbuf *sb);
/* The score sheet, a message a line: to nick, or (NULL) the last hands
 * in the room. */
void table_send_scores(struct table *t, const char *nick);
/* "Passing Q♣ K♣ K♦ to bob" for a seat that has chosen its pass. */
void table_sb_passing(struct table *t, int seat, struct sbuf *sb);

#endif
