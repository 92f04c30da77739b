/*
 * The IRC adapter: one network of the config as a chat_adapter (chat.h).
 * It connects (and reconnects with backoff), registers, identifies to
 * NickServ, joins the configured channels, keeps the link alive, paces
 * output against the server's flood control, and turns PRIVMSG, JOIN,
 * PART, KICK, QUIT and NICK into neutral events. NOTICEs are never
 * answered; CTCP VERSION and PING are, rate-limited.
 *
 * Inside: connection.c (libircclient on our loop), queue.c (priorities and
 * token bucket), flood.c (lag-driven pacing), split.c (sanitizing and
 * splitting), nick.c and isupport.c (casemapping, origins, alternative
 * nicks), accounts.c, backoff.c, ctcp.c; and the adapter itself, cut by
 * concern as ircad.h lists: output.c, link.c, channels.c, identity.c,
 * inbound.c (the command table), adapter.c (the ops and lifecycle).
 */
#ifndef HEARTS_IRC_ADAPTER_H
#define HEARTS_IRC_ADAPTER_H

#include <stdbool.h>
#include <stdint.h>

#include "bot/common/chat.h"
#include "adapters/irc/irc_config.h"
#include "adapters/irc/timing.h"
#include "bot/common/loop.h"

/*
 * A new adapter for `cfg` (copied: cfg may be freed afterwards), reporting
 * to on_event(ctx, ...). It does nothing until ops->start. `network` is
 * cfg->name and `style` CHAT_STYLE_IRC. Never NULL; aborts if out of
 * memory. A config that cannot work (no host, a bad port, a nick that
 * cannot be sent, an invalid channel name) is logged here and makes start
 * fail.
 *
 * The ops: start connects (returns 0, and a failed attempt is retried with
 * backoff; -1 for an unusable config or after stop); say and tell queue
 * PRIVMSGs; same_nick compares under the server's CASEMAPPING.
 *
 * stop ends the adapter without blocking: what was queued before it goes
 * out as the flood control allows (LOW lines are dropped), then QUIT with
 * the goodbye text, then the link closes; no events, no reconnect and no
 * new lines after it. idle is true when nothing waits to be sent and, once
 * stop was called, when the QUIT has gone and the link is closed: run the
 * loop until then (or a deadline). free frees; while a stop is still
 * draining it sends the QUIT at once and drops the rest; without stop it
 * closes without QUIT. free must not be called from on_event; the others
 * may.
 */
struct chat_adapter *ircad_new(struct loop *l, const struct irc_config *cfg,
                               chat_event_fn on_event, void *ctx);

/* The nick the bot has on the network now (the configured one, or an
 * alternative while that is taken). Valid until the next loop round. */
const char *ircad_nick(const struct chat_adapter *a);

/* The pause between lines now (it follows the server's lag, flood.h). */
int64_t ircad_interval_ms(const struct chat_adapter *a);

/* The fastest pause the lag may bring it down to: flood_min_interval_ms,
 * or with 0 what the server's software allows (flood.h). */
int64_t ircad_floor_ms(const struct chat_adapter *a);

/* Replaces the timings (call before start). */
void ircad_set_timing(struct chat_adapter *a, const struct ircad_timing *t);

/* The bot's data directory, where the channels the bot was invited to
 * are remembered (remembered.h); read now, so call it before start.
 * Without it (NULL) invited channels are forgotten at a restart. */
void ircad_set_data_dir(struct chat_adapter *a, const char *data_dir);

/* A reload's channels for this network: configured channels new in
 * `cfg` are joined (an invited one becomes configured), those gone from
 * it are left with a goodbye unless busy(ctx, a, room) (a game is on:
 * the bot stays until the next start); invited channels stay. */
void ircad_reload_channels(struct chat_adapter *a, const struct irc_config *cfg,
                           bool (*busy)(void *ctx, struct chat_adapter *a,
                                        const char *room),
                           void *ctx);

/* Tests only: addresses for the host name, as "name:port:addr[,addr]"
 * (libcurl's CURLOPT_RESOLVE), instead of asking the resolver; NULL: the
 * resolver. Copied; call before start. */
void ircad_set_test_resolve(struct chat_adapter *a, const char *entry);

#endif
