package dev.cellrate.testing;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A real off-heap {@link UnsafeBuffer} that lets a unit test play "another thread" deterministically: the
 * next compare-and-set/exchange (or the next acquire read of one offset) first runs a test-supplied write,
 * so the caller's CAS sees a value it did not read and must take its retry branch.
 *
 * <p>Test-only: production code keeps its plain {@code UnsafeBuffer}, so the hot path pays nothing for this
 * (there is no hook in the engine; the engine's static cell helpers take any {@code AtomicBuffer}).
 */
public final class InterposingBuffer extends UnsafeBuffer
{
    private Runnable beforeNextCas;
    private Runnable afterNextAcquire;
    private int acquireOffset = -1;
    private int casCount;

    public InterposingBuffer(final int length)
    {
        super(BufferUtil.allocateDirectAligned(length, 128));
    }

    /** The next CAS on this buffer first runs {@code write} (once). */
    public InterposingBuffer beforeNextCas(final Runnable write)
    {
        beforeNextCas = write;
        return this;
    }

    /** The next acquire read at {@code offset} returns its value, then runs {@code write} (once). */
    public InterposingBuffer afterNextAcquire(final int offset, final Runnable write)
    {
        acquireOffset = offset;
        afterNextAcquire = write;
        return this;
    }

    /** CAS attempts made on this buffer so far (a retry shows as more than one per decision). */
    public int casCount()
    {
        return casCount;
    }

    private void interpose()
    {
        casCount++;
        final Runnable write = beforeNextCas;
        if (null != write)
        {
            beforeNextCas = null;
            write.run();
        }
    }

    @Override
    public long compareAndExchangeLong(final int index, final long expectedValue, final long updateValue)
    {
        interpose();
        return super.compareAndExchangeLong(index, expectedValue, updateValue);
    }

    @Override
    public boolean compareAndSetLong(final int index, final long expectedValue, final long updateValue)
    {
        interpose();
        return super.compareAndSetLong(index, expectedValue, updateValue);
    }

    @Override
    public long getLongAcquire(final int index)
    {
        final long value = super.getLongAcquire(index);
        final Runnable write = afterNextAcquire;
        if (index == acquireOffset && null != write)
        {
            afterNextAcquire = null;
            write.run();
        }
        return value;
    }
}
