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

#include "chat.h"
#include "config.h"
#include "engine.h"
#include "loop.h"

struct table;

/* A seat: a person (human) or a computer player. */
struct seat {
    bool used;
    bool human;
    bool away;      /* a computer plays for the person until "back" */
    bool gone;      /* left the room or the network: grace period */
    bool stop_vote; /* voted to stop the game */
    int level;      /* a computer's level */
    int timeouts;   /* in a row */
    uint64_t grace_timer;
    char nick[64];  /* as the network knows them: for addressing */
    char shown[64]; /* cleaned for display (render_name) */
    char id[192];
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
    bool playing;
    bool closing; /* freed before the next sleep */
    bool online;  /* the adapter is connected */
    bool paused;  /* nobody is at the table: nothing happens */
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
    /* the last channel !status and !scores (commands.c), not repeated */
    int64_t echo_at[2];
    char echo_by[2][192];
};

struct manager {
    struct loop *loop;
    const struct config *cfg;
    struct table **tables;
    int ntables, captables;
    int closing; /* tables waiting to be freed */
    int ai_level;
    struct limit *limit; /* answers per person (limit.h) */
};

/* A text being built for one message; truncated safely when full. */
struct sbuf {
    char buf[2048];
    size_t len;
};

void sb_printf(struct sbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_card(struct sbuf *sb, const struct table *t, int card);
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
/* Sets a seat's nick and its display form. */
void seat_set_nick(struct seat *st, const char *nick);
/* Makes the seats' display names unique: a person whose nick shows as it
 * is keeps it; a look-alike (the same once invisible and bidirectional
 * characters are stripped, or case aside) gets "(2)"; before the game a
 * computer player named like a person takes another "botN". Call after a
 * person sits or changes nick. */
void table_names_unique(struct table *t);
bool seat_computer(const struct table *t, int seat);
bool same_person(const struct table *t, int seat, const struct chat_user *u);

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
int table_seated(const struct table *t);
int table_humans(const struct table *t);
/* The seat taken, or -1 if full. */
int table_sit(struct table *t, const struct chat_user *u);
int table_add_computer(struct table *t, int level);
void table_stand(struct table *t, int seat);
void table_start(struct table *t);
/* The seat's action (a->seat is set here); on success the game moves on. */
enum engine_refusal table_act(struct table *t, int seat,
                              struct engine_action *a,
                              struct engine_refusal_detail *d);
void table_back(struct table *t, int seat);
void table_person_left(struct table *t, int seat);
void table_stop(struct table *t, const char *why);
void table_set_online(struct table *t, bool online);
void table_resume(struct table *t);
void table_scoreline(struct table *t, struct sbuf *sb);

#endif
