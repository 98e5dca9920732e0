package dev.cellrate.release;

import dev.cellrate.KeyedShaper;
import dev.cellrate.Shaper;
import dev.cellrate.check.Bounds;
import dev.cellrate.Result;
import org.agrona.LangUtil;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.jctools.queues.atomic.MpmcAtomicArrayQueue;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The optional release agent: producers on any thread submit their own items with a due time (typically a
 * {@link Shaper} reservation), and one agent thread hands each item to a {@link ReleaseHandler} when it is due.
 * Run it with {@link ReleaseRunner} (own thread, chosen {@code IdleStrategy}) or compose it into your own
 * Agrona {@code AgentRunner} / duty cycle.
 * <p>
 * Design: {@code capacity} carriers ({@link ReleaseSchedule.Entry}) are allocated up front and cycle through
 * three places: a free pool ({@link MpmcAtomicArrayQueue}), the submission queue ({@link MpscAtomicArrayQueue}, many
 * producers to the agent) and the agent's {@link ReleaseSchedule} heap. A producer claims a free carrier,
 * writes the item and due time into it and offers it (the queue's ordered store publishes the plain writes;
 * the agent's poll is the paired acquire). The agent moves carriers into the heap, releases the due ones in
 * {@code (dueNs, submission order)} order and returns each carrier to the pool. Nothing is allocated per
 * item. At most {@code capacity} items are outstanding (queued or scheduled); beyond that a submission
 * returns {@link Result#QUEUE_FULL} at once: it never blocks and never drops.
 * <p>
 * Order: items the agent holds are released in {@code (dueNs, submission order)} order, never before their
 * due time; an item that reaches the agent after its due time goes at the next duty cycle, so it may follow
 * an item with a later due time that was already released (a producer preempted between reserving and
 * submitting). Items of one producer are released in its submission order when their due times are
 * non-decreasing, as a {@link Shaper}'s slots are in reservation order: FIFO per key per producer; across keys
 * by due time.
 * <p>
 * Close: {@link #onClose()} (called on the agent thread by {@code AgentRunner.close()}) first makes every
 * later submission return {@link Result#CLOSED}, waits for submissions already in progress to finish, and
 * then <em>hands back</em> every item not yet released through {@link ReleaseHandler#onHandBack}, in due
 * order. So every successfully submitted item reaches the handler exactly once: released or handed back.
 * <p>
 * Counters: {@link #releasedCount()}, {@link #handedBackCount()} and {@link #maxLatenessNs()} are written by
 * the agent thread only (lazySet) and readable from any thread.
 * <p>
 * Threading: {@code submit*} and {@link #closeSubmissions()} from any thread; {@link #doWork()} and
 * {@link #onClose()} from one agent thread at a time.
 *
 * @param <E> the caller's item type.
 */
public final class ReleaseAgent<E> implements Agent
{
    /** Submission modes of the one submission path. */
    private static final int AT_DUE_TIME = 0;
    private static final int ON_SHAPER = 1;
    private static final int ON_KEYED_SHAPER = 2;

    private final MpmcAtomicArrayQueue<ReleaseSchedule.Entry<E>> free;
    private final MpscAtomicArrayQueue<ReleaseSchedule.Entry<E>> submitted;
    private final ReleaseSchedule<E> schedule;
    private final ReleaseHandler<E> handler;
    private final NanoClock clock;
    private final int capacity;
    private final SubmissionGate gate = new SubmissionGate();
    /** Written by the agent thread only ({@code lazySet}: release); read by anyone (acquire). */
    private final AtomicLong releasedCount = new AtomicLong();
    private final AtomicLong handedBackCount = new AtomicLong();
    private final AtomicLong maxLatenessNs = new AtomicLong();
    private long nextSeq;

    /**
     * @param capacity most outstanding items, in [2, 2<sup>30</sup>].
     * @param handler  receives every item exactly once.
     * @param clock    the agent's clock (the same time base as the due times).
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public ReleaseAgent(final int capacity, final ReleaseHandler<E> handler, final NanoClock clock)
    {
        if (capacity < 2 || capacity > 1 << 30)
        {
            throw new IllegalArgumentException("capacity must be in [2, " + (1 << 30) + "] but was " + capacity);
        }
        Bounds.requireNonNull("handler", handler);
        Bounds.requireNonNull("clock", clock);
        this.capacity = capacity;
        this.handler = handler;
        this.clock = clock;
        free = new MpmcAtomicArrayQueue<>(capacity);
        submitted = new MpscAtomicArrayQueue<>(capacity);
        schedule = new ReleaseSchedule<>(capacity);
        for (int i = 0; i < capacity; i++)
        {
            free.offer(new ReleaseSchedule.Entry<>());
        }
    }

    /**
     * Submit an item to be released at {@code dueNs} (a due time in the past releases at the next duty cycle).
     *
     * @param item  the caller's object, not null.
     * @param dueNs when to release it, on the agent's clock.
     * @return {@link Result#ADMITTED} (queued; it will reach the handler exactly once),
     * {@link Result#QUEUE_FULL} (capacity items outstanding; nothing queued) or {@link Result#CLOSED}.
     */
    public long submit(final E item, final long dueNs)
    {
        return submit(AT_DUE_TIME, item, null, null, 0, 0, dueNs);
    }

    /**
     * Reserve {@code permits} on {@code shaper} at {@code nowNs} and, if admitted, queue the item for its
     * release time. Room is claimed first, so a full queue or a closed agent charges nothing; if the reserve
     * step throws, the room is given back before the exception propagates.
     *
     * @param item    the caller's object, not null.
     * @param shaper  the shaper to reserve on (its clock must be the agent's time base).
     * @param permits the cost.
     * @param nowNs   the time of the request.
     * @return the shaper's code: the delay (&ge; 0) if admitted and queued, {@link Result#NEVER} or a retry-after
     * code (nothing queued, nothing charged); or {@link Result#QUEUE_FULL} / {@link Result#CLOSED} (nothing
     * reserved). See {@link Result}.
     */
    public long submit(final E item, final Shaper shaper, final long permits, final long nowNs)
    {
        return submit(ON_SHAPER, item, shaper, null, 0, permits, nowNs);
    }

    /**
     * As {@link #submit(Object, Shaper, long, long)} on one key of a {@link KeyedShaper}.
     *
     * @param item    the caller's object, not null.
     * @param shaper  the keyed shaper to reserve on (its clock must be the agent's time base).
     * @param key     the key.
     * @param permits the cost.
     * @param nowNs   the time of the request.
     * @return as {@link #submit(Object, Shaper, long, long)}, plus {@link Result#TABLE_FULL} (nothing queued).
     */
    public long submit(final E item, final KeyedShaper shaper, final long key, final long permits, final long nowNs)
    {
        return submit(ON_KEYED_SHAPER, item, null, shaper, key, permits, nowNs);
    }

    /**
     * The one submission path: enter the gate, claim room, then (unless the item has a due time already)
     * reserve, giving the room back if the reservation refuses or throws.
     */
    private long submit(
        final int mode,
        final E item,
        final Shaper shaper,
        final KeyedShaper keyedShaper,
        final long key,
        final long permits,
        final long nowNs)
    {
        requireItem(item);
        if (!gate.enter())
        {
            return Result.CLOSED;
        }
        try
        {
            final ReleaseSchedule.Entry<E> entry = free.poll();
            if (null == entry)
            {
                return Result.QUEUE_FULL;
            }
            long code = Result.ADMITTED;
            if (AT_DUE_TIME != mode)
            {
                try
                {
                    code = ON_SHAPER == mode ? shaper.reserve(permits, nowNs) : keyedShaper.reserve(key, permits, nowNs);
                }
                catch (final Throwable ex)
                {
                    free.offer(entry);
                    throw ex;
                }
            }
            return complete(entry, item, nowNs, code);
        }
        finally
        {
            gate.exit();
        }
    }

    /**
     * Make every later submission return {@link Result#CLOSED}. Idempotent; {@link #onClose()} calls it too.
     */
    public void closeSubmissions()
    {
        gate.close();
    }

    /**
     * @return true once {@link #closeSubmissions()} or {@link #onClose()} was called.
     */
    public boolean isClosed()
    {
        return gate.isClosed();
    }

    /**
     * One duty cycle: move submitted items into the schedule and release every item due by the clock.
     *
     * @return the number of items moved or released (0 lets the idle strategy idle).
     */
    public int doWork()
    {
        int workCount = drainSubmitted();
        if (!schedule.isEmpty())
        {
            final long nowNs = clock.nanoTime();
            while (!schedule.isEmpty() && schedule.peekDueNs() <= nowNs)
            {
                final ReleaseSchedule.Entry<E> entry = schedule.poll();
                final E item = entry.item;
                final long dueNs = entry.dueNs;
                recycle(entry);
                workCount++;
                releasedCount.lazySet(releasedCount.get() + 1);
                if (nowNs - dueNs > maxLatenessNs.get())
                {
                    maxLatenessNs.lazySet(nowNs - dueNs);
                }
                handler.onRelease(item, dueNs, nowNs);
            }
        }
        return workCount;
    }

    /**
     * Close (agent thread): refuse new submissions, wait for those in progress, then hand back every item not
     * yet released, in due order, through {@link ReleaseHandler#onHandBack}. Nothing the handler throws, not
     * even an {@link Error}, stops the hand-back: every item is handed back, then the first throwable is
     * rethrown as it was, with the later ones attached as suppressed.
     */
    public void onClose()
    {
        gate.close();
        gate.awaitQuiescent();
        // Every offer has completed before its submission's exit (a volatile write the quiescent read saw), so
        // the relaxed poll sees every item: none is half-published any more.
        drainSubmitted();
        Throwable firstError = null;
        while (!schedule.isEmpty())
        {
            final ReleaseSchedule.Entry<E> entry = schedule.poll();
            final E item = entry.item;
            final long dueNs = entry.dueNs;
            recycle(entry);
            handedBackCount.lazySet(handedBackCount.get() + 1);
            try
            {
                handler.onHandBack(item, dueNs);
            }
            catch (final Throwable ex)
            {
                if (null == firstError)
                {
                    firstError = ex;
                }
                else if (firstError != ex)
                {
                    firstError.addSuppressed(ex);
                }
            }
        }
        if (null != firstError)
        {
            LangUtil.rethrowUnchecked(firstError);
        }
    }

    /**
     * @return "cellrate-release-agent".
     */
    public String roleName()
    {
        return "cellrate-release-agent";
    }

    /**
     * @return items released so far (published by the agent thread; any thread may read).
     */
    public long releasedCount()
    {
        return releasedCount.get();
    }

    /**
     * @return items handed back at close so far (any thread may read).
     */
    public long handedBackCount()
    {
        return handedBackCount.get();
    }

    /**
     * @return the largest release lateness seen, {@code nowNs - dueNs} by the agent's clock reading of the
     * duty cycle that released the item (a difference that overflows a long is ignored). Any thread may read.
     */
    public long maxLatenessNs()
    {
        return maxLatenessNs.get();
    }

    /**
     * @return items outstanding now (queued or scheduled; approximate while producers submit). Any thread.
     */
    public int outstanding()
    {
        return capacity - free.size();
    }

    /**
     * @return the most outstanding items.
     */
    public int capacity()
    {
        return capacity;
    }

    private long complete(final ReleaseSchedule.Entry<E> entry, final E item, final long nowNs, final long code)
    {
        if (code < 0)
        {
            free.offer(entry);
        }
        else
        {
            publish(entry, item, nowNs + code);
        }
        return code;
    }

    private void publish(final ReleaseSchedule.Entry<E> entry, final E item, final long dueNs)
    {
        entry.item = item;
        entry.dueNs = dueNs;
        if (!submitted.offer(entry))
        {
            throw new IllegalStateException("submission queue smaller than the carrier pool");
        }
    }

    private int drainSubmitted()
    {
        int count = 0;
        ReleaseSchedule.Entry<E> entry;
        while (null != (entry = submitted.relaxedPoll()))
        {
            entry.seq = nextSeq++;
            schedule.add(entry);
            count++;
        }
        return count;
    }

    private void recycle(final ReleaseSchedule.Entry<E> entry)
    {
        entry.item = null;
        free.offer(entry);
    }

    private static void requireItem(final Object item)
    {
        if (null == item)
        {
            throw new NullPointerException("item");
        }
    }
}
