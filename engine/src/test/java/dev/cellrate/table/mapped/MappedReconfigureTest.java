package dev.cellrate.table.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.ReconfigurableKeyedRateLimiter;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * The limit of a table file changes only by reconfiguration: a reconfigurable keyed limiter's {@code setLimit}
 * rewrites the file's limit, every limiter on the file (in any process) decides under it from its next decision
 * on, and an opening with another limit is refused, naming the limit in use.
 */
final class MappedReconfigureTest
{
    private static final Limit BURST_5 = Limit.perSecond(10, 5);
    private static final Limit BURST_20 = Limit.perSecond(10, 20);

    @TempDir
    Path directory;

    private ReconfigurableKeyedRateLimiter open(final Path file, final Limit limit)
    {
        return KeyedRateLimiter.builder(limit).slotCount(1024).mappedFile(file).buildReconfigurable();
    }

    private static int spend(final ReconfigurableKeyedRateLimiter limiter, final String key, final long nowNs)
    {
        int admitted = 0;
        for (int i = 0; i < 100; i++)
        {
            admitted += Result.isAdmitted(limiter.tryAcquire(key, 1, nowNs)) ? 1 : 0;
        }
        return admitted;
    }

    @Test
    @Timeout(120)
    void aChangeInOneProcessIsTheLimitOfTheOther() throws Exception
    {
        final Path file = directory.resolve("r.table");
        final ReconfigurableKeyedRateLimiter parent = open(file, BURST_5);
        final long childNowNs;
        try (ChildJvm child = ChildJvm.start(null, ReconfigureChild.class, file.toString(), "5", "20", "fresh"))
        {
            child.awaitLine("ready");
            parent.setLimit(BURST_20);
            assertEquals("limit " + BURST_20.emissionIntervalNs() + " " + BURST_20.toleranceNs(),
                child.awaitLine("limit"));
            assertEquals("admitted 20", child.awaitLine("admitted"), "the child decided a new key under burst 20");
            childNowNs = Long.parseLong(child.awaitLine("at").substring("at ".length()));
            assertEquals(0, child.exitCode());
        }
        // At the child's own instant, however long the child took to exit: the refill is the test's choice, not time.
        assertEquals(0, spend(parent, "fresh", childNowNs),
            "the child's spending is in the file: nothing left at the child's instant");
        assertEquals(1, spend(parent, "fresh", childNowNs + BURST_20.emissionIntervalNs()),
            "one emission interval later, exactly the one permit that refilled");
    }

    @Test
    void everyLimiterOnTheFileFollowsAChangeAndKeepsTheDebtInTime()
    {
        final Path file = directory.resolve("r.table");
        final ReconfigurableKeyedRateLimiter a = open(file, BURST_5);
        final ReconfigurableKeyedRateLimiter b = open(file, BURST_5);
        final long nowNs = System.nanoTime();
        assertEquals(5, spend(a, "k", nowNs), "burst 5 under the first limit");
        b.setLimit(BURST_20);
        assertEquals(BURST_20.toleranceNs(), a.limit().toleranceNs(), "a follows b's change");
        // The key is 5 T in debt; under burst 20 it may take 20 - 5 more at the same instant, not a fresh 20.
        assertEquals(15, spend(a, "k", nowNs));
        assertEquals(20, spend(a, "other", nowNs), "a new key gets the new burst");
        final ReconfigurableKeyedRateLimiter restarted = open(file, BURST_20);
        assertEquals(BURST_20.toleranceNs(), restarted.limit().toleranceNs(), "a new opening with the limit in use");
        assertEquals(0, spend(restarted, "k", nowNs));
        a.setLimit(BURST_5);
        assertEquals(BURST_5.toleranceNs(), restarted.limit().toleranceNs());
        assertEquals(BURST_5.toleranceNs(), b.limit().toleranceNs());
    }

    @Test
    void anOpeningWithAnotherLimitOrAsAnotherKindIsRefusedNamingIt()
    {
        final Path file = directory.resolve("r.table");
        open(file, BURST_5).setLimit(BURST_20);
        final IllegalStateException oldLimit = assertThrows(IllegalStateException.class, () -> open(file, BURST_5));
        assertTrue(oldLimit.getMessage().contains("limit (the one in use: it changes only by setLimit of a " +
            "reconfigurable limiter on the file) toleranceNs: the file has " + BURST_20.toleranceNs() +
            ", this limiter asks for " + BURST_5.toleranceNs()), oldLimit.getMessage());
        final IllegalStateException plain = assertThrows(IllegalStateException.class,
            () -> KeyedRateLimiter.builder(BURST_20).slotCount(1024).mappedFile(file).build());
        assertTrue(plain.getMessage().contains("table kind: the file holds a reconfigurable keyed limiter's table " +
            "(its limit changed by setLimit, buildReconfigurable()), this front is a keyed limiter's table (a fixed " +
            "limit, build())"), plain.getMessage());
        final Path fixed = directory.resolve("f.table");
        KeyedRateLimiter.builder(BURST_5).slotCount(1024).mappedFile(fixed).build();
        final IllegalStateException reconfigurable = assertThrows(IllegalStateException.class, () -> open(fixed, BURST_5));
        assertTrue(reconfigurable.getMessage().contains("table kind: the file holds a keyed limiter's table"),
            reconfigurable.getMessage());
    }
}
