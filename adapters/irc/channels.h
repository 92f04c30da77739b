/*
 * The IRC adapter's channels and their members (ircad.h): joining the
 * configured channels (and rejoining after a kick), telling them which
 * nick the bot has, the JOIN, PART and KICK lines, and who is logged in
 * to which services account (accounts.h), from WHOX, extended-join,
 * account-notify and the account tag; who is in which channel (NAMES,
 * JOIN, PART, KICK, QUIT), for the manager's `present`.
 *
 * The handlers of lines take a line whose command table row (inbound.c)
 * has checked the parameter count; a parameter may still be NULL.
 */
#ifndef HEARTS_IRC_CHANNELS_H
#define HEARTS_IRC_CHANNELS_H

#include <stdbool.h>

struct ircad;
struct ircad_msg;

/* Whether `name` is a channel name the bot joins: its first character
 * one of `types` (the server's CHANTYPES, or "#&" where they are not
 * known yet), at most CHANNEL_NAME_MAX bytes, and a valid target (no
 * space, comma or control character). */
bool ircad_channel_name_ok(const char *name, const char *types);

/* The index of a configured channel, or -1. */
int ircad_channels_index(const struct ircad *a, const char *room);

/* Adds `room` to the bot's channels (invited: joined by an invite),
 * not yet joined; its index, or -1 if there are CHANNELS_MAX already.
 * The caller has checked the name. */
int ircad_channels_add(struct ircad *a, const char *room, bool invited);

/* Whether the bot is to be in `room`: one of its channels, not left by
 * a !part. */
bool ircad_channels_serves(const struct ircad *a, const char *room);

/* Leaves `room` (PART with `why`, after what is queued for it) and
 * forgets it: not rejoined, no longer remembered if it was invited. */
void ircad_channels_part(struct ircad *a, const char *room, const char *why);

/* JOINs for the configured channels (all, or the kicked ones), as few
 * lines as fit: each line costs a token. */
void ircad_channels_join(struct ircad *a, bool only_kicked);

/* Tells a channel (`room`), or every channel we are in (NULL), which nick
 * the bot has: people who /msg the configured nick would reach whoever
 * took it. */
void ircad_channels_announce_nick(struct ircad *a, const char *room);

/* The events of this line carry the tracked account of `nick` (or none). */
void ircad_channels_account_of(struct ircad *a, const char *nick);

/* The account the events of this line carry: with account-tag, the
 * line's tag (none: logged out); else what the tracker knows, which
 * account-notify keeps current; else none. A person's tag also updates
 * the tracker. Runs for every line, after the row's `track`. */
void ircad_channels_line_account(struct ircad *a, const struct ircad_msg *m);

/* What a line tells of accounts before its events go out (the rows'
 * `track`): JOIN (extended-join; our own JOIN asks WHOX), ACCOUNT
 * (account-notify), RPL_WHOISACCOUNT (330), RPL_WHOSPCRPL (354) to our
 * WHOX; and who is in a channel: RPL_NAMREPLY (353). */
void ircad_channels_track_join(struct ircad *a, const struct ircad_msg *m);
void ircad_channels_track_account(struct ircad *a, const struct ircad_msg *m);
void ircad_channels_track_whois(struct ircad *a, const struct ircad_msg *m);
void ircad_channels_track_whox(struct ircad *a, const struct ircad_msg *m);
void ircad_channels_track_names(struct ircad *a, const struct ircad_msg *m);

/* The events (the rows' `handle`): someone joined, parted or was kicked
 * (CHAT_JOIN, CHAT_PART, CHAT_KICK), or it was us; a channel refused us
 * (471, 473, 474, 475, 477: logged). */
void ircad_channels_on_join(struct ircad *a, const struct ircad_msg *m);
void ircad_channels_on_part(struct ircad *a, const struct ircad_msg *m);
void ircad_channels_on_kick(struct ircad *a, const struct ircad_msg *m);
void ircad_channels_refused(struct ircad *a, const struct ircad_msg *m);

/* Who left, after the line's events went out (the rows' `after`): KICK,
 * PART, QUIT, NICK; what waited for a person the bot can no longer follow
 * is dropped. */
void ircad_channels_after_kick(struct ircad *a, const struct ircad_msg *m);
void ircad_channels_after_part(struct ircad *a, const struct ircad_msg *m);
void ircad_channels_after_quit(struct ircad *a, const struct ircad_msg *m);
void ircad_channels_after_nick(struct ircad *a, const struct ircad_msg *m);

#endif
