package probe;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.PayLaterRateLimiter;
import dev.cellrate.RateLimiter;
import dev.cellrate.composite.CompositeRateLimiter;
import dev.cellrate.concurrency.ConcurrencyLimiter;
import dev.cellrate.reconfigure.ReconfigurableRateLimiter;
import dev.cellrate.reconfigure.ReconfigurableShaper;
import dev.cellrate.ReservingLimiter;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.stat.StatFile;
import dev.cellrate.tcm.SrTcm;
import dev.cellrate.tcm.TrTcm;
import dev.cellrate.warmup.WarmingUpRateLimiter;
import dev.cellrate.window.FixedWindowLimiter;
import dev.cellrate.window.SlidingCounterLimiter;
import dev.cellrate.window.SlidingLogLimiter;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Run by {@code JvmOptionTest} in a JVM started without the Agrona option: builds every front, keyed first, and
 * prints per front one line: {@code <front> ok} when it needs no off-heap memory, {@code <front> names the
 * option} when it fails with the promised {@link IllegalStateException}, or {@code <front> WRONG <throwable>}.
 */
public final class EveryFrontProbe
{
    private EveryFrontProbe()
    {
    }

    public static void main(final String[] args)
    {
        final Limit limit = Limit.perSecond(10, 1);
        probe("keyed", () -> KeyedRateLimiter.builder(limit).slotCount(64).build());
        probe("keyed shaper", () -> KeyedRateLimiter.builder(limit).slotCount(64).buildShaper(ShaperMode.delay()));
        probe("keyed again", () -> KeyedRateLimiter.builder(limit).slotCount(64).build());
        probe("rate limiter", () -> new RateLimiter(limit));
        probe("pay later", () -> new PayLaterRateLimiter(limit, 5));
        probe("shaper", () -> new Shaper(limit, ShaperMode.delay()));
        probe("reserving", () -> new ReservingLimiter(limit));
        probe("composite", () -> CompositeRateLimiter.of(limit, limit));
        probe("concurrency", () -> new ConcurrencyLimiter(4));
        probe("reconfigurable", () -> new ReconfigurableRateLimiter(limit));
        probe("reconfigurable shaper", () -> new ReconfigurableShaper(limit, ShaperMode.delay()));
        probe("warm-up", () -> WarmingUpRateLimiter.guava(10, 1, TimeUnit.SECONDS));
        probe("fixed window", () -> new FixedWindowLimiter(10, 1_000_000_000L));
        probe("sliding counter", () -> new SlidingCounterLimiter(10, 1_000_000_000L));
        probe("sliding log", () -> new SlidingLogLimiter(10, 1_000_000_000L));
        probe("srTCM", () -> new SrTcm(1000, 100, 100));
        probe("trTCM", () -> new TrTcm(2000, 100, 1000, 100));
        probe("stat file", StatFile::inMemory);
        probe("stat reader", () -> dev.cellrate.stat.StatReader.open(java.nio.file.Path.of("/nonexistent"), 0));
        System.out.println("done");
    }

    private static void probe(final String front, final Supplier<Object> build)
    {
        try
        {
            build.get();
            System.out.println(front + " ok");
        }
        catch (final IllegalStateException ex)
        {
            System.out.println(front + (ex.getMessage().contains(dev.cellrate.JvmOption.ADD_EXPORTS) ?
                " names the option" : " WRONG " + ex));
        }
        catch (final Throwable ex)
        {
            System.out.println(front + " WRONG " + ex);
        }
    }
}
