/*
 * The Matrix session kept in DATA_DIR/<network>/matrix-session.json: the
 * access token and device ID a login gave (reused, so a restart creates
 * no new device and the server's per-token transaction deduplication
 * holds), the /sync `since` token (so a restart neither replays old
 * commands nor misses new ones) and the transaction ID epoch (retry.h).
 * In application-service mode it keeps the IDs of the transactions last
 * handled instead of a since token.
 * The file is written with file_replace (atomic) and read as hostile:
 * a field of the wrong shape is dropped, not trusted.
 */
#ifndef HEARTS_MX_SESSION_H
#define HEARTS_MX_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file's format: {"version": 1, ...}. */
#define MX_SESSION_VERSION 1

/* Transactions remembered as handled (application-service mode). */
#define MX_AS_TXNS 64
/* Longest transaction ID taken. */
#define MX_TXN_ID_MAX 255

struct mx_session {
    char *homeserver; /* whose token it is: a session for another */
    char *user_id;    /* server or user is not reused */
    char *access_token;
    char *device_id;
    char *since;
    uint64_t txn_epoch;
    /* application-service mode: the IDs of the last transactions the
     * homeserver pushed and the bot handled, oldest first (one retried,
     * also after a restart, is not handled again) */
    char *as_txns[MX_AS_TXNS];
    size_t nas_txns;
};

/* Whether transaction `id` is among s's handled ones. */
bool mx_session_txn_seen(const struct mx_session *s, const char *id);

/* Adds `id` to s's handled transactions (the oldest goes beyond
 * MX_AS_TXNS). */
void mx_session_txn_add(struct mx_session *s, const char *id);

/* Reads path into *s (zeroed first; free with mx_session_free). A missing
 * file is an empty session (0); an unreadable or malformed one is -1 with
 * the reason in err, and *s empty; one of a later version (a newer
 * heartsbot's) is -2 with the reason in err, *s empty: it must not be
 * written over. */
int mx_session_load(const char *path, struct mx_session *s, char *err,
                    size_t errlen);

/* Writes s to path atomically (its directory must exist). */
int mx_session_save(const char *path, const struct mx_session *s, char *err,
                    size_t errlen);

/* Replaces *field with a copy of value (NULL clears it). */
void mx_session_set(char **field, const char *value);

void mx_session_free(struct mx_session *s);

#endif
