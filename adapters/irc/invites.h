/*
 * INVITE: who may move the bot into a channel ([[irc]] invites), the
 * channels it joined so remembered across restarts, and the bot user
 * mode (ircad.h).
 *
 * "admins": a bot admin (chat_adapter.is_admin: by mask, user@host or
 * account) may invite it anywhere. "ops": a bot admin, or an operator of
 * that channel (or higher rank: PREFIX), which the bot asks the server
 * without joining first: WHOIS the inviter, whose RPL_WHOISCHANNELS
 * (319) names the channel with an operator's prefix, matched under the
 * network's CASEMAPPING. "off": nobody. A refusal is told to the inviter
 * by NOTICE (the catalogue, in the bot's language) and logged. Invites
 * are answered at a capped rate, with at most INVITE_ASKS_MAX WHOIS in
 * flight: a flood of invites cannot make the bot flood the server.
 *
 * The handlers take a line whose command table row (inbound.c) has
 * checked the parameter count; a parameter may still be NULL.
 */
#ifndef HEARTS_IRC_INVITES_H
#define HEARTS_IRC_INVITES_H

#include <stdbool.h>

struct ircad;
struct ircad_msg;

/* The manager's ask_operator (a !part): WHOIS `nick`, and the answer as
 * CHAT_OPERATOR; at the invites' capped rate (beyond it: logged, no
 * answer). */
void ircad_invites_ask_operator(struct ircad *a, const char *room,
                                const char *nick, const char *id);

/* INVITE (me, #channel) from a person. */
void ircad_invites_on_invite(struct ircad *a, const struct ircad_msg *m);

/* RPL_WHOISCHANNELS (319: me, nick, "[prefixes]#chan ..."),
 * RPL_ENDOFWHOIS (318: me, nick), ERR_NOSUCHNICK (401: me, nick): the
 * answers to our WHOIS of an inviter. */
void ircad_invites_whois_channels(struct ircad *a, const struct ircad_msg *m);
void ircad_invites_whois_end(struct ircad *a, const struct ircad_msg *m);

/* A new connection: questions of the last one are dropped, and the bot
 * mode is not set yet. */
void ircad_invites_reset(struct ircad *a);

/* The server told its features (005): on a network with a BOT mode, it
 * is set on us once per connection (MODE nick +B). */
void ircad_invites_bot_mode(struct ircad *a);

#endif
