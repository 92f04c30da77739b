/*
 * The Matrix adapter: one [[matrix]] account of the config as a
 * chat_adapter (chat.h), on the client-server API over libcurl's multi
 * interface (http.c) on the bot's loop.
 *
 * It logs in (password) or uses the configured access token, keeping the
 * token, device ID, `since` token and transaction ID epoch in
 * DATA_DIR/<network>/matrix-session.json (session.c); joins the
 * configured rooms; long-polls /sync (sync.c) with a filter for what the
 * bot reads; turns room messages into CHAT_MESSAGE (room NULL for a
 * direct room: the private line), memberships into CHAT_JOIN, CHAT_PART
 * and CHAT_KICK; and sends what the bot says as m.notice, everything for
 * one room within one turn of the loop as one message (outbox.c). A
 * person's direct room is created on the first `tell` (createRoom with
 * the person invited, is_direct, trusted_private_chat), recorded in the
 * bot's m.direct account data (read, merge, write) and reused. Faults are
 * retried (retry.c): 429 waits retry_after_ms, 5xx and network faults
 * back off, a revoked token logs in again when a password is configured.
 *
 * A person is named by their user ID ("@alice:example.org") both as nick
 * and as id; say's room is a room ID.
 *
 * Inside: the files listed in matrix_internal.h.
 */
#ifndef HEARTS_MX_ADAPTER_H
#define HEARTS_MX_ADAPTER_H

#include <stdint.h>

#include "bot/common/chat.h"
#include "adapters/matrix/matrix_config.h"
#include "bot/common/loop.h"

/*
 * A new adapter for `cfg` (copied) with its session under data_dir
 * (copied; NULL or "": nothing kept), reporting to on_event(ctx, ...).
 * It does nothing until ops->start. Never NULL; aborts if out of memory.
 *
 * start begins logging in (0; -1 after stop). stop stops syncing (no
 * events after it) and lets queued messages go out; idle is then true
 * once nothing waits or is under way. free cancels everything; not from
 * on_event.
 */
struct chat_adapter *mx_adapter_new(struct loop *l,
                                    const struct matrix_config *cfg,
                                    const char *data_dir,
                                    chat_event_fn on_event, void *ctx);

/* Retry timings (tests shorten them; call before start). */
void mx_adapter_set_retry(struct chat_adapter *a, int64_t base_ms,
                          int64_t cap_ms);

#endif
