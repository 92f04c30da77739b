/*
 * For the tests of the config (bot/config.h), which read configs with the
 * bot's protocols (registry_protocols): a config's networks by protocol,
 * the i-th [[irc]] or [[matrix]] and how many there are.
 */
#ifndef HEARTS_TEST_NETWORKS_H
#define HEARTS_TEST_NETWORKS_H

#include "adapters/irc/irc_config.h"
#include "adapters/irc/irc_protocol.h"
#include "adapters/matrix/matrix_config.h"
#include "adapters/matrix/matrix_protocol.h"
#include "adapters/registry.h"
#include "bot/config.h"

static inline const struct irc_config *irc_at(const struct config *c, int i)
{
    return config_section(c, &irc_protocol, i);
}

static inline const struct matrix_config *mx_at(const struct config *c, int i)
{
    return config_section(c, &matrix_protocol, i);
}

static inline int count_irc(const struct config *c)
{
    return config_count(c, &irc_protocol);
}

static inline int count_mx(const struct config *c)
{
    return config_count(c, &matrix_protocol);
}

#endif
