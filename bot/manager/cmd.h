/*
 * One command being handled, and what every group of commands uses:
 * the reply to the asker, the prefix, how the asker is named in the room,
 * who is an admin, the asker's seat, a room's default rules, and the
 * damping of answers said in a channel. The commands themselves:
 * cmd_table.h, cmd_results.h, cmd_play.h; their table and dispatch:
 * commands.h.
 */
#ifndef HEARTS_BOT_MANAGER_CMD_H
#define HEARTS_BOT_MANAGER_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/manager/table.h"

#define MAX_WORDS 16

/* One command being handled. */
struct cmd {
    struct manager *m;
    struct chat_adapter *a;
    const char *room; /* NULL when private */
    const struct chat_user *u;
    int nwords;
    char *words[MAX_WORDS];
    const char *rest;              /* the text after the command word */
    char shown[RENDER_SHOWN_SIZE]; /* the caller's display name or nick,
                                      cleaned */
    bool game; /* a seated player's game action: never limited */
    char storage[512];
};

/* Splits text into words (blank-separated) into c->storage. */
void mgr_cmd_split_words(struct cmd *c, const char *text);
/* Text for the asker where they look: privately for a private command;
 * for a channel command by the adapter's notice (IRC: a NOTICE, shown
 * beside the channel), else privately. */
void mgr_cmd_tell(const struct cmd *c, const char *text,
                  enum chat_priority prio);
/* A reply to the asker (mgr_cmd_tell); chatter waits behind the game's
 * lines. */
void mgr_cmd_reply(const struct cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The language of replies to the asker: their own if they chose one,
 * else the room's: the command's, or for a private command that of the
 * table they sit at (lang.h's mgr_lang_person). */
int mgr_cmd_lang_of(const struct cmd *c);
/* A reply (as mgr_cmd_reply) of catalogue message id in the asker's
 * language, its placeholders from struct msg_arg values up to MSG_END
 * (bot/common/msg.h):
 *     mgr_cmd_replym(c, M("No table at {room}."), MSG_S("room", r), MSG_END);
 */
void mgr_cmd_replym(const struct cmd *c, const char *id, ...);
/* The same for a message with a plural (MN): the form for n. */
void mgr_cmd_replymn(const struct cmd *c, const char *one, const char *many,
                     unsigned long n, ...);
/* A reply of several lines ('\n' between them), a message a line. */
void mgr_cmd_reply_lines(const struct cmd *c, const char *text);
/* The command prefix of the config ("!"). */
const char *mgr_cmd_prefix(const struct manager *m);
/* Whether u is one of the config's admins (a hostmask or an account). */
bool mgr_cmd_is_admin(const struct manager *m, const struct chat_user *u);
/* The seat this person holds at t, or -1. */
int mgr_cmd_seat_of(const struct table *t, const struct chat_user *u);
/* The caller is named as their seat shows them (unique at the table). */
void mgr_cmd_shown_as_seat(struct cmd *c, const struct table *t, int s);
/* The default rules of a room: its own from the config, else the bot's. */
const char *mgr_cmd_room_rules(const struct manager *m,
                               const struct chat_adapter *a, const char *room);
/* Whether `text`, the answer to a command asked in a room, is said in
 * the room: not if the room heard the same text within channel_repeat
 * seconds (`e` keeps what it heard), nor for a private command. Otherwise
 * the asker gets it (mgr_cmd_tell), never nothing. */
bool mgr_cmd_room_hears(const struct cmd *c, struct limit_echo *e,
                        const char *text);

#endif
