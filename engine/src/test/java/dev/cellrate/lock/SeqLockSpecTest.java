package dev.cellrate.lock;

import dev.cellrate.testing.InterposingBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A seqlock reader never returns a value that a writer changed while it was reading: it reads again.
 * The writer is interposed deterministically, right after the reader's read of the value.
 */
class SeqLockSpecTest
{
    private static final int STAMP = 0;
    private static final int VALUE = 8;

    @Test
    void aReadOverlappingAWriteIsRetriedAndReturnsTheNewValue()
    {
        final InterposingBuffer buffer = new InterposingBuffer(64);
        buffer.putLongRelease(VALUE, 1);
        buffer.afterNextAcquire(VALUE, () ->
        {
            final long stamp = SeqLock.lock(buffer, STAMP);
            buffer.putLongRelease(VALUE, 2);
            SeqLock.unlock(buffer, STAMP, stamp);
        });
        assertEquals(2, SeqLock.read(buffer, STAMP, VALUE), "the torn read (1) is discarded");
    }

    @Test
    void validateFailsOnceAWriterHasLockedOrFinished()
    {
        final InterposingBuffer buffer = new InterposingBuffer(64);
        final long stamp = SeqLock.awaitStamp(buffer, STAMP);
        assertTrue(SeqLock.validate(buffer, STAMP, stamp));
        final long locked = SeqLock.lock(buffer, STAMP);
        assertEquals(stamp, locked);
        assertFalse(SeqLock.validate(buffer, STAMP, stamp), "a writer holds the lock");
        assertFalse(SeqLock.tryLock(buffer, STAMP, stamp), "one writer at a time");
        SeqLock.unlock(buffer, STAMP, locked);
        assertFalse(SeqLock.validate(buffer, STAMP, stamp), "a writer came and went");
        assertEquals(stamp + 2, SeqLock.awaitStamp(buffer, STAMP));
    }

    @Test
    void aWriterThatLosesTheLockWaitsAndTakesTheNextStamp()
    {
        final InterposingBuffer buffer = new InterposingBuffer(64);
        buffer.beforeNextCas(() ->
        {
            // another writer locks and unlocks between our stamp read and our CAS
            final long other = buffer.getLongVolatile(STAMP);
            buffer.putLongRelease(STAMP, other + 2);
        });
        assertEquals(2, SeqLock.lock(buffer, STAMP));
        assertEquals(3, buffer.getLongVolatile(STAMP), "held: odd");
        SeqLock.unlock(buffer, STAMP, 2);
        assertEquals(4, buffer.getLongVolatile(STAMP));
    }

    @Test
    void aReaderWaitsForAWriterInProgress() throws Exception
    {
        final InterposingBuffer buffer = new InterposingBuffer(64);
        final long stamp = SeqLock.lock(buffer, STAMP);
        buffer.putLongRelease(VALUE, 7);
        final Thread writer = new Thread(() ->
        {
            try
            {
                Thread.sleep(50);
            }
            catch (final InterruptedException ignored)
            {
                Thread.currentThread().interrupt();
            }
            buffer.putLongRelease(VALUE, 9);
            SeqLock.unlock(buffer, STAMP, stamp);
        });
        writer.start();
        assertEquals(9, SeqLock.read(buffer, STAMP, VALUE), "never the value under the open lock");
        writer.join();
    }
}
