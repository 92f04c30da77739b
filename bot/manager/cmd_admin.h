/*
 * The admins' commands (config `admins`, cmd.h's mgr_cmd_is_admin), for
 * what an operator needs without a shell: hand a person's seat to a
 * computer player or back (!seat), end a game here or in another room
 * (!end), reread the configuration as SIGHUP does (!reload). Each works
 * in a channel and privately, refuses anyone else, and logs who did
 * what.
 */
#ifndef HEARTS_BOT_MANAGER_CMD_ADMIN_H
#define HEARTS_BOT_MANAGER_CMD_ADMIN_H

#include "bot/manager/cmd.h"

/* seat NICK computer | seat NICK back */
void mgr_cmd_seat(struct cmd *c);
/* end [ROOM]: the table here, or in ROOM (privately: ROOM) */
void mgr_cmd_end(struct cmd *c);
/* reload: what manager_on_reload set, else refused */
void mgr_cmd_reload(struct cmd *c);

#endif
