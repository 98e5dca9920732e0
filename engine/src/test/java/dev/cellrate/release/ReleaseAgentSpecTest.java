package dev.cellrate.release;

import dev.cellrate.KeyedShaper;
import dev.cellrate.TestFronts;
import dev.cellrate.ShaperMode;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.table.SlotTable;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The release agent and its runner on real threads, made deterministic with latches (no sleep decides an
 * outcome): close waits for a submission in progress and hands its item back, carriers come back at close,
 * the runner refuses submissions from the moment {@code close()} is called, and the gate counts what is in.
 */
class ReleaseAgentSpecTest
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
