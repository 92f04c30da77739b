/*
 * What a table says in its room and tells the people at it: every line
 * of a game goes through here. A channel line is preceded by the seats
 * line of the journal if a seat changed; a private line never goes to a
 * seat whose person left or is not yet confirmed after a reconnect (who
 * holds the nick is asked instead); and the channel hears once what it
 * must know of storage (store.h) while results or a game can't be kept.
 */
#ifndef HEARTS_BOT_MANAGER_SAY_H
#define HEARTS_BOT_MANAGER_SAY_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/manager/table.h"

/* A line in the table's room. */
void mgr_table_say(struct table *t, const char *text);
/* A private line to the seat's person (nothing to a computer). */
void mgr_table_tell(struct table *t, int seat, const char *text,
                    enum chat_priority prio);
/* mgr_table_say of catalogue message id in the room's language, its
 * placeholders from struct msg_arg values up to MSG_END (msg.h). */
void mgr_table_saym(struct table *t, const char *id, ...);
/* mgr_table_tell of message id in the seat's language (mgr_lang_seat). */
void mgr_table_tellm(struct table *t, int seat, enum chat_priority prio,
                     const char *id, ...);
/* Asks the adapter who holds a seat's nick now (the answer comes as a
 * CHAT_IDENTITY, mgr_identity); unless `now`, at most every few seconds,
 * the last wish kept for then. */
void mgr_seat_verify(struct table *t, int seat, bool now);
/* How people know `room` on a's network (the adapter's room_label, else
 * the room's name as it is), written into out; returns out. */
const char *mgr_room_label(const struct chat_adapter *a, const char *room,
                           char *out, size_t outlen);

/* The table's journal was given up (errno `cause`): the channel is told
 * once that this game will not survive a restart. */
void mgr_table_journal_lost(struct table *t, int cause);
/* Whether results can be saved now (mgr_store_ok); if not, the channel is
 * told once why. Call where a table needs storage: it opens, a game ends. */
bool mgr_table_storage_ok(struct table *t, bool game_over);
/* Archives the game that ended (mgr_store_archive), telling the channel
 * once if it can't. */
void mgr_table_archive(struct table *t, bool finished);

/* Whether a private message of u that is not a game move may be
 * answered while a's output waits to go out: everyone's such answers
 * share a budget (limit_shared_for, [bot] chatter_burst and
 * chatter_interval). One whose answers it drops is told so once
 * privately, in their language, until the budget is full again. */
bool mgr_chatter_shared(struct manager *m, struct chat_adapter *a,
                        const struct chat_user *u);

#endif
