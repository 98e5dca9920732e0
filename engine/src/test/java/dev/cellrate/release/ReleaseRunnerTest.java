package dev.cellrate.release;

import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The runner on a real thread and clock. Checks order and count only, never timing (the machine is shared).
 */
class ReleaseRunnerTest
{
    private static final int PRODUCERS = 2;
    private static final int ITEMS_PER_PRODUCER = 3_000;

    /** Agent-thread-only recorder of (producer, index, dueNs) per release; handed back items are counted. */
    static final class Recorder implements ReleaseHandler<int[]>
    {
        final int[][] released = new int[PRODUCERS * ITEMS_PER_PRODUCER][];
        final long[] dueNs = new long[PRODUCERS * ITEMS_PER_PRODUCER];
        final long[] nowNs = new long[PRODUCERS * ITEMS_PER_PRODUCER];
        final AtomicInteger releasedCount = new AtomicInteger();
        final AtomicInteger handedBackCount = new AtomicInteger();

        public void onRelease(final int[] item, final long dueNs, final long nowNs)
        {
            final int index = releasedCount.get();
            released[index] = item;
            this.dueNs[index] = dueNs;
            this.nowNs[index] = nowNs;
            releasedCount.lazySet(index + 1);
        }

        public void onHandBack(final int[] item, final long dueNs)
        {
            handedBackCount.incrementAndGet();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void everyItemIsReleasedOnceInDueOrderAndFifoPerProducer() throws Exception
    {
        final Recorder recorder = new Recorder();
        final ReleaseAgent<int[]> agent = new ReleaseAgent<>(256, recorder, SystemNanoClock.INSTANCE);
        final Shaper shaper = new Shaper(Limit.ofGcra(20_000, 100 * 20_000L), ShaperMode.delay());
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final ReleaseRunner runner = ReleaseRunner.start(agent, new BackoffIdleStrategy(), error::set);
        final CountDownLatch start = new CountDownLatch(1);
        final List<Thread> producers = new ArrayList<>();
        final AtomicInteger refusals = new AtomicInteger();
        for (int p = 0; p < PRODUCERS; p++)
        {
            final int producer = p;
            final Thread thread = new Thread(() ->
            {
                awaitQuietly(start);
                for (int i = 0; i < ITEMS_PER_PRODUCER; i++)
                {
                    final int[] item = {producer, i};
                    long code;
                    while ((code = agent.submit(item, shaper, 1, System.nanoTime())) < 0)
                    {
                        assertTrue(Result.QUEUE_FULL == code || Result.isEncodedRetryAfter(code), "code " + code);
                        refusals.incrementAndGet();
                        Thread.yield();
                    }
                }
            });
            thread.start();
            producers.add(thread);
        }
        start.countDown();
        for (final Thread thread : producers)
        {
            thread.join();
        }
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (recorder.releasedCount.get() < PRODUCERS * ITEMS_PER_PRODUCER && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(1);
        }
        runner.close();
        assertNull(error.get());
        assertEquals(PRODUCERS * ITEMS_PER_PRODUCER, recorder.releasedCount.get(), "count");
        assertEquals(PRODUCERS * ITEMS_PER_PRODUCER, agent.releasedCount(), "published counter");
        assertEquals(0, recorder.handedBackCount.get());
        final int[] nextIndex = new int[PRODUCERS];
        for (int k = 0; k < recorder.releasedCount.get(); k++)
        {
            final int[] item = recorder.released[k];
            assertEquals(nextIndex[item[0]]++, item[1], "FIFO per producer");
            assertTrue(recorder.nowNs[k] >= recorder.dueNs[k], "never released early");
            if (k > 0 && recorder.nowNs[k] == recorder.nowNs[k - 1])
            {
                assertTrue(recorder.dueNs[k] - recorder.dueNs[k - 1] >= 20_000, "due order within a duty cycle");
            }
        }
        final long[] sortedDueNs = recorder.dueNs.clone();
        Arrays.sort(sortedDueNs);
        for (int k = 1; k < sortedDueNs.length; k++)
        {
            assertTrue(sortedDueNs[k] - sortedDueNs[k - 1] >= 20_000, "concurrent reservations spaced by T");
        }
        assertTrue(refusals.get() > 0, "the test exercised back-pressure");
        assertEquals(Result.CLOSED, agent.submit(new int[] {0, 0}, 0));
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void closeHandsBackWhatIsNotDueYet()
    {
        final Recorder recorder = new Recorder();
        final ReleaseAgent<int[]> agent = new ReleaseAgent<>(64, recorder, SystemNanoClock.INSTANCE);
        final ReleaseRunner runner = ReleaseRunner.start(agent, new BackoffIdleStrategy(), Throwable::printStackTrace);
        final long farNs = System.nanoTime() + TimeUnit.HOURS.toNanos(1);
        for (int i = 0; i < 10; i++)
        {
            assertEquals(Result.ADMITTED, agent.submit(new int[] {0, i}, i < 5 ? 0 : farNs));
        }
        runner.close();
        assertEquals(10, recorder.releasedCount.get() + recorder.handedBackCount.get());
        assertTrue(recorder.handedBackCount.get() >= 5);
        assertEquals(Result.CLOSED, agent.submit(new int[] {0, 0}, 0));
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
