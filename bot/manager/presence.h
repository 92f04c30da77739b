/*
 * The people at the tables, and the network under them: who is who
 * (accounts learnt, a seat taken back under another nick, identities the
 * adapter confirms after a reconnect), people leaving (a grace period,
 * then a computer takes the seat) and coming back, the adapter going
 * offline and online (a table rebuilt at start tells the channel and each
 * person once), and lines reported written (the timers and deals waiting
 * for them go on).
 */
#ifndef HEARTS_BOT_MANAGER_PRESENCE_H
#define HEARTS_BOT_MANAGER_PRESENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "bot/manager/table.h"

/* A person event (a message, a JOIN, a nick change) from u: a seat of
 * theirs learns their account if it had none (and its results key turns
 * "a:" while no hand was scored), follows their new user@host when the
 * account matched, and a seat left within its grace period goes back to
 * its account's holder under a new nick (the room is told). Call before
 * the event is handled. */
void mgr_seen(struct manager *m, struct chat_adapter *a,
              const struct chat_user *u);
/* A CHAT_IDENTITY: who holds `nick` now (id NULL: nobody; account NULL:
 * none known). A seat waiting for confirmation is confirmed (the same
 * user@host, or the seat's account), or, held by someone else, marked
 * gone. */
void mgr_identity(struct manager *m, struct chat_adapter *a, const char *nick,
                  const char *id, const char *account);
/* A CHAT_SENT: a tracked line left; a turn timer waiting for it starts. */
void mgr_sent(struct manager *m, struct chat_adapter *a, uint64_t cookie);
/* The person of `nick` left `room` (NULL: the network): their seat's
 * grace period starts. */
void mgr_on_gone(struct manager *m, struct chat_adapter *a, const char *room,
                 const char *nick);
/* A CHAT_JOIN: a seated person is here again. */
void mgr_on_join(struct manager *m, struct chat_adapter *a,
                 const struct chat_event *ev);
/* Anything a seated person says shows they are here. */
void mgr_spoke(struct manager *m, struct chat_adapter *a,
               const struct chat_user *u);
/* A CHAT_NICK: the person's seats follow the new nick. */
void mgr_on_nick(struct manager *m, struct chat_adapter *a,
                 const struct chat_event *ev);

/* The person takes their seat back from a computer ("back"). */
void mgr_table_back(struct table *t, int seat);
/* The seat's person left: a grace period, then a computer takes it. */
void mgr_table_person_left(struct table *t, int seat);
/* The adapter went offline (no timeouts; who holds each nick is to be
 * confirmed) or online again (asked; the game goes on). */
void mgr_table_set_online(struct table *t, bool online);
/* The seat's person is confirmed here (came back, verified): what they
 * need to act now is sent again (the deal while passing, the prompt). */
void mgr_table_seat_ready(struct table *t, int seat);

#endif
