/*
 * Who the bot is on the IRC network, and who the server is (ircad.h):
 * registration (001), nicks refused before it (alternatives), the
 * configured nick regained when it frees up, NickServ IDENTIFY (only to
 * the services client the config names, checked by USERHOST), USERHOST
 * questions for the manager (verify), and the server's software (002,
 * 004: the pacing floor) and features (005).
 *
 * The handlers of lines take a line whose command table row (inbound.c)
 * has checked the parameter count; a parameter may still be NULL.
 */
#ifndef HEARTS_IRC_IDENTITY_H
#define HEARTS_IRC_IDENTITY_H

#include "adapters/irc/ircad.h"

/* Asks the server who `nick` is (USERHOST); the answer (302) comes in
 * order. Too many questions, or a nick that cannot be asked about: logged
 * and unanswered. */
void ircad_identity_ask(struct ircad *a, enum query_kind kind,
                        const char *nick);

/* Whoever had our nick quit or changed nick: ask for it at once rather
 * than at the next regain timer. */
void ircad_identity_squatter_gone(struct ircad *a, const char *nick);

/* Our own NICK echo: we are `to` now (announced in the channels when the
 * configured nick comes back; regained later when we lost it). */
void ircad_identity_renamed(struct ircad *a, const char *from, const char *to);

/* The numerics: RPL_WELCOME (001), RPL_YOURHOST (002), RPL_MYINFO (004),
 * RPL_ISUPPORT (005), RPL_USERHOST (302), and a refused nick (432, 433,
 * 436, 437). */
void ircad_identity_welcome(struct ircad *a, const struct ircad_msg *m);
void ircad_identity_yourhost(struct ircad *a, const struct ircad_msg *m);
void ircad_identity_myinfo(struct ircad *a, const struct ircad_msg *m);
void ircad_identity_isupport(struct ircad *a, const struct ircad_msg *m);
void ircad_identity_userhost(struct ircad *a, const struct ircad_msg *m);
void ircad_identity_nick_refused(struct ircad *a, const struct ircad_msg *m);

#endif
