/*
 * What people type (docs/playing.md): the table of commands (where each
 * works, its help), the dispatch of a message to one, help, the nearest
 * command to a typo, and the answer limit (limit.h). A refused command
 * gets one short private reply and changes nothing; everything secret goes
 * only to its owner.
 */
#ifndef HEARTS_BOT_MANAGER_COMMANDS_H
#define HEARTS_BOT_MANAGER_COMMANDS_H

#include "bot/manager/table.h"

/* A CHAT_MESSAGE (checked by manager_on_event): a command, a bare card
 * privately, or channel chatter. */
void mgr_on_message(struct manager *m, struct chat_adapter *a,
                    const struct chat_event *ev);

#endif
