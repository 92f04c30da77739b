/*
 * Every chat protocol the bot speaks (protocol.h), one row each: the
 * config reads a [[NAME]] table through its row, and the bot starts the
 * networks' adapters through it, protocol by protocol in this order.
 */
#ifndef HEARTS_ADAPTERS_REGISTRY_H
#define HEARTS_ADAPTERS_REGISTRY_H

#include "bot/common/protocol.h"

/* The protocols, ended by NULL. */
extern const struct protocol *const registry_protocols[];

#endif
