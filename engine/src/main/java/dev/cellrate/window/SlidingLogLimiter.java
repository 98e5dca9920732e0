package dev.cellrate.window;

import dev.cellrate.layout.CellArray;
import dev.cellrate.layout.CellLayout;
import dev.cellrate.DebitLimiter;
import dev.cellrate.check.Bounds;
import dev.cellrate.Decision;
import dev.cellrate.Result;
import dev.cellrate.lock.SeqLock;
import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * A thread-safe, allocation-free, exact sliding-window-log limiter: at most {@code limit} permits in any span of
 * {@code windowNs} consecutive ns (see {@code SlidingLog}). Memory is O(limit): one {@code long} per permit.
 * <p>
 * Layout: its own direct buffer, a padded header then a ring of {@code limit} admission times.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 stamp (SeqLock word: even = free)             |  STAMP_OFFSET = 0
 *  +---------------------------------------------------------------+
 *  |                 admissions so far (sequence)                  |  SEQUENCE_OFFSET = 8
 *  +---------------------------------------------------------------+
 *  |                 padding to HEADER_LENGTH = 128 bytes          |
 *  +---------------------------------------------------------------+
 *  |       time of admission k, in slot k mod limit (ns)           |  RING_OFFSET = 128, 8 bytes a slot
 *  ...                                                           ...
 *  +---------------------------------------------------------------+
 *  |                 padding to a multiple of 128 bytes            |
 *  +---------------------------------------------------------------+
 * </pre>
 * The oldest of the last {@code limit} admissions is in slot {@code sequence mod limit}; slots of admissions
 * that never happened ({@code k < 0}) are never read as times: they count as expired.
 * <p>
 * Concurrency: the ring and sequence cannot be one word, so they are guarded by a {@link SeqLock}. A decision
 * reads the stamp, the sequence and two slots (the newest and the {@code n}-th oldest) optimistically. A
 * rejection is returned only if the stamp validates (a consistent snapshot; nothing written, so a flood of
 * rejections is read-only). An admission takes the lock with a CAS from the very stamp it read, which proves
 * the snapshot is still current; it then writes {@code n} slots and the sequence and releases the stamp.
 * Admissions are therefore serialised in stamp order and each is decided on the state left by the previous
 * one: the log invariant of {@code SlidingLog} holds under any interleaving. The lock is held for {@code n + 1}
 * stores; it is not lock-free (a descheduled writer makes others spin).
 * <p>
 * Peek, debit, initial fill ({@link DebitLimiter}): {@code peek} is the same optimistic decision, answered once
 * its snapshot validates, writing nothing. {@code debit} takes the lock and logs {@code min(n, limit)} copies
 * of the time over the oldest entries whether or not they have expired: the debt is at most one window. The
 * initial fill ({@link #SlidingLogLimiter(long, long, NanoClock, long)}) logs {@code limit - k} admissions at
 * the creation time; the other constructors start full (an empty log).
 * <p>
 * Every decision method returns a {@link Result} code: {@link Result#ADMITTED} (0), a positive retry-after in
 * ns (exact, if nothing else is admitted meanwhile), or {@link Result#NEVER} (-1) for a cost outside
 * [1, limit] or a retry time beyond {@link Long#MAX_VALUE}.
 */
public final class SlidingLogLimiter extends WindowFront implements DebitLimiter
{
    /** Offset of the {@link SeqLock} stamp. */
    static final int STAMP_OFFSET = 0;

    /** Offset of the number of permits admitted so far. */
    static final int SEQUENCE_OFFSET = STAMP_OFFSET + SIZE_OF_LONG;

    /** Header length: the two words padded to a cache-line pair ({@link CellLayout#CELL_LENGTH}). */
    static final int HEADER_LENGTH = CellLayout.CELL_LENGTH;

    /** Offset of slot 0 of the ring. */
    static final int RING_OFFSET = HEADER_LENGTH;

    /** Alignment of the buffer and padding unit of its end ({@link CellLayout#CELL_ALIGNMENT}). */
    static final int ALIGNMENT = CellLayout.CELL_ALIGNMENT;

    /** Largest {@code limit}: 2<sup>20</sup> slots (8 MiB). */
    public static final long MAX_LIMIT = 1L << 20;

    private final AtomicBuffer buffer;

    /**
     * @param limit    permits in any window, in [1, {@link #MAX_LIMIT}].
     * @param windowNs window length in ns, in [1, {@link Long#MAX_VALUE}].
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlidingLogLimiter(final long limit, final long windowNs)
    {
        this(limit, windowNs, SystemNanoClock.INSTANCE);
    }

    /**
     * @param limit    permits in any window, in [1, {@link #MAX_LIMIT}].
     * @param windowNs window length in ns, in [1, {@link Long#MAX_VALUE}].
     * @param clock    the clock of the clock forms.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlidingLogLimiter(final long limit, final long windowNs, final NanoClock clock)
    {
        super(limit, MAX_LIMIT, 0, windowNs, clock);
        final int length = BitUtil.align(RING_OFFSET + (int)limit * SIZE_OF_LONG, ALIGNMENT);
        this.buffer = CellArray.allocateBuffer(length, ALIGNMENT);
        buffer.putLongVolatile(STAMP_OFFSET, 0);
    }

    /**
     * A limiter with an initial fill: {@code initialPermits} available at creation, i.e. {@code limit - k}
     * admissions logged at the creation time (0 = empty: nothing until {@code windowNs} after creation; at or
     * above {@code limit} = full, the default).
     *
     * @param limit          permits in any window, in [1, {@link #MAX_LIMIT}].
     * @param windowNs       window length in ns, in [1, {@link Long#MAX_VALUE}].
     * @param clock          the clock of the clock forms, read once here for the creation time.
     * @param initialPermits permits available at creation, &ge; 0.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public SlidingLogLimiter(final long limit, final long windowNs, final NanoClock clock, final long initialPermits)
    {
        this(limit, windowNs, clock);
        final long logged =
            Math.max(0, limit - Bounds.requireRange("initialPermits", initialPermits, 0, Long.MAX_VALUE));
        final long createdNs = clock.nanoTime();
        final long stamp = SeqLock.lock(buffer, STAMP_OFFSET);
        for (int i = 0; i < logged; i++)
        {
            buffer.putLongRelease(slotOffset(i), createdNs);
        }
        buffer.putLongRelease(SEQUENCE_OFFSET, logged);
        SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
    }

    /**
     * @param permits the cost; outside [1, limit] it is {@link Result#NEVER}.
     * @param nowNs   the time of the request, ns.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs)
    {
        return decide(permits, nowNs, true);
    }

    /**
     * @param permits the cost; outside [1, limit] it is {@link Result#NEVER}.
     * @param nowNs   the time, ns.
     * @return what {@link #tryAcquire(long, long)} would answer, from a consistent snapshot, without charging.
     */
    public long peek(final long permits, final long nowNs)
    {
        return decide(permits, nowNs, false);
    }

    /**
     * Charge {@code permits} after the fact, whether or not they fit: {@code min(permits, limit)} copies of the
     * (monotonised) time are logged over the oldest entries, so the debt is at most one window: nothing more is
     * admitted for {@code windowNs} after the debit at the latest. Logging over entries still in the window only
     * makes later decisions stricter, so "at most {@code limit} admissions in any window" still holds.
     *
     * @param permits the cost learned after the fact, &ge; 1 (any size); below 1 it is {@link Result#NEVER}.
     * @param nowNs   the time, ns.
     * @return {@link Result#ADMITTED} if one permit would still be admitted after the charge, else the ns until
     * the oldest logged entry leaves the window ({@link Result#NEVER} if beyond the long range).
     */
    public long debit(final long permits, final long nowNs)
    {
        if (permits < 1)
        {
            return Result.NEVER;
        }
        final AtomicBuffer buffer = this.buffer;
        final long charged = Math.min(permits, limit);
        final long stamp = SeqLock.lock(buffer, STAMP_OFFSET);
        final long admissions = buffer.getLongAcquire(SEQUENCE_OFFSET);
        final long decisionNs = admissions > 0 ?
            SlidingLog.monotonised(nowNs, slot(SlidingLog.slotIndex(admissions, limit - 1, limit))) : nowNs;
        for (long i = 0; i < charged; i++)
        {
            buffer.putLongRelease(slotOffset(SlidingLog.slotIndex(admissions, i, limit)), decisionNs);
        }
        final long after = admissions + charged;
        buffer.putLongRelease(SEQUENCE_OFFSET, after);
        final long code = after < limit ? Result.ADMITTED : oneMore(slot(SlidingLog.slotIndex(after, 0, limit)),
            decisionNs, nowNs);
        SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
        return code;
    }

    private long oneMore(final long oldestNs, final long decisionNs, final long nowNs)
    {
        return SlidingLog.expired(oldestNs, decisionNs, windowNs) ? Result.ADMITTED :
            SlidingLog.retryAfterNs(oldestNs, nowNs, windowNs);
    }

    /**
     * The one decision of {@code tryAcquire} and {@code peek}: an optimistic snapshot under the seqlock; a
     * rejection (or, for a peek, an admission) is answered once the snapshot validates; a charge takes the lock
     * from the very stamp it read.
     */
    private long decide(final long permits, final long nowNs, final boolean charge)
    {
        if (permits < 1 || permits > limit)
        {
            return Result.NEVER;
        }
        final AtomicBuffer buffer = this.buffer;
        while (true)
        {
            final long stamp = SeqLock.awaitStamp(buffer, STAMP_OFFSET);
            final long admissions = buffer.getLongAcquire(SEQUENCE_OFFSET);
            final long decisionNs = admissions > 0 ?
                SlidingLog.monotonised(nowNs, slot(SlidingLog.slotIndex(admissions, limit - 1, limit))) : nowNs;
            if (admissions - limit + permits - 1 >= 0)
            {
                final long oldestNs = slot(SlidingLog.slotIndex(admissions, permits - 1, limit));
                if (!SlidingLog.expired(oldestNs, decisionNs, windowNs))
                {
                    if (SeqLock.validate(buffer, STAMP_OFFSET, stamp))
                    {
                        return SlidingLog.retryAfterNs(oldestNs, nowNs, windowNs);
                    }
                    continue;
                }
            }
            if (!charge)
            {
                if (SeqLock.validate(buffer, STAMP_OFFSET, stamp))
                {
                    return Result.ADMITTED;
                }
                continue;
            }
            if (SeqLock.tryLock(buffer, STAMP_OFFSET, stamp))
            {
                for (long i = 0; i < permits; i++)
                {
                    buffer.putLongRelease(slotOffset(SlidingLog.slotIndex(admissions, i, limit)), decisionNs);
                }
                buffer.putLongRelease(SEQUENCE_OFFSET, admissions + permits);
                SeqLock.unlock(buffer, STAMP_OFFSET, stamp);
                return Result.ADMITTED;
            }
        }
    }

    /**
     * As {@link #tryAcquire(long, long)}, and fill {@code decision} from a consistent snapshot taken just after:
     * remaining = permits whose slots have expired at the decision time (binary search over the sorted ring),
     * reset-after = ns until the newest admission leaves the window, limit = {@code limit}.
     *
     * @param permits  the cost.
     * @param nowNs    the time of the request, ns.
     * @param decision a caller-owned holder, filled in place.
     * @return {@link Result#ADMITTED}, a positive retry-after in ns, or {@link Result#NEVER}.
     */
    public long tryAcquire(final long permits, final long nowNs, final Decision decision)
    {
        final long code = tryAcquire(permits, nowNs);
        while (true)
        {
            final long stamp = SeqLock.awaitStamp(buffer, STAMP_OFFSET);
            final long admissions = buffer.getLongAcquire(SEQUENCE_OFFSET);
            // An empty log has no written slot (firstWritten = limit): the search finds all of them free.
            final long newestNs = slot(SlidingLog.slotIndex(admissions, limit - 1, limit));
            final long decisionNs = SlidingLog.monotonised(nowNs, newestNs);
            long low = Math.max(0, limit - admissions);
            long high = limit;
            while (low < high)
            {
                final long middle = (low + high) >>> 1;
                if (SlidingLog.expired(slot(SlidingLog.slotIndex(admissions, middle, limit)), decisionNs, windowNs))
                {
                    low = middle + 1;
                }
                else
                {
                    high = middle;
                }
            }
            long resetAfterNs = 0;
            if (low < limit)
            {
                final long untilNs = SlidingLog.retryAfterNs(newestNs, nowNs, windowNs);
                resetAfterNs = untilNs < 0 ? Long.MAX_VALUE : untilNs;
            }
            if (SeqLock.validate(buffer, STAMP_OFFSET, stamp))
            {
                decision.setOutcome(code, low, resetAfterNs, limit);
                return code;
            }
        }
    }

    /**
     * @return permits admitted so far (acquire read).
     */
    public long admissions()
    {
        return buffer.getLongAcquire(SEQUENCE_OFFSET);
    }

    /**
     * @param admission an admission number in [admissions() - limit, admissions()).
     * @return its recorded time (for tests and diagnostics; read it while no decision runs).
     */
    public long admissionTimeNs(final long admission)
    {
        return slot((int)(admission % limit));
    }

    private long slot(final int index)
    {
        return buffer.getLongAcquire(slotOffset(index));
    }

    private static int slotOffset(final int index)
    {
        return RING_OFFSET + index * SIZE_OF_LONG;
    }
}
