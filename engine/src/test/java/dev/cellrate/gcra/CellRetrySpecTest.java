package dev.cellrate.gcra;

import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A decision whose CAS loses to another thread decides again on the winner's TAT: it is admitted behind
 * the winner if there is room, and rejected (writing nothing) if the winner took the last room. Driven
 * deterministically: the test loop's {@link CellLoop#stale} step, which runs after each read of the word,
 * performs the other thread's write after the first read, so the first CAS loses.
 */
class CellRetrySpecTest
{
    private static final long T_NS = 100;
    private static final Limit LIMIT = Limit.ofGcra(T_NS, 2 * T_NS); // burst 3

    /** The cell loop with a holder that fills a {@link Decision}, racing one other caller's write. */
    private static final class Racing extends CellLoop<Decision>
    {
        private Runnable write;
        private int attempts;

        /** After the next read of the word, {@code write} runs (once). */
        Racing beforeNextCas(final Runnable write)
        {
            this.write = write;
            return this;
        }

        /** Reads of the word so far: a lost CAS shows as two for one decision. */
        int attempts()
        {
            return attempts;
        }

        protected boolean stale(final Decision decision)
        {
            attempts++;
            final Runnable write = this.write;
            if (null != write)
            {
                this.write = null;
                write.run();
            }
            return false;
        }

        protected long admitted(
            final Decision decision,
            final long tatBeforeNs,
            final long tatAfterNs,
            final long incrementNs,
            final long nowNs)
        {
            if (null != decision)
            {
                decision.set(Result.ADMITTED, Gcra.resetAfterNs(tatAfterNs, nowNs), LIMIT);
            }
            return Result.ADMITTED;
        }

        protected long rejected(final Decision decision, final long code, final long tatNs, final long nowNs)
        {
            if (null != decision)
            {
                decision.set(code, Gcra.resetAfterNs(tatNs, nowNs), LIMIT);
            }
            return code;
        }

        long acquire(final UnsafeBuffer buffer, final long incrementNs, final long nowNs, final Decision decision)
        {
            return charge(buffer.byteArray(), buffer.addressOffset() + 8, incrementNs, LIMIT.ceilingNs(), nowNs,
                decision);
        }
    }

    private static UnsafeBuffer cellAt(final long tatNs)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        buffer.putLongRelease(8, tatNs);
        return buffer;
    }

    @Test
    void aLoserIsAdmittedBehindTheWinnerWhenThereIsRoom()
    {
        final UnsafeBuffer buffer = cellAt(0);
        final Racing loop = new Racing().beforeNextCas(() -> buffer.putLongRelease(8, 1_100));
        assertEquals(Result.ADMITTED, loop.acquire(buffer, T_NS, 1_000, null));
        assertEquals(2, loop.attempts(), "one lost CAS, one retry");
        assertEquals(1_200, buffer.getLongVolatile(8), "charged on top of the winner");
    }

    @Test
    void aLoserIsRejectedWhenTheWinnerTookTheLastRoom()
    {
        final UnsafeBuffer buffer = cellAt(1_100);
        final Racing loop = new Racing().beforeNextCas(() -> buffer.putLongRelease(8, 1_300));
        assertEquals(100, loop.acquire(buffer, T_NS, 1_000, null), "retry after 100 ns");
        assertEquals(2, loop.attempts(), "the lost CAS, then the rejection on the winner's TAT");
        assertEquals(1_300, buffer.getLongVolatile(8), "a rejection writes nothing");
    }

    @Test
    void aLoserWithADecisionSeesTheStateItWasDecidedOn()
    {
        final UnsafeBuffer buffer = cellAt(0);
        final Racing loop = new Racing().beforeNextCas(() -> buffer.putLongRelease(8, 1_100));
        final Decision decision = new Decision();
        assertEquals(Result.ADMITTED, loop.acquire(buffer, T_NS, 1_000, decision));
        assertEquals(2, loop.attempts());
        assertEquals(1, decision.remaining(), "two of three used: the winner's and ours");

        final UnsafeBuffer full = cellAt(1_100);
        final Racing second = new Racing().beforeNextCas(() -> full.putLongRelease(8, 1_300));
        assertEquals(100, second.acquire(full, T_NS, 1_000, decision));
        assertEquals(0, decision.remaining());
        assertEquals(1_300, full.getLongVolatile(8));
    }

    @Test
    void aLoserWhoseRetryWouldOverflowIsNever()
    {
        final UnsafeBuffer buffer = cellAt(0);
        final Racing loop = new Racing().beforeNextCas(() -> buffer.putLongRelease(8, Long.MAX_VALUE - 10));
        final long nowNs = Long.MAX_VALUE - 150;
        assertEquals(Result.NEVER, loop.acquire(buffer, T_NS, nowNs, null));
        assertEquals(2, loop.attempts());
        final Decision decision = new Decision();
        buffer.putLongRelease(8, 0);
        loop.beforeNextCas(() -> buffer.putLongRelease(8, Long.MAX_VALUE - 10));
        assertEquals(Result.NEVER, loop.acquire(buffer, T_NS, nowNs, decision));
        assertEquals(Long.MAX_VALUE - 10, buffer.getLongVolatile(8));
        assertTrue(decision.toString().length() > 0);
    }

    @Test
    void aDebitThatLosesTheRaceIsChargedOnTopOfTheWinner()
    {
        final long ceilingNs = LIMIT.ceilingNs();
        final long debtCeilingNs = Gcra.debtCeilingNs(ceilingNs);
        assertEquals(600, debtCeilingNs, "debt bounded at twice tau + T");
        final UnsafeBuffer buffer = cellAt(1_000);
        final Racing loop = new Racing().beforeNextCas(() -> buffer.putLongRelease(8, 1_300)); // took the burst
        loop.update(buffer.byteArray(), buffer.addressOffset() + 8, 2 * T_NS, debtCeilingNs, 1_000, null);
        final long code = Gcra.retryAfterNs(buffer.getLongVolatile(8), 1_000, T_NS, ceilingNs);
        assertEquals(2, loop.attempts());
        assertEquals(1_500, buffer.getLongVolatile(8), "both charges kept: the winner's and the debit");
        assertEquals(300, code, "a one-permit request conforms again once the lag is back to tau");
        assertEquals(Result.NEVER, AtomicGcra.debit(buffer, 8, 0, ceilingNs, debtCeilingNs, T_NS, 1_000));
    }

    @Test
    void aDebitNeverPassesItsCeilingAndNeverLowersTheTat()
    {
        final UnsafeBuffer buffer = cellAt(1_000);
        final long ceilingNs = LIMIT.ceilingNs();
        AtomicGcra.debit(buffer, 8, 10_000, ceilingNs, 600, T_NS, 1_000);
        assertEquals(1_600, buffer.getLongVolatile(8), "capped at now + debt ceiling");
        buffer.putLongRelease(8, 5_000);
        AtomicGcra.debit(buffer, 8, T_NS, ceilingNs, 600, T_NS, 1_000);
        assertEquals(5_000, buffer.getLongVolatile(8), "a TAT already past the cap stays where it is");
    }

    @Test
    void peekAnswersWithoutCharging()
    {
        final UnsafeBuffer buffer = cellAt(1_100);
        assertEquals(Result.ADMITTED, AtomicGcra.peek(buffer, 8, T_NS, LIMIT.ceilingNs(), 1_000));
        assertEquals(100, AtomicGcra.peek(buffer, 8, 3 * T_NS, LIMIT.ceilingNs(), 1_000));
        assertEquals(Result.NEVER, AtomicGcra.peek(buffer, 8, 0, LIMIT.ceilingNs(), 1_000));
        assertEquals(1_100, buffer.getLongVolatile(8));
    }
}
