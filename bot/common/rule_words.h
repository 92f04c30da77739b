/*
 * The engine's values in words, in any language of the catalogue: what is
 * wrong with a rules text or a deal (struct engine_error), why an action
 * was refused (enum engine_refusal), what a preset is. The engine builds
 * no text for people; every word of it is here, through the message
 * catalogue (msg.h). English (MSG_EN) is the text for logs and operators.
 *
 * A library of its own over the engine and the catalogue, so that the
 * record reader and the tools, which the game manager links, word the
 * same errors the same way.
 */
#ifndef HEARTS_COMMON_RULE_WORDS_H
#define HEARTS_COMMON_RULE_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/common/strbuf.h"
#include "engine/engine.h"

/* Room for any error in words (its typed word included). */
#define RULE_WORDS_SIZE 512

/* Appends the error ("unknown option 'tagret' (did you mean 'target'?)")
 * in lang: a clause without a capital or a full stop, to stand after
 * "Those rules won't do: ". Nothing for ENGINE_ERR_NONE. Returns false if
 * the builder is cut. */
bool rule_words_error(struct strbuf *sb, int lang,
                      const struct engine_error *e);

/* Appends why an action was refused, in a few words ("must follow
 * suit"), in lang. */
bool rule_words_refusal(struct strbuf *sb, int lang, enum engine_refusal why);

/* Appends what a preset is, in a line ("pass left, right, across, hold;
 * 2C leads; ..."), in lang; nothing for a bad index. */
bool rule_words_preset(struct strbuf *sb, int lang, int preset);

/* rule_words_error and rule_words_refusal into buf (len bytes, cut like
 * a strbuf), for a printf or a log line; they return buf. */
const char *rule_words_error_text(char *buf, size_t len, int lang,
                                  const struct engine_error *e);
const char *rule_words_refusal_text(char *buf, size_t len, int lang,
                                    enum engine_refusal why);

#endif
