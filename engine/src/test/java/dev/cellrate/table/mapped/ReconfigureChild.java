package dev.cellrate.table.mapped;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.ReconfigurableKeyedRateLimiter;
import dev.cellrate.Result;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM with a reconfigurable keyed limiter on a table file (10 permits a second, burst {@code args[1]}):
 * prints {@code ready}, waits (at most 30 s) until the file's limit has burst {@code args[2]} (set by another
 * process), then spends key {@code args[3]} at one instant and prints {@code limit T tau}, {@code admitted N} and
 * {@code at NOW} (that instant, {@code System.nanoTime()}: one clock for every process of the host).
 */
public final class ReconfigureChild
{
    private ReconfigureChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        final long burst = Long.parseLong(args[1]);
        final long awaitedBurst = Long.parseLong(args[2]);
        final ReconfigurableKeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.perSecond(10, burst))
            .slotCount(1024).mappedFile(file).buildReconfigurable();
        System.out.println("ready");
        System.out.flush();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (limiter.limit().burst() != awaitedBurst)
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                System.out.println("timeout limit " + limiter.limit());
                System.exit(2);
            }
            Thread.sleep(1);
        }
        final long nowNs = System.nanoTime();
        int admitted = 0;
        for (int i = 0; i < 100; i++)
        {
            admitted += Result.isAdmitted(limiter.tryAcquire(args[3], 1, nowNs)) ? 1 : 0;
        }
        System.out.println("limit " + limiter.limit().emissionIntervalNs() + " " + limiter.limit().toleranceNs());
        System.out.println("admitted " + admitted);
        System.out.println("at " + nowNs);
    }
}
