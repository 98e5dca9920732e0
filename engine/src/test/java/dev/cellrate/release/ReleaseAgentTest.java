package dev.cellrate.release;

import dev.cellrate.KeyedShaper;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.ShaperMode;
import dev.cellrate.TestFronts;
import dev.cellrate.Shaper;
import dev.cellrate.table.SlotTable;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The release agent driven by hand with a fake clock: order, bound, result codes and close behaviour.
 */
class ReleaseAgentTest
{
    private final long[] clockNs = {0};
    private final RecordingHandler handler = new RecordingHandler();

    private ReleaseAgent<String> agent(final int capacity)
    {
        return new ReleaseAgent<>(capacity, handler, () -> clockNs[0]);
    }

    @Test
    void releasesByDueTimeThenSubmissionOrderAndOnlyWhenDue()
    {
        final ReleaseAgent<String> agent = agent(8);
        assertEquals(Result.ADMITTED, agent.submit("c", 300));
        assertEquals(Result.ADMITTED, agent.submit("a1", 100));
        assertEquals(Result.ADMITTED, agent.submit("b", 200));
        assertEquals(Result.ADMITTED, agent.submit("a2", 100));
        clockNs[0] = 99;
        assertEquals(4, agent.doWork(), "moved four, released none");
        assertEquals(List.of(), handler.released);
        clockNs[0] = 200;
        assertEquals(3, agent.doWork());
        assertEquals(List.of("a1", "a2", "b"), handler.released);
        assertEquals(List.of(100L, 100L, 200L), handler.releasedDueNs);
        assertEquals(List.of(200L, 200L, 200L), handler.releasedNowNs);
        assertEquals(3, agent.releasedCount());
        assertEquals(100, agent.maxLatenessNs());
        clockNs[0] = 1_000;
        agent.doWork();
        assertEquals(List.of("a1", "a2", "b", "c"), handler.released);
        assertEquals(0, agent.doWork());
        assertEquals(4, agent.releasedCount());
        assertEquals(700, agent.maxLatenessNs());
    }

    @Test
    void fullQueueIsAResultCodeAndRoomComesBack()
    {
        final ReleaseAgent<String> agent = agent(3);
        for (int i = 0; i < 3; i++)
        {
            assertEquals(Result.ADMITTED, agent.submit("x" + i, 10));
        }
        assertEquals(Result.QUEUE_FULL, agent.submit("y", 10));
        agent.doWork();
        assertEquals(Result.QUEUE_FULL, agent.submit("y", 10), "scheduled items still hold their room");
        clockNs[0] = 10;
        agent.doWork();
        assertEquals(Result.ADMITTED, agent.submit("y", 10));
        assertThrows(NullPointerException.class, () -> agent.submit(null, 0));
    }

    @Test
    void submitWithShaperQueuesAtTheReleaseTimeAndChargesNothingWhenRefused()
    {
        final ReleaseAgent<String> agent = agent(2);
        final Shaper shaper = new Shaper(Limit.ofGcra(100, 100), ShaperMode.delay());
        assertEquals(0, agent.submit("a", shaper, 1, 1_000));
        assertEquals(100, agent.submit("b", shaper, 1, 1_000));
        final long tatNs = TestFronts.tatNs(shaper);
        assertEquals(Result.QUEUE_FULL, agent.submit("c", shaper, 1, 1_000));
        assertEquals(tatNs, TestFronts.tatNs(shaper), "a full queue charges nothing");
        clockNs[0] = 1_000;
        agent.doWork();
        assertEquals(List.of("a"), handler.released);
        final long code = agent.submit("c", shaper, 1, 1_000);
        assertTrue(Result.isEncodedRetryAfter(code), "a shaper rejection is passed through");
        assertEquals(Result.NEVER, agent.submit("c", shaper, 3, 1_000));
        assertEquals(100, agent.submit("c", shaper, 1, 1_100), "rejections returned their carrier");
        clockNs[0] = 1_200;
        agent.doWork();
        assertEquals(List.of("a", "b", "c"), handler.released);
        assertEquals(List.of(1_000L, 1_100L, 1_200L), handler.releasedDueNs);
    }

    @Test
    void submitWithKeyedShaperIsFifoPerKeyAndByDueAcrossKeys()
    {
        final ReleaseAgent<String> agent = agent(8);
        final KeyedShaper shaper = TestFronts.keyedShaper(Limit.ofGcra(100, 300), ShaperMode.delay(),
            new dev.cellrate.table.SlotTable(1, 4, 4, 1_000_000, 1), () -> 0);
        assertEquals(0, agent.submit("a0", shaper, 1L, 1, 0));
        assertEquals(100, agent.submit("a1", shaper, 1L, 1, 0));
        assertEquals(200, agent.submit("a2", shaper, 1L, 1, 0));
        assertEquals(0, agent.submit("b0", shaper, 2L, 1, 50));
        assertEquals(100, agent.submit("b1", shaper, 2L, 1, 50));
        final KeyedShaper oneSlot = TestFronts.keyedShaper(Limit.ofGcra(100, 0), ShaperMode.delay(),
            new dev.cellrate.table.SlotTable(1, 2, 2, 1_000_000, 99), () -> 0);
        assertEquals(0, agent.submit("c0", oneSlot, 1L, 1, 10_000));
        assertEquals(0, agent.submit("c1", oneSlot, 2L, 1, 10_000));
        assertEquals(Result.TABLE_FULL, agent.submit("c2", oneSlot, 3L, 1, 10_000), "nothing queued");
        assertEquals(Result.ADMITTED, agent.submit("c3", 0), "TABLE_FULL returned its carrier");
        assertEquals(Result.QUEUE_FULL, agent.submit("c4", 0), "eight carriers in use");
        clockNs[0] = 1_000;
        agent.doWork();
        assertEquals(List.of("a0", "c3", "b0", "a1", "b1", "a2"), handler.released);
        assertEquals(List.of(0L, 0L, 50L, 100L, 150L, 200L), handler.releasedDueNs);
        assertEquals(Result.ADMITTED, agent.submit("c4", 0));
    }

    @Test
    void closeHandsBackEveryUnreleasedItemInDueOrderAndRefusesLaterSubmissions()
    {
        final ReleaseAgent<String> agent = agent(8);
        agent.submit("late", 500);
        agent.submit("due", 10);
        clockNs[0] = 10;
        agent.doWork();
        agent.submit("queued-not-drained", 50);
        agent.submit("early", 20);
        agent.onClose();
        assertEquals(List.of("due"), handler.released);
        assertEquals(List.of("early", "queued-not-drained", "late"), handler.handedBack);
        assertEquals(1, agent.releasedCount());
        assertEquals(3, agent.handedBackCount());
        assertEquals(Result.CLOSED, agent.submit("after", 0));
        assertEquals(Result.CLOSED, agent.submit("after", new Shaper(Limit.ofGcra(1, 0), ShaperMode.delay()), 1, 0));
        assertTrue(agent.isClosed());
    }

    @Test
    void aThrowingHandlerLosesNothing()
    {
        final ReleaseAgent<String> agent = agent(8);
        handler.throwOn = "b";
        agent.submit("a", 0);
        agent.submit("b", 0);
        agent.submit("c", 0);
        assertThrows(IllegalStateException.class, agent::doWork);
        agent.doWork();
        assertEquals(List.of("a", "b", "c"), handler.released);
        agent.submit("b", 100);
        agent.submit("d", 200);
        assertThrows(IllegalStateException.class, agent::onClose);
        assertEquals(List.of("b", "d"), handler.handedBack);
    }

    @Test
    void scheduleOrdersLikeASortOnRandomInput()
    {
        final SplittableRandom random = new SplittableRandom(9);
        final ReleaseSchedule<String> schedule = new ReleaseSchedule<>(512);
        for (int round = 0; round < 50; round++)
        {
            final List<long[]> expected = new ArrayList<>();
            final int n = 1 + random.nextInt(512);
            for (int i = 0; i < n; i++)
            {
                final ReleaseSchedule.Entry<String> entry = new ReleaseSchedule.Entry<>();
                entry.dueNs = random.nextLong(-20, 20);
                entry.seq = i;
                schedule.add(entry);
                expected.add(new long[] {entry.dueNs, i});
            }
            expected.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
            for (final long[] next : expected)
            {
                final ReleaseSchedule.Entry<String> entry = schedule.poll();
                assertEquals(next[0], entry.dueNs);
                assertEquals(next[1], entry.seq);
            }
            assertTrue(schedule.isEmpty());
        }
    }

    @Test
    void capacityIsValidated()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> agent(1));
        assertEquals("capacity must be in [2, 1073741824] but was 1", ex.getMessage());
    }

    /**
     * The release agent and its runner on real threads, made deterministic with latches (no sleep decides an
     * outcome): close waits for a submission in progress and hands its item back, carriers come back at close,
     * the runner refuses submissions from the moment {@code close()} is called, and the gate counts what is in.
     */
    @Nested
    final class Specification
    {
        private static final Limit LIMIT = Limit.ofGcra(100, 200);
        private static final long WAIT_SECONDS = 20;

        private static void awaitUninterruptibly(final CountDownLatch latch)
        {
            boolean interrupted = false;
            while (true)
            {
                try
                {
                    if (latch.await(WAIT_SECONDS, TimeUnit.SECONDS))
                    {
                        break;
                    }
                    throw new AssertionError("latch not released in " + WAIT_SECONDS + " s");
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }

        @Test
        @Timeout(value = 60, unit = TimeUnit.SECONDS)
        void closeWaitsForASubmissionInProgressAndHandsItsItemBack() throws Exception
        {
            // The producer's reservation inserts a new key, and the table reads its eviction clock on an insert:
            // that read holds the producer inside the submission (after it entered the gate, before it publishes).
            final CountDownLatch inside = new CountDownLatch(1);
            final CountDownLatch proceed = new CountDownLatch(1);
            final AtomicReference<Thread> held = new AtomicReference<>();
            final NanoClock evictionClock = () ->
            {
                if (Thread.currentThread() == held.get())
                {
                    inside.countDown();
                    awaitUninterruptibly(proceed);
                }
                return 0;
            };
            final KeyedShaper shaper = TestFronts.keyedShaper(
                LIMIT, ShaperMode.delay(), new SlotTable(1, 16, 16, 1_000_000, 7, evictionClock), evictionClock);
            final RecordingHandler handler = new RecordingHandler();
            final ReleaseAgent<String> agent = new ReleaseAgent<>(4, handler, () -> 0);
            final AtomicLong code = new AtomicLong(Long.MIN_VALUE);
            final Thread producer = new Thread(() -> code.set(agent.submit("p", shaper, 7L, 1, 1_000)));
            held.set(producer);
            producer.start();
            awaitUninterruptibly(inside);

            final Thread closer = new Thread(agent::onClose);
            closer.start();
            // A closer that waits is still waiting here; one that does not has (almost surely) finished.
            closer.join(500);
            proceed.countDown();
            producer.join();
            closer.join();

            assertEquals(0, code.get(), "the submission that was in progress got in");
            assertEquals(List.of("p"), handler.handedBack, "and its item reached the handler, handed back");
            assertEquals(List.of(1_000L), handler.handedBackDueNs);
            assertTrue(handler.released.isEmpty());
            assertEquals(0, agent.outstanding());
            assertEquals(Result.CLOSED, agent.submit("q", 0));
        }

        @Test
        void carriersHandedBackAtCloseAreFreeAgain()
        {
            final RecordingHandler handler = new RecordingHandler();
            final ReleaseAgent<String> agent = new ReleaseAgent<>(3, handler, () -> 0);
            assertEquals(Result.ADMITTED, agent.submit("a", 5_000));
            assertEquals(Result.ADMITTED, agent.submit("b", 6_000));
            assertEquals(2, agent.doWork(), "both moved into the schedule, none due");
            assertEquals(Result.ADMITTED, agent.submit("c", 7_000));
            assertEquals(3, agent.outstanding());
            agent.onClose();
            assertEquals(List.of("a", "b", "c"), handler.handedBack);
            assertEquals(3, agent.handedBackCount());
            assertEquals(0, agent.outstanding(), "every carrier is back in the pool");
        }

        @Test
        @Timeout(value = 60, unit = TimeUnit.SECONDS)
        void theRunnerRunsTheAgentOnItsThreadAndRefusesSubmissionsFromTheMomentCloseIsCalled() throws Exception
        {
            final CountDownLatch releasing = new CountDownLatch(1);
            final CountDownLatch proceed = new CountDownLatch(1);
            final AtomicReference<Thread> agentThread = new AtomicReference<>();
            final RecordingHandler recorder = new RecordingHandler();
            final ReleaseHandler<String> handler = new ReleaseHandler<>()
            {
                public void onRelease(final String item, final long dueNs, final long nowNs)
                {
                    agentThread.set(Thread.currentThread());
                    recorder.onRelease(item, dueNs, nowNs);
                    releasing.countDown();
                    awaitUninterruptibly(proceed);
                }

                public void onHandBack(final String item, final long dueNs)
                {
                    recorder.onHandBack(item, dueNs);
                }
            };
            final ReleaseAgent<String> agent = new ReleaseAgent<>(4, handler, () -> 1_000);
            final AtomicReference<Throwable> error = new AtomicReference<>();
            final ReleaseRunner runner = ReleaseRunner.start(agent, new BackoffIdleStrategy(), error::set);
            assertSame(agent, runner.agent());
            assertEquals(Result.ADMITTED, agent.submit("a", 0));
            awaitUninterruptibly(releasing);
            assertSame(agentThread.get(), runner.thread(), "the agent runs on the runner's thread");

            // The agent thread is busy in the handler, so its own close (onClose) cannot run yet.
            final Thread closer = new Thread(runner::close);
            closer.start();
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!agent.isClosed() && System.nanoTime() < deadlineNs)
            {
                Thread.onSpinWait();
            }
            assertTrue(agent.isClosed(), "close() refuses at once, before the agent thread stops");
            assertEquals(Result.CLOSED, agent.submit("b", 0));
            proceed.countDown();
            closer.join();

            assertNull(error.get());
            assertEquals(List.of("a"), recorder.released);
            assertTrue(recorder.handedBack.isEmpty(), "nothing got in after close was called");
            assertFalse(agentThread.get().isAlive());
        }

        @Test
        void theGateCountsTheSubmissionsInsideAndRefusesForGoodOnceClosed()
        {
            final SubmissionGate gate = new SubmissionGate();
            assertTrue(gate.enter());
            assertTrue(gate.enter());
            assertEquals(2, gate.inProgress());
            gate.close();
            assertTrue(gate.isClosed());
            assertFalse(gate.enter());
            assertEquals(2, gate.inProgress(), "a refused enter leaves no count behind");
            gate.exit();
            assertEquals(1, gate.inProgress());
            gate.exit();
            gate.awaitQuiescent();
            gate.close();
            assertTrue(gate.isClosed(), "closing twice keeps it closed");
            assertEquals(0, gate.inProgress());
            assertFalse(gate.enter());
        }
    }
}
