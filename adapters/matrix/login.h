/*
 * The Matrix adapter's session and account: the session file kept under
 * the data directory (session.h), the password login (again when the
 * token is revoked), and the check of the account's device keys.
 */
#ifndef HEARTS_MX_LOGIN_H
#define HEARTS_MX_LOGIN_H

#include "adapters/matrix/matrix_internal.h"

/* Writes the session file (if one is kept); a failure is logged. */
void mx_save_session(struct mx_adapter *a);

/* Logs in with the configured password; the start goes on from there
 * (mx_begin) the first time. */
void mx_start_login(struct mx_adapter *a);

/* Asks for the account's own device keys and warns if it has any. */
void mx_check_keys(struct mx_adapter *a);

#endif
