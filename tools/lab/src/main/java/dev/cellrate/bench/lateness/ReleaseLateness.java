package dev.cellrate.bench.lateness;

import dev.cellrate.Result;
import dev.cellrate.Limit;
import dev.cellrate.release.ReleaseAgent;
import dev.cellrate.release.ReleaseHandler;
import dev.cellrate.release.ReleaseRunner;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * A measurement, not a test: release lateness (handler entry time - due time) of a {@link ReleaseRunner}
 * for several idle strategies. One producer thread reserves on a {@link Shaper} in delay mode (T = 50 us,
 * burst 20) as fast as it is admitted and submits each item; the agent thread records
 * {@code System.nanoTime() - dueNs} on entry to the handler into a preallocated array. Percentiles come from
 * the sorted array.
 * <p>
 * Run (after {@code mvn -B -q package -DskipTests -Djcstress.skip=true}):
 * {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.lateness.ReleaseLateness [items]}
 */
public final class ReleaseLateness
{
    private static final long T_NS = 50_000;

    private ReleaseLateness()
    {
    }

    /** Records lateness per release; agent thread only. */
    static final class Recorder implements ReleaseHandler<Object>
    {
        final long[] latenessNs;
        volatile int count;

        Recorder(final int items)
        {
            latenessNs = new long[items];
        }

        public void onRelease(final Object item, final long dueNs, final long nowNs)
        {
            final long actualNs = System.nanoTime();
            final int index = count;
            latenessNs[index] = actualNs - dueNs;
            count = index + 1;
        }

        public void onHandBack(final Object item, final long dueNs)
        {
            throw new IllegalStateException("no item should be handed back in this measurement");
        }
    }

    public static void main(final String[] args) throws Exception
    {
        final int items = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        System.out.println("items=" + items + " T=" + T_NS + "ns burst=20 cpus=" +
            Runtime.getRuntime().availableProcessors());
        System.out.println("| idle strategy | p50 us | p90 us | p99 us | p99.9 us | max us |");
        System.out.println("|---|---|---|---|---|---|");
        final String[] names = {"BusySpin", "Yielding", "Backoff", "SleepingMillis(1)"};
        for (final String name : names)
        {
            measure(name, 2_000);
            final long[] latenessNs = measure(name, items);
            Arrays.sort(latenessNs);
            System.out.println("| " + name + " | " + us(latenessNs, 50, 100) + " | " + us(latenessNs, 90, 100) + " | " +
                us(latenessNs, 99, 100) + " | " + us(latenessNs, 999, 1000) + " | " +
                micros(latenessNs[latenessNs.length - 1]) + " |");
        }
    }

    private static IdleStrategy idleStrategy(final String name)
    {
        switch (name)
        {
            case "BusySpin":
                return new BusySpinIdleStrategy();
            case "Yielding":
                return new YieldingIdleStrategy();
            case "Backoff":
                return new BackoffIdleStrategy();
            default:
                return new SleepingMillisIdleStrategy(1);
        }
    }

    private static long[] measure(final String idleStrategy, final int items) throws InterruptedException
    {
        final Recorder recorder = new Recorder(items);
        final ReleaseAgent<Object> agent = new ReleaseAgent<>(1024, recorder, SystemNanoClock.INSTANCE);
        final ReleaseRunner runner = ReleaseRunner.start(agent, idleStrategy(idleStrategy), Throwable::printStackTrace);
        final Shaper shaper = new Shaper(Limit.ofGcra(T_NS, 19 * T_NS), ShaperMode.delay());
        final Object item = new Object();
        for (int i = 0; i < items; i++)
        {
            long code;
            while ((code = agent.submit(item, shaper, 1, System.nanoTime())) < 0)
            {
                LockSupport.parkNanos(Result.isEncodedRetryAfter(code) ? Result.decodeRetryAfterNs(code) : T_NS);
            }
        }
        while (recorder.count < items)
        {
            Thread.sleep(1);
        }
        runner.close();
        return recorder.latenessNs;
    }

    private static String us(final long[] sortedNs, final int rank, final int of)
    {
        final int index = (int)Math.min(sortedNs.length - 1, ((long)sortedNs.length * rank + of - 1) / of - 1);
        return micros(sortedNs[Math.max(0, index)]);
    }

    private static String micros(final long ns)
    {
        return String.format("%.1f", ns / 1_000.0);
    }
}
