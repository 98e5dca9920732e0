package dev.cellrate.lock;

import org.agrona.concurrent.AtomicBuffer;

/**
 * A sequence lock over one {@code long} word in an {@link AtomicBuffer}, as static functions (no objects), for
 * states that do not fit one word (the sliding log's ring, the colour markers' two buckets).
 * <p>
 * Protocol: the word is a stamp, even when free, odd while a writer holds it. A writer takes it with a CAS
 * from an even stamp {@code s} to {@code s + 1}, writes, and releases it by storing {@code s + 2}, so every
 * write raises the stamp (no ABA). A reader may read optimistically: {@link #awaitStamp} (an even stamp), read
 * the data with acquire loads, then {@link #validate}: if the stamp is unchanged, no writer ran in between and
 * the reads are one consistent snapshot. A reader that decides to write after an optimistic read calls
 * {@link #tryLock} with the stamp it read: success proves the snapshot is still current, so the decision
 * stands.
 * <p>
 * Memory ordering: {@code tryLock} is a volatile CAS (acquire + release); data is written with release
 * stores after it and read with acquire loads; {@code unlock} is a release store that pairs with the next
 * {@code awaitStamp}/{@code tryLock} (volatile loads/CAS). A data load that sees a write of an unfinished
 * writer is followed (acquire) by a stamp load that sees the writer's odd or later stamp, so validation fails.
 * <p>
 * Progress: blocking. A writer holds the word for a few stores (no allocation, no call that can throw); if
 * its thread is descheduled while holding it, others spin ({@link Thread#onSpinWait()}) until it resumes.
 */
public final class SeqLock
{
    private SeqLock()
    {
    }

    /**
     * @param buffer the buffer holding the stamp word.
     * @param offset the stamp word's offset (8-byte aligned).
     * @return the current stamp once it is even (no writer inside).
     */
    public static long awaitStamp(final AtomicBuffer buffer, final int offset)
    {
        long stamp = buffer.getLongVolatile(offset);
        while ((stamp & 1) != 0)
        {
            Thread.onSpinWait();
            stamp = buffer.getLongVolatile(offset);
        }
        return stamp;
    }

    /**
     * A consistent read of one word guarded by the lock: waits out a writer, reads, and retries if a writer
     * started meanwhile. Allocation-free.
     *
     * @param buffer      the buffer holding the stamp word and the value.
     * @param stampOffset the stamp word's offset.
     * @param valueOffset the value's offset.
     * @return the value as of a moment no writer was inside.
     */
    public static long read(final AtomicBuffer buffer, final int stampOffset, final int valueOffset)
    {
        while (true)
        {
            final long stamp = awaitStamp(buffer, stampOffset);
            final long value = buffer.getLongAcquire(valueOffset);
            if (validate(buffer, stampOffset, stamp))
            {
                return value;
            }
        }
    }

    /**
     * @param buffer the buffer holding the stamp word.
     * @param offset the stamp word's offset.
     * @param stamp  an even stamp from {@link #awaitStamp}.
     * @return true iff no writer has started since {@code stamp} was read.
     */
    public static boolean validate(final AtomicBuffer buffer, final int offset, final long stamp)
    {
        return buffer.getLongVolatile(offset) == stamp;
    }

    /**
     * @param buffer the buffer holding the stamp word.
     * @param offset the stamp word's offset.
     * @param stamp  an even stamp from {@link #awaitStamp}.
     * @return true iff the lock was taken and no writer ran since {@code stamp}; then call
     * {@link #unlock(AtomicBuffer, int, long)} with {@code stamp}.
     */
    public static boolean tryLock(final AtomicBuffer buffer, final int offset, final long stamp)
    {
        return buffer.compareAndSetLong(offset, stamp, stamp + 1);
    }

    /**
     * @param buffer the buffer holding the stamp word.
     * @param offset the stamp word's offset.
     * @return the even stamp the lock was taken from; pass it to {@link #unlock}.
     */
    public static long lock(final AtomicBuffer buffer, final int offset)
    {
        while (true)
        {
            final long stamp = awaitStamp(buffer, offset);
            if (tryLock(buffer, offset, stamp))
            {
                return stamp;
            }
        }
    }

    /**
     * @param buffer the buffer holding the stamp word.
     * @param offset the stamp word's offset.
     * @param stamp  the even stamp the lock was taken from.
     */
    public static void unlock(final AtomicBuffer buffer, final int offset, final long stamp)
    {
        buffer.putLongRelease(offset, stamp + 2);
    }
}
