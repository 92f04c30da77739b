/*
 * The matrix protocol as the bot knows it (bot/common/protocol.h): its
 * table of the config (matrix_config.h) and its adapter (matrix_adapter.h),
 * one row of adapters/registry.c.
 */
#ifndef HEARTS_MATRIX_PROTOCOL_H
#define HEARTS_MATRIX_PROTOCOL_H

#include "bot/common/protocol.h"

extern const struct protocol matrix_protocol;

#endif
