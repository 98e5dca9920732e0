package dev.cellrate.spring;

import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The filters' decision step (key parse, the engine's decision with a Decision holder, the counters) allocates
 * nothing, admitted or refused, for address keys and for admitted string keys.
 */
class DecisionAllocationTest
{
    @Test
    void theDecisionStepAllocatesNothing()
    {
        final CellrateProperties properties = new CellrateProperties();
        final CellrateProperties.LimitProperties p = new CellrateProperties.LimitProperties();
        p.setRate(1);
        p.setBurst(1_000);
        p.setPeriod(java.time.Duration.ofHours(1));
        properties.getLimits().put("a", p);
        final ManualClock clock = new ManualClock();
        try (LimitRegistry registry = new LimitRegistry(properties, clock))
        {
            final NamedLimit limit = registry.get("a");
            final NamedLimit.Scratch s = registry.scratch();
            final String[] addresses = {"203.0.113.7", "2001:db8:1:2::9", "198.51.100.1", "2001:db8:9::1"};
            final String[] names = {"alice", "bob", "carol", "dave"};
            final com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
            long admitted = 0;
            long refused = 0;
            final long[] perRound = new long[6];
            for (int round = 0; round < perRound.length; round++)
            {
                final long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 50_000; i++)
                {
                    CellrateFilter.longKey(limit, s, ClientAddress.parse(addresses[i & 3], 64));
                    final long code = limit.decideLocal(s.longKey, 1, clock.nanoTime(), s.decision);
                    admitted += Result.isAdmitted(code) ? 1 : 0;
                    refused += Result.isAdmitted(code) ? 0 : 1;
                    if (i < 2_000)
                    {
                        CellrateFilter.stringKey(limit, s, names[i & 3]);
                        admitted += Result.isAdmitted(limit.decideLocal(s.stringKey, 1, clock.nanoTime(), s.decision)) ? 1 : 0;
                    }
                }
                final long allocated = mx.getCurrentThreadAllocatedBytes() - before;
                perRound[round] = allocated;
            }
            // warm-up rounds may allocate (compilation, class loading); a later round allocates nothing
            assertEquals(0, java.util.Arrays.stream(perRound, 2, perRound.length).min().getAsLong(),
                "bytes allocated per round of 50000 decisions: " + java.util.Arrays.toString(perRound));
            assertEquals(4 * 1_000 + 4 * 1_000, admitted, "the burst of each address and each name");
            assertEquals(6 * 50_000 - 4 * 1_000, refused);
        }
    }
}
