/*
 * !replay and "more" (cmd_replay.h).
 */
#include "bot/manager/cmd_replay.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/manager/lang.h"
#include "bot/manager/limit.h"
#include "bot/manager/replay.h"
#include "bot/manager/text.h"
#include "storage/archive.h"

/* How long a game ID shown or typed is at least (hex digits). */
#define REPLAY_ID_MIN 6

/* Sends the next chunk of r to the asker, privately: as many lines as
 * their answer limit has answers for (the command itself paid the
 * first), at most REPLAY_CHUNK_LINES; the last says how many are left,
 * or that the replay is over (then it is closed). */
static void send_chunk(struct cmd *c, struct replay *r)
{
    const struct config *cfg = c->m->cfg;
    struct limit_rules rules = {.burst = cfg->reply_burst,
                                .interval_ms = cfg->reply_interval * 1000LL};
    int64_t now = loop_now(c->m->loop);
    int left = r->text.n - r->next;
    int k = 1;
    while (k < REPLAY_CHUNK_LINES && k < left) {
        if (!c->a->solo) {
            if (!limit_take(c->m->limit, &rules, c->a->network, c->u->id, now))
                break;
            /* while the games' lines wait, everyone's chatter shares a
             * budget too (within_limit's) */
            if (!c->a->ops->idle(c->a) &&
                !limit_shared(c->m->limit, cfg->chatter_burst,
                              cfg->chatter_interval * 1000LL, now))
                break;
        }
        k++;
    }
    for (int i = 0; i < k && r->next < r->text.n; i++) {
        const char *line = r->text.lines[r->next++];
        if (i + 1 < k) {
            c->a->ops->tell(c->a, c->u->nick, line, CHAT_LOW);
            continue;
        }
        char text[MGR_TEXT_SIZE];
        struct strbuf sb;
        strbuf_init(&sb, text, sizeof text);
        strbuf_addf(&sb, "%s ", line);
        int rest = r->text.n - r->next;
        if (rest)
            msg_addn(&sb, r->lang,
                     /* TRANSLATORS: after a chunk of !replay's lines: how many
                      * are left and what to type for the next ones ("more"
                      * stays as it is: it is what the bot reads) */
                     MN("[{n} line left: say \"more\"]",
                        "[{n} lines left: say \"more\"]"),
                     (unsigned long)rest, MSG_I("n", rest), MSG_END);
        else
            /* TRANSLATORS: after !replay's last line */
            msg_add(&sb, r->lang, M("[end of the replay]"), MSG_END);
        c->a->ops->tell(c->a, c->u->nick, text, CHAT_LOW);
    }
    r->at = now;
    if (r->next >= r->text.n)
        mgr_replay_close(r);
}

void mgr_cmd_more(struct cmd *c)
{
    struct replay *r = mgr_replay_find(c->m->replays, c->a->network, c->u->id,
                                       loop_now(c->m->loop));
    if (!r) {
        mgr_cmd_replym(c,
                       /* TRANSLATORS: "more" with no replay open; {prefix} is
                        * the command prefix ("!") */
                       M("No replay is open for you: {prefix}replay in a "
                         "channel starts one."),
                       MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
        return;
    }
    send_chunk(c, r);
}

bool mgr_cmd_is_more(const struct cmd *c)
{
    if (c->nwords == 1 && !c->room)
        return strcasecmp(c->words[0], "more") == 0;
    return c->nwords == 2 && strcasecmp(c->words[0], "replay") == 0 &&
           strcasecmp(c->words[1], "more") == 0;
}

/* The room a replay is of: the channel, or privately the one where the
 * asker sits; NULL after a refusal. */
const char *mgr_replay_room(struct cmd *c)
{
    if (c->room)
        return c->room;
    int seat;
    struct table *t = mgr_table_of_person(c->m, c->a, c->u->nick, &seat);
    if (t)
        return t->room;
    /* TRANSLATORS: {prefix} is the command prefix ("!") */
    mgr_cmd_replym(c, M("Ask in the channel ({prefix}replay there)."),
                   MSG_S("prefix", mgr_cmd_prefix(c->m)), MSG_END);
    return NULL;
}

/* The game a word names: a number counting back (*back) or an ID's
 * first digits (into id, lower case). False if it is neither. */
bool mgr_replay_game_word(const char *w, int *back, char *id, size_t idlen)
{
    size_t len = strlen(w);
    if (len <= 4 && strspn(w, "0123456789") == len) {
        *back = atoi(w);
        return *back >= 1 && *back <= REPLAY_BACK_MAX;
    }
    if (len < REPLAY_ID_MIN || len > 16 ||
        strspn(w, "0123456789abcdefABCDEF") != len || len >= idlen)
        return false;
    for (size_t i = 0; i <= len; i++)
        id[i] = (char)tolower((unsigned char)w[i]);
    return true;
}

/* The directory of the room's archive, if it has one: false (and the
 * asker told nothing has finished there) if not. */
bool mgr_replay_archive_dir(struct cmd *c, const char *room, char *dir,
                            size_t len)
{
    char err[400];
    bool missing = false;
    const char *data = c->m->cfg->data_dir;
    if (!data ||
        mgr_room_dir(c->m, c->a, room, false, dir, len, err, sizeof err) ||
        file_dir_check(data, dir, &missing, err, sizeof err) || missing) {
        if (data && !missing)
            log_warn("replay in %s: %s", room, err);
        mgr_cmd_replym(c, M("No game has finished here yet."), MSG_END);
        return false;
    }
    return true;
}

/* Finds the game asked for in dir's results: false after a refusal. */
bool mgr_replay_find_game(struct cmd *c, const char *dir, const char *id,
                          int back, struct archive_result *r)
{
    char err[400];
    int finished = 0;
    int rc = archive_find(dir, id[0] ? id : NULL, back, r, &finished, err,
                          sizeof err);
    if (rc < 0) {
        log_warn("replay: %s", err);
        mgr_cmd_replym(c,
                       M("The results here can't be read (see the bot's "
                         "log)."),
                       MSG_END);
        return false;
    }
    if (rc == ARCHIVE_AMBIGUOUS) {
        mgr_cmd_replym(c,
                       /* TRANSLATORS: !replay with a game ID's first digits
                        * ({id}) that several games' IDs start with */
                       M("More than one game here starts with {id}: say "
                         "more of its ID."),
                       MSG_S("id", id), MSG_END);
        return false;
    }
    if (rc == ARCHIVE_NONE && id[0]) {
        /* TRANSLATORS: !replay with a game ID ({id}) not among this
         * channel's finished games */
        mgr_cmd_replym(c, M("No game {id} is archived here."), MSG_S("id", id),
                       MSG_END);
        return false;
    }
    if (rc == ARCHIVE_NONE && finished == 0) {
        mgr_cmd_replym(c, M("No game has finished here yet."), MSG_END);
        return false;
    }
    if (rc == ARCHIVE_NONE) {
        mgr_cmd_replymn(
            c,
            /* TRANSLATORS: !replay N with N beyond the games kept here */
            MN("Only {n} game has finished here.",
               "Only {n} games have finished here."),
            (unsigned long)finished, MSG_I("n", finished), MSG_END);
        return false;
    }
    if (!r->finished) {
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: !replay of a game stopped before its end */
            M("Game {id} was stopped before its end: it has no "
              "replay."),
            MSG_S("id", r->game), MSG_END);
        return false;
    }
    return true;
}

void mgr_cmd_replay(struct cmd *c)
{
    if (mgr_cmd_is_more(c)) {
        mgr_cmd_more(c);
        return;
    }
    const char *p = mgr_cmd_prefix(c->m);
    int back = 1;
    char id[17] = "";
    if (c->nwords > 2 ||
        (c->nwords == 2 &&
         !mgr_replay_game_word(c->words[1], &back, id, sizeof id))) {
        mgr_cmd_replym(
            c,
            /* TRANSLATORS: !replay with a word that is no game; {prefix} is
             * the command prefix ("!"), {n} the most games it counts back */
            M("Say which game: its ID as {prefix}last shows it, "
              "or how many games back (1 is the last, at most "
              "{n}); nothing for the last."),
            MSG_S("prefix", p), MSG_I("n", REPLAY_BACK_MAX), MSG_END);
        return;
    }
    const char *room = mgr_replay_room(c);
    if (!room)
        return;
    /* never a game still on: its hands are secret */
    struct table *t = mgr_table_find(c->m, c->a, room);
    if (id[0] && t && strncmp(t->game_id, id, strlen(id)) == 0) {
        mgr_cmd_replym(c,
                       /* TRANSLATORS: !replay of the game being played now */
                       M("That game is still on: its replay comes once it "
                         "is over."),
                       MSG_END);
        return;
    }
    char dir[FILE_PATH_MAX];
    struct archive_result r;
    if (!mgr_replay_archive_dir(c, room, dir, sizeof dir) ||
        !mgr_replay_find_game(c, dir, id, back, &r))
        return;
    char err[400], *json;
    size_t len;
    struct replay_text text = {0};
    struct replay_about about = {.time = r.time};
    snprintf(about.id, sizeof about.id, "%s", r.game);
    struct render_look look = mgr_look_person(c->m, c->a, c->u, room);
    int rc = archive_record_of(dir, &r, &json, &len, err, sizeof err);
    if (rc == 0) {
        rc = mgr_replay_render(json, len, &about, look, &text, err, sizeof err);
        free(json);
    }
    if (rc == 1) {
        /* TRANSLATORS: !replay of a game of hundreds of hands */
        mgr_cmd_replym(c, M("That game is too long to replay here."), MSG_END);
        return;
    }
    if (rc) {
        log_warn("replay of game %s in %s: %s", r.game, room, err);
        mgr_cmd_replym(c,
                       M("That game's record can't be read (see the bot's "
                         "log)."),
                       MSG_END);
        return;
    }
    struct replay *open =
        mgr_replay_open(c->m->replays, c->a->network, c->u->id, &text,
                        look.lang, loop_now(c->m->loop));
    send_chunk(c, open);
}
