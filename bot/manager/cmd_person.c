/*
 * The commands about the person asking (cmd_person.h).
 */
#include "bot/manager/cmd_person.h"

#include <string.h>
#include <strings.h>

#include "bot/common/msg.h"
#include "bot/manager/lang.h"
#include "bot/manager/notify.h"
#include "bot/manager/render.h"
#include "bot/manager/text.h"

/* "en (English), de (Deutsch), ...": each language by its own name. */
static void add_choices(struct strbuf *sb)
{
    for (int l = 0; l < msg_lang_count(); l++)
        strbuf_addf(sb, "%s%s (%s)", l ? ", " : "", msg_lang_code(l),
                    msg_lang_name(l));
}

static void reply(struct cmd *c, const struct strbuf *sb)
{
    mgr_cmd_reply(c, "%s", sb->buf);
}

/* After a setting's change: that it holds for this run only when it
 * could not be saved (mgr_people_set returned rc > 0, why in err). */
static void held_only(struct strbuf *sb, int lang, int rc, const char *err)
{
    if (rc <= 0)
        return;
    strbuf_addc(sb, ' ');
    msg_add(sb, lang,
            M("It holds until I restart: it could not be saved ({reason})."),
            MSG_S("reason", err), MSG_END);
}

void mgr_cmd_lang(struct cmd *c)
{
    char text[MGR_TEXT_SIZE], choices[256];
    struct strbuf sb, ch;
    strbuf_init(&sb, text, sizeof text);
    strbuf_init(&ch, choices, sizeof choices);
    add_choices(&ch);
    int now = mgr_lang_person(c->m, c->a, c->u, c->room);
    if (c->nwords < 2) {
        msg_add(&sb, now,
                M("I speak {language} with you. Choose another with "
                  "\"lang CODE\": {choices}."),
                MSG_S("language", msg_lang_name(now)),
                MSG_S("choices", choices), MSG_END);
        reply(c, &sb);
        return;
    }
    const char *word = c->words[1];
    bool forget = strcasecmp(word, "default") == 0;
    int l = forget
                ? mgr_lang_room(c->m, c->a,
                                mgr_room_of_person(c->m, c->a, c->u, c->room))
                : msg_lang_find(word);
    if (l < 0) {
        msg_add(&sb, now,
                M("I do not know the language \"{word}\". I speak: "
                  "{choices}."),
                MSG_S("word", word), MSG_S("choices", choices), MSG_END);
        reply(c, &sb);
        return;
    }
    char err[256];
    int rc = mgr_people_set(c->m, c->a, c->u, "lang",
                            forget ? NULL : msg_lang_code(l), err, sizeof err);
    if (rc < 0) {
        msg_add(&sb, now, M("Your language could not be changed: {reason}."),
                MSG_S("reason", err), MSG_END);
        reply(c, &sb);
        return;
    }
    if (forget)
        msg_add(&sb, l,
                M("I speak the channel's language with you again: "
                  "{language}."),
                MSG_S("language", msg_lang_name(l)), MSG_END);
    else
        msg_add(&sb, l, M("From now on I speak {language} with you."),
                MSG_S("language", msg_lang_name(l)), MSG_END);
    held_only(&sb, l, rc, err);
    reply(c, &sb);
}

/* "Q♠ 10♥" as the asker would see it with card mode `cards`. */
static void example(struct cmd *c, enum render_cards cards, char *buf,
                    size_t len)
{
    static const uint8_t two[2] = {ENGINE_CARD(ENGINE_SPADES, 10),
                                   ENGINE_CARD(ENGINE_HEARTS, 8)};
    struct render_look look = mgr_look_person(c->m, c->a, c->u, c->room);
    look.cards = cards;
    render_cards(buf, len, two, 2, look);
}

void mgr_cmd_cards(struct cmd *c)
{
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    int lang = mgr_cmd_lang_of(c);
    char shown[3][128];
    for (int k = 0; k < 3; k++)
        example(c, (enum render_cards)k, shown[k], sizeof shown[k]);
    if (c->nwords < 2) {
        enum render_cards now = mgr_cards_person(c->m, c->a, c->u);
        if (now == RENDER_CARDS_ASCII)
            msg_add(&sb, lang, M("I show you cards in ASCII letters: {cards}."),
                    MSG_S("cards", shown[now]), MSG_END);
        else if (now == RENDER_CARDS_WORDS)
            msg_add(&sb, lang,
                    M("I show you cards with the suits' names: {cards}."),
                    MSG_S("cards", shown[now]), MSG_END);
        else
            msg_add(&sb, lang,
                    M("I show you cards with the suits' symbols: {cards}."),
                    MSG_S("cards", shown[now]), MSG_END);
        strbuf_addc(&sb, ' ');
        /* TRANSLATORS: after how the bot shows the person cards; the
         * commands and their words stay English. {symbols}, {ascii} and
         * {words} are the same two cards shown each way. */
        msg_add(&sb, lang,
                M("Choose with \"cards symbols\" ({symbols}), \"cards "
                  "ascii\" ({ascii}, for clients without Unicode) or "
                  "\"cards words\" ({words}, for screen readers)."),
                MSG_S("symbols", shown[0]), MSG_S("ascii", shown[1]),
                MSG_S("words", shown[2]), MSG_END);
        reply(c, &sb);
        return;
    }
    const char *word = c->words[1];
    int mode = strcasecmp(word, "default") == 0 ? (int)RENDER_CARDS_SYMBOLS
                                                : mgr_cards_find(word);
    if (mode < 0) {
        /* TRANSLATORS: "symbols", "ascii" and "words" are what the person
         * types: not translated. {symbols}, {ascii} and {words} are two
         * cards shown each way. */
        msg_add(&sb, lang,
                M("I do not know the card mode \"{word}\". Choose symbols "
                  "({symbols}), ascii ({ascii}) or words ({words})."),
                MSG_S("word", word), MSG_S("symbols", shown[0]),
                MSG_S("ascii", shown[1]), MSG_S("words", shown[2]), MSG_END);
        reply(c, &sb);
        return;
    }
    char err[256];
    /* symbols are the default: nothing to keep */
    int rc = mgr_people_set(c->m, c->a, c->u, "cards",
                            mode == RENDER_CARDS_SYMBOLS
                                ? NULL
                                : mgr_cards_name((enum render_cards)mode),
                            err, sizeof err);
    if (rc < 0) {
        msg_add(&sb, lang,
                M("How you see cards could not be changed: {reason}."),
                MSG_S("reason", err), MSG_END);
        reply(c, &sb);
        return;
    }
    if (mode == RENDER_CARDS_ASCII)
        msg_add(&sb, lang,
                M("From now on I show you cards in ASCII letters: {cards}."),
                MSG_S("cards", shown[mode]), MSG_END);
    else if (mode == RENDER_CARDS_WORDS)
        msg_add(&sb, lang,
                M("From now on I show you cards with the suits' names: "
                  "{cards}."),
                MSG_S("cards", shown[mode]), MSG_END);
    else
        msg_add(&sb, lang,
                M("From now on I show you cards with the suits' symbols: "
                  "{cards}."),
                MSG_S("cards", shown[mode]), MSG_END);
    held_only(&sb, lang, rc, err);
    reply(c, &sb);
}

void mgr_cmd_notify(struct cmd *c)
{
    const char *p = mgr_cmd_prefix(c->m);
    if (c->a->solo || !c->room) {
        /* TRANSLATORS: at a terminal, where one person plays alone */
        mgr_cmd_replym(c, M("Nobody else plays here: there is no one to call."),
                       MSG_END);
        return;
    }
    bool on = c->nwords >= 2 && strcasecmp(c->words[1], "on") == 0;
    bool off = c->nwords >= 2 && strcasecmp(c->words[1], "off") == 0;
    if (c->nwords >= 2 && !on && !off) {
        /* TRANSLATORS: {prefix} is the command prefix ("!"): keep
         * "{prefix}notify on" and "{prefix}notify off". */
        mgr_cmd_replym(c, M("Say {prefix}notify on or {prefix}notify off."),
                       MSG_S("prefix", p), MSG_END);
        return;
    }
    if (!on && !off) {
        if (mgr_notify_is_on(c->m, c->a, c->room, c->u))
            /* TRANSLATORS: {prefix} is the command prefix ("!"): keep
             * "{prefix}notify off". */
            mgr_cmd_replym(c,
                           M("I call you when a table opens here and you are "
                             "in the channel. {prefix}notify off stops it."),
                           MSG_S("prefix", p), MSG_END);
        else
            mgr_cmd_replym(c,
                           M("I do not call you when a table opens here. "
                             "{prefix}notify on if you want me to."),
                           MSG_S("prefix", p), MSG_END);
        return;
    }
    char err[256];
    bool full;
    int rc =
        mgr_notify_set(c->m, c->a, c->room, c->u, on, &full, err, sizeof err);
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    int lang = mgr_cmd_lang_of(c);
    if (rc < 0) {
        if (full)
            msg_add(&sb, lang,
                    M("Too many people have asked to be called here "
                      "already."),
                    MSG_END);
        else
            msg_add(&sb, lang, M("That could not be changed: {reason}."),
                    MSG_S("reason", err), MSG_END);
        reply(c, &sb);
        return;
    }
    if (on)
        msg_add(&sb, lang,
                M("From now on I call you when a table opens here and you "
                  "are in the channel."),
                MSG_END);
    else
        msg_add(&sb, lang, M("I no longer call you when a table opens here."),
                MSG_END);
    held_only(&sb, lang, rc, err);
    reply(c, &sb);
}
