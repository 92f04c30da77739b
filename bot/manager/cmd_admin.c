/*
 * The admins' commands (cmd_admin.h).
 */
#include "bot/manager/cmd_admin.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/manager/cmd_table.h"
#include "bot/manager/presence.h"
#include "bot/manager/say.h"
#include "bot/manager/turn.h"

/* Who the caller is, for the log: "nick (user@host, account NAME)". */
static const char *who(const struct cmd *c, char *out, size_t outlen)
{
    const struct chat_user *u = c->u;
    if (u->account && *u->account)
        snprintf(out, outlen, "%s (%s, account %s)", u->nick, u->id,
                 u->account);
    else
        snprintf(out, outlen, "%s (%s)", u->nick, u->id);
    return out;
}

/* Whether the caller is an admin; anyone else is told so, and the try
 * is logged. */
static bool admin_only(struct cmd *c)
{
    char by[512];
    if (mgr_cmd_is_admin(c->m, c->u))
        return true;
    log_info("%s: %s is no admin: refused", c->words[0], who(c, by, sizeof by));
    mgr_cmd_replym(c, M("Only an admin can do that."), MSG_END);
    return false;
}

void mgr_cmd_seat(struct cmd *c)
{
    if (!admin_only(c))
        return;
    bool computer = c->nwords == 3 && strcasecmp(c->words[2], "computer") == 0;
    bool back = c->nwords == 3 && strcasecmp(c->words[2], "back") == 0;
    if (!computer && !back) {
        /* TRANSLATORS: {prefix} is the command prefix ("!"): keep
         * "{prefix}seat", "computer" and "back" as they are; NICK stands
         * for a person's nick. */
        mgr_cmd_replym(c,
                       M("Say {prefix}seat NICK computer, or {prefix}seat "
                         "NICK back."),
                       MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
        return;
    }
    char nick[64];
    snprintf(nick, sizeof nick, "%.40s", c->words[1]);
    int s;
    struct table *t = mgr_table_of_person(c->m, c->a, nick, &s);
    if (!t || !t->playing) {
        /* TRANSLATORS: {name} is a nick as it was typed. */
        mgr_cmd_replym(c, M("{name} plays in no game here."),
                       MSG_S("name", nick), MSG_END);
        return;
    }
    struct seat *st = &t->seats[s];
    char label[256], by[512];
    mgr_room_label(t->a, t->room, label, sizeof label);
    if (computer) {
        if (st->away) {
            mgr_cmd_replym(c, M("A computer player plays for {name} already."),
                           MSG_S("name", st->shown), MSG_END);
            return;
        }
        log_info("table %s: admin %s hands %s's seat to a computer player",
                 t->room, who(c, by, sizeof by), st->shown);
        st->away = true;
        st->timeouts = 0;
        /* their turn, if it is, is the computer's now; at "back" they are
         * prompted again */
        if (t->prompted_seat == s)
            t->prompted_seat = -1;
        /* a grace period running ends in nothing more to say */
        loop_cancel(t->m->loop, st->grace_timer);
        st->grace_timer = 0;
        /* TRANSLATORS: {admin} is the admin who did it, {player} whose
         * seat it is; "back" is a command: keep it. */
        mgr_table_saym(t,
                       M("{admin} hands {player}'s seat to a computer player "
                         "until they tell me \"back\"."),
                       MSG_S("admin", c->shown), MSG_S("player", st->shown),
                       MSG_END);
        /* TRANSLATORS: {room} is where the table is ("#hearts"); "back"
         * is a command: keep it. */
        mgr_table_tellm(t, s, CHAT_HIGH,
                        M("An admin handed your seat at {room} to a computer "
                          "player: tell me \"back\" to play again."),
                        MSG_S("room", label), MSG_END);
        mgr_advance(t);
        return;
    }
    if (!st->away) {
        mgr_cmd_replym(c, M("{name} plays their seat already."),
                       MSG_S("name", st->shown), MSG_END);
        return;
    }
    if (st->gone) {
        /* gone stays set until they say "back", even once they are here
         * again: only they can tell they are at the keyboard */
        /* TRANSLATORS: "back" is a command: keep it. */
        mgr_cmd_replym(c,
                       M("{name} left, and must tell me \"back\" themselves "
                         "to play again."),
                       MSG_S("name", st->shown), MSG_END);
        return;
    }
    log_info("table %s: admin %s gives %s their seat back", t->room,
             who(c, by, sizeof by), st->shown);
    /* TRANSLATORS: {admin} is the admin who did it, {player} whose seat
     * it is. */
    mgr_table_saym(t, M("{admin} gives {player} their seat back."),
                   MSG_S("admin", c->shown), MSG_S("player", st->shown),
                   MSG_END);
    mgr_table_back(t, s);
}

/* The open table of a room named as its ID or as people know it
 * (mgr_room_label: a Matrix room's name or alias), or NULL. */
static struct table *table_named(struct cmd *c, const char *room)
{
    struct table *t = mgr_table_find(c->m, c->a, room);
    for (int i = 0; !t && i < c->m->ntables; i++) {
        struct table *o = c->m->tables[i];
        char label[256];
        if (o->a == c->a && !o->closing &&
            strcasecmp(mgr_room_label(o->a, o->room, label, sizeof label),
                       room) == 0)
            t = o;
    }
    return t;
}

void mgr_cmd_end(struct cmd *c)
{
    if (!admin_only(c))
        return;
    const char *room = c->nwords > 1 ? c->words[1] : c->room;
    if (!room || c->nwords > 2) {
        /* TRANSLATORS: ROOM stands for a channel or room ("#hearts"):
         * "end" is a command: keep it. */
        mgr_cmd_replym(c, M("Say which table: end ROOM (\"end #hearts\")."),
                       MSG_END);
        return;
    }
    struct table *t = table_named(c, room);
    char label[256], by[512];
    if (!t) {
        snprintf(label, sizeof label, "%.60s", room);
        /* TRANSLATORS: {room} is a channel or room as it was typed. */
        mgr_cmd_replym(c, M("No table at {room}."), MSG_S("room", label),
                       MSG_END);
        return;
    }
    mgr_room_label(t->a, t->room, label, sizeof label);
    bool playing = t->playing;
    log_info("table %s: admin %s ends the %s%s", t->room, who(c, by, sizeof by),
             playing ? "game" : "table", t->paused ? " (paused)" : "");
    bool here = c->room && t == mgr_table_find(c->m, c->a, c->room);
    /* TRANSLATORS: {player} is the admin who ended it. */
    mgr_cmd_stop_with(t,
                      playing ? M("An admin, {player}, ends the game: it ends "
                                  "unscored.")
                              : M("An admin, {player}, closes the table."),
                      c->shown);
    if (here)
        return; /* the asker heard it */
    /* TRANSLATORS: {room} is where the table was ("#hearts"). */
    mgr_cmd_replym(c,
                   playing ? M("The game at {room} ends unscored.")
                           : M("The table at {room} is closed."),
                   MSG_S("room", label), MSG_END);
}

void mgr_cmd_reload(struct cmd *c)
{
    if (!admin_only(c))
        return;
    struct manager *m = c->m;
    char by[512];
    if (!m->reload) {
        mgr_cmd_replym(c, M("There is no configuration file to reload here."),
                       MSG_END);
        return;
    }
    log_info("admin %s reloads the configuration", who(c, by, sizeof by));
    char err[512];
    if (m->reload(m->reload_ctx, err, sizeof err)) {
        /* TRANSLATORS: {error} says what is wrong with the file, in
         * English (for the bot's operator). */
        mgr_cmd_replym(c,
                       M("The configuration was not reloaded (the running one "
                         "stays): {error}"),
                       MSG_S("error", err), MSG_END);
        return;
    }
    mgr_cmd_replym(c,
                   M("The configuration is reloaded (network settings apply "
                     "at the next start)."),
                   MSG_END);
}
