package dev.cellrate.rls;

import dev.cellrate.rls.config.RlsConfig;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One published configuration and the state of its rules: a request reads the service's snapshot once and is
 * decided wholly under it. The override limits a request names are kept across snapshots (they do not depend
 * on the files).
 */
final class Snapshot
{
    final RlsConfig config;
    /** Rule state by the rule's full key. */
    final Map<String, RuleState> states;
    /** Override state by {@code requests_per_unit/UNIT}. */
    final Map<String, RuleState> overrides = new ConcurrentHashMap<>();

    Snapshot(final RlsConfig config, final Map<String, RuleState> states)
    {
        this.config = config;
        this.states = states;
    }
}
