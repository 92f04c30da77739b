/*
 * The irc protocol as the bot knows it (bot/common/protocol.h): its
 * table of the config (irc_config.h) and its adapter (irc_adapter.h),
 * one row of adapters/registry.c.
 */
#ifndef HEARTS_IRC_PROTOCOL_H
#define HEARTS_IRC_PROTOCOL_H

#include "bot/common/protocol.h"

extern const struct protocol irc_protocol;

#endif
