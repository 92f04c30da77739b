/*
 * The commands about the person asking (cmd_person.h).
 */
#include "bot/manager/cmd_person.h"

#include <string.h>
#include <strings.h>

#include "bot/common/msg.h"
#include "bot/manager/lang.h"
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
    int l = forget ? mgr_lang_room(c->m, c->a, c->room) : msg_lang_find(word);
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
    if (rc > 0) {
        strbuf_addc(&sb, ' ');
        msg_add(&sb, l,
                M("It holds until I restart: it could not be saved "
                  "({reason})."),
                MSG_S("reason", err), MSG_END);
    }
    reply(c, &sb);
}
