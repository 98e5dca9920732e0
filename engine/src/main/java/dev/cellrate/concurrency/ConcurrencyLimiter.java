package dev.cellrate.concurrency;

import dev.cellrate.layout.CellArray;
import dev.cellrate.Result;
import dev.cellrate.layout.CellLayout;
import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;

import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * A thread-safe, lock-free, allocation-free concurrency limit: at most {@code maxInFlight} requests in flight.
 * <p>
 * Algorithm: a rate limit bounds the arrival rate &lambda;, but by Little's law the number in flight is
 * {@code L = &lambda; W}: when the downstream slows ({@code W} grows) the same rate holds more requests and
 * more resources, which a rate limiter cannot see. Stripe runs a concurrent-request limiter beside its rate
 * limiter for exactly this reason [1]. {@link #tryAcquire()} admits iff fewer than {@code maxInFlight} are in
 * flight and returns a <em>ticket</em>; the caller hands the ticket to {@link #release(long)} when the request
 * ends (in a {@code finally}).
 * <p>
 * Layout: its own direct buffer, a padded in-flight counter then one word per slot (encoding in
 * {@link Tickets}):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                      in-flight count                          |  IN_FLIGHT_OFFSET = 0
 *  +---------------------------------------------------------------+
 *  |          padding to HEADER_LENGTH = CellLayout.CELL_LENGTH    |
 *  +---------------------------------------------------------------+
 *  |          slot word i: [generation][held]                      |  SLOTS_OFFSET = HEADER_LENGTH, 8 bytes a slot
 *  ...                                                           ...
 * </pre>
 * Concurrency contract: an acquire first reserves capacity with a CAS {@code c -> c + 1} that only succeeds
 * while {@code c < maxInFlight} (its linearisation point; a rejection reads the counter and writes nothing),
 * then claims a free slot with a CAS {@code free(g) -> held(g)}. A release CASes the slot
 * {@code held(g) -> free(g + 1)} and only if that succeeds decrements the counter. Hence:
 * <ul>
 *     <li>in flight never exceeds {@code maxInFlight}: every increment is guarded by {@code c < N};</li>
 *     <li>the count never goes negative and is never decremented twice for one acquire: each decrement
 *     follows the one successful release CAS of a slot claimed after an increment;</li>
 *     <li>a release without a matching outstanding ticket (second release, forged or stale ticket, a negative
 *     code passed back by mistake) returns false and raises no capacity;</li>
 *     <li>a reserved acquirer always finds a free slot: held slots plus reserved acquirers never exceed the
 *     count, which is at most {@code N} (a slot is freed before the count drops), so its scan terminates.</li>
 * </ul>
 * A ticket that is never released leaks one permit forever (as a lost semaphore permit would): release in a
 * {@code finally}.
 * <p>
 * [1] P. Tarjan, "Scaling your API with rate limiters", Stripe engineering blog, 2017.
 */
public final class ConcurrencyLimiter
{
    /** Offset of the in-flight count. */
    static final int IN_FLIGHT_OFFSET = 0;

    /** Header length: the count padded to one cell of {@link CellLayout} (a cache-line pair). */
    static final int HEADER_LENGTH = CellLayout.CELL_LENGTH;

    /** Offset of slot 0. */
    static final int SLOTS_OFFSET = HEADER_LENGTH;

    /** Alignment of the buffer and padding unit of its end. */
    static final int ALIGNMENT = CellLayout.CELL_ALIGNMENT;

    private final AtomicBuffer buffer;
    private final int maxInFlight;

    /**
     * @param maxInFlight N, in [1, {@link Tickets#MAX_SLOTS}].
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public ConcurrencyLimiter(final int maxInFlight)
    {
        if (maxInFlight < 1 || maxInFlight > Tickets.MAX_SLOTS)
        {
            throw new IllegalArgumentException(
                "maxInFlight must be in [1, " + Tickets.MAX_SLOTS + "] but was " + maxInFlight);
        }
        this.maxInFlight = maxInFlight;
        final int length = BitUtil.align(SLOTS_OFFSET + maxInFlight * SIZE_OF_LONG, ALIGNMENT);
        this.buffer = CellArray.allocateBuffer(length, ALIGNMENT);
        buffer.putLongVolatile(IN_FLIGHT_OFFSET, 0);
    }

    /**
     * Try to start one request.
     *
     * @return a ticket &ge; 0 (admitted; pass it to {@link #release(long)} exactly once), or
     * {@link Result#CONCURRENCY_FULL} (-3) if {@code maxInFlight} requests are in flight.
     */
    public long tryAcquire()
    {
        final AtomicBuffer buffer = this.buffer;
        long inFlight = buffer.getLongAcquire(IN_FLIGHT_OFFSET);
        while (true)
        {
            if (!Tickets.admits(inFlight, maxInFlight))
            {
                return Result.CONCURRENCY_FULL;
            }
            final long witness = buffer.compareAndExchangeLong(IN_FLIGHT_OFFSET, inFlight, inFlight + 1);
            if (witness == inFlight)
            {
                break;
            }
            inFlight = witness;
        }
        int slot = (int)(inFlight % maxInFlight);
        while (true)
        {
            final int offset = slotOffset(slot);
            final long word = buffer.getLongVolatile(offset);
            if (!Tickets.isHeld(word) && buffer.compareAndSetLong(offset, word, word | 1))
            {
                return Tickets.ticket(Tickets.generationOf(word), slot);
            }
            slot = slot + 1 == maxInFlight ? 0 : slot + 1;
        }
    }

    /**
     * End the request of {@code ticket}.
     *
     * @param ticket a ticket from {@link #tryAcquire()}.
     * @return true iff the ticket was outstanding and is now released; false (and nothing changes) for a
     * second release, a stale or forged ticket, or a negative result code.
     */
    public boolean release(final long ticket)
    {
        if (ticket < 0)
        {
            return false;
        }
        final int slot = Tickets.slotOf(ticket);
        if (slot >= maxInFlight)
        {
            return false;
        }
        final long generation = Tickets.generationOfTicket(ticket);
        if (!buffer.compareAndSetLong(slotOffset(slot), Tickets.heldWord(generation), Tickets.releasedWord(generation)))
        {
            return false;
        }
        buffer.getAndAddLong(IN_FLIGHT_OFFSET, -1);
        return true;
    }

    /**
     * @return requests in flight now (acquire read), in [0, maxInFlight].
     */
    public long inFlight()
    {
        return buffer.getLongAcquire(IN_FLIGHT_OFFSET);
    }

    /**
     * @return N.
     */
    public int maxInFlight()
    {
        return maxInFlight;
    }

    private static int slotOffset(final int slot)
    {
        return SLOTS_OFFSET + slot * SIZE_OF_LONG;
    }
}
